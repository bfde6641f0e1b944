//===- CallOperands.h - declaring runtime calls, reading their operands ---*- C++ -*-===//
//
// Kernel calls (kiln-lower-kernel-calls) pass buffers by address (index_cast of
// memref.extract_aligned_pointer_as_index) and sizes and flags as constants; the passes
// that rewrite those calls read them back with these. The passes that call the runtime
// declare its functions with declareRuntimeFunction.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_PASSES_LOWER_CALLOPERANDS_H
#define KILN_PASSES_LOWER_CALLOPERANDS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

#include <optional>

namespace kiln::lower {

/// Operand positions of kiln_kernel_matmul_f32 and kiln_kernel_matmul_epilogue_f32
/// (kiln/kernels/matmul.h); the epilogue's arguments start at kMmEpilogue.
namespace matmul_operands {
enum : unsigned { kMmA = 0, kMmB, kMmC, kMmM, kMmN, kMmK, kMmFlags, kMmEpilogue };
} // namespace matmul_operands

/// Declares the runtime function `name` (private, no results) at the start of `module`,
/// unless it is declared already.
inline void declareRuntimeFunction(mlir::ModuleOp module, llvm::StringRef name,
                                   llvm::ArrayRef<mlir::Type> args) {
  if (module.lookupSymbol<mlir::func::FuncOp>(name))
    return;
  mlir::OpBuilder b(module.getContext());
  b.setInsertionPointToStart(module.getBody());
  mlir::func::FuncOp::create(b, module.getLoc(), name, b.getFunctionType(args, {}))
      .setPrivate();
}

/// The value of an integer constant operand.
inline std::optional<int64_t> constantInt(mlir::Value v) {
  llvm::APInt value;
  if (!mlir::matchPattern(v, mlir::m_ConstantInt(&value)))
    return std::nullopt;
  return value.getSExtValue();
}

/// The buffer whose address `v` is (index_cast of extract_aligned_pointer_as_index), seen
/// through reshapes to the buffer they view; null if `v` is not such an address.
inline mlir::Value addressedBuffer(mlir::Value v) {
  auto cast = v.getDefiningOp<mlir::arith::IndexCastOp>();
  auto ptr = cast ? cast.getIn().getDefiningOp<mlir::memref::ExtractAlignedPointerAsIndexOp>()
                  : mlir::memref::ExtractAlignedPointerAsIndexOp();
  if (!ptr)
    return mlir::Value();
  mlir::Value buffer = ptr.getSource();
  while (mlir::Operation *def = buffer.getDefiningOp()) {
    if (!mlir::isa<mlir::memref::CollapseShapeOp, mlir::memref::ExpandShapeOp>(def))
      break;
    buffer = def->getOperand(0);
  }
  return buffer;
}

} // namespace kiln::lower

#endif // KILN_PASSES_LOWER_CALLOPERANDS_H
