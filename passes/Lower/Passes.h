//===- Passes.h - lowering passes ------------------------------------*- C++ -*-===//
#ifndef KILN_PASSES_LOWER_PASSES_H
#define KILN_PASSES_LOWER_PASSES_H

#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::lower {

/// Name of the function attribute holding the scratch arena size in bytes.
inline constexpr llvm::StringLiteral kScratchBytesAttr = "kiln.scratch_bytes";
/// Name of the function attribute holding the arena size one slot per buffer would need.
inline constexpr llvm::StringLiteral kScratchNaiveBytesAttr = "kiln.scratch_naive_bytes";

/// Attributes of a function compiled as one partition of `kiln.partition_of` (see
/// kiln-lower-partitions): its index among them, and the positions in the entry function's
/// signature of the inputs it takes and of the outputs it writes, in its own order.
inline constexpr llvm::StringLiteral kPartitionOfAttr = "kiln.partition_of";
inline constexpr llvm::StringLiteral kPartitionIndexAttr = "kiln.partition_index";
inline constexpr llvm::StringLiteral kPartitionInputsAttr = "kiln.partition_inputs";
inline constexpr llvm::StringLiteral kPartitionOutputsAttr = "kiln.partition_outputs";
/// Module attribute: the tensor names of kiln.send/kiln.recv, sorted; calls of the runtime
/// refer to a key by its position here.
inline constexpr llvm::StringLiteral kRendezvousKeysAttr = "kiln.rendezvous_keys";

/// Module attribute: the model's checks (kiln-lower-checks), an array of dictionaries
/// {message, dims, unsigned}; a check's number in the status is its position + 1.
inline constexpr llvm::StringLiteral kChecksAttr = "kiln.checks";
/// Function attribute: its last argument is the status its checks record failures in, a
/// memref<KILN_CHECK_STATUS_WORDS x i64> (kiln/runtime/abi.h).
inline constexpr llvm::StringLiteral kStatusArgumentAttr = "kiln.status_argument";

/// Marks the f32 depthwise convolution generic that kiln-lower-kernel-calls turns into a
/// kernel call: [stride h, stride w, dilation h, dilation w, pad top, pad left].
inline constexpr llvm::StringLiteral kDepthwiseAttr = "kiln.depthwise";
/// Marks the f32 3x3 Conv2D generic (unit strides and dilations) that kiln-lower-kernel-calls
/// turns into a call of the Winograd kernel: [pad top, pad left].
inline constexpr llvm::StringLiteral kConv3x3Attr = "kiln.conv2d_3x3";
/// Marks the f32 Conv2D generic of small window depth that kiln-lower-kernel-calls turns
/// into a call of the direct convolution kernel: [stride h, stride w, dilation h, dilation w,
/// pad top, pad left].
inline constexpr llvm::StringLiteral kConvDirectAttr = "kiln.conv2d_direct";
/// Marks the f32 MaxPool generic that kiln-lower-kernel-calls turns into a kernel call:
/// [window h, window w, stride h, stride w, pad top, pad left].
inline constexpr llvm::StringLiteral kMaxPoolAttr = "kiln.max_pool";

/// Reports every tf op that kiln-lower-tf-to-linalg cannot lower (an unfed Placeholder, a
/// shape still unknown), at its node, all at once (kiln-lower-freeze-interface runs it).
llvm::LogicalResult checkLowerable(mlir::ModuleOp module);

#define GEN_PASS_DECL
#include "passes/Lower/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Lower/Passes.h.inc"

} // namespace kiln::lower

#endif // KILN_PASSES_LOWER_PASSES_H
