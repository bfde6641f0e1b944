//===- Builders.h - IR building shared by the GPU kernel strategies --*- C++ -*-===//
//
// Index arithmetic, launches, loops and memory accesses that more than one of
// kiln-gpu-kernels' strategies (Strategies.h) and the pass itself write.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_STRATEGIES_BUILDERS_H
#define KILN_CODEGEN_GPU_STRATEGIES_BUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::codegen::gpu {

/// The threads of a block for `n` iterations: 256, or `n` rounded up to a warp if smaller.
int64_t blockThreads(int64_t n);

/// The index constant `v`.
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// A launch of `blocks` x `threads` threads in x (y and z of one), at `b`'s point.
mlir::gpu::LaunchOp launch1d(mlir::OpBuilder &b, mlir::Location loc, int64_t blocks,
                             int64_t threads);

/// The indices, row-major (the last varying fastest), of the flat position `id` in a nest
/// of loops with `counts` iterations each.
llvm::SmallVector<mlir::Value> splitIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id,
                                          llvm::ArrayRef<int64_t> counts);

/// The results of `map` at the loop indices `ivs` (an operand's indices in a linalg op).
llvm::SmallVector<mlir::Value> applyMap(mlir::OpBuilder &b, mlir::Location loc, mlir::AffineMap map,
                                        mlir::ValueRange ivs);

/// Clones `op`'s body at `b` for the loop indices `ivs`: each input loaded through its
/// indexing map, `linalg.index` the index itself, the output's argument `output`; every op
/// but the yield and `skip`. `map` holds the clones of the body's values afterwards.
void cloneBody(mlir::OpBuilder &b, mlir::Location loc, mlir::linalg::GenericOp op,
               llvm::ArrayRef<mlir::Value> ivs, mlir::Value output, mlir::IRMapping &map,
               mlir::Operation *skip = nullptr);

/// `v` widened to f32 (a half product's operand), or `v` when it is f32 already.
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// One step of a half product's sum carried in f32: `acc + f32(a) * f32(b)`.
mlir::Value halfProductStep(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                            mlir::Value rhs, mlir::Value acc);

/// Index arithmetic for kernels written out op by op (the products' tiles).
struct IndexMath {
  mlir::Location loc;
  mlir::Value c(mlir::OpBuilder &b, int64_t v) const { return indexConstant(b, loc, v); }
  mlir::Value mul(mlir::OpBuilder &b, mlir::Value x, int64_t v) const {
    return mlir::arith::MulIOp::create(b, loc, x, c(b, v)).getResult();
  }
  mlir::Value add(mlir::OpBuilder &b, mlir::Value x, mlir::Value y) const {
    return mlir::arith::AddIOp::create(b, loc, x, y).getResult();
  }
  /// min(x, v): an index clamped into bounds.
  mlir::Value atMost(mlir::OpBuilder &b, mlir::Value x, int64_t v) const {
    return mlir::arith::MinUIOp::create(b, loc, x, c(b, v)).getResult();
  }
  /// x < v.
  mlir::Value below(mlir::OpBuilder &b, mlir::Value x, int64_t v) const {
    return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::ult, x, c(b, v))
        .getResult();
  }
};

/// The indices `map` gives at the loops (batch..., row, column, depth).
llvm::SmallVector<mlir::Value> tileIndices(mlir::OpBuilder &b, mlir::Location loc,
                                           mlir::AffineMap map,
                                           llvm::ArrayRef<mlir::Value> batchIvs, mlir::Value row,
                                           mlir::Value col, mlir::Value depth);

/// An scf.parallel over `counts` (each from 0, step 1), its body made by `build`.
mlir::scf::ParallelOp
parallelLoop(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<int64_t> counts,
             llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)> build);

/// `width` consecutive elements of `memref` at `indices` as one vector load, aligned to
/// their size: they start a row's aligned group (vectorRows).
mlir::Value alignedVectorLoad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value memref,
                              mlir::ValueRange indices, int64_t width);

/// The vector `v` stored to `memref` at `indices`, aligned to its size (alignedVectorLoad).
void alignedVectorStore(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Value memref,
                        mlir::ValueRange indices);

/// A launch of one block of `threads` per `tile` x `tile` tile of an m x n output (grid x
/// the columns' tiles, y the rows', z the batch, of sizes `batchRanges`), with the
/// workgroup buffers `shared`, its body holding only its terminator, which `rewriter`
/// builds before; `batchIvs` are the block's batch indices, computed there.
mlir::gpu::LaunchOp launchTiles(mlir::IRRewriter &rewriter, const IndexMath &im, int64_t m,
                                int64_t n, llvm::ArrayRef<int64_t> batchRanges, int64_t tile,
                                int64_t threads, mlir::TypeRange shared,
                                llvm::SmallVector<mlir::Value> &batchIvs);

/// A product kernel's loop over the `stages` stages of its depth, `depth` deep each, carrying
/// its accumulators (`acc`) and the operands `fetch` read for the next stage: each
/// iteration stores the carried operands to workgroup memory (`put`), waits for the block,
/// fetches the next stage's into registers (their loads' latency hidden behind this
/// stage's products; past the last stage the indices must be clamped), runs this stage's
/// `steps` (from depth k0) and waits again before the next iteration overwrites the tiles.
/// The accumulators' final values.
llvm::SmallVector<mlir::Value> stagedLoop(
    mlir::OpBuilder &b, const IndexMath &im, int64_t stages, int64_t depth, mlir::ValueRange acc,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &, mlir::Value k0)> fetch,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::ValueRange)> put,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &, mlir::Value k0,
                                                      mlir::ValueRange)>
        steps);

} // namespace kiln::codegen::gpu

#endif // KILN_CODEGEN_GPU_STRATEGIES_BUILDERS_H
