//===- BlockReduction.cpp - a reduction along rows with a block per row -------===//
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln::codegen::gpu {

namespace {

/// A reduction's combining op, `combine(value, accumulator)`, as gpu.all_reduce takes it.
struct Combiner {
  Operation *op; // in the generic op's body, yielded
  Value value;   // its operand that is not the accumulator
  mlir::gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// A reduction buildBlockReduction takes: its combiner, its loops' sizes (the parallel
/// ones first), the parallel ones' and the reduced ones' elements.
struct BlockReductionMatch {
  Combiner combiner;
  SmallVector<int64_t> ranges;
  int64_t parallel, outputs, reduced;
};

} // namespace

/// The combiner of a generic op with one output whose body yields `combine(v, out)` for a
/// float `out` used nowhere else: add, mul, max or min in one of arith's forms.
static std::optional<Combiner> combinerOf(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Block &body = op.getRegion().front();
  BlockArgument acc = body.getArgument(op.getNumDpsInputs());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto type = dyn_cast<FloatType>(acc.getType());
  if (!type || !type.isF32() || yield.getNumOperands() != 1 || !acc.hasOneUse())
    return std::nullopt;
  Operation *combine = yield.getOperand(0).getDefiningOp();
  if (!combine || combine->getBlock() != &body || combine->getNumOperands() != 2)
    return std::nullopt;
  Value lhs = combine->getOperand(0), rhs = combine->getOperand(1);
  if ((lhs == acc) == (rhs == acc))
    return std::nullopt;
  using K = mlir::gpu::AllReduceOperation;
  const llvm::APFloat inf = llvm::APFloat::getInf(type.getFloatSemantics());
  const llvm::APFloat negInf = llvm::APFloat::getInf(type.getFloatSemantics(), true);
  std::optional<std::pair<K, llvm::APFloat>> kind =
      llvm::TypeSwitch<Operation *, std::optional<std::pair<K, llvm::APFloat>>>(combine)
          .Case([&](arith::AddFOp) { return std::make_pair(K::ADD, llvm::APFloat(0.0f)); })
          .Case([&](arith::MulFOp) { return std::make_pair(K::MUL, llvm::APFloat(1.0f)); })
          .Case([&](arith::MaximumFOp) { return std::make_pair(K::MAXIMUMF, negInf); })
          .Case([&](arith::MinimumFOp) { return std::make_pair(K::MINIMUMF, inf); })
          .Case([&](arith::MaxNumFOp) { return std::make_pair(K::MAXNUMF, negInf); })
          .Case([&](arith::MinNumFOp) { return std::make_pair(K::MINNUMF, inf); })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    return std::nullopt;
  return Combiner{combine, lhs == acc ? rhs : lhs, kind->first, FloatAttr::get(type, kind->second)};
}

/// `op` as a reduction buildBlockReduction takes, or nothing.
static std::optional<BlockReductionMatch> matchBlockReduction(linalg::GenericOp op) {
  std::optional<Combiner> combiner = combinerOf(op);
  if (!combiner)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t parallel = op.getNumParallelLoops(), outputs = 1, reduced = 1;
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    (int64_t(d) < parallel ? outputs : reduced) *= range;
  }
  // The reduction's elements must lie side by side: some input's innermost index is a
  // reduction dimension (the parallel ones come first: parallelFirst), and no input that
  // varies along the reduction has a parallel one innermost (a matrix product's right
  // operand, which a thread per output element reads coalesced).
  bool innermost = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    bool alongReduction = false;
    for (AffineExpr e : map.getResults())
      for (int64_t d = parallel; d < int64_t(ranges.size()); ++d)
        alongReduction |= e.isFunctionOfDim(d);
    if (!alongReduction)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!dim || int64_t(dim.getPosition()) < parallel)
      return std::nullopt;
    innermost = true;
  }
  if (!innermost || reduced < 32 || outputs == 0 || outputs > INT32_MAX)
    return std::nullopt;
  return BlockReductionMatch{*combiner, std::move(ranges), parallel, outputs, reduced};
}

bool fitsBlockReduction(linalg::GenericOp op) { return matchBlockReduction(op).has_value(); }

/// Replaces `op`, a reduction along its operands' innermost dimension (a row's sum or
/// maximum: softmax, layer norm, a mean over the last axis), with a kernel of one block
/// per output element whose threads each combine a strided share of the reduction
/// (neighbouring threads reading neighbouring elements), then the block's shares
/// (gpu.all_reduce: warp shuffles), thread 0 combining the total into the output.
/// `op` must be one fitsBlockReduction takes (for another op a thread per output element
/// suits it).
void buildBlockReduction(IRRewriter &rewriter, linalg::GenericOp op) {
  std::optional<BlockReductionMatch> match = matchBlockReduction(op);
  assert(match && "not a block reduction (fitsBlockReduction)");
  const Combiner &combiner = match->combiner;
  ArrayRef<int64_t> ranges = match->ranges;
  int64_t parallel = match->parallel, outputs = match->outputs, reduced = match->reduced;
  int64_t threads = blockThreads(reduced);

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto index = [&](OpBuilder &b, int64_t v) { return indexConstant(b, loc, v); };
  auto kernel = launch1d(rewriter, loc, outputs, threads);
  Block &body = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  // The output's indices from the block, the reduction's from the loop below.
  SmallVector<Value> ivs = splitIndex(b, loc, kernel.getBlockIds().x, ranges.take_front(parallel));
  Value thread = kernel.getThreadIds().x;
  Value identity = arith::ConstantOp::create(b, loc, combiner.identity);
  auto loop = scf::ForOp::create(b, loc, thread, index(b, reduced), index(b, threads),
                                 ValueRange{identity});
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    ivs.append(splitIndex(lb, loc, loop.getInductionVar(), ranges.drop_front(parallel)));
    IRMapping map;
    cloneBody(lb, loc, op, ivs, loop.getRegionIterArgs()[0], map, combiner.op);
    Value next = lb.clone(*combiner.op, map)->getResult(0);
    scf::YieldOp::create(lb, loc, next);
  }
  Value total =
      mlir::gpu::AllReduceOp::create(
          b, loc, loop.getResult(0),
          mlir::gpu::AllReduceOperationAttr::get(b.getContext(), combiner.kind), b.getUnitAttr())
          .getResult();
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, index(b, 0));
  auto write = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  mlir::gpu::TerminatorOp::create(b, loc);
  {
    OpBuilder wb = OpBuilder::atBlockBegin(&write.getThenRegion().front());
    OpOperand *init = op.getDpsInitOperand(0);
    for (int64_t d = parallel; d < int64_t(ranges.size()); ++d)
      ivs[d] = index(wb, 0); // the output's map reads no reduction dimension
    SmallVector<Value> at = applyMap(wb, loc, op.getMatchingIndexingMap(init), ivs);
    Value old = memref::LoadOp::create(wb, loc, init->get(), at);
    IRMapping map;
    Block &region = op.getRegion().front();
    map.map(region.getArgument(op.getNumDpsInputs()), old);
    map.map(combiner.value, total);
    Value updated = wb.clone(*combiner.op, map)->getResult(0);
    memref::StoreOp::create(wb, loc, updated, init->get(), at);
  }
  rewriter.eraseOp(op);
}

} // namespace kiln::codegen::gpu
