//===- Kernels.cpp - a GPU partition's linalg ops as gpu.launch kernels --------===//
#include "codegen/GPU/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

#include <functional>

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// A launch of `blocks` x `threads` threads in x (y and z of one), at `b`'s point.
mlir::gpu::LaunchOp launch1d(OpBuilder &b, Location loc, int64_t blocks, int64_t threads) {
  Value one = indexConstant(b, loc, 1);
  auto size = [&](int64_t n) { return n == 1 ? one : indexConstant(b, loc, n); };
  return mlir::gpu::LaunchOp::create(b, loc, size(blocks), one, one, size(threads), one, one);
}

/// The indices, row-major (the last varying fastest), of the flat position `id` in a nest
/// of loops with `counts` iterations each.
SmallVector<Value> splitIndex(OpBuilder &b, Location loc, Value id, ArrayRef<int64_t> counts) {
  SmallVector<Value> indices(counts.size());
  for (int64_t d = int64_t(counts.size()) - 1; d >= 0; --d) {
    indices[d] = id;
    if (d > 0) {
      indices[d] = arith::RemUIOp::create(b, loc, id, indexConstant(b, loc, counts[d]));
      id = arith::DivUIOp::create(b, loc, id, indexConstant(b, loc, counts[d]));
    }
  }
  return indices;
}

/// The results of `map` at the loop indices `ivs` (an operand's indices in a linalg op).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    indices.push_back(affine::AffineApplyOp::create(b, loc, map.getSubMap({r}), ivs));
  return indices;
}

/// Clones `op`'s body at `b` for the loop indices `ivs`: each input loaded through its
/// indexing map, `linalg.index` the index itself, the output's argument `output`; every op
/// but the yield and `skip`. `map` holds the clones of the body's values afterwards.
void cloneBody(OpBuilder &b, Location loc, linalg::GenericOp op, ArrayRef<Value> ivs,
               Value output, IRMapping &map, Operation *skip = nullptr) {
  Block &region = op.getRegion().front();
  for (OpOperand *input : op.getDpsInputOperands())
    map.map(region.getArgument(input->getOperandNumber()),
            memref::LoadOp::create(b, loc, input->get(),
                                   applyMap(b, loc, op.getMatchingIndexingMap(input), ivs)));
  if (output)
    map.map(region.getArgument(op.getNumDpsInputs()), output);
  for (Operation &inner : region.without_terminator()) {
    if (&inner == skip)
      continue;
    if (auto idx = dyn_cast<linalg::IndexOp>(inner))
      map.map(idx.getResult(), ivs[idx.getDim()]);
    else
      b.clone(inner, map);
  }
}

/// The float type of `op`'s sums when it is a plain product: two inputs, one output, its
/// body `out + a * b` (either order of either) and nothing else; null otherwise.
FloatType plainProductType(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return nullptr;
  Block &body = op.getRegion().front();
  if (!llvm::hasNItems(body.without_terminator(), 2))
    return nullptr;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getNumOperands() == 1 ? yield.getOperand(0).getDefiningOp<arith::AddFOp>()
                                         : nullptr;
  if (!add)
    return nullptr;
  Value out = body.getArgument(2), a = body.getArgument(0), b = body.getArgument(1);
  Value other = add.getLhs() == out ? add.getRhs() : add.getRhs() == out ? add.getLhs() : nullptr;
  auto mul = other ? other.getDefiningOp<arith::MulFOp>() : nullptr;
  bool product = mul && ((mul.getLhs() == a && mul.getRhs() == b) ||
                         (mul.getLhs() == b && mul.getRhs() == a));
  return product ? dyn_cast<FloatType>(add.getType()) : nullptr;
}

/// Whether `op` is a plain product of 16-bit floats (f16 or bf16). A kernel carries such a
/// product's sums in f32 (halfProductStep), rounding once when it stores them, as cuBLAS's
/// f16 products (gpu_matmul_f16) and TensorFlow's on a GPU do: 4096 sums rounded to f16
/// one by one stray by about 1e-2 of the result.
bool isHalfProduct(linalg::GenericOp op) {
  FloatType type = plainProductType(op);
  return type && (type.isF16() || type.isBF16());
}

/// `v` widened to f32 (a half product's operand), or `v` when it is f32 already.
Value widen(OpBuilder &b, Location loc, Value v) {
  return v.getType().isF32() ? v : arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

/// One step of a half product's sum carried in f32: `acc + f32(a) * f32(b)`.
Value halfProductStep(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc) {
  return arith::AddFOp::create(
      b, loc, acc, arith::MulFOp::create(b, loc, widen(b, loc, lhs), widen(b, loc, rhs)));
}

/// Index arithmetic for kernels written out op by op (the products' tiles).
struct IndexMath {
  Location loc;
  Value c(OpBuilder &b, int64_t v) const { return indexConstant(b, loc, v); }
  Value mul(OpBuilder &b, Value x, int64_t v) const {
    return arith::MulIOp::create(b, loc, x, c(b, v)).getResult();
  }
  Value add(OpBuilder &b, Value x, Value y) const {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  }
  /// min(x, v): an index clamped into bounds.
  Value atMost(OpBuilder &b, Value x, int64_t v) const {
    return arith::MinUIOp::create(b, loc, x, c(b, v)).getResult();
  }
  /// x < v.
  Value below(OpBuilder &b, Value x, int64_t v) const {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(b, v)).getResult();
  }
};

/// The indices `map` gives at the loops (batch..., row, column, depth).
SmallVector<Value> tileIndices(OpBuilder &b, Location loc, AffineMap map,
                               ArrayRef<Value> batchIvs, Value row, Value col, Value depth) {
  SmallVector<Value> ivs(batchIvs);
  ivs.append({row, col, depth});
  return applyMap(b, loc, map, ivs);
}

/// An scf.parallel over `counts` (each from 0, step 1), its body made by `build`.
scf::ParallelOp parallelLoop(OpBuilder &b, Location loc, ArrayRef<int64_t> counts,
                             function_ref<void(OpBuilder &, Location, ValueRange)> build) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t count : counts) {
    lbs.push_back(indexConstant(b, loc, 0));
    ubs.push_back(indexConstant(b, loc, count));
    steps.push_back(indexConstant(b, loc, 1));
  }
  return scf::ParallelOp::create(b, loc, lbs, ubs, steps, build);
}

/// `width` consecutive elements of `memref` at `indices` as one vector load, aligned to
/// their size: they start a row's aligned group (vectorRows).
Value alignedVectorLoad(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                        int64_t width) {
  Type element = getElementTypeOrSelf(memref.getType());
  auto load =
      vector::LoadOp::create(b, loc, VectorType::get({width}, element), memref, indices);
  load.setAlignment(width * element.getIntOrFloatBitWidth() / 8);
  return load;
}

/// The vector `v` stored to `memref` at `indices`, aligned to its size (alignedVectorLoad).
void alignedVectorStore(OpBuilder &b, Location loc, Value v, Value memref, ValueRange indices) {
  auto type = cast<VectorType>(v.getType());
  vector::StoreOp::create(b, loc, v, memref, indices)
      .setAlignment(type.getNumElements() * type.getElementTypeBitWidth() / 8);
}

/// A launch of one block of `threads` per `tile` x `tile` tile of an m x n output (grid x
/// the columns' tiles, y the rows', z the batch, of sizes `batchRanges`), with the
/// workgroup buffers `shared`, its body holding only its terminator, which `rewriter`
/// builds before; `batchIvs` are the block's batch indices, computed there.
mlir::gpu::LaunchOp launchTiles(IRRewriter &rewriter, const IndexMath &im, int64_t m,
                                int64_t n, ArrayRef<int64_t> batchRanges, int64_t tile,
                                int64_t threads, TypeRange shared,
                                SmallVector<Value> &batchIvs) {
  int64_t batch = 1;
  for (int64_t r : batchRanges)
    batch *= r;
  Value one = im.c(rewriter, 1);
  auto kernel = mlir::gpu::LaunchOp::create(
      rewriter, im.loc, im.c(rewriter, (n + tile - 1) / tile),
      im.c(rewriter, (m + tile - 1) / tile), batch == 1 ? one : im.c(rewriter, batch),
      im.c(rewriter, threads), one, one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange{}, shared);
  Block &body = kernel.getBody().front();
  OpBuilder end = OpBuilder::atBlockBegin(&body);
  mlir::gpu::TerminatorOp::create(end, im.loc);
  rewriter.setInsertionPointToStart(&body);
  batchIvs = splitIndex(rewriter, im.loc, kernel.getBlockIds().z, batchRanges);
  return kernel;
}

