//===- RegisterReduction.cpp - reductions carried in a register, a thread each -===//
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Matchers.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <functional>

using namespace mlir;

namespace kiln::codegen::gpu {

bool fitsRegisterReduction(linalg::GenericOp op) {
  int64_t parallel = op.getNumParallelLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (op.getNumReductionLoops() == 0 || parallel == 0 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    if ((int64_t(d) < parallel) != (it == utils::IteratorType::parallel))
      return false; // parallelFirst put the parallel dimensions first
  return true;
}

/// Puts an scf.parallel over `op`'s parallel dimensions in its place, each iteration of
/// which computes one output element with the reductions as loops carrying it in a
/// register (loaded once before them, stored once after: a depthwise convolution's or a
/// pool's window, a reduction along an outer dimension), erases `op` and returns the
/// loop; `op` must be one fitsRegisterReduction takes (not an op with no reduction, no
/// parallel dimension, more than one output or dynamic sizes). linalg's own loops would
/// load and store the output in every reduction step: the pointers may alias for all the
/// device compiler knows, so each step's store goes to memory. The same sums in the same
/// order (a product of 16-bit floats summed in f32: isHalfProduct). With `initValue`, the
/// output's starting value is that instead of what it holds.
scf::ParallelOp buildRegisterReduction(IRRewriter &rewriter, linalg::GenericOp op,
                                       Value initValue) {
  assert(fitsRegisterReduction(op) && "not a register reduction (fitsRegisterReduction)");
  int64_t parallel = op.getNumParallelLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto index = [&](OpBuilder &b, int64_t v) { return indexConstant(b, loc, v); };
  OpOperand *init = op.getDpsInitOperand(0);
  Block &region = op.getRegion().front();
  bool wide = isHalfProduct(op); // sums in f32
  auto loop = parallelLoop(
      rewriter, loc, ArrayRef<int64_t>(ranges).take_front(parallel),
      [&](OpBuilder &b, Location, ValueRange parallelIvs) {
        SmallVector<Value> ivs(parallelIvs);
        for (int64_t d = parallel; d < int64_t(ranges.size()); ++d)
          ivs.push_back(index(b, 0)); // the output's map reads no reduction dimension
        SmallVector<Value> at = applyMap(b, loc, op.getMatchingIndexingMap(init), ivs);
        Value acc = initValue ? initValue : memref::LoadOp::create(b, loc, init->get(), at);
        if (wide)
          acc = widen(b, loc, acc);
        // The reduction loops, outermost first, the value carried through them.
        std::function<Value(OpBuilder &, int64_t, Value)> nest = [&](OpBuilder &nb, int64_t d,
                                                                     Value carried) -> Value {
          if (d == int64_t(ranges.size()) && wide) {
            auto load = [&](OpOperand *in) {
              return memref::LoadOp::create(nb, loc, in->get(),
                                            applyMap(nb, loc, op.getMatchingIndexingMap(in), ivs));
            };
            return halfProductStep(nb, loc, load(op.getDpsInputOperand(0)),
                                   load(op.getDpsInputOperand(1)), carried);
          }
          if (d == int64_t(ranges.size())) {
            IRMapping map;
            cloneBody(nb, loc, op, ivs, carried, map);
            return map.lookupOrDefault(region.getTerminator()->getOperand(0));
          }
          auto forOp = scf::ForOp::create(nb, loc, index(nb, 0), index(nb, ranges[d]), index(nb, 1),
                                          ValueRange{carried});
          OpBuilder inner = OpBuilder::atBlockBegin(forOp.getBody());
          ivs[d] = forOp.getInductionVar();
          Value next = nest(inner, d + 1, forOp.getRegionIterArgs()[0]);
          scf::YieldOp::create(inner, loc, next);
          return forOp.getResult(0);
        };
        Value result = nest(b, parallel, acc);
        if (wide)
          result =
              arith::TruncFOp::create(b, loc, getElementTypeOrSelf(init->get().getType()), result);
        memref::StoreOp::create(b, loc, result, init->get(), at);
        scf::ReduceOp::create(b, loc);
      });
  rewriter.eraseOp(op);
  return loop;
}

} // namespace kiln::codegen::gpu
