//===- Lifetimes.h - when each buffer of a bufferized function is live -----*- C++ -*-===//
//
// The scratch planner and its verifier both need each buffer's live range in a function
// whose body is one block of ops in execution order. A buffer is live from the top-level op
// that defines it to the last top-level op that uses it or anything derived from it: a
// view, a reshape, its address as an integer (what kernel calls take), or a value loaded
// from it inside a loop body. Derivation is followed conservatively: every result of an op
// that uses a buffer derives from that buffer, and so does every result of an scf.if or
// scf.while whose regions yield it. A buffer allocated inside such an op's regions lives
// at least as long as the op: its slot is not shared with anything else the op uses.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_PASSES_LOWER_LIFETIMES_H
#define KILN_PASSES_LOWER_LIFETIMES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln::lower {

/// Live range of a buffer as indices of top-level ops of the function body, inclusive.
struct Lifetime {
  int64_t first = 0, last = 0;
  bool overlaps(const Lifetime &other) const { return first <= other.last && other.first <= last; }
};

/// Bytes of a static buffer of `type` (the planner's slot size before alignment).
inline int64_t bufferBytes(mlir::MemRefType type) {
  return type.getNumElements() * static_cast<int64_t>((type.getElementTypeBitWidth() + 7) / 8);
}

/// The lifetime of each of `buffers` (values defined in `func`'s body, at any depth).
llvm::SmallVector<Lifetime> computeLifetimes(mlir::func::FuncOp func,
                                             llvm::ArrayRef<mlir::Value> buffers);

} // namespace kiln::lower

#endif // KILN_PASSES_LOWER_LIFETIMES_H