/// A product kernel's loop over the `stages` stages of its depth, `depth` deep each, carrying
/// its accumulators (`acc`) and the operands `fetch` read for the next stage: each
/// iteration stores the carried operands to workgroup memory (`put`), waits for the block,
/// fetches the next stage's into registers (their loads' latency hidden behind this
/// stage's products; past the last stage the indices must be clamped), runs this stage's
/// `steps` (from depth k0) and waits again before the next iteration overwrites the tiles.
/// The accumulators' final values.
SmallVector<Value>
stagedLoop(OpBuilder &b, const IndexMath &im, int64_t stages, int64_t depth, ValueRange acc,
           function_ref<SmallVector<Value>(OpBuilder &, Value k0)> fetch,
           function_ref<void(OpBuilder &, ValueRange)> put,
           function_ref<SmallVector<Value>(OpBuilder &, Value k0, ValueRange)> steps) {
  Location loc = im.loc;
  Value zero = im.c(b, 0);
  SmallVector<Value> carried(acc);
  llvm::append_range(carried, fetch(b, zero));
  auto loop = scf::ForOp::create(b, loc, zero, im.c(b, stages), im.c(b, 1), carried);
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  put(lb, loop.getRegionIterArgs().drop_front(acc.size()));
  mlir::gpu::BarrierOp::create(lb, loc);
  Value k0 = im.mul(lb, loop.getInductionVar(), depth);
  SmallVector<Value> fetched = fetch(lb, im.add(lb, k0, im.c(lb, depth)));
  SmallVector<Value> next = steps(lb, k0, loop.getRegionIterArgs().take_front(acc.size()));
  mlir::gpu::BarrierOp::create(lb, loc);
  llvm::append_range(next, fetched);
  scf::YieldOp::create(lb, loc, next);
  return SmallVector<Value>(loop.getResults().take_front(acc.size()));
}

/// A reduction's combining op, `combine(value, accumulator)`, as gpu.all_reduce takes it.
struct Combiner {
  Operation *op;              // in the generic op's body, yielded
  Value value;                // its operand that is not the accumulator
  mlir::gpu::AllReduceOperation kind;
  TypedAttr identity;
};

