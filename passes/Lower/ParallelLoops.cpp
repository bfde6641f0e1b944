//===- ParallelLoops.cpp - large elementwise ops run on the thread pool -------===//
#include "passes/Lower/Outline.h"
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::lower {
#define GEN_PASS_DEF_PARALLELLOOPSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

/// How a linalg op splits across threads: along `loop`, its first loop of two or more
/// iterations (every loop before it has one), which is parallel.
struct SplitPlan {
  unsigned loop;
  int64_t items;    // iterations of `loop`
  int64_t elements; // iterations of the whole op
};

std::optional<SplitPlan> splitPlan(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp, linalg::FillOp, linalg::CopyOp>(op.getOperation()) ||
      !op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      !isa<func::FuncOp>(op->getParentOp()))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SplitPlan plan{0, 0, 1};
  std::optional<unsigned> loop;
  for (auto [i, r] : llvm::enumerate(ranges)) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    plan.elements *= r;
    if (!loop && r >= 2)
      loop = i;
  }
  if (!loop || plan.elements == 0 ||
      op.getIteratorTypesArray()[*loop] != utils::IteratorType::parallel)
    return std::nullopt;
  plan.loop = *loop;
  plan.items = ranges[*loop];
  return plan;
}

/// Where an operand's map puts the split loop: the one result that is that loop, none
/// (std::nullopt: every iteration of the loop reads the same elements), or -1 when it is
/// mixed into other results (an iteration's elements are not a slice of their own).
std::optional<int> rowPosition(AffineMap map, unsigned loop) {
  std::optional<int> position;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (!e.isFunctionOfDim(loop))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (position || !dim)
      return -1;
    position = int(i);
  }
  return position;
}

/// A group of linalg ops, one after the other in a block, split together: each thread
/// runs all of them on its iterations of the split loop, one iteration after the other,
/// so that a row's intermediate results (a softmax's maximum, exponentials and sum; a
/// layer normalisation's mean and variance) are still in cache when the next op reads them.
/// Ops join while every buffer an op writes is read and written by the others only as
/// the same slice of the same iteration (or not at all).
struct Group {
  SmallVector<linalg::LinalgOp> ops;
  SmallVector<Operation *> between; // pure ops (views, constants) among them
  unsigned loop = 0;
  int64_t items = 0, elements = 0;

  /// Whether `op`, split by `plan`, may join.
  bool accepts(linalg::LinalgOp op, const SplitPlan &plan) const {
    if (!ops.empty() && (plan.loop != loop || plan.items != items))
      return false;
    if (!writesConsistently(op, op, plan.loop))
      return false;
    for (linalg::LinalgOp member : ops)
      if (!writesConsistently(member, op, loop) || !writesConsistently(op, member, loop))
        return false;
    return true;
  }

  void add(linalg::LinalgOp op, const SplitPlan &plan) {
    loop = plan.loop;
    items = plan.items;
    elements += plan.elements;
    ops.push_back(op);
  }

private:
  /// Whether every buffer `writer` writes is, in `reader`, both split along `loop`,
  /// either untouched or accessed slice by slice, iteration i of the split loop touching
  /// only the bytes that iteration i of `writer` writes (for the op itself: an input that
  /// is its output is read through the same map).
  static bool writesConsistently(linalg::LinalgOp writer, linalg::LinalgOp reader, unsigned loop) {
    // Buffers the reader's body loads from directly (a window op's unpadded input, read at
    // computed positions) are read anywhere: none may be one the writer writes.
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(reader->getRegions(), captured);
    for (OpOperand &init : writer.getDpsInitsMutable()) {
      std::optional<int> written = rowPosition(writer.getMatchingIndexingMap(&init), loop);
      if (!written || *written < 0)
        return false;
      for (OpOperand &use : reader->getOpOperands()) {
        if (&use == &init || !isa<MemRefType>(use.get().getType()) ||
            !kiln::lower::buffersMayOverlap(use.get(), init.get(),
                                            /*distinctArguments=*/true))
          continue;
        AffineMap map = reader.getMatchingIndexingMap(&use);
        if (writer == reader) {
          if (!kiln::lower::sameBuffer(use.get(), init.get()) ||
              map != writer.getMatchingIndexingMap(&init))
            return false;
          continue;
        }
        std::optional<int> read = rowPosition(map, loop);
        if (!read || *read < 0 ||
            !kiln::lower::slicesAligned(use.get(), *read, init.get(), *written))
          return false;
      }
      for (Value value : captured)
        if (isa<MemRefType>(value.getType()) &&
            kiln::lower::buffersMayOverlap(value, init.get(), /*distinctArguments=*/true))
          return false;
    }
    return true;
  }
};

