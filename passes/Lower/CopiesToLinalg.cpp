//===- CopiesToLinalg.cpp - strided copies become row copies or linalg.copy ---===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln::lower {
#define GEN_PASS_DEF_COPIESTOLINALGPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

/// How many trailing dimensions of `type` form one dense block (0 for dynamic shapes).
int64_t denseTrailingDims(MemRefType type) {
  if (!type.hasStaticShape())
    return 0;
  int64_t dims = 0;
  while (dims < type.getRank() && type.areTrailingDimsContiguous(dims + 1))
    ++dims;
  return dims;
}

/// Whether a memref.copy of `type` becomes a memcpy (finalize-memref-to-llvm's test).
bool isDense(MemRefType type) {
  return type.getLayout().isIdentity() || (type.hasStaticShape() && type.getNumElements() > 0 &&
                                           memref::isStaticShapeAndContiguousRowMajor(type));
}

// Blocks of fewer elements are copied by loops (a memcpy call per element or two costs more).
constexpr int64_t kMinBlock = 8;

/// Copies `source` to `target` one dense block of their `inner` trailing dimensions at a
/// time: loops over the outer dimensions around a memref.copy of two dense views, which
/// becomes a memcpy.
void copyRows(OpBuilder &b, Location loc, Value source, Value target, int64_t inner) {
  auto type = cast<MemRefType>(source.getType());
  int64_t rank = type.getRank(), outer = rank - inner;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(b.getIndexAttr(d < outer ? 1 : type.getDimSize(d)));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> bounds;
  for (int64_t d = 0; d < outer; ++d)
    bounds.push_back(type.getDimSize(d) == 1
                         ? Value()
                         : arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)));
  OpBuilder::InsertionGuard guard(b);
  for (int64_t d = 0; d < outer; ++d) {
    if (!bounds[d])
      continue;
    auto loop = scf::ForOp::create(b, loc, zero, bounds[d], one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    offsets[d] = loop.getInductionVar();
  }
  auto row = [&](Value v) -> Value {
    auto t = cast<MemRefType>(v.getType());
    auto rowType = memref::SubViewOp::inferRankReducedResultType(type.getShape().drop_front(outer),
                                                                 t, offsets, sizes, strides);
    return memref::SubViewOp::create(b, loc, cast<MemRefType>(rowType), v, offsets, sizes, strides);
  };
  Value from = row(source);
  Value to = row(target);
  memref::CopyOp::create(b, loc, from, to);
}

struct CopiesToLinalgPass : kiln::lower::impl::CopiesToLinalgPassBase<CopiesToLinalgPass> {
  void runOnOperation() override {
    getOperation().walk([](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!source || !target)
        return;
      if (isDense(source) && isDense(target))
        return;
      OpBuilder b(copy);
      int64_t inner = std::min(denseTrailingDims(source), denseTrailingDims(target));
      int64_t block = 1;
      for (int64_t size : source.getShape().take_back(inner))
        block *= size;
      if (inner == 0 || inner == source.getRank() || block < kMinBlock)
        linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
      else
        copyRows(b, copy.getLoc(), copy.getSource(), copy.getTarget(), inner);
      copy.erase();
    });
  }
};

} // namespace
