//===- TensorCoreProduct.cpp - f16 and TF32 matrix products on wmma -----------===//
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Matchers.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::codegen::gpu {

/// A block's tile of the output, a stage's depth, a fragment's side (wmma's 16 x 16), a
/// block's warps and threads, and the rows of the f32 tile of the output (padded by 8).
static constexpr int64_t kTile = 64, kDepth = 32, kFrag = 16, kWarps = 4, kThreads = 32 * kWarps;
static constexpr int64_t kLeadC = kTile + 8;

bool fitsTensorCoreProduct(linalg::GenericOp op, bool allowTf32) {
  // element operands, or f32 ones rounded to TF32 where the user allows it (--allow-tf32).
  FloatType type = plainProductType(op);
  if (!type || !(type.isF16() || (type.isF32() && allowTf32)))
    return false;
  std::optional<ProductMatch> product = matchProduct(op, kFrag, kTile);
  if (!product)
    return false;
  auto ofType = [&](OpOperand *o) { return getElementTypeOrSelf(o->get().getType()) == type; };
  return ofType(product->a) && ofType(product->b) && ofType(product->c);
}

/// Replaces `op`, a plain product (plainProductType) of f16, or of f32 with `allowTf32`
/// (the operands rounded to TF32 by the tensor cores), of at least 16 in each size, with a
/// kernel on the tensor cores (the warp-level matrix ops, `wmma`, of sm_70 and later; TF32
/// from sm_80): a block of 4 warps per 64 x 64 tile of the output, each warp 32 x 32 of
/// it in 2 x 2 accumulators of 16 x 16 in f32, the operands staged 32 deep through
/// workgroup memory (rows padded by 16 bytes against bank conflicts; depth past k zeros)
/// and taken 16 (f16) or 8 (TF32) deep per step, the output's old values and the result
/// through a tile of f32 there, so edge tiles store only what is inside. The sums run in
/// another order than one thread's. `op` must be one fitsTensorCoreProduct takes.
void buildTensorCoreProduct(IRRewriter &rewriter, linalg::GenericOp op, bool vectorise) {
  FloatType type = plainProductType(op);
  std::optional<ProductMatch> product = matchProduct(op, kFrag, kTile);
  assert(type && product && "not a tensor-core product (fitsTensorCoreProduct)");
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
           llvm::count_if(map.getResults(),
                          [&](AffineExpr e) { return e.isFunctionOfDim(unsigned(loop)); }) == 1;
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
  auto kernel =
      launchTiles(rewriter, im, m, n, ArrayRef<int64_t>(product->ranges).take_front(product->di),
                  kTile, kThreads, {tileA, tileB, tileC}, batchIvs);
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
    Value v =
        memref::LoadOp::create(at, loc, c->get(),
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
                     indices(bt, product->mapA, im.atMost(bt, im.add(bt, row0, r), m - 1), zero,
                             im.atMost(bt, depth, k - va)));
      values.push_back(arith::SelectOp::create(bt, loc, im.below(bt, depth, k), v, zeros(bt, va)));
    });
    forShare(at, kDepth, kTile / vb, [&](OpBuilder &bt, Value d, Value cv) {
      Value depth = im.add(bt, k0, d);
      Value v = load(bt, b, vb,
                     indices(bt, product->mapB, zero,
                             im.atMost(bt, im.add(bt, col0, im.mul(bt, cv, vb)), n - vb),
                             im.atMost(bt, depth, k - 1)));
      values.push_back(arith::SelectOp::create(bt, loc, im.below(bt, depth, k), v, zeros(bt, vb)));
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
}

} // namespace kiln::codegen::gpu
