//===- Outline.h - generated loops in functions of their own ---------*- C++ -*-===//
//
// kiln-lower-parallel-loops and kiln-lower-outline-loops move loop nests into functions of
// their own. Both pass the buffers as bare pointers and tell LLVM which of them are
// disjoint: inside the model function every buffer is a view of the one scratch arena, and
// LLVM's dependence analysis gives up on two views of one object whose distance it cannot
// compute (a row's statistics against the row), so such loops stayed scalar. A buffer
// argument is `llvm.noalias` when its bytes overlap no other argument's; two views of the
// same bytes with the same type become one argument.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_PASSES_LOWER_OUTLINE_H
#define KILN_PASSES_LOWER_OUTLINE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace kiln::lower {

/// Marks a function that holds outlined loops (it is not outlined from again).
inline constexpr llvm::StringLiteral kOutlinedAttr = "kiln.outlined";

/// Whether `type` passes as a bare pointer (static shape, strides and offset), as the
/// LLVM lowering's bare-pointer calling convention needs.
bool isBarePointer(mlir::Type type);

/// What outlined code receives from the function it leaves.
struct OutlinedOperands {
  /// Constants it uses, cloned into the new function.
  llvm::SmallVector<mlir::Operation *> constants;
  /// One value per argument: bare-pointer buffers and scalars.
  llvm::SmallVector<mlir::Value> arguments;
  /// Per argument: a buffer whose bytes no other argument's overlap.
  llvm::SmallVector<bool> noalias;
  /// Each value used (a view of bytes another argument already passes, with the same
  /// type, included) to its argument.
  llvm::DenseMap<mlir::Value, unsigned> argumentOf;
};

/// The operands outlined code needs for the values `used` (defined outside it), or failure
/// when one of them is a buffer that cannot pass as a bare pointer.
mlir::FailureOr<OutlinedOperands> collectOutlinedOperands(llvm::ArrayRef<mlir::Value> used);

/// Creates a private function `name` after `after`, with the arguments `leading` followed
/// by those of `operands` (the disjoint buffers `llvm.noalias`), marked kOutlinedAttr.
/// Clones the constants into its entry block and maps them and every used value in `map`;
/// the builder is left at the end of the entry block, which has no terminator yet.
mlir::func::FuncOp createOutlinedFunction(mlir::OpBuilder &builder, mlir::Operation *after,
                                          mlir::Location loc, llvm::StringRef name,
                                          mlir::TypeRange leading, const OutlinedOperands &operands,
                                          mlir::IRMapping &map);

/// Whether two buffers may share bytes: false only when both extents are known (views of
/// one root at static offsets, or of distinct objects) and disjoint, or, with
/// `distinctArguments`, when they are views of two different block arguments (a model's
/// feeds, results, state and scratch arena are different buffers).
bool buffersMayOverlap(mlir::Value a, mlir::Value b, bool distinctArguments = false);

/// Whether slice i of `a` along `dimA` and slice j of `b` along `dimB` share bytes only
/// when i == j: both view the same bytes from the same first slice, with the same distance
/// between slices, none longer than that distance (a [1, 128] view along dimension 1 and
/// its [1, 128, 1] expansion along dimension 1 are; a [256, 256] view along dimension 0 and
/// its transpose along dimension 1 are not).
bool slicesAligned(mlir::Value a, unsigned dimA, mlir::Value b, unsigned dimB);

/// Whether two buffers are the same bytes seen through the same type.
bool sameBuffer(mlir::Value a, mlir::Value b);

/// Lets the additions and multiplications that accumulate a reduction's result be
/// reassociated, so LLVM may keep partial sums in vector lanes. Each result still depends
/// only on the code, not on how the iterations are split across threads.
void reassociateReductions(mlir::linalg::GenericOp op);

} // namespace kiln::lower

#endif // KILN_PASSES_LOWER_OUTLINE_H
