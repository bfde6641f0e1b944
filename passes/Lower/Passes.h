//===- Passes.h - lowering passes ------------------------------------*- C++ -*-===//
#ifndef KILN_PASSES_LOWER_PASSES_H
#define KILN_PASSES_LOWER_PASSES_H

#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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
/// Marks any other f32 Conv2D generic (but 1x1 with unit strides, a plain product), which
/// kiln-lower-kernel-calls turns into a call of the kernel that multiplies the windows
/// gathered from the input by the filter: [stride h, stride w, dilation h, dilation w, pad
/// top, pad left].
inline constexpr llvm::StringLiteral kConvGemmAttr = "kiln.conv2d_gemm";
/// Marks an f32 matrix-product generic of a CPU function that kiln-lower-kernel-calls leaves
/// as loops, too small for a kernel call (`min-flops`): `kiln compile --stats` counts them.
inline constexpr llvm::StringLiteral kSmallProductAttr = "kiln.small_product";
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
