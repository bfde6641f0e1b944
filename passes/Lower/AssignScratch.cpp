//===- AssignScratch.cpp - every allocation gets a slot in one arena ----------===//
//
// Buffers whose lifetimes (Lifetimes.h) do not overlap share memory. The plan is the
// greedy one of TensorFlow Lite's arena planner: the largest buffers are placed first, each
// at the lowest offset where it overlaps no placed buffer that is live at the same time.
//
//===----------------------------------------------------------------------------===//
#include "passes/Lower/Lifetimes.h"
#include "passes/Lower/Passes.h"

#include "dialects/Kiln/ABI.h"
#include "dialects/Kiln/Model.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace kiln::lower {
#define GEN_PASS_DEF_ASSIGNSCRATCHPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
namespace abi = kiln::dialect::abi;

namespace {

/// Each buffer its own slot, one after another.
SmallVector<int64_t> naiveOffsets(ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> offsets;
  int64_t end = 0;
  for (int64_t bytes : sizes) {
    offsets.push_back(end);
    end += bytes;
  }
  return offsets;
}

/// Largest first, each at the lowest offset free for its whole lifetime.
SmallVector<int64_t> plan(func::FuncOp func, ArrayRef<memref::AllocOp> allocs,
                          ArrayRef<int64_t> sizes) {
  SmallVector<Value> buffers;
  for (memref::AllocOp alloc : allocs)
    buffers.push_back(alloc.getResult());
  SmallVector<kiln::lower::Lifetime> lifetimes = kiln::lower::computeLifetimes(func, buffers);
  SmallVector<size_t> order(allocs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : lifetimes[a].first < lifetimes[b].first;
  });
  SmallVector<int64_t> offsets(allocs.size(), 0);
  SmallVector<size_t> placed;
  for (size_t i : order) {
    // The slots of placed buffers live at the same time, by offset; take the first gap.
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed)
      if (lifetimes[i].overlaps(lifetimes[j]))
        busy.push_back({offsets[j], offsets[j] + sizes[j]});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + sizes[i] <= begin)
        break;
      offset = std::max(offset, end);
    }
    offsets[i] = offset;
    placed.push_back(i);
  }
  return offsets;
}

/// Writes elementwise results in place: an all-parallel generic that reads buffer X and
/// writes a fresh buffer Y of the same type, both through identity maps, where X is not
/// needed after it, writes into X instead (each element is read before it is written, in
/// the same iteration). Y's allocation goes, so X and Y take one slot.
void writeInPlace(func::FuncOp func) {
  Block &body = func.getBody().front();
  SmallVector<Value> buffers;
  for (auto alloc : body.getOps<memref::AllocOp>())
    buffers.push_back(alloc.getResult());
  if (buffers.empty())
    return;
  SmallVector<kiln::lower::Lifetime> lifetimes = kiln::lower::computeLifetimes(func, buffers);
  DenseMap<Value, size_t> slot;
  for (auto [i, v] : llvm::enumerate(buffers))
    slot[v] = i;
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = static_cast<int64_t>(i);
  for (auto op : llvm::make_early_inc_range(body.getOps<linalg::GenericOp>())) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops())
      continue;
    Value y = op.getDpsInits()[0];
    auto yAlloc = y.getDefiningOp<memref::AllocOp>();
    if (!yAlloc || yAlloc->getBlock() != &body ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
      continue;
    // Y holds nothing before this op writes it.
    int64_t at = position[op];
    if (llvm::any_of(y.getUsers(), [&](Operation *u) {
          Operation *top = u;
          while (top->getBlock() != &body)
            top = top->getParentOp();
          return top != op && position[top] <= at;
        }))
      continue;
    // The buffer an operand views (through reshapes and subviews), or itself.
    auto root = [](Value v) {
      while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
        v = view.getViewSource();
      return v;
    };
    for (OpOperand *in : op.getDpsInputOperands()) {
      Value x = in->get();
      auto it = slot.find(x);
      if (it == slot.end() || x == y || x.getType() != y.getType() ||
          !op.getMatchingIndexingMap(in).isIdentity() || lifetimes[it->second].last != at)
        continue;
      // No other operand may read X (at other indices) while it is overwritten.
      bool readElsewhere = llvm::any_of(op->getOpOperands(), [&](OpOperand &other) {
        return &other != in && root(other.get()) == x;
      });
      op.getRegion().walk(
          [&](memref::LoadOp load) { readElsewhere |= root(load.getMemRef()) == x; });
      if (readElsewhere)
        continue;
      // X's slot now holds Y's values too: it lives until Y's last use.
      lifetimes[it->second].last = std::max(lifetimes[it->second].last, lifetimes[slot[y]].last);
      y.replaceAllUsesWith(x);
      yAlloc.erase();
      break;
    }
  }
}

