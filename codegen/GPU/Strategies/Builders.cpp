//===- Builders.cpp - IR building shared by the GPU kernel strategies ---------===//
#include "codegen/GPU/Strategies/Builders.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::codegen::gpu {

static constexpr int64_t kBlockThreads = 256;

int64_t blockThreads(int64_t n) {
  return n >= kBlockThreads ? kBlockThreads : std::max<int64_t>(32, (n + 31) / 32 * 32);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

mlir::gpu::LaunchOp launch1d(OpBuilder &b, Location loc, int64_t blocks, int64_t threads) {
  Value one = indexConstant(b, loc, 1);
  auto size = [&](int64_t n) { return n == 1 ? one : indexConstant(b, loc, n); };
  return mlir::gpu::LaunchOp::create(b, loc, size(blocks), one, one, size(threads), one, one);
}

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

SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    indices.push_back(affine::AffineApplyOp::create(b, loc, map.getSubMap({r}), ivs));
  return indices;
}

void cloneBody(OpBuilder &b, Location loc, linalg::GenericOp op, ArrayRef<Value> ivs, Value output,
               IRMapping &map, Operation *skip) {
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

Value widen(OpBuilder &b, Location loc, Value v) {
  return v.getType().isF32() ? v : arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value halfProductStep(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc) {
  return arith::AddFOp::create(
      b, loc, acc, arith::MulFOp::create(b, loc, widen(b, loc, lhs), widen(b, loc, rhs)));
}

SmallVector<Value> tileIndices(OpBuilder &b, Location loc, AffineMap map, ArrayRef<Value> batchIvs,
                               Value row, Value col, Value depth) {
  SmallVector<Value> ivs(batchIvs);
  ivs.append({row, col, depth});
  return applyMap(b, loc, map, ivs);
}

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

Value alignedVectorLoad(OpBuilder &b, Location loc, Value memref, ValueRange indices,
                        int64_t width) {
  Type element = getElementTypeOrSelf(memref.getType());
  auto load = vector::LoadOp::create(b, loc, VectorType::get({width}, element), memref, indices);
  load.setAlignment(width * element.getIntOrFloatBitWidth() / 8);
  return load;
}

void alignedVectorStore(OpBuilder &b, Location loc, Value v, Value memref, ValueRange indices) {
  auto type = cast<VectorType>(v.getType());
  vector::StoreOp::create(b, loc, v, memref, indices)
      .setAlignment(type.getNumElements() * type.getElementTypeBitWidth() / 8);
}

mlir::gpu::LaunchOp launchTiles(IRRewriter &rewriter, const IndexMath &im, int64_t m, int64_t n,
                                ArrayRef<int64_t> batchRanges, int64_t tile, int64_t threads,
                                TypeRange shared, SmallVector<Value> &batchIvs) {
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

} // namespace kiln::codegen::gpu
