//===- Matchers.h - op shapes shared by the GPU kernel strategies ----*- C++ -*-===//
//
// The matrix products and aligned rows that more than one of kiln-gpu-kernels'
// strategies (Strategies.h) recognise. Every function here only inspects IR.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_STRATEGIES_MATCHERS_H
#define KILN_CODEGEN_GPU_STRATEGIES_MATCHERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace kiln::codegen::gpu {

/// The float type of `op`'s sums when it is a plain product: two inputs, one output, its
/// body `out + a * b` (either order of either) and nothing else; null otherwise.
mlir::FloatType plainProductType(mlir::linalg::GenericOp op);

/// Whether `op` is a plain product of 16-bit floats (f16 or bf16). A kernel carries such a
/// product's sums in f32 (halfProductStep), rounding once when it stores them, as cuBLAS's
/// f16 products (gpu_matmul_f16) and TensorFlow's on a GPU do: 4096 sums rounded to f16
/// one by one stray by about 1e-2 of the result.
bool isHalfProduct(mlir::linalg::GenericOp op);

/// Whether `type` is a buffer whose rows (its last dimension) start at multiples of
/// `elements` from its base (identity layout with a last dimension a multiple of it, or
/// static strides and offset that are, the last stride 1), of 16- or 32-bit elements:
/// Kiln's device buffers start 64-byte aligned (the arena's are 256, its scratch slices
/// 64: KILN_SCRATCH_ALIGNMENT), so `elements` elements from such a row start (up to 16
/// bytes) are one aligned access.
bool vectorRows(mlir::Type type, int64_t elements);

/// A matrix product's operands, their maps and its sizes.
struct ProductMatch {
  mlir::OpOperand *a, *b, *c; // read at (i, k), read at (k, j), written at (i, j)
  mlir::AffineMap mapA, mapB, mapC;
  llvm::SmallVector<int64_t> ranges;
  int64_t m, n, k, di; // di: the loop i (the batch loops before it)
};

/// `op` as a matrix product (loops batch..., i, j, k after parallelFirst; an input read at
/// (i, k), one at (k, j), the output at (i, j), static sizes), each of m, n and k at
/// least `least`, in a grid of `tile` x `tile` output tiles that CUDA can launch (the
/// batch and the rows' tiles in grid z and y: at most 65535 each); nothing otherwise.
std::optional<ProductMatch> matchProduct(mlir::linalg::GenericOp op, int64_t least, int64_t tile);

} // namespace kiln::codegen::gpu

#endif // KILN_CODEGEN_GPU_STRATEGIES_MATCHERS_H
