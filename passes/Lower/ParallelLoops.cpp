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

/// The loop a parallel generic is split along: its first loop of at least 2 iterations.
std::optional<unsigned> splitLoop(linalg::GenericOp op, int64_t minElements) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumParallelLoops() != op.getNumLoops() || !isa<func::FuncOp>(op->getParentOp()))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t elements = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    elements *= r;
  }
  if (elements < minElements)
    return std::nullopt;
  // An input that is the output read through another map would be read after another
  // thread wrote it.
  for (OpOperand *input : op.getDpsInputOperands())
    for (OpOperand &init : op.getDpsInitsMutable())
      if (input->get() == init.get() &&
          op.getMatchingIndexingMap(input) != op.getMatchingIndexingMap(&init))
        return std::nullopt;
  for (auto [i, r] : llvm::enumerate(ranges))
    if (r >= 2)
      return i;
  return std::nullopt;
}

struct ParallelLoopsPass : kiln::lower::impl::ParallelLoopsPassBase<ParallelLoopsPass> {
  using ParallelLoopsPassBase::ParallelLoopsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      SmallVector<std::pair<linalg::GenericOp, unsigned>> ops;
      func.walk([&](linalg::GenericOp op) {
        if (auto loop = splitLoop(op, minElements))
          ops.push_back({op, *loop});
      });
      unsigned count = 0;
      for (auto [op, loop] : ops)
        if (succeeded(split(func, op, loop, count)))
          ++numSplit;
    }
  }

  /// Tiles `op` by one iteration of `loop` into an scf.parallel, then moves that loop's
  /// body into a function of its own, called through a launcher for each chunk of
  /// iterations the thread pool runs.
  LogicalResult split(func::FuncOp func, linalg::GenericOp op, unsigned loop,
                      unsigned &count) {
    IRRewriter rewriter(op.getContext());
    rewriter.setInsertionPoint(op);
    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    sizes[loop] = 1;
    linalg::LinalgTilingOptions options;
    options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::ParallelLoops);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t items = ranges[loop];
    int64_t elements = 1;
    for (int64_t r : ranges)
      elements *= r;
    FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(rewriter, op, options);
    if (failed(tiled) || tiled->loops.size() != 1)
      return failure();
    rewriter.eraseOp(op);
    // On failure the scf.parallel stays, and becomes serial loops.
    return outline(func, cast<scf::ParallelOp>(tiled->loops.front()), items, elements / items,
                   count);
  }

  LogicalResult outline(func::FuncOp func, scf::ParallelOp parallel, int64_t items,
                        int64_t elementsPerItem, unsigned &count) {
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(parallel.getRegion(), used);
    FailureOr<kiln::lower::OutlinedOperands> operands =
        kiln::lower::collectOutlinedOperands(used.getArrayRef());
    // The launcher passes buffers only (pointers, in an array of them).
    if (failed(operands) || llvm::any_of(operands->arguments, [](Value v) {
          return !isa<MemRefType>(v.getType());
        }))
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
    auto launcher = func::FuncOp::create(b, loc, name + ".launch",
                                         b.getFunctionType(launchTypes, {}));
    launcher.setPrivate();
    b.setInsertionPoint(parallel);
    int64_t grain = (minChunk + elementsPerItem - 1) / elementsPerItem;
    SmallVector<Value> args = {arith::ConstantIntOp::create(b, loc, items, 64),
                               arith::ConstantIntOp::create(b, loc, grain, 64)};
    llvm::append_range(args, operands->arguments);
    func::CallOp::create(b, loc, launcher, args);
    SmallVector<Value> bounds(parallel->getOperands());
    parallel.erase();
    for (Value v : bounds)
      if (Operation *def = v.getDefiningOp(); def && def->use_empty() && isPure(def))
        def->erase();
    return success();
  }
};

} // namespace
