//===- FillBorders.cpp - a padded buffer's fill covers only its border --------===//
#include "passes/Lower/Outline.h"
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::lower {
#define GEN_PASS_DEF_FILLBORDERSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

/// A fill of a buffer: the value written and the buffer.
struct Fill {
  Value value, buffer;
};

/// `op` as a fill of a memref: linalg.fill, or a linalg.map without inputs whose body
/// yields a value defined outside it (what bufferizing tensor.pad leaves).
std::optional<Fill> matchFill(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    Value buffer = fill.getOutputs().front();
    if (!isa<MemRefType>(buffer.getType()))
      return std::nullopt;
    return Fill{fill.value(), buffer};
  }
  auto map = dyn_cast<linalg::MapOp>(op);
  if (!map || !map.getInputs().empty() || !isa<MemRefType>(map.getInit().getType()))
    return std::nullopt;
  Block &body = map.getMapper().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1 || &body.front() != yield.getOperation())
    return std::nullopt;
  Value value = yield.getOperand(0);
  if (!value.getParentRegion()->isProperAncestor(&map.getMapper()))
    return std::nullopt;
  return Fill{value, map.getInit()};
}

/// The copy that overwrites a box inside `buffer` right after `fill`: the next op with
/// memory effects, a memref.copy into a unit-stride subview of `buffer` with static
/// offsets and sizes, from a buffer that does not overlap `buffer`.
memref::CopyOp interiorCopy(Operation *fill, Value buffer) {
  for (Operation *op = fill->getNextNode(); op; op = op->getNextNode()) {
    auto copy = dyn_cast<memref::CopyOp>(op);
    if (!copy) {
      if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
        return {};
      continue;
    }
    auto view = copy.getTarget().getDefiningOp<memref::SubViewOp>();
    if (!view || view.getSource() != buffer || !view.hasUnitStride() ||
        !view.getSourceType().hasStaticShape() ||
        llvm::any_of(view.getStaticOffsets(), ShapedType::isDynamic) ||
        llvm::any_of(view.getStaticSizes(), ShapedType::isDynamic) || view.getDroppedDims().any() ||
        kiln::lower::buffersMayOverlap(copy.getSource(), buffer, /*distinctArguments=*/true))
      return {};
    return copy;
  }
  return {};
}

struct FillBordersPass : kiln::lower::impl::FillBordersPassBase<FillBordersPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, Fill>> fills;
    getOperation().walk([&](Operation *op) {
      if (std::optional<Fill> fill = matchFill(op))
        fills.push_back({op, *fill});
    });
    for (auto [op, fill] : fills) {
      Value value = fill.value, buffer = fill.buffer;
      memref::CopyOp copy = interiorCopy(op, buffer);
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (!copy) {
        // A whole-buffer fill as linalg.fill, which the parallel-loops pass splits.
        if (isa<linalg::MapOp>(op)) {
          linalg::FillOp::create(b, loc, value, buffer);
          op->erase();
        }
        continue;
      }
      // The border as slabs: along each dimension d in turn, the parts before and after
      // the copied box, spanning the box in the dimensions before d and everything in
      // those after it.
      auto view = copy.getTarget().getDefiningOp<memref::SubViewOp>();
      ArrayRef<int64_t> full = view.getSourceType().getShape();
      ArrayRef<int64_t> offsets = view.getStaticOffsets(), sizes = view.getStaticSizes();
      int64_t rank = full.size();
      auto slab = [&](int64_t d, int64_t begin, int64_t end) {
        if (begin >= end ||
            llvm::any_of(ArrayRef<int64_t>(sizes).take_front(d), [](int64_t n) { return n == 0; }))
          return;
        SmallVector<int64_t> at(rank, 0), extent(full), ones(rank, 1);
        for (int64_t e = 0; e < d; ++e) {
          at[e] = offsets[e];
          extent[e] = sizes[e];
        }
        at[d] = begin;
        extent[d] = end - begin;
        Value part = memref::SubViewOp::create(b, loc, buffer, at, extent, ones);
        linalg::FillOp::create(b, loc, value, part);
      };
      for (int64_t d = 0; d < rank; ++d) {
        slab(d, 0, offsets[d]);
        slab(d, offsets[d] + sizes[d], full[d]);
      }
      op->erase();
    }
  }
};

} // namespace
