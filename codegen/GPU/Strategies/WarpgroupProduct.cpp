//===- WarpgroupProduct.cpp - Hopper f16 matrix products: TMA and wgmma -------===//
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Matchers.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::codegen::gpu {

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

/// The Hopper kernel's least output tile side and its stages' depth (buildWarpgroupProduct).
static constexpr int64_t kWarpgroupTile = 128, kWarpgroupDepth = 64;

namespace {

struct WarpgroupMatch {
  OpOperand *a, *b, *c; // read at (i, k), read at (k, j), written at (i, j)
  int64_t m, n, k;
};

} // namespace

/// `op` as a product buildWarpgroupProduct takes (with `warpgroup-mma`, which
/// selectStrategy and filledReduction check), or nothing: its loops found by their roles,
/// so that a product whose depth loop is not yet last (parallelFirst moves it there)
/// matches as well (filledReduction asks before).
static std::optional<WarpgroupMatch> warpgroupMatch(linalg::GenericOp op) {
  FloatType type = plainProductType(op);
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
      (m + kWarpgroupTile - 1) / kWarpgroupTile > 65535 || !tmaMatrix(a->get().getType()) ||
      !tmaMatrix(b->get().getType()) || !getElementTypeOrSelf(c->get().getType()).isF16())
    return std::nullopt;
  return WarpgroupMatch{a, b, c, m, n, k};
}

bool fitsWarpgroupProduct(linalg::GenericOp op) { return warpgroupMatch(op).has_value(); }

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
/// one otherwise. The sums run in another order than one thread's. `op` must be one
/// fitsWarpgroupProduct takes.
void buildWarpgroupProduct(IRRewriter &rewriter, linalg::GenericOp op, Value initValue,
                           bool vectorise) {
  constexpr int64_t kM = kWarpgroupTile, kK = kWarpgroupDepth, kBox = 64;
  constexpr int64_t kWarpgroups = 2, kRows = kM / kWarpgroups, kThreads = 128 * kWarpgroups;
  constexpr int64_t kTileA = kM * kK * 2, kBoxB = kK * kBox * 2, kSwizzleSpan = 1024;
  std::optional<WarpgroupMatch> product = warpgroupMatch(op);
  assert(product && "not a warpgroup product (fitsWarpgroupProduct)");
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
    Value unranked =
        memref::CastOp::create(rewriter, loc, UnrankedMemRefType::get(f16, Attribute()), matrix);
    return nvgpu::TmaCreateDescriptorOp::create(
        rewriter, loc, mapType(rows, cols), unranked,
        ValueRange{im.c(rewriter, rows), im.c(rewriter, cols)});
  };
  Value mapA = tensorMap(a->get(), kM, kK), mapB = tensorMap(b->get(), kK, kBox);
  int64_t bytes = kStages * (kTileA + kTileB) + kSwizzleSpan;
  Value one = im.c(rewriter, 1);
  auto kernel = mlir::gpu::LaunchOp::create(
      rewriter, loc, im.c(rewriter, (n + kN - 1) / kN), im.c(rewriter, (m + kM - 1) / kM), one,
      im.c(rewriter, kThreads), one, one, arith::ConstantIntOp::create(rewriter, loc, bytes, 32),
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
      kb, loc, arith::SubIOp::create(kb, loc, span, arith::RemUIOp::create(kb, loc, address, span)),
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
    nvgpu::TmaAsyncLoadOp::create(at, loc, stageA(at, slot), barrier, mapA, ValueRange{depth, row0},
                                  slot, nullptr, when);
    for (int64_t box = 0; box < kBoxes; ++box)
      nvgpu::TmaAsyncLoadOp::create(
          at, loc, stageB(at, slot, box, shared({kK, kBox}, f16)), barrier, mapB,
          ValueRange{im.add(at, col0, im.c(at, kBox * box)), depth}, slot, nullptr, when);
  };
  for (int64_t s = 0; s < std::min(kStages - 1, steps); ++s)
    load(kb, im.c(kb, s), im.c(kb, s), primary);
  // Each warpgroup's sums: its 64 rows of the tile.
  auto accumulator = nvgpu::WarpgroupAccumulatorType::get(ctx, VectorType::get({kRows, kN}, f32));
  Value zeros = nvgpu::WarpgroupMmaInitAccumulatorOp::create(kb, loc, accumulator);
  Value even = arith::ConstantIntOp::create(kb, loc, 0, 1);
  auto loop =
      scf::ForOp::create(kb, loc, im.c(kb, 0), im.c(kb, steps), one, ValueRange{zeros, even});
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
        lb, loc, nvgpu::WarpgroupMatrixDescriptorType::get(ctx, typeB), stageB(lb, slot, 0, typeB),
        mapB);
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
    Value last =
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq, slot, im.c(lb, kStages - 1));
    Value flipped =
        arith::XOrIOp::create(lb, loc, parity, arith::ConstantIntOp::create(lb, loc, 1, 1));
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
    Value inside = arith::AndIOp::create(rb, loc, im.below(rb, row, m), im.below(rb, column, n));
    auto store = scf::IfOp::create(rb, loc, inside, /*withElseRegion=*/false);
    OpBuilder sb = OpBuilder::atBlockBegin(&store.getThenRegion().front());
    Value sum = width == 1 ? Value(memref::LoadOp::create(sb, loc, tileC, ValueRange{r, col}))
                           : alignedVectorLoad(sb, loc, tileC, {r, col}, width);
    finish(sb, sum, row, column, width);
  }
  rewriter.eraseOp(op);
}

} // namespace kiln::codegen::gpu