struct ParallelLoopsPass : kiln::lower::impl::ParallelLoopsPassBase<ParallelLoopsPass> {
  using ParallelLoopsPassBase::ParallelLoopsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal() || func->hasAttr(kiln::lower::kOutlinedAttr))
        continue;
      SmallVector<Group> groups;
      for (Block &block : func.getBody()) {
        Group current;
        SmallVector<Operation *> pending; // pure ops since the group's last op
        auto close = [&] {
          if (current.elements >= minElements)
            groups.push_back(std::move(current));
          current = Group();
          pending.clear();
        };
        for (Operation &op : block) {
          auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
          std::optional<SplitPlan> plan;
          if (linalgOp)
            plan = splitPlan(linalgOp);
          if (plan) {
            if (!current.accepts(linalgOp, *plan)) {
              close();
              if (!current.accepts(linalgOp, *plan))
                continue;
            }
            llvm::append_range(current.between, pending);
            pending.clear();
            current.add(linalgOp, *plan);
          } else if (!current.ops.empty() && op.getNumRegions() == 0 && isMemoryEffectFree(&op)) {
            pending.push_back(&op);
          } else {
            close();
          }
        }
        close();
      }
      unsigned count = 0;
      for (Group &group : groups)
        if (succeeded(split(func, group, count)))
          numSplit += group.ops.size();
      // Tiling's bounds and offsets, and constants only the moved bodies used.
      if (!groups.empty())
        func.walk([](arith::ConstantOp c) {
          if (c->use_empty())
            c->erase();
        });
    }
  }

  /// Tiles each op of `group` by one iteration of its split loop into an scf.parallel, puts
  /// their bodies into the first one's, in order, then moves that loop's body into a
  /// function of its own, called through a launcher for each chunk of iterations the
  /// thread pool runs.
  LogicalResult split(func::FuncOp func, Group &group, unsigned &count) {
    // The views and constants the later ops use come before the first.
    for (Operation *op : group.between)
      op->moveBefore(group.ops.front());
    IRRewriter rewriter(func.getContext());
    linalg::LinalgTilingOptions options;
    scf::ParallelOp first;
    for (linalg::LinalgOp op : group.ops) {
      if (reassociate)
        if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
          kiln::lower::reassociateReductions(generic);
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      sizes[group.loop] = 1;
      options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::ParallelLoops);
      rewriter.setInsertionPoint(first ? first.getOperation() : op.getOperation());
      FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(rewriter, op, options);
      if (failed(tiled) || tiled->loops.size() != 1) {
        // The ops tiled so far still run in order; the rest stay where they are.
        if (!first)
          return failure();
        break;
      }
      rewriter.eraseOp(op);
      auto loop = cast<scf::ParallelOp>(tiled->loops.front());
      if (!first) {
        first = loop;
        continue;
      }
      rewriter.eraseOp(loop.getBody()->getTerminator());
      rewriter.inlineBlockBefore(loop.getBody(), first.getBody()->getTerminator(),
                                 first.getInductionVars());
      rewriter.eraseOp(loop);
    }
    // On failure the scf.parallel stays, and becomes serial loops.
    return outline(func, first, group.items, group.elements / group.items, count);
  }

  LogicalResult outline(func::FuncOp func, scf::ParallelOp parallel, int64_t items,
                        int64_t elementsPerItem, unsigned &count) {
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(parallel.getRegion(), used);
    FailureOr<kiln::lower::OutlinedOperands> operands =
        kiln::lower::collectOutlinedOperands(used.getArrayRef());
    // The launcher passes buffers only (pointers, in an array of them).
    if (failed(operands) ||
        llvm::any_of(operands->arguments, [](Value v) { return !isa<MemRefType>(v.getType()); }))
      return failure();
    Location loc = parallel.getLoc();
    OpBuilder b(parallel.getContext());
    std::string name = (func.getName() + ".parallel" + Twine(count++)).str();
    // The body: (begin, end, arguments...) runs iterations [begin, end).
    IRMapping map;
    func::FuncOp body = kiln::lower::createOutlinedFunction(
        b, func, loc, name, {b.getIndexType(), b.getIndexType()}, *operands, map);
    Block *entry = &body.front();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, entry->getArgument(0), entry->getArgument(1), one);
    map.map(parallel.getInductionVars().front(), loop.getInductionVar());
    b.setInsertionPoint(loop.getBody()->getTerminator());
    for (Operation &op : parallel.getBody()->without_terminator())
      b.clone(op, map);
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, loc);
    // The launcher: declared here, defined by kiln-codegen-parallel-launchers.
    SmallVector<Type> launchTypes = {b.getI64Type(), b.getI64Type()};
    llvm::append_range(launchTypes, body.getArgumentTypes().drop_front(2));
    b.setInsertionPointAfter(body);
    auto launcher =
        func::FuncOp::create(b, loc, name + ".launch", b.getFunctionType(launchTypes, {}));
    launcher.setPrivate();
    b.setInsertionPoint(parallel);
    int64_t grain = (minChunk + elementsPerItem - 1) / elementsPerItem;
    SmallVector<Value> args = {arith::ConstantIntOp::create(b, loc, items, 64),
                               arith::ConstantIntOp::create(b, loc, grain, 64)};
    llvm::append_range(args, operands->arguments);
    func::CallOp::create(b, loc, launcher, args);
    parallel.erase();
    return success();
  }
};

} // namespace
