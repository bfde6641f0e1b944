//===- KilnDialect.h - The kiln dialect --------------------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_KILN_KILNDIALECT_H
#define KILN_DIALECTS_KILN_KILNDIALECT_H

#include "dialects/Kiln/KernelTable.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Kiln/KilnOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Kiln/KilnAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Kiln/KilnOps.h.inc"

namespace kiln::dialect {
/// A C identifier made from `text` (invalid characters become '_', a leading digit gets
/// one before it): a model's name from a file name.
std::string toCIdentifier(llvm::StringRef text);

/// Whether `type` is a buffer a kernel can take: static, contiguous (row-major, at any
/// offset: the call's address adds it), of `rank` (-1: any), of `element`s.
/// kiln.kernel_call's verifier and the passes that make calls agree on it.
bool isKernelBuffer(mlir::Type type, int64_t rank, KernelElement element = KernelElement::F32);
/// Whether `type` is an element of the kind `element`.
bool isKernelElement(mlir::Type type, KernelElement element);
/// How messages name an element kind, with a space after it: "f32 ", "" for Any.
llvm::StringRef kernelElementName(KernelElement element);

/// The attribute `kiln-lower-partitions` puts on each partition's function: the device it
/// was placed on, as the placement wrote it ("/job:localhost/replica:0/task:0/device:GPU:0").
inline constexpr llvm::StringLiteral kDeviceAttrName = "kiln.device";

/// The attribute `kiln-gpu-host` puts on a GPU partition's function: the bytes of device
/// memory its arena takes (scratch, weights, inputs, outputs), as it asks the runtime for
/// them on the first call. It stays on the function through the LLVM dialect, where
/// `kiln compile --stats` reads it.
inline constexpr llvm::StringLiteral kGpuArenaBytesAttrName = "kiln.gpu_arena_bytes";

/// Whether `device` (a full device name, as placement writes it) is a GPU.
bool isGpuDevice(llvm::StringRef device);

/// Whether `op` is, or is inside, a function placed on a GPU (kDeviceAttrName).
bool isOnGpu(mlir::Operation *op);

/// Makes kiln.send, kiln.recv, kiln.check, kiln.attention and kiln.kernel bufferizable
/// (One-Shot Bufferize).
void registerBufferizableOpInterfaces(mlir::DialectRegistry &registry);
} // namespace kiln::dialect

#endif // KILN_DIALECTS_KILN_KILNDIALECT_H