struct AssignScratchPass : kiln::lower::impl::AssignScratchPassBase<AssignScratchPass> {
  using AssignScratchPassBase::AssignScratchPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Each function's arena: its size, and what one slot per buffer would take.
    llvm::StringMap<std::pair<int64_t, int64_t>> arenas;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      FailureOr<std::pair<int64_t, int64_t>> arena = assign(func);
      if (failed(arena))
        return signalPassFailure();
      arenas[func.getSymName()] = *arena;
    }
    // Each part records its function's arena; the parts of an entry point share one
    // arena, one after another.
    if (auto model = kiln::dialect::getModel(module))
      for (auto entry : model.getBody().getOps<kiln::dialect::EntryOp>()) {
        if (!entry.getParts())
          continue;
        SmallVector<Attribute> parts;
        int64_t offset = 0;
        for (auto part : entry.getParts()->getAsRange<kiln::dialect::PartAttr>()) {
          auto [bytes, naive] = arenas.lookup(part.getFunction().getValue());
          parts.push_back(part.withScratch(offset, bytes, naive));
          offset += llvm::alignTo(bytes, abi::scratchAlignment());
        }
        entry.setPartsAttr(ArrayAttr::get(&getContext(), parts));
      }
  }

  /// A loop's allocations keep one slot for the whole loop, reused by every iteration.
  /// That is right when the values a loop's condition hands its body are fresh copies, as
  /// one-shot bufferization makes them: then no iteration reads a buffer that the same
  /// allocation has already overwritten in that iteration. Any other buffer is refused
  /// (scalars the loop carries are values, in no slot).
  static LogicalResult checkLoops(func::FuncOp func) {
    WalkResult result = func.walk([](scf::WhileOp loop) {
      for (Value value : loop.getConditionOp().getArgs()) {
        if (!isa<MemRefType>(value.getType()))
          continue; // a scalar: a value, not a slot
        auto alloc = value.getDefiningOp<memref::AllocOp>();
        if (!alloc || alloc->getParentRegion() != &loop.getBefore()) {
          loop.emitError() << "a loop variable reaches the loop body without a copy of its "
                              "own, which the static arena cannot hold across iterations";
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Gives `func` its arena; returns the arena's size and the naive plan's.
  FailureOr<std::pair<int64_t, int64_t>> assign(func::FuncOp func) {
    if (failed(checkLoops(func)))
      return failure();
    // The naive total counts every buffer, before in-place writes merge any.
    int64_t naive = 0;
    func.walk([&](memref::AllocOp alloc) {
      if (alloc.getType().hasStaticShape())
        naive += llvm::alignTo(kiln::lower::bufferBytes(alloc.getType()), abi::scratchAlignment());
    });
    if (!naivePlan)
      writeInPlace(func);
    SmallVector<memref::AllocOp> allocs;
    bool ok = true;
    func.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        alloc.emitError() << "cannot place " << type
                          << " in the scratch arena: it needs a static shape and identity layout";
        ok = false;
      }
      allocs.push_back(alloc);
    });
    if (!ok)
      return failure();

    SmallVector<int64_t> sizes;
    for (memref::AllocOp alloc : allocs)
      sizes.push_back(
          llvm::alignTo(kiln::lower::bufferBytes(alloc.getType()), abi::scratchAlignment()));
    SmallVector<int64_t> offsets = naivePlan ? naiveOffsets(sizes) : plan(func, allocs, sizes);
    int64_t size = 0;
    for (auto [offset, bytes] : llvm::zip(offsets, sizes))
      size = std::max(size, offset + bytes);

    MLIRContext *ctx = func.getContext();
    auto scratchType = MemRefType::get({size}, IntegerType::get(ctx, 8));
    Block &entry = func.getBody().front();
    BlockArgument scratch = entry.addArgument(scratchType, func.getLoc());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    argTypes.push_back(scratchType);
    func.setType(FunctionType::get(ctx, argTypes, func.getResultTypes()));

    for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
      OpBuilder b(alloc);
      Value off = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
      Value view =
          memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(), scratch, off, ValueRange{});
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    return std::make_pair(size, naive);
  }
};

} // namespace
