//===- Kernels.cpp - a GPU partition's linalg ops as gpu.launch kernels --------===//
//
// The pass kiln-gpu-kernels: the linalg ops of a GPU partition's functions, each as one
// kernel that selectStrategy (KernelStrategy.h) chooses how to make, and the loops a
// lowering wrote itself.
//
//===----------------------------------------------------------------------------===//
#include "codegen/GPU/Passes.h"

#include "codegen/GPU/KernelStrategy.h"
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallBitVector.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_KERNELSPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;
using namespace kiln::codegen::gpu;

namespace {

struct KernelsPass : kiln::codegen::gpu::impl::KernelsPassBase<KernelsPass> {
  using KernelsPassBase::KernelsPassBase;

  void runOnOperation() override {
    initValues.clear();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !kiln::dialect::isOnGpu(func))
        continue;
      if (failed(lower(func)))
        return signalPassFailure();
      if (contract)
        allowContraction(func);
    }
  }

  /// Lets the device compiler fuse each multiplication in `func`'s kernels with the
  /// addition or subtraction it feeds (`fma.rn`: one rounding instead of two, and one
  /// instruction), as nvcc does by default: the kernels' float multiplications, additions
  /// and subtractions get arith's `contract` flag (NVVM writes `mul.rn` and `add.rn`
  /// otherwise, which ptxas may not fuse).
  static void allowContraction(func::FuncOp func) {
    func.walk([](mlir::gpu::LaunchOp launch) {
      launch.walk([](Operation *op) {
        if (!isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op))
          return;
        auto math = cast<arith::ArithFastMathInterface>(op);
        arith::FastMathFlags flags =
            math.getFastMathFlagsAttr().getValue() | arith::FastMathFlags::contract;
        op->setAttr(math.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(op->getContext(), flags));
      });
    });
  }

  LogicalResult lower(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    // Copies are linalg ops too, so every op that touches memory is one (those inside a
    // loop a lowering wrote, such as TensorList scatters, become loops in its kernel).
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, ValueRange{copy.getSource()},
                                                  ValueRange{copy.getTarget()});
    }
    for (Block &block : func.getBody()) {
      for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
        // A fill of a reduction's output right before it becomes the reduction's starting
        // value (buildRegisterReduction): no kernel writes it first.
        if (auto fill = dyn_cast<linalg::FillOp>(&op)) {
          if (linalg::GenericOp reduction = filledReduction(fill)) {
            initValues[reduction] = fill.getInputs()[0];
            rewriter.eraseOp(fill);
            ++numFoldedFills;
            continue;
          }
        }
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op)) {
          if (failed(launch(rewriter, linalgOp)))
            return failure();
          continue;
        }
        if (op.getNumRegions() == 0 && isMemoryEffectFree(&op))
          continue; // index arithmetic, views and constants: on the host
        if (auto call = dyn_cast<kiln::dialect::KernelCallOp>(&op)) {
          // A GPU library's call or a transfer to another partition, called by the host.
          const kiln::dialect::KernelInfo *info = kiln::dialect::lookupKernel(call.getKernel());
          if (info && kiln::dialect::libraryInfo(info->library).onGpu)
            continue;
        }
        if (auto loop = dyn_cast<scf::ParallelOp>(&op)) {
          if (failed(mapParallel(rewriter, loop)))
            return failure();
          continue;
        }
        // Loop nests a lowering wrote by hand (TopK's selection): one thread runs them.
        if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op) && runsOnDevice(&op)) {
          if (failed(serial(op.getLoc(), {&op})))
            return failure();
          continue;
        }
        return op.emitOpError() << "has no GPU lowering (in '" << func.getSymName()
                                << "', placed on " << kiln::dialect::kDeviceAttrName << " "
                                << func->getAttr(kiln::dialect::kDeviceAttrName) << ")";
      }
    }
    return success();
  }

  /// The reduction `fill` initialises, if the fill can be its starting value instead: the
  /// next op touching memory is a generic with reductions whose only output is the
  /// filled buffer, written once per element (its map a permutation of its parallel
  /// dimensions over the whole buffer), read by none of its inputs or its body, and that
  /// is neither a product (buildTiledProduct, buildTensorCoreProduct; a Hopper one,
  /// buildWarpgroupProduct, takes it) nor reduced along an input's innermost dimension
  /// (buildBlockReduction), which read the output's starting value from memory.
  linalg::GenericOp filledReduction(linalg::FillOp fill) {
    Value buffer = fill.getOutputs()[0];
    Operation *next = fill->getNextNode();
    while (next && isMemoryEffectFree(next) && !isa<linalg::LinalgOp>(next))
      next = next->getNextNode();
    auto op = dyn_cast_or_null<linalg::GenericOp>(next);
    if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getDpsInits()[0] != buffer || op.getNumReductionLoops() == 0 ||
        op.getNumParallelLoops() == 0)
      return nullptr;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape() || llvm::any_of(ranges, ShapedType::isDynamic))
      return nullptr;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    llvm::SmallBitVector seen(ranges.size());
    for (auto [i, e] : llvm::enumerate(out.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || seen.test(dim.getPosition()) ||
          iterators[dim.getPosition()] != utils::IteratorType::parallel ||
          ranges[dim.getPosition()] != type.getShape()[i])
        return nullptr;
      seen.set(dim.getPosition());
    }
    if (int64_t(seen.count()) != op.getNumParallelLoops())
      return nullptr;
    Block &region = op.getRegion().front();
    bool indexed = !region.getOps<linalg::IndexOp>().empty();
    // Product-shaped: only Hopper's kernel starts its sums from a value (the others read
    // the output), when neither operand is the output.
    if (op.getNumDpsInputs() == 2 && !indexed)
      return warpgroupMma && fitsWarpgroupProduct(op) &&
                     llvm::none_of(op.getDpsInputs(), [&](Value input) { return input == buffer; })
                 ? op
                 : nullptr;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto last = op.getMatchingIndexingMap(input).getResults();
      auto dim = last.empty() ? nullptr : dyn_cast<AffineDimExpr>(last.back());
      if (input->get() == buffer ||
          (dim && iterators[dim.getPosition()] != utils::IteratorType::parallel))
        return nullptr;
    }
    bool readsBuffer = false;
    region.walk(
        [&](Operation *inner) { readsBuffer |= llvm::is_contained(inner->getOperands(), buffer); });
    return readsBuffer ? nullptr : op;
  }

  /// Replaces `op` with one kernel launch computing it, made as selectStrategy chooses.
  LogicalResult launch(IRRewriter &rewriter, linalg::LinalgOp op) {
    if (op->getNumResults() != 0)
      return op->emitOpError() << "on tensors left in a GPU partition (not bufferized)";
    // The starting value of its output, when the fill before it was folded into it.
    Value initValue = initValues.lookup(op.getOperation());
    initValues.erase(op.getOperation());
    // The parallel dimensions outermost (a Mean over H and W of NHWC is parallel in N and
    // C): the conversion makes an scf.parallel only of the leading parallel loops, so a
    // reduction before a parallel dimension would leave that dimension to each thread.
    if (FailureOr<linalg::LinalgOp> moved = parallelFirst(rewriter, op); failed(moved))
      return failure();
    else
      op = *moved;
    StrategyChoice choice = selectStrategy(op, strategyOptions(), bool(initValue));
    if (printStrategies)
      op->emitRemark() << "kernel strategy: " << strategyName(choice.strategy) << ": "
                       << choice.reason;
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    switch (choice.strategy) {
    case KernelStrategy::WarpgroupProduct:
      buildWarpgroupProduct(rewriter, generic, initValue, vectorise);
      ++numKernels;
      ++numWarpgroupProducts;
      return success();
    case KernelStrategy::TensorCoreProduct:
      buildTensorCoreProduct(rewriter, generic, vectorise);
      ++numKernels;
      ++numTensorCoreProducts;
      return success();
    case KernelStrategy::TiledProduct:
      buildTiledProduct(rewriter, generic, vectorise);
      ++numKernels;
      ++numTiledProducts;
      return success();
    case KernelStrategy::BlockReduction:
      buildBlockReduction(rewriter, generic);
      ++numKernels;
      ++numBlockReductions;
      return success();
    case KernelStrategy::VectorisedElementwise:
      ++numVectorised;
      return mapParallel(rewriter, buildVectorisedElementwise(rewriter, generic));
    case KernelStrategy::RegisterReduction:
      ++numRegisterReductions;
      return mapParallel(rewriter, buildRegisterReduction(rewriter, generic, initValue));
    case KernelStrategy::ParallelLoops:
      if (initValue) // filledReduction promised buildRegisterReduction
        return op->emitOpError() << "lost the fill folded into it (a GPU kernels bug)";
      return parallelLoops(rewriter, op);
    }
    llvm_unreachable("unknown kernel strategy");
  }

  /// The pass's options that selectStrategy reads.
  StrategyOptions strategyOptions() const {
    StrategyOptions options;
    options.warpgroupMma = warpgroupMma;
    options.tensorCores = tensorCores;
    options.allowTf32 = allowTf32;
    options.reassociate = reassociate;
    options.vectorise = vectorise;
    return options;
  }

  /// Replaces `op` with linalg's parallel loops, which mapParallel makes one kernel, or
  /// with a kernel of one thread running the loops or the body that the conversion makes
  /// of an op with no parallel dimension.
  LogicalResult parallelLoops(IRRewriter &rewriter, linalg::LinalgOp op) {
    Block *block = op->getBlock();
    Operation *before = op->getPrevNode();
    Operation *after = op->getNextNode();
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
      return op->emitOpError() << "cannot become loops for a GPU kernel";
    rewriter.eraseOp(op);
    // The ops the conversion made: constants, then one scf.parallel, or (no parallel
    // dimension) the reduction loops or the body itself.
    SmallVector<Operation *> made;
    for (Operation *it = before ? before->getNextNode() : &block->front(); it != after;
         it = it->getNextNode())
      made.push_back(it);
    scf::ParallelOp parallel;
    for (Operation *m : made)
      if (auto p = dyn_cast<scf::ParallelOp>(m))
        parallel = p;
    if (parallel)
      return mapParallel(rewriter, parallel);
    if (!made.empty())
      return serial(loc, made);
    return success();
  }

  /// `op`, or a generic op in its place with its parallel dimensions first (each group in
  /// its order) when a reduction comes before one.
  FailureOr<linalg::LinalgOp> parallelFirst(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> order;
    for (auto [d, it] : llvm::enumerate(iterators))
      if (it == utils::IteratorType::parallel)
        order.push_back(d);
    size_t parallel = order.size();
    for (auto [d, it] : llvm::enumerate(iterators))
      if (it != utils::IteratorType::parallel)
        order.push_back(d);
    bool sorted = true;
    for (size_t i = 0; i < order.size(); ++i)
      sorted &= order[i] == i;
    if (sorted || parallel == 0)
      return op;
    rewriter.setInsertionPoint(op);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> general = linalg::generalizeNamedOp(rewriter, op);
      if (failed(general))
        return op->emitOpError() << "cannot be reordered for a GPU kernel";
      generic = *general;
    }
    FailureOr<linalg::GenericOp> moved = linalg::interchangeGenericOp(rewriter, generic, order);
    if (failed(moved))
      return generic->emitOpError() << "cannot be reordered for a GPU kernel";
    ++numReordered;
    return cast<linalg::LinalgOp>(moved->getOperation());
  }

  /// Whether a kernel can run `op`: nothing in it calls, allocates or is a kiln op.
  static bool runsOnDevice(Operation *op) {
    WalkResult walk = op->walk([](Operation *inner) {
      if (isa<CallOpInterface, memref::AllocOp, memref::DeallocOp>(inner) ||
          isa_and_nonnull<kiln::dialect::KilnDialect>(inner->getDialect()))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return !walk.wasInterrupted();
  }

  /// Moves `ops` (consecutive, in order) into a kernel of one thread.
  LogicalResult serial(Location loc, ArrayRef<Operation *> ops) {
    OpBuilder b(ops.front());
    auto kernel = launch1d(b, loc, 1, 1);
    Block &body = kernel.getBody().front();
    b.setInsertionPointToStart(&body);
    auto terminator = mlir::gpu::TerminatorOp::create(b, loc);
    for (Operation *op : ops)
      op->moveBefore(terminator);
    // The linalg ops inside (a copy in a loop) as loops of the one thread.
    SmallVector<linalg::LinalgOp> nested;
    kernel.walk([&](linalg::LinalgOp op) { nested.push_back(op); });
    IRRewriter rewriter(kernel.getContext());
    for (linalg::LinalgOp op : nested) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToLoops(rewriter, op)))
        return op->emitOpError() << "cannot become loops in a GPU kernel";
      rewriter.eraseOp(op);
    }
    ++numKernels;
    ++numSerial;
    return success();
  }

  /// Starting values of reductions whose fill was folded away (filledReduction).
  DenseMap<Operation *, Value> initValues;

  /// One thread per iteration of `loop`, taken in row-major order.
  LogicalResult mapParallel(IRRewriter &rewriter, scf::ParallelOp loop) {
    Location loc = loop.getLoc();
    if (loop.getNumResults() != 0)
      return loop.emitOpError() << "with reductions cannot become a GPU kernel yet";
    SmallVector<int64_t> lower, counts, steps;
    int64_t total = 1;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return loop.emitOpError() << "with dynamic bounds cannot become a GPU kernel yet";
      lower.push_back(*l);
      steps.push_back(*s);
      counts.push_back(std::max<int64_t>(0, (*u - *l + *s - 1) / *s));
      total *= counts.back();
    }
    if (total == 0) {
      rewriter.eraseOp(loop);
      return success();
    }
    int64_t threads = blockThreads(total);
    int64_t blocks = (total + threads - 1) / threads;
    rewriter.setInsertionPoint(loop);
    auto index = [&](OpBuilder &b, int64_t v) { return indexConstant(b, loc, v); };
    auto kernel = launch1d(rewriter, loc, blocks, threads);
    Block &body = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    Value id = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, kernel.getBlockIds().x, index(b, threads)).getResult(),
        kernel.getThreadIds().x);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id, index(b, total));
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    mlir::gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
    // The last dimension varies fastest.
    IRMapping mapping;
    SmallVector<Value> indices = splitIndex(b, loc, id, counts);
    for (int64_t d = int64_t(counts.size()) - 1; d >= 0; --d) {
      Value i = indices[d];
      if (steps[d] != 1)
        i = arith::MulIOp::create(b, loc, i, index(b, steps[d]));
      if (lower[d] != 0)
        i = arith::AddIOp::create(b, loc, i, index(b, lower[d]));
      mapping.map(loop.getInductionVars()[d], i);
    }
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    rewriter.eraseOp(loop);
    ++numKernels;
    return success();
  }
};

} // namespace
