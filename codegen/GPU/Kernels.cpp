//===- Kernels.cpp - a GPU partition's linalg ops as gpu.launch kernels --------===//
#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_KERNELSPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

constexpr int64_t kBlockThreads = 256;

/// The threads of a block for `n` iterations: 256, or `n` rounded up to a warp if smaller.
int64_t blockThreads(int64_t n) {
  return n >= kBlockThreads ? kBlockThreads : std::max<int64_t>(32, (n + 31) / 32 * 32);
}

struct KernelsPass : kiln::codegen::gpu::impl::KernelsPassBase<KernelsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && kiln::dialect::isOnGpu(func) && failed(lower(func)))
        return signalPassFailure();
  }

  LogicalResult lower(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    // Copies are linalg ops too, so every op that touches memory is one.
    SmallVector<memref::CopyOp> copies(func.getBody().getOps<memref::CopyOp>());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, ValueRange{copy.getSource()},
                                                  ValueRange{copy.getTarget()});
    }
    for (Block &block : func.getBody()) {
      for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op)) {
          if (failed(launch(rewriter, linalgOp)))
            return failure();
          continue;
        }
        if (op.getNumRegions() == 0 && isMemoryEffectFree(&op))
          continue; // index arithmetic, views and constants: on the host
        if (auto call = dyn_cast<kiln::dialect::KernelCallOp>(&op)) {
          // The runtime's GPU layer (a transfer to another partition), called by the host.
          const kiln::dialect::KernelInfo *info = kiln::dialect::lookupKernel(call.getKernel());
          if (info && info->library == kiln::dialect::KernelLibrary::GpuRuntime)
            continue;
        }
        if (auto loop = dyn_cast<scf::ParallelOp>(&op)) {
          if (failed(mapParallel(rewriter, loop)))
            return failure();
          continue;
        }
        // Loop nests a lowering wrote by hand (TopK's selection): one thread runs them.
        if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op) && runsOnDevice(&op)) {
          serial(op.getLoc(), {&op});
          continue;
        }
        return op.emitOpError() << "has no GPU lowering (in '" << func.getSymName()
                                << "', placed on " << kiln::dialect::kDeviceAttrName << " "
                                << func->getAttr(kiln::dialect::kDeviceAttrName) << ")";
      }
    }
    return success();
  }

  /// Replaces `op` with one kernel launch computing it.
  LogicalResult launch(IRRewriter &rewriter, linalg::LinalgOp op) {
    if (op->getNumResults() != 0)
      return op->emitOpError() << "on tensors left in a GPU partition (not bufferized)";
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
      serial(loc, made);
    return success();
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
  void serial(Location loc, ArrayRef<Operation *> ops) {
    OpBuilder b(ops.front());
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto kernel = mlir::gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    Block &body = kernel.getBody().front();
    b.setInsertionPointToStart(&body);
    auto terminator = mlir::gpu::TerminatorOp::create(b, loc);
    for (Operation *op : ops)
      op->moveBefore(terminator);
    ++numKernels;
    ++numSerial;
  }

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
    auto index = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value one = index(rewriter, 1);
    auto kernel = mlir::gpu::LaunchOp::create(rewriter, loc, index(rewriter, blocks), one, one,
                                              index(rewriter, threads), one, one);
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
    Value rest = id;
    for (int64_t d = int64_t(counts.size()) - 1; d >= 0; --d) {
      Value i = rest;
      if (d > 0) {
        i = arith::RemUIOp::create(b, loc, rest, index(b, counts[d]));
        rest = arith::DivUIOp::create(b, loc, rest, index(b, counts[d]));
      }
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