/// The combiner of a generic op with one output whose body yields `combine(v, out)` for a
/// float `out` used nowhere else: add, mul, max or min in one of arith's forms.
std::optional<Combiner> combinerOf(linalg::GenericOp op) {
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
  return Combiner{combine, lhs == acc ? rhs : lhs, kind->first,
                  FloatAttr::get(type, kind->second)};
}

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
        // value (registerReduction): no kernel writes it first.
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
  /// is neither a product (tiledProduct, tensorCoreProduct; a Hopper one, warpgroupProduct,
  /// takes it) nor reduced along an input's innermost dimension (blockReduction), which
  /// read the output's starting value from memory.
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
      return warpgroupMatch(op) && llvm::none_of(op.getDpsInputs(), [&](Value input) {
               return input == buffer;
             }) ? op : nullptr;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto last = op.getMatchingIndexingMap(input).getResults();
      auto dim = last.empty() ? nullptr : dyn_cast<AffineDimExpr>(last.back());
      if (input->get() == buffer ||
          (dim && iterators[dim.getPosition()] != utils::IteratorType::parallel))
        return nullptr;
    }
    bool readsBuffer = false;
    region.walk([&](Operation *inner) {
      readsBuffer |= llvm::is_contained(inner->getOperands(), buffer);
    });
    return readsBuffer ? nullptr : op;
  }

  /// Replaces `op` with one kernel launch computing it.
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
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        generic && (warpgroupProduct(rewriter, generic, initValue) ||
                    (!initValue && (tensorCoreProduct(rewriter, generic) ||
                                    tiledProduct(rewriter, generic) ||
                                    (reassociate && blockReduction(rewriter, generic))))))
      return success();
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
      scf::ParallelOp loop = vectorisedElementwise(rewriter, generic);
      if (!loop)
        loop = registerReduction(rewriter, generic, initValue);
      if (loop)
        return mapParallel(rewriter, loop);
    }
    if (initValue) // filledReduction promised registerReduction
      return op->emitOpError() << "lost the fill folded into it (a GPU kernels bug)";
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

  /// Elements a thread of a vectorised elementwise kernel takes (vectorisedElementwise).
  static constexpr int64_t kVector = 4;

  /// Whether `type` is a buffer whose rows (its last dimension) start at multiples of
  /// `elements` from its base (identity layout with a last dimension a multiple of it, or
  /// static strides and offset that are, the last stride 1), of 16- or 32-bit elements:
  /// Kiln's device buffers start 64-byte aligned (the arena's are 256, its scratch slices
  /// 64: KILN_SCRATCH_ALIGNMENT), so `elements` elements from such a row start (up to 16
  /// bytes) are one aligned access.
  static bool vectorRows(Type type, int64_t elements = kVector) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() || memref.getRank() == 0)
      return false;
    unsigned bits = memref.getElementTypeBitWidth();
    if ((bits != 16 && bits != 32) || !memref.getElementType().isIntOrFloat())
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)) || strides.back() != 1 ||
        ShapedType::isDynamic(offset) || offset % elements != 0)
      return false;
    for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride % elements != 0)
        return false;
    return memref.getShape().back() % elements == 0;
  }

  /// Replaces `op`, an elementwise generic (every loop parallel, static sizes, the innermost
  /// a multiple of kVector, a body of elementwise-mappable scalar ops), with a kernel of one
  /// thread per kVector consecutive elements of the innermost loop: operands that vary along
  /// it are read with one vector load (`ld.global.v4` for f32), those that do not (a bias
  /// along the channels read at a pixel, a scalar) once and broadcast, the body applied to
  /// vectors, the outputs written with one vector store. Each operand that varies along
  /// the innermost loop must read it as its last, contiguous dimension from a buffer whose
  /// rows start aligned (vectorRows). Returns the scf.parallel in `op`'s place, which
  /// mapParallel makes the kernel; null, leaving `op` alone, otherwise.
  scf::ParallelOp vectorisedElementwise(IRRewriter &rewriter, linalg::GenericOp op) {
    if (!vectorise || op.getNumReductionLoops() != 0 || !op.hasPureBufferSemantics() ||
        op.getNumLoops() == 0)
      return nullptr;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.back() % kVector != 0)
      return nullptr;
    unsigned last = op.getNumLoops() - 1;
    // Each operand: true when it varies along the innermost loop (then as its last dimension).
    SmallVector<bool> varies;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      bool uses = llvm::any_of(map.getResults(),
                               [&](AffineExpr e) { return e.isFunctionOfDim(last); });
      bool contiguous = map.getNumResults() &&
                        map.getResults().back() == getAffineDimExpr(last, op.getContext()) &&
                        llvm::count_if(map.getResults(), [&](AffineExpr e) {
                          return e.isFunctionOfDim(last);
                        }) == 1;
      if (uses && (!contiguous || !vectorRows(operand.get().getType())))
        return nullptr;
      if (!uses && op.isDpsInit(&operand))
        return nullptr; // an output written at one element by kVector threads
      varies.push_back(uses);
    }
    Block &body = op.getRegion().front();
    for (Operation &inner : body.without_terminator()) {
      if (isa<arith::ConstantOp>(inner))
        continue;
      if (!OpTrait::hasElementwiseMappableTraits(&inner) || inner.getNumRegions() != 0 ||
          llvm::any_of(inner.getResultTypes(),
                       [](Type t) { return !t.isIntOrIndexOrFloat() || t.isIndex(); }) ||
          llvm::any_of(inner.getOperandTypes(), [](Type t) { return t.isIndex(); }))
        return nullptr;
    }

    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    SmallVector<int64_t> counts(ranges);
    counts.back() /= kVector;
    auto loop = parallelLoop(
        rewriter, loc, counts, [&](OpBuilder &b, Location, ValueRange parallelIvs) {
          SmallVector<Value> ivs(parallelIvs);
          ivs.back() = arith::MulIOp::create(b, loc, ivs.back(), indexConstant(b, loc, kVector));
          IRMapping map; // body values to their vectors
          auto vectorOf = [&](Value v) -> Value {
            if (Value mapped = map.lookupOrNull(v); mapped && isa<VectorType>(mapped.getType()))
              return mapped;
            Value scalar = map.lookupOrDefault(v);
            return vector::BroadcastOp::create(b, loc, VectorType::get({kVector}, v.getType()),
                                               scalar);
          };
          // The operands the body reads (an output too: an addition written over its own
          // operand), a vector each where they vary along the row, else one element.
          for (OpOperand &operand : op->getOpOperands()) {
            BlockArgument arg = body.getArgument(operand.getOperandNumber());
            if (arg.use_empty())
              continue;
            SmallVector<Value> at = applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs);
            map.map(arg, varies[operand.getOperandNumber()]
                             ? alignedVectorLoad(b, loc, operand.get(), at, kVector)
                             : memref::LoadOp::create(b, loc, operand.get(), at).getResult());
          }
          for (Operation &inner : body.without_terminator()) {
            if (isa<arith::ConstantOp>(inner)) {
              b.clone(inner, map); // a scalar, broadcast where used
              continue;
            }
            OperationState state(loc, inner.getName());
            for (Value operand : inner.getOperands())
              state.addOperands(vectorOf(operand));
            for (Type t : inner.getResultTypes())
              state.addTypes(VectorType::get({kVector}, t));
            state.addAttributes(inner.getAttrs());
            Operation *vectorised = b.create(state);
            map.map(inner.getResults(), vectorised->getResults());
          }
          auto yield = cast<linalg::YieldOp>(body.getTerminator());
          for (auto [value, init] : llvm::zip(yield.getValues(), op.getDpsInitsMutable()))
            alignedVectorStore(b, loc, vectorOf(value), init.get(),
                               applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
          scf::ReduceOp::create(b, loc);
        });
    rewriter.eraseOp(op);
    ++numVectorised;
    return loop;
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

  /// A matrix product's operands, their maps and its sizes.
  struct ProductMatch {
    OpOperand *a, *b, *c; // read at (i, k), read at (k, j), written at (i, j)
    AffineMap mapA, mapB, mapC;
    SmallVector<int64_t> ranges;
    int64_t m, n, k, di; // di: the loop i (the batch loops before it)
  };

  /// `op` as a matrix product (loops batch..., i, j, k after parallelFirst; an input read at
  /// (i, k), one at (k, j), the output at (i, j), static sizes), each of m, n and k at
  /// least `least`, in a grid of `tile` x `tile` output tiles that CUDA can launch (the
  /// batch and the rows' tiles in grid z and y: at most 65535 each); nothing otherwise.
  static std::optional<ProductMatch> matchProduct(linalg::GenericOp op, int64_t least,
                                                  int64_t tile) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 1 || op.getNumParallelLoops() < 2 ||
        !op.getRegion().front().getOps<linalg::IndexOp>().empty())
      return std::nullopt;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t loops = int64_t(iterators.size()), di = loops - 3, dj = loops - 2, dk = loops - 1;
    if (iterators[dk] != utils::IteratorType::reduction)
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return std::nullopt;
    int64_t m = ranges[di], n = ranges[dj], k = ranges[dk], batch = 1;
    for (int64_t d = 0; d < di; ++d)
      batch *= ranges[d];
    if (m < least || n < least || k < least || batch > 65535 ||
        (m + tile - 1) / tile > 65535 || (n + tile - 1) / tile > INT32_MAX)
      return std::nullopt;
    auto uses = [](AffineMap map, int64_t d) {
      return llvm::any_of(map.getResults(),
                          [&](AffineExpr e) { return e.isFunctionOfDim(unsigned(d)); });
    };
    // Which input is read at (i, k) and which at (k, j).
    OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
    if (uses(op.getMatchingIndexingMap(a), dj))
      std::swap(a, b);
    AffineMap mapA = op.getMatchingIndexingMap(a), mapB = op.getMatchingIndexingMap(b);
    OpOperand *c = op.getDpsInitOperand(0);
    AffineMap mapC = op.getMatchingIndexingMap(c);
    if (uses(mapA, dj) || !uses(mapA, dk) || uses(mapB, di) || !uses(mapB, dk) ||
        uses(mapC, dk))
      return std::nullopt;
    return ProductMatch{a, b, c, mapA, mapB, mapC, std::move(ranges), m, n, k, di};
  }

  /// Replaces `op`, a matrix product (loops batch..., i, j, k after parallelFirst; an
  /// input read at (i, k), one at (k, j), the output at (i, j); any body, applied in k
  /// order), with a tiled kernel: a block of 256 threads per 64 x 64 tile of the output, or
  /// 128 x 128 when it has that many rows and columns (grid z: the batch), each thread 4 x 4
  /// (8 x 8) of its elements: rows 4ty + 64g + i (groups g of 4 consecutive rows i, 64
  /// apart), columns likewise with tx, so that a step reads each group of
  /// the operands from workgroup memory as one vector (`ld.shared.v4`; element by element
  /// without `vectorise`). The operands are
  /// staged 16 deep through workgroup memory (A's tile transposed, depth-major, its rows
  /// padded by 4 elements against bank conflicts of the transposed stores), the next
  /// stage's elements fetched into registers (carried by the loop) before this stage's
  /// steps, so that their loads' latency hides behind the products; the steps of a stage
  /// are written out, the first k % 16 before the loop (a loop over each stage's depth
  /// where k is under 32). Each output element's body runs over k in order, as one thread per
  /// element would run it, so the result is the same (a product of 16-bit floats summed in
  /// f32: isHalfProduct; `c + a * b` one fused multiply-add a step with `contract`, in
  /// either kernel). False, leaving `op` alone, for another op or a product under 16
  /// in any size (products that are library calls never get here: cuBLAS's).
  bool tiledProduct(IRRewriter &rewriter, linalg::GenericOp op) {
    constexpr int64_t kDepth = 16, kSide = 16, kThreads = kSide * kSide, kGroup = 4;
    std::optional<ProductMatch> product = matchProduct(op, kSide, 64);
    if (!product)
      return false;
    // 128 x 128 tiles, 8 x 8 outputs a thread, where the output has that many rows and
    // columns: twice the products per value read from workgroup memory of 64 x 64 tiles,
    // whose 4 x 4 a thread small products keep.
    int64_t tile = product->m >= 128 && product->n >= 128 ? 128 : 64;
    int64_t per = tile / kSide; // a thread's rows (and columns) of a tile
    OpOperand *a = product->a, *b = product->b, *c = product->c;
    AffineMap mapA = product->mapA, mapB = product->mapB, mapC = product->mapC;
    ArrayRef<int64_t> ranges = product->ranges;
    int64_t m = product->m, n = product->n, k = product->k;
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Block &region = op.getRegion().front();
    Type typeA = region.getArgument(a->getOperandNumber()).getType();
    Type typeB = region.getArgument(b->getOperandNumber()).getType();
    auto workgroup = mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
    // Rows of A's tile padded by a group: its row stride stays a multiple of 16 bytes.
    int64_t leadA = tile + kGroup;
    auto tileA = MemRefType::get({kDepth, leadA}, typeA, AffineMap(), workgroup);
    auto tileB = MemRefType::get({kDepth, tile}, typeB, AffineMap(), workgroup);
    rewriter.setInsertionPoint(op);
    IndexMath im{loc};
    SmallVector<Value> batchIvs;
    auto kernel = launchTiles(rewriter, im, m, n, ranges.take_front(product->di), tile,
                              kThreads, {tileA, tileB}, batchIvs);
    Value sharedA = kernel.getWorkgroupAttributions()[0];
    Value sharedB = kernel.getWorkgroupAttributions()[1];
    OpBuilder kb(rewriter);
    auto at = [&](OpBuilder &bld, AffineMap map, Value row, Value col, Value depth) {
      return tileIndices(bld, loc, map, batchIvs, row, col, depth);
    };
    Value zero = im.c(kb, 0);
    Value thread = kernel.getThreadIds().x;
    Value tx = arith::RemUIOp::create(kb, loc, thread, im.c(kb, kSide));
    Value ty = arith::DivUIOp::create(kb, loc, thread, im.c(kb, kSide));
    Value row0 = im.mul(kb, kernel.getBlockIds().y, tile);
    Value col0 = im.mul(kb, kernel.getBlockIds().x, tile);
    // The tile's row (column) of a thread's r-th row (column) of outputs, from ty (tx).
    auto within = [&](OpBuilder &bld, Value t, int64_t r) {
      return im.add(bld, im.mul(bld, t, kGroup),
                    im.c(bld, r / kGroup * kSide * kGroup + r % kGroup));
    };
    // A thread's rows and columns, clamped into the output (what falls outside is computed
    // on repeated elements and not stored).
    SmallVector<Value> rows, cols, rowsIn, colsIn;
    for (int64_t r = 0; r < per; ++r) {
      rows.push_back(im.add(kb, row0, within(kb, ty, r)));
      cols.push_back(im.add(kb, col0, within(kb, tx, r)));
      rowsIn.push_back(im.atMost(kb, rows.back(), m - 1));
      colsIn.push_back(im.atMost(kb, cols.back(), n - 1));
    }
    // A product of 16-bit floats sums in f32 (isHalfProduct).
    bool wide = isHalfProduct(op);
    SmallVector<Value> carried;
    for (int64_t r = 0; r < per; ++r)
      for (int64_t q = 0; q < per; ++q) {
        Value v = memref::LoadOp::create(kb, loc, c->get(),
                                         at(kb, mapC, rowsIn[r], colsIn[q], zero));
        carried.push_back(wide ? widen(kb, loc, v) : v);
      }
    // Each thread stages tile * kDepth / kThreads elements of each operand: element e =
    // thread + kThreads * q of A's tile (row e / kDepth, depth e % kDepth: neighbouring
    // threads read along the depth) and of B's (depth e / tile, column e % tile). kThreads
    // is a multiple of kDepth and of tile, so a thread's depth in A's tile and column in
    // B's are the same for every q, and its rows q apart by constants: written so, a
    // thread's loads are one address and constant offsets, not an address each.
    // fetch loads a stage's elements (indices clamped into the operands: past the last
    // stage, never stored), put stores them to the tiles.
    static_assert(kThreads % kDepth == 0, "a thread's depth in A's tile is the same for each q");
    assert(kThreads % tile == 0 && "a thread's column in B's tile is the same for each q");
    Value threadRowA = arith::DivUIOp::create(kb, loc, thread, im.c(kb, kDepth));
    Value threadDepthA = arith::RemUIOp::create(kb, loc, thread, im.c(kb, kDepth));
    Value threadDepthB = arith::DivUIOp::create(kb, loc, thread, im.c(kb, tile));
    Value threadColB = arith::RemUIOp::create(kb, loc, thread, im.c(kb, tile));
    auto staged = [&](OpBuilder &bld, int64_t q, Value &ar, Value &ac, Value &br, Value &bc) {
      ar = im.add(bld, threadRowA, im.c(bld, kThreads / kDepth * q));
      ac = threadDepthA;
      br = im.add(bld, threadDepthB, im.c(bld, kThreads / tile * q));
      bc = threadColB;
    };
    // The depth's first `rest` (k % kDepth) are the first steps of a stage loaded at depth
    // 0, whole (clamped element by element only where k < kDepth); the stages after it
    // start there and are whole, the fetch past the last clamped as a whole onto the last
    // one. No element needs a clamp of its depth, so a thread's loads are one address and
    // constant offsets (clamps in every stage kept 49 more registers live; the partial
    // stage last instead of first, up to 90 more, its addresses live across the loop).
    int64_t stages = k / kDepth, rest = k % kDepth;
    auto fetch = [&](OpBuilder &bld, Value k0, bool clampEach) {
      SmallVector<Value> values;
      auto depth = [&](Value d) {
        return clampEach ? im.atMost(bld, im.add(bld, k0, d), k - 1) : im.add(bld, k0, d);
      };
      for (int64_t q = 0; q < tile * kDepth / kThreads; ++q) {
        Value ar, ac, br, bc;
        staged(bld, q, ar, ac, br, bc);
        values.push_back(memref::LoadOp::create(
            bld, loc, a->get(),
            at(bld, mapA, im.atMost(bld, im.add(bld, row0, ar), m - 1), zero, depth(ac))));
        values.push_back(memref::LoadOp::create(
            bld, loc, b->get(),
            at(bld, mapB, zero, im.atMost(bld, im.add(bld, col0, bc), n - 1), depth(br))));
      }
      return values;
    };
    auto put = [&](OpBuilder &bld, ValueRange values) {
      for (int64_t q = 0; q < tile * kDepth / kThreads; ++q) {
        Value ar, ac, br, bc;
        staged(bld, q, ar, ac, br, bc);
        memref::StoreOp::create(bld, loc, values[2 * q], sharedA, ValueRange{ac, ar});
        memref::StoreOp::create(bld, loc, values[2 * q + 1], sharedB, ValueRange{br, bc});
      }
    };
    // One step of depth kk: the thread's groups of A's and B's row kk, each one vector
    // load, then each output's body.
    auto step = [&](OpBuilder &bld, Value kk, ValueRange acc) {
      auto operands = [&](Value shared, Value t) {
        SmallVector<Value> values;
        for (int64_t g = 0; g < per / kGroup; ++g) {
          Value start = within(bld, t, g * kGroup);
          Value group = vectorise ? alignedVectorLoad(bld, loc, shared, ValueRange{kk, start},
                                                      kGroup)
                                  : nullptr;
          for (int64_t i = 0; i < kGroup; ++i) {
            Value v = group ? vector::ExtractOp::create(bld, loc, group, ArrayRef<int64_t>{i})
                            : memref::LoadOp::create(
                                  bld, loc, shared,
                                  ValueRange{kk, im.add(bld, start, im.c(bld, i))})
                                  .getResult();
            // Each operand widened once, not once per output it meets.
            values.push_back(wide ? widen(bld, loc, v) : v);
          }
        }
        return values;
      };
      SmallVector<Value> as = operands(sharedA, ty), bs = operands(sharedB, tx);
      SmallVector<Value> next;
      for (int64_t r = 0; r < per; ++r)
        for (int64_t q = 0; q < per; ++q) {
          if (wide) {
            next.push_back(halfProductStep(bld, loc, as[r], bs[q], acc[r * per + q]));
            continue;
          }
          IRMapping map;
          map.map(region.getArgument(a->getOperandNumber()), as[r]);
          map.map(region.getArgument(b->getOperandNumber()), bs[q]);
          map.map(region.getArgument(c->getOperandNumber()), acc[r * per + q]);
          for (Operation &inside : region.without_terminator())
            bld.clone(inside, map);
          next.push_back(map.lookupOrDefault(region.getTerminator()->getOperand(0)));
        }
      return next;
    };
    // matchProduct: k >= kDepth, stages >= 1.
    auto wholeSteps = [&](OpBuilder &tb, Value, ValueRange init) {
      SmallVector<Value> acc(init);
      for (int64_t kk = 0; kk < kDepth; ++kk)
        acc = step(tb, im.c(tb, kk), acc);
      return acc;
    };
    SmallVector<Value> results;
    if (rest > 0 && stages == 1) {
      // Under two stages deep: two in the loop, the second's depths clamped element by
      // element and its steps a loop over what is left of k. (The first stage's steps
      // written out before the loop of one stage made the kernel one block, whose loads
      // LLVM scheduled ahead of the steps: spills.)
      results = stagedLoop(
          kb, im, 2, kDepth, carried,
          [&](OpBuilder &fb, Value k0) { return fetch(fb, k0, /*clampEach=*/true); }, put,
          [&](OpBuilder &tb, Value k0, ValueRange init) {
            Value depth = arith::MinUIOp::create(
                tb, loc, im.c(tb, kDepth),
                arith::SubIOp::create(tb, loc, im.c(tb, k), k0).getResult());
            auto inner = scf::ForOp::create(tb, loc, zero, depth, im.c(tb, 1), init);
            OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
            scf::YieldOp::create(
                ib, loc, step(ib, inner.getInductionVar(), inner.getRegionIterArgs()));
            return SmallVector<Value>(inner.getResults());
          });
    } else {
      results = carried;
      if (rest > 0) {
        put(kb, fetch(kb, zero, /*clampEach=*/false));
        mlir::gpu::BarrierOp::create(kb, loc);
        for (int64_t kk = 0; kk < rest; ++kk)
          results = step(kb, im.c(kb, kk), results);
        // Every thread done with the tiles before stagedLoop's first stage overwrites them.
        mlir::gpu::BarrierOp::create(kb, loc);
      }
      results = stagedLoop(
          kb, im, stages, kDepth, results,
          [&](OpBuilder &fb, Value k0) {
            Value last = im.atMost(fb, k0, (stages - 1) * kDepth);
            return fetch(fb, im.add(fb, last, im.c(fb, rest)), /*clampEach=*/false);
          },
          put, wholeSteps);
    }
    for (int64_t r = 0; r < per; ++r)
      for (int64_t q = 0; q < per; ++q) {
        Value inside = arith::AndIOp::create(kb, loc, im.below(kb, rows[r], m),
                                             im.below(kb, cols[q], n));
        auto store = scf::IfOp::create(kb, loc, inside, /*withElseRegion=*/false);
        OpBuilder sb = OpBuilder::atBlockBegin(&store.getThenRegion().front());
        Value v = results[r * per + q];
        if (wide)
          v = arith::TruncFOp::create(sb, loc, getElementTypeOrSelf(c->get().getType()), v);
        memref::StoreOp::create(sb, loc, v, c->get(), at(sb, mapC, rows[r], cols[q], zero));
      }
    rewriter.eraseOp(op);
    ++numKernels;
    ++numTiledProducts;
    return true;
  }

  /// Whether `type` is a 2-D f16 matrix the tensor memory accelerator reads in boxes: static
  /// strides and offset, rows contiguous (the inner stride 1) and 16-byte multiples apart,
  /// starting 16 bytes aligned (Kiln's device buffers start 64-byte aligned: vectorRows).
  static bool tmaMatrix(Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || memref.getRank() != 2 || !memref.hasStaticShape() ||
        !memref.getElementType().isF16() || memref.getMemorySpace())
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)) || strides[1] != 1 ||
        ShapedType::isDynamic(offset) || ShapedType::isDynamic(strides[0]))
      return false;
    return offset % 8 == 0 && strides[0] % 8 == 0 && strides[0] >= memref.getShape()[1] &&
           memref.getShape()[0] < (int64_t(1) << 32) && memref.getShape()[1] < (int64_t(1) << 32);
  }

  /// The Hopper kernel's least output tile side and its stages' depth (warpgroupProduct).
  static constexpr int64_t kWarpgroupTile = 128, kWarpgroupDepth = 64;

  struct WarpgroupMatch {
    OpOperand *a, *b, *c; // read at (i, k), read at (k, j), written at (i, j)
    int64_t m, n, k;
  };

  /// `op` as a product warpgroupProduct takes (with `warpgroupMma`), or nothing: its loops
  /// found by their roles, so that a product whose depth loop is not yet last
  /// (parallelFirst moves it there) matches as well (filledReduction asks before).
  std::optional<WarpgroupMatch> warpgroupMatch(linalg::GenericOp op) {
    FloatType type = warpgroupMma ? plainProductType(op) : nullptr;
    if (!type || !type.isF16() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        op.getNumLoops() != 3 || op.getNumReductionLoops() != 1 ||
        !op.getRegion().front().getOps<linalg::IndexOp>().empty())
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> parallel;
    unsigned kd = 0;
    for (unsigned d = 0; d < 3; ++d) {
      if (iterators[d] == utils::IteratorType::parallel)
        parallel.push_back(d);
      else
        kd = d;
    }
    MLIRContext *ctx = op.getContext();
    auto dims = [&](unsigned x, unsigned y) {
      return AffineMap::get(3, 0, {getAffineDimExpr(x, ctx), getAffineDimExpr(y, ctx)}, ctx);
    };
    unsigned di = parallel[0], dj = parallel[1];
    OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
    if (op.getMatchingIndexingMap(a) != dims(di, kd))
      std::swap(a, b);
    OpOperand *c = op.getDpsInitOperand(0);
    int64_t m = ranges[di], n = ranges[dj], k = ranges[kd];
    if (op.getMatchingIndexingMap(a) != dims(di, kd) ||
        op.getMatchingIndexingMap(b) != dims(kd, dj) ||
        op.getMatchingIndexingMap(c) != dims(di, dj) || ShapedType::isDynamic(m) ||
        ShapedType::isDynamic(n) || ShapedType::isDynamic(k) || m < kWarpgroupTile ||
        n < kWarpgroupTile || k < kWarpgroupDepth ||
        (m + kWarpgroupTile - 1) / kWarpgroupTile > 65535 ||
        !tmaMatrix(a->get().getType()) || !tmaMatrix(b->get().getType()) ||
        !getElementTypeOrSelf(c->get().getType()).isF16())
      return std::nullopt;
    return WarpgroupMatch{a, b, c, m, n, k};
  }

  /// Replaces `op`, a plain f16 product (plainProductType; A, B and the output f16, no batch)
  /// of at least 128 x 128 outputs and 64 deep, A read as its rows (i, k) and B as (k, j),
  /// both 2-D matrices TMA can read (tmaMatrix), with a Hopper kernel (`warpgroup-mma`:
  /// `kiln compile --gpu-arch sm_90a`): two warpgroups (256 threads) per tile of 128 rows
  /// and 256 columns (128 where the output has fewer than 256, or where tiles of 256 would
  /// be fewer than an H200's 132 SMs), each warpgroup 64 rows of
  /// it, their f32 sums in registers, fed by the tensor memory accelerator. The host
  /// encodes a tensor map for each operand (`nvgpu.tma.create.descriptor`, swizzled 128
  /// bytes; the runtime encodes each once: mgpuTensorMapEncodeTiledMemref); in the kernel
  /// one thread loads each 64-deep stage (A's 128 x 64, B's 64 x 256 as four 64 x 64 boxes;
  /// past the matrices' edges zeros) into one of 4 stages (3 for 128 columns) of dynamic
  /// shared memory (aligned to the swizzle's 1024 bytes at run time), completing an
  /// mbarrier; the warpgroups wait for a stage, multiply it with `wgmma.mma_async`
  /// (`nvgpu.warpgroup.mma`: 4 of m64n256k16 each, B transposed: its rows are the depth)
  /// while the stages ahead load, and keep one group of them in flight. The sums go through
  /// shared memory (over the stages) to the output, added to its old values (or to
  /// `initValue`, the fill before it folded in: filledReduction; then the output is not
  /// read) and rounded to f16 once, as the other f16 products do, only inside it: 8
  /// columns a thread with 16-byte accesses where the output's rows allow (`vectorise`),
  /// one otherwise. The sums run in another order than one thread's. False, leaving `op`
  /// alone, for another op.
  bool warpgroupProduct(IRRewriter &rewriter, linalg::GenericOp op, Value initValue) {
    constexpr int64_t kM = kWarpgroupTile, kK = kWarpgroupDepth, kBox = 64;
    constexpr int64_t kWarpgroups = 2, kRows = kM / kWarpgroups, kThreads = 128 * kWarpgroups;
    constexpr int64_t kTileA = kM * kK * 2, kBoxB = kK * kBox * 2, kSwizzleSpan = 1024;
    std::optional<WarpgroupMatch> product = warpgroupMatch(op);
    if (!product)
      return false;
    // 256 columns a tile (4 stages) where the output has them and the grid still has a
    // tile for each of an H100's or H200's 132 SMs; else 128 (3 stages), twice the tiles
    // (two fit an SM), for products too small to fill the GPU with the larger ones.
    constexpr int64_t kSMs = 132;
    int64_t wide = ((product->m + kM - 1) / kM) * ((product->n + 255) / 256);
    const int64_t kN = product->n >= 256 && wide >= kSMs ? 256 : 128, kBoxes = kN / kBox;
    const int64_t kTileB = kBoxes * kBoxB, kStages = kN == 256 ? 4 : 3;
    MLIRContext *ctx = op.getContext();
    OpOperand *a = product->a, *b = product->b, *c = product->c;
    int64_t m = product->m, n = product->n, k = product->k, steps = (k + kK - 1) / kK;

    Location loc = op.getLoc();
    IndexMath im{loc};
    Type f16 = rewriter.getF16Type(), f32 = rewriter.getF32Type(); // warpgroupMatch's types
    auto workgroup = mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
    auto shared = [&](ArrayRef<int64_t> shape, Type element) {
      return MemRefType::get(shape, element, AffineMap(), workgroup);
    };
    auto mapType = [&](int64_t rows, int64_t cols) {
      return nvgpu::TensorMapDescriptorType::get(
          ctx, shared({rows, cols}, f16), nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
          nvgpu::TensorMapL2PromoKind::L2PROMO_NONE, nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    };
    // On the host: the operands' tensor maps, A read in boxes of 128 x 64, B of 64 x 64.
    rewriter.setInsertionPoint(op);
    auto tensorMap = [&](Value matrix, int64_t rows, int64_t cols) -> Value {
      Value unranked = memref::CastOp::create(
          rewriter, loc, UnrankedMemRefType::get(f16, Attribute()), matrix);
      return nvgpu::TmaCreateDescriptorOp::create(rewriter, loc, mapType(rows, cols), unranked,
                                                  ValueRange{im.c(rewriter, rows),
                                                             im.c(rewriter, cols)});
    };
    Value mapA = tensorMap(a->get(), kM, kK), mapB = tensorMap(b->get(), kK, kBox);
    int64_t bytes = kStages * (kTileA + kTileB) + kSwizzleSpan;
    Value one = im.c(rewriter, 1);
    auto kernel = mlir::gpu::LaunchOp::create(
        rewriter, loc, im.c(rewriter, (n + kN - 1) / kN), im.c(rewriter, (m + kM - 1) / kM), one,
        im.c(rewriter, kThreads), one, one,
        arith::ConstantIntOp::create(rewriter, loc, bytes, 32),
        /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange{});
    Block &body = kernel.getBody().front();
    OpBuilder kb = OpBuilder::atBlockBegin(&body);
    mlir::gpu::TerminatorOp::create(kb, loc);
    kb.setInsertionPointToStart(&body);
    Value thread = kernel.getThreadIds().x;
    Value primary = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, thread, im.c(kb, 0));
    Value warpgroup = arith::DivUIOp::create(kb, loc, thread, im.c(kb, 128));
    Value row0 = im.mul(kb, kernel.getBlockIds().y, kM);
    Value col0 = im.mul(kb, kernel.getBlockIds().x, kN);
    // The stages start at the first multiple of 1024 bytes of the dynamic shared memory: the
    // 128-byte swizzle repeats every 8 rows of 128 bytes, and TMA and wgmma both take its
    // pattern from the addresses.
    Value dynamic = mlir::gpu::DynamicSharedMemoryOp::create(
        kb, loc, shared({ShapedType::kDynamic}, kb.getI8Type()));
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(kb, loc, dynamic);
    Value span = im.c(kb, kSwizzleSpan);
    Value skip = arith::RemUIOp::create(
        kb, loc,
        arith::SubIOp::create(kb, loc, span, arith::RemUIOp::create(kb, loc, address, span)),
        span);
    auto view = [&](OpBuilder &at, Value byteOffset, MemRefType viewType) -> Value {
      return memref::ViewOp::create(at, loc, viewType, dynamic, im.add(at, skip, byteOffset),
                                    ValueRange{});
    };
    auto stageA = [&](OpBuilder &at, Value slot) {
      return view(at, im.mul(at, slot, kTileA), shared({kM, kK}, f16));
    };
    // A warpgroup's 64 rows of A's stage (8 KiB in, whole swizzle spans).
    auto rowsA = [&](OpBuilder &at, Value slot) {
      Value offset = im.add(at, im.mul(at, slot, kTileA), im.mul(at, warpgroup, kRows * kK * 2));
      return view(at, offset, shared({kRows, kK}, f16));
    };
    // B's stage: boxes of 64 (depth) x 64 (columns), one after the other.
    auto stageB = [&](OpBuilder &at, Value slot, int64_t box, MemRefType viewType) {
      Value offset = im.add(at, im.mul(at, slot, kTileB), im.c(at, kStages * kTileA + box * kBoxB));
      return view(at, offset, viewType);
    };
    auto barriers = nvgpu::MBarrierGroupType::get(ctx, workgroup, kStages);
    Value barrier = nvgpu::MBarrierCreateOp::create(kb, loc, barriers);
    for (int64_t s = 0; s < kStages; ++s)
      nvgpu::MBarrierInitOp::create(kb, loc, barrier, one, im.c(kb, s), primary);
    // The initialised mbarriers visible to the tensor memory accelerator's completions too
    // (`fence.mbarrier_init`, as CUTLASS's pipelines do), then to the block.
    NVVM::FenceMbarrierInitOp::create(kb, loc);
    mlir::gpu::BarrierOp::create(kb, loc);
    nvgpu::TmaPrefetchOp::create(kb, loc, mapA, primary);
    nvgpu::TmaPrefetchOp::create(kb, loc, mapB, primary);
    // Stage `step` (depth 64 step) into `slot`, by the primary thread where `when` holds.
    auto load = [&](OpBuilder &at, Value slot, Value step, Value when) {
      Value depth = im.mul(at, step, kK);
      nvgpu::MBarrierArriveExpectTxOp::create(at, loc, barrier, im.c(at, kTileA + kTileB), slot,
                                              when);
      nvgpu::TmaAsyncLoadOp::create(at, loc, stageA(at, slot), barrier, mapA,
                                    ValueRange{depth, row0}, slot, nullptr, when);
      for (int64_t box = 0; box < kBoxes; ++box)
        nvgpu::TmaAsyncLoadOp::create(
            at, loc, stageB(at, slot, box, shared({kK, kBox}, f16)), barrier, mapB,
            ValueRange{im.add(at, col0, im.c(at, kBox * box)), depth}, slot, nullptr, when);
    };
    for (int64_t s = 0; s < std::min(kStages - 1, steps); ++s)
      load(kb, im.c(kb, s), im.c(kb, s), primary);
    // Each warpgroup's sums: its 64 rows of the tile.
    auto accumulator =
        nvgpu::WarpgroupAccumulatorType::get(ctx, VectorType::get({kRows, kN}, f32));
    Value zeros = nvgpu::WarpgroupMmaInitAccumulatorOp::create(kb, loc, accumulator);
    Value even = arith::ConstantIntOp::create(kb, loc, 0, 1);
    auto loop = scf::ForOp::create(kb, loc, im.c(kb, 0), im.c(kb, steps), one,
                                   ValueRange{zeros, even});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value step = loop.getInductionVar(), parity = loop.getRegionIterArgs()[1];
      Value slot = arith::RemUIOp::create(lb, loc, step, im.c(lb, kStages));
      nvgpu::MBarrierTryWaitParityOp::create(lb, loc, barrier, parity, im.c(lb, 10000000), slot);
      Value tileA = nvgpu::WarpgroupGenerateDescriptorOp::create(
          lb, loc, nvgpu::WarpgroupMatrixDescriptorType::get(ctx, shared({kRows, kK}, f16)),
          rowsA(lb, slot), mapA);
      MemRefType typeB = shared({kK, kN}, f16);
      Value tileB = nvgpu::WarpgroupGenerateDescriptorOp::create(
          lb, loc, nvgpu::WarpgroupMatrixDescriptorType::get(ctx, typeB),
          stageB(lb, slot, 0, typeB), mapB);
      Value sums = nvgpu::WarpgroupMmaOp::create(lb, loc, accumulator, tileA, tileB,
                                                 /*waitGroup=*/uint64_t(1),
                                                 /*transposeA=*/nullptr, lb.getUnitAttr(),
                                                 loop.getRegionIterArgs()[0]);
      // Every warp has waited for all but this step's products: the stage before's slot,
      // which the next load overwrites, is read.
      mlir::gpu::BarrierOp::create(lb, loc);
      Value next = im.add(lb, step, im.c(lb, kStages - 1));
      Value more = arith::AndIOp::create(lb, loc, primary, im.below(lb, next, steps));
      load(lb, arith::RemUIOp::create(lb, loc, next, im.c(lb, kStages)), next, more);
      Value last = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq, slot,
                                         im.c(lb, kStages - 1));
      Value flipped = arith::XOrIOp::create(lb, loc, parity,
                                            arith::ConstantIntOp::create(lb, loc, 1, 1));
      Value phase = arith::SelectOp::create(lb, loc, last, flipped, parity);
      scf::YieldOp::create(lb, loc, ValueRange{sums, phase});
    }
    NVVM::WgmmaWaitGroupSyncOp::create(kb, loc, kb.getI64IntegerAttr(0));
    mlir::gpu::BarrierOp::create(kb, loc);
    // Each warpgroup's sums into its rows of an f32 tile over the stages. nvgpu's store
    // places a thread's values by its warp's index in the block, not in its warpgroup
    // (rows 16 * warp + ...: the second warpgroup's at 64 to 127), so both store through
    // the first 64 rows' view, which the second's rows continue (kernels-hopper.mlir
    // checks the lowering does so).
    nvgpu::WarpgroupMmaStoreOp::create(kb, loc, loop.getResult(0),
                                       view(kb, im.c(kb, 0), shared({kRows, kN}, f32)));
    mlir::gpu::BarrierOp::create(kb, loc);
    Value tileC = view(kb, im.c(kb, 0), shared({kM, kN}, f32));
    // The output's starting value: the fill folded in, widened, or its old values.
    Value start = initValue ? widen(kb, loc, initValue) : Value();
    auto finish = [&](OpBuilder &at, Value sum, Value row, Value column, int64_t width) {
      Value init = start;
      if (!init && width == 1)
        init = widen(at, loc, memref::LoadOp::create(at, loc, c->get(), ValueRange{row, column}));
      else if (!init)
        init = arith::ExtFOp::create(at, loc, VectorType::get({width}, f32),
                                     alignedVectorLoad(at, loc, c->get(), {row, column}, width));
      else if (width > 1)
        init = vector::BroadcastOp::create(at, loc, VectorType::get({width}, f32), init);
      Value v = arith::AddFOp::create(at, loc, init, sum);
      Type rounded = width == 1 ? Type(f16) : Type(VectorType::get({width}, f16));
      v = arith::TruncFOp::create(at, loc, rounded, v);
      if (width == 1)
        memref::StoreOp::create(at, loc, v, c->get(), ValueRange{row, column});
      else
        alignedVectorStore(at, loc, v, c->get(), {row, column});
    };
    // 8 consecutive columns a thread (a row of kN / 8 threads), where the output's rows
    // hold whole aligned groups of 8 (vectorRows: a group is then inside or outside as a
    // whole); else a column of the tile each, row by row. Neighbouring threads store
    // neighbouring elements either way.
    int64_t width = vectorise && n % 8 == 0 && vectorRows(c->get().getType(), 8) ? 8 : 1;
    int64_t perRow = kN / width, rowsPerPass = kThreads / perRow;
    auto passes = scf::ForOp::create(kb, loc, im.c(kb, 0), im.c(kb, kM / rowsPerPass), one);
    {
      OpBuilder rb = OpBuilder::atBlockBegin(passes.getBody());
      Value r = im.add(rb, im.mul(rb, passes.getInductionVar(), rowsPerPass),
                       arith::DivUIOp::create(rb, loc, thread, im.c(rb, perRow)));
      Value col = im.mul(rb, arith::RemUIOp::create(rb, loc, thread, im.c(rb, perRow)), width);
      Value row = im.add(rb, row0, r), column = im.add(rb, col0, col);
      Value inside =
          arith::AndIOp::create(rb, loc, im.below(rb, row, m), im.below(rb, column, n));
      auto store = scf::IfOp::create(rb, loc, inside, /*withElseRegion=*/false);
      OpBuilder sb = OpBuilder::atBlockBegin(&store.getThenRegion().front());
      Value sum = width == 1 ? Value(memref::LoadOp::create(sb, loc, tileC, ValueRange{r, col}))
                             : alignedVectorLoad(sb, loc, tileC, {r, col}, width);
      finish(sb, sum, row, column, width);
    }
    rewriter.eraseOp(op);
    ++numKernels;
    ++numWarpgroupProducts;
    return true;
  }

  /// Replaces `op`, a plain product (plainProductType) of f16, or of f32 with `allowTf32`
  /// (the operands rounded to TF32 by the tensor cores), of at least 16 in each size, with a
  /// kernel on the tensor cores (the warp-level matrix ops, `wmma`, of sm_70 and later; TF32
  /// from sm_80): a block of 4 warps per 64 x 64 tile of the output, each warp 32 x 32 of
  /// it in 2 x 2 accumulators of 16 x 16 in f32, the operands staged 32 deep through
  /// workgroup memory (rows padded by 16 bytes against bank conflicts; depth past k zeros)
  /// and taken 16 (f16) or 8 (TF32) deep per step, the output's old values and the result
  /// through a tile of f32 there, so edge tiles store only what is inside. The sums run in
  /// another order than one thread's. False, leaving `op` alone, for another op.
  bool tensorCoreProduct(IRRewriter &rewriter, linalg::GenericOp op) {
    constexpr int64_t kTile = 64, kDepth = 32, kFrag = 16, kWarps = 4, kThreads = 32 * kWarps;
    constexpr int64_t kLeadC = kTile + 8;
    // element operands, or f32 ones rounded to TF32 where the user allows it (--allow-tf32).
    FloatType type = tensorCores ? plainProductType(op) : nullptr;
    if (!type || !(type.isF16() || (type.isF32() && allowTf32)))
      return false;
    std::optional<ProductMatch> product = matchProduct(op, kFrag, kTile);
    if (!product)
      return false;
    auto ofType = [&](OpOperand *o) { return getElementTypeOrSelf(o->get().getType()) == type; };
    if (!ofType(product->a) || !ofType(product->b) || !ofType(product->c))
      return false;
    OpOperand *a = product->a, *b = product->b, *c = product->c;
    int64_t m = product->m, n = product->n, k = product->k;
    // An element step is 16 deep, a TF32 one 8; rows padded by 16 bytes against bank conflicts
    // (a fragment's rows then start 32-byte aligned, as wmma loads need).
    bool half = type.isF16();
    int64_t fragK = half ? 16 : 8, pad = half ? 8 : 4;
    int64_t kLeadA = kDepth + pad, kLeadB = kTile + pad;
    // Operands read 16 bytes a load where their rows allow (vectorRows): A along the depth
    // when that is its last dimension and k a multiple of the width, B along the columns
    // when n is.
    int64_t bytes = type.getWidth() / 8, width = 16 / bytes;
    auto lastIs = [&](AffineMap map, int64_t loop) {
      return map.getNumResults() &&
             map.getResults().back() == getAffineDimExpr(unsigned(loop), op.getContext()) &&
             llvm::count_if(map.getResults(), [&](AffineExpr e) {
               return e.isFunctionOfDim(unsigned(loop));
             }) == 1;
    };
    int64_t dk = product->di + 2, dj = product->di + 1;
    int64_t va = vectorise && lastIs(product->mapA, dk) && k % width == 0 &&
                         vectorRows(product->a->get().getType(), width)
                     ? width
                     : 1;
    int64_t vb = vectorise && lastIs(product->mapB, dj) && n % width == 0 &&
                         vectorRows(product->b->get().getType(), width)
                     ? width
                     : 1;

    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type element = type, f32 = rewriter.getF32Type();
    auto workgroup = mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
    auto tileA = MemRefType::get({kTile, kLeadA}, element, AffineMap(), workgroup);
    auto tileB = MemRefType::get({kDepth, kLeadB}, element, AffineMap(), workgroup);
    auto tileC = MemRefType::get({kTile, kLeadC}, f32, AffineMap(), workgroup);
    rewriter.setInsertionPoint(op);
    IndexMath im{loc};
    SmallVector<Value> batchIvs;
    auto kernel = launchTiles(rewriter, im, m, n,
                              ArrayRef<int64_t>(product->ranges).take_front(product->di), kTile,
                              kThreads, {tileA, tileB, tileC}, batchIvs);
    Value sharedA = kernel.getWorkgroupAttributions()[0];
    Value sharedB = kernel.getWorkgroupAttributions()[1];
    Value sharedC = kernel.getWorkgroupAttributions()[2];
    OpBuilder kb(rewriter);
    auto indices = [&](OpBuilder &bld, AffineMap map, Value row, Value col, Value depth) {
      return tileIndices(bld, loc, map, batchIvs, row, col, depth);
    };
    Value zero = im.c(kb, 0);
    Value thread = kernel.getThreadIds().x;
    Value warp = arith::DivUIOp::create(kb, loc, thread, im.c(kb, 32));
    // The warp's 32 x 32 of the tile: rows 32 * (warp / 2), columns 32 * (warp % 2).
    Value warpRow = im.mul(kb, arith::DivUIOp::create(kb, loc, warp, im.c(kb, 2)), 2 * kFrag);
    Value warpCol = im.mul(kb, arith::RemUIOp::create(kb, loc, warp, im.c(kb, 2)), 2 * kFrag);
    Value row0 = im.mul(kb, kernel.getBlockIds().y, kTile);
    Value col0 = im.mul(kb, kernel.getBlockIds().x, kTile);
    // Each thread's share of a rows x cols tile: element e = thread + kThreads * q, row
    // e / cols and column e % cols. Every cols here divides kThreads, so that is row
    // thread / cols + kThreads / cols * q, the same column for every q: written so, a
    // thread's loads are one address and constant offsets, not an address each.
    auto forShare = [&](OpBuilder &at, int64_t rows, int64_t cols,
                        function_ref<void(OpBuilder &, Value, Value)> fn) {
      assert(kThreads % cols == 0 && "a thread's column is the same for each q");
      Value r = arith::DivUIOp::create(at, loc, thread, im.c(at, cols));
      Value col = arith::RemUIOp::create(at, loc, thread, im.c(at, cols));
      for (int64_t q = 0; q < rows * cols / kThreads; ++q)
        fn(at, im.add(at, r, im.c(at, kThreads / cols * q)), col);
    };
    // The output's old values into the f32 tile (outside rows and columns clamped: not
    // stored), then into the accumulators.
    forShare(kb, kTile, kTile, [&](OpBuilder &at, Value r, Value col) {
      Value v = memref::LoadOp::create(at, loc, c->get(),
                                       indices(at, product->mapC, im.atMost(at, im.add(at, row0, r), m - 1),
                                                im.atMost(at, im.add(at, col0, col), n - 1), zero));
      memref::StoreOp::create(at, loc, widen(at, loc, v), sharedC, ValueRange{r, col});
    });
    mlir::gpu::BarrierOp::create(kb, loc);
    auto fragment = [&](Type element, StringRef operand) {
      SmallVector<int64_t, 2> shape = {kFrag, kFrag};
      if (operand == "AOp")
        shape[1] = fragK;
      if (operand == "BOp")
        shape[0] = fragK;
      return mlir::gpu::MMAMatrixType::get(shape, element, operand);
    };
    auto lead = [&](int64_t v) { return kb.getIndexAttr(v); };
    SmallVector<Value> init;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        init.push_back(mlir::gpu::SubgroupMmaLoadMatrixOp::create(
            kb, loc, fragment(f32, "COp"), sharedC,
            ValueRange{im.add(kb, warpRow, im.c(kb, kFrag * i)),
                       im.add(kb, warpCol, im.c(kb, kFrag * j))},
            lead(kLeadC), /*transpose=*/nullptr));
    // A staged as rows x depth, B as depth x columns, `va` and `vb` elements a load; depth
    // past k is zeros (both: a clamped load may read an infinity, and inf * 0 is NaN). A
    // vector is inside or outside as a whole (its size divides k, or n), so the clamped
    // index of its first element is its start's. fetch reads a stage's share of each
    // thread from memory, put stores it to the tiles: the loop fetches the next stage
    // before the products of this one, so its loads' latency hides behind them (past the
    // last stage, the depth is out of range: zeros, never stored).
    auto load = [&](OpBuilder &at, OpOperand *operand, int64_t width,
                    SmallVector<Value> where) -> Value {
      if (width == 1)
        return memref::LoadOp::create(at, loc, operand->get(), where);
      return alignedVectorLoad(at, loc, operand->get(), where, width);
    };
    auto zeros = [&](OpBuilder &at, int64_t width) -> Value {
      Type t = width == 1 ? element : Type(VectorType::get({width}, element));
      return arith::ConstantOp::create(at, loc, cast<TypedAttr>(at.getZeroAttr(t)));
    };
    auto fetch = [&](OpBuilder &at, Value k0) {
      SmallVector<Value> values;
      forShare(at, kTile, kDepth / va, [&](OpBuilder &bt, Value r, Value dv) {
        Value depth = im.add(bt, k0, im.mul(bt, dv, va));
        Value v = load(bt, a, va,
                       indices(bt, product->mapA, im.atMost(bt, im.add(bt, row0, r), m - 1),
                               zero, im.atMost(bt, depth, k - va)));
        values.push_back(
            arith::SelectOp::create(bt, loc, im.below(bt, depth, k), v, zeros(bt, va)));
      });
      forShare(at, kDepth, kTile / vb, [&](OpBuilder &bt, Value d, Value cv) {
        Value depth = im.add(bt, k0, d);
        Value v = load(bt, b, vb,
                       indices(bt, product->mapB, zero,
                               im.atMost(bt, im.add(bt, col0, im.mul(bt, cv, vb)), n - vb),
                               im.atMost(bt, depth, k - 1)));
        values.push_back(
            arith::SelectOp::create(bt, loc, im.below(bt, depth, k), v, zeros(bt, vb)));
      });
      return values;
    };
    auto put = [&](OpBuilder &at, ValueRange values) {
      auto store = [&](OpBuilder &bt, Value v, Value shared, ValueRange where) {
        if (isa<VectorType>(v.getType()))
          alignedVectorStore(bt, loc, v, shared, where);
        else
          memref::StoreOp::create(bt, loc, v, shared, where);
      };
      size_t next = 0;
      forShare(at, kTile, kDepth / va, [&](OpBuilder &bt, Value r, Value dv) {
        store(bt, values[next++], sharedA, ValueRange{r, im.mul(bt, dv, va)});
      });
      forShare(at, kDepth, kTile / vb, [&](OpBuilder &bt, Value d, Value cv) {
        store(bt, values[next++], sharedB, ValueRange{d, im.mul(bt, cv, vb)});
      });
    };
    SmallVector<Value> results = stagedLoop(
        kb, im, (k + kDepth - 1) / kDepth, kDepth, init, fetch, put,
        [&](OpBuilder &tb, Value, ValueRange fragments) {
          SmallVector<Value> acc(fragments);
          for (int64_t kk = 0; kk < kDepth; kk += fragK) {
            SmallVector<Value> as, bs;
            for (int64_t i = 0; i < 2; ++i) {
              as.push_back(mlir::gpu::SubgroupMmaLoadMatrixOp::create(
                  tb, loc, fragment(element, "AOp"), sharedA,
                  ValueRange{im.add(tb, warpRow, im.c(tb, kFrag * i)), im.c(tb, kk)}, lead(kLeadA),
                  /*transpose=*/nullptr));
              bs.push_back(mlir::gpu::SubgroupMmaLoadMatrixOp::create(
                  tb, loc, fragment(element, "BOp"), sharedB,
                  ValueRange{im.c(tb, kk), im.add(tb, warpCol, im.c(tb, kFrag * i))}, lead(kLeadB),
                  /*transpose=*/nullptr));
            }
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t j = 0; j < 2; ++j)
                acc[i * 2 + j] = mlir::gpu::SubgroupMmaComputeOp::create(
                    tb, loc, fragment(f32, "COp"), as[i], bs[j], acc[i * 2 + j],
                    /*a_transpose=*/nullptr, /*b_transpose=*/nullptr);
          }
      return acc;
        });
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        mlir::gpu::SubgroupMmaStoreMatrixOp::create(
            kb, loc, results[i * 2 + j], sharedC,
            ValueRange{im.add(kb, warpRow, im.c(kb, kFrag * i)),
                       im.add(kb, warpCol, im.c(kb, kFrag * j))},
            lead(kLeadC), /*transpose=*/nullptr);
    mlir::gpu::BarrierOp::create(kb, loc);
    // Rounded to element once, stored where inside the output.
    forShare(kb, kTile, kTile, [&](OpBuilder &at, Value r, Value col) {
      Value row = im.add(at, row0, r), column = im.add(at, col0, col);
      Value inside = arith::AndIOp::create(at, loc, im.below(at, row, m), im.below(at, column, n));
      auto store = scf::IfOp::create(at, loc, inside, /*withElseRegion=*/false);
      OpBuilder sb = OpBuilder::atBlockBegin(&store.getThenRegion().front());
      Value v = memref::LoadOp::create(sb, loc, sharedC, ValueRange{r, col});
      if (half)
        v = arith::TruncFOp::create(sb, loc, element, v);
      memref::StoreOp::create(sb, loc, v, c->get(), indices(sb, product->mapC, row, column, zero));
    });
    rewriter.eraseOp(op);
    ++numKernels;
    ++numTensorCoreProducts;
    return true;
  }

  /// Replaces `op`, a reduction along its operands' innermost dimension (a row's sum or
  /// maximum: softmax, layer norm, a mean over the last axis), with a kernel of one block
  /// per output element whose threads each combine a strided share of the reduction
  /// (neighbouring threads reading neighbouring elements), then the block's shares
  /// (gpu.all_reduce: warp shuffles), thread 0 combining the total into the output.
  /// False, leaving `op` alone, for another op: a thread per output element suits it.
  bool blockReduction(IRRewriter &rewriter, linalg::GenericOp op) {
    std::optional<Combiner> combiner = combinerOf(op);
    if (!combiner)
      return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t parallel = op.getNumParallelLoops(), outputs = 1, reduced = 1;
    for (auto [d, range] : llvm::enumerate(ranges)) {
      if (ShapedType::isDynamic(range))
        return false;
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
        return false;
      innermost = true;
    }
    if (!innermost || reduced < 32 || outputs == 0 || outputs > INT32_MAX)
      return false;
    int64_t threads = blockThreads(reduced);

    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto index = [&](OpBuilder &b, int64_t v) { return indexConstant(b, loc, v); };
    auto kernel = launch1d(rewriter, loc, outputs, threads);
    Block &body = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    // The output's indices from the block, the reduction's from the loop below.
    SmallVector<Value> ivs =
        splitIndex(b, loc, kernel.getBlockIds().x, ArrayRef<int64_t>(ranges).take_front(parallel));
    Value thread = kernel.getThreadIds().x;
    Value identity = arith::ConstantOp::create(b, loc, combiner->identity);
    auto loop = scf::ForOp::create(b, loc, thread, index(b, reduced), index(b, threads),
                                   ValueRange{identity});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      ivs.append(splitIndex(lb, loc, loop.getInductionVar(),
                            ArrayRef<int64_t>(ranges).drop_front(parallel)));
      IRMapping map;
      cloneBody(lb, loc, op, ivs, loop.getRegionIterArgs()[0], map, combiner->op);
      Value next = lb.clone(*combiner->op, map)->getResult(0);
      scf::YieldOp::create(lb, loc, next);
    }
    Value total = mlir::gpu::AllReduceOp::create(
                      b, loc, loop.getResult(0),
                      mlir::gpu::AllReduceOperationAttr::get(b.getContext(), combiner->kind),
                      b.getUnitAttr())
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
      map.map(combiner->value, total);
      Value updated = wb.clone(*combiner->op, map)->getResult(0);
      memref::StoreOp::create(wb, loc, updated, init->get(), at);
    }
    rewriter.eraseOp(op);
    ++numKernels;
    ++numBlockReductions;
    return true;
  }

  /// Puts an scf.parallel over `op`'s parallel dimensions in its place, each iteration of
  /// which computes one output element with the reductions as loops carrying it in a
  /// register (loaded once before them, stored once after: a depthwise convolution's or a
  /// pool's window, a reduction along an outer dimension), erases `op` and returns the
  /// loop; null, leaving it, for an op with no reduction, no parallel dimension, more than
  /// one output or dynamic sizes. linalg's own loops would load and store the output in
  /// every reduction step: the pointers may alias for all the device compiler knows, so
  /// each step's store goes to memory. The same sums in the same order (a product of
  /// 16-bit floats summed in f32: isHalfProduct). With `initValue`, the output's starting value is that instead of what it holds.
  scf::ParallelOp registerReduction(IRRewriter &rewriter, linalg::GenericOp op,
                                    Value initValue = nullptr) {
    int64_t parallel = op.getNumParallelLoops();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (op.getNumReductionLoops() == 0 || parallel == 0 || op.getNumDpsInits() != 1 ||
        !op.hasPureBufferSemantics() || llvm::any_of(ranges, ShapedType::isDynamic))
      return nullptr;
    for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
      if ((int64_t(d) < parallel) != (it == utils::IteratorType::parallel))
        return nullptr; // parallelFirst put the parallel dimensions first
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
          std::function<Value(OpBuilder &, int64_t, Value)> nest =
              [&](OpBuilder &nb, int64_t d, Value carried) -> Value {
            if (d == int64_t(ranges.size()) && wide) {
              auto load = [&](OpOperand *in) {
                return memref::LoadOp::create(
                    nb, loc, in->get(), applyMap(nb, loc, op.getMatchingIndexingMap(in), ivs));
              };
              return halfProductStep(nb, loc, load(op.getDpsInputOperand(0)),
                                     load(op.getDpsInputOperand(1)), carried);
            }
            if (d == int64_t(ranges.size())) {
              IRMapping map;
              cloneBody(nb, loc, op, ivs, carried, map);
              return map.lookupOrDefault(region.getTerminator()->getOperand(0));
            }
            auto forOp = scf::ForOp::create(nb, loc, index(nb, 0), index(nb, ranges[d]),
                                            index(nb, 1), ValueRange{carried});
            OpBuilder inner = OpBuilder::atBlockBegin(forOp.getBody());
            ivs[d] = forOp.getInductionVar();
            Value next = nest(inner, d + 1, forOp.getRegionIterArgs()[0]);
            scf::YieldOp::create(inner, loc, next);
            return forOp.getResult(0);
          };
          Value result = nest(b, parallel, acc);
          if (wide)
            result = arith::TruncFOp::create(b, loc, getElementTypeOrSelf(init->get().getType()),
                                             result);
          memref::StoreOp::create(b, loc, result, init->get(), at);
          scf::ReduceOp::create(b, loc);
        });
    rewriter.eraseOp(op);
    ++numRegisterReductions;
    return loop;
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
