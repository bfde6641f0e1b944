//===- TiledProduct.cpp - matrix products in tiles through workgroup memory ---===//
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Matchers.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::codegen::gpu {

/// A stage's depth, a block's side in threads (its threads: kThreads), and the rows (or
/// columns) of a thread's group, read as one vector.
static constexpr int64_t kDepth = 16, kSide = 16, kThreads = kSide * kSide, kGroup = 4;

/// `op` as a product buildTiledProduct takes: at least kSide in each size, in a grid of
/// 64 x 64 tiles (its smaller ones).
static std::optional<ProductMatch> matchTiledProduct(linalg::GenericOp op) {
  return matchProduct(op, kSide, 64);
}

bool fitsTiledProduct(linalg::GenericOp op) { return matchTiledProduct(op).has_value(); }

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
/// either kernel). fitsTiledProduct is false for another op or a product under 16 in any
/// size (products that are library calls never get here: cuBLAS's).
void buildTiledProduct(IRRewriter &rewriter, linalg::GenericOp op, bool vectorise) {
  std::optional<ProductMatch> product = matchTiledProduct(op);
  assert(product && "not a tiled product (fitsTiledProduct)");
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
  auto kernel = launchTiles(rewriter, im, m, n, ranges.take_front(product->di), tile, kThreads,
                            {tileA, tileB}, batchIvs);
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
    return im.add(bld, im.mul(bld, t, kGroup), im.c(bld, r / kGroup * kSide * kGroup + r % kGroup));
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
      Value v = memref::LoadOp::create(kb, loc, c->get(), at(kb, mapC, rowsIn[r], colsIn[q], zero));
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
        Value group = vectorise ? alignedVectorLoad(bld, loc, shared, ValueRange{kk, start}, kGroup)
                                : nullptr;
        for (int64_t i = 0; i < kGroup; ++i) {
          Value v = group ? vector::ExtractOp::create(bld, loc, group, ArrayRef<int64_t>{i})
                          : memref::LoadOp::create(bld, loc, shared,
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
          Value depth =
              arith::MinUIOp::create(tb, loc, im.c(tb, kDepth),
                                     arith::SubIOp::create(tb, loc, im.c(tb, k), k0).getResult());
          auto inner = scf::ForOp::create(tb, loc, zero, depth, im.c(tb, 1), init);
          OpBuilder ib = OpBuilder::atBlockBegin(inner.getBody());
          scf::YieldOp::create(ib, loc,
                               step(ib, inner.getInductionVar(), inner.getRegionIterArgs()));
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
      Value inside =
          arith::AndIOp::create(kb, loc, im.below(kb, rows[r], m), im.below(kb, cols[q], n));
      auto store = scf::IfOp::create(kb, loc, inside, /*withElseRegion=*/false);
      OpBuilder sb = OpBuilder::atBlockBegin(&store.getThenRegion().front());
      Value v = results[r * per + q];
      if (wide)
        v = arith::TruncFOp::create(sb, loc, getElementTypeOrSelf(c->get().getType()), v);
      memref::StoreOp::create(sb, loc, v, c->get(), at(sb, mapC, rows[r], cols[q], zero));
    }
  rewriter.eraseOp(op);
}

} // namespace kiln::codegen::gpu
