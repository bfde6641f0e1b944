//===- Factorizations.cpp - matrix factorizations and solvers ---------------===//
//
// Cholesky, MatrixInverse, MatrixSolve, MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd
// and TridiagonalSolve: batches of matrices in their last two dimensions, each op's
// results shaped as TensorFlow's kernel shapes them. They run on the CPU (TF_HostOnly) by
// the runtime's Eigen kernels (passes/Lower/Patterns/Factorizations.cpp).
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

namespace {

bool conflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

bool boolAttr(const InferContext &ctx, StringRef name, bool otherwise) {
  auto attr = ctx.attr<BoolAttr>(name);
  return attr ? attr.getValue() : otherwise;
}

/// The one input, a batch of matrices (rank 2 or more), square when `square`; null (and
/// nothing reported) when its rank is unknown.
FailureOr<RankedTensorType> matrices(const InferContext &ctx, bool square) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto ranked = dyn_cast<RankedTensorType>(*input);
  if (!ranked)
    return RankedTensorType();
  if (ranked.getRank() < 2)
    return ctx.error("the input must be a matrix or a batch of them (rank 2 or more), got ",
                     *input);
  int64_t r = ranked.getRank();
  if (square && conflict(ranked.getDimSize(r - 2), ranked.getDimSize(r - 1)))
    return ctx.error("the input must hold square matrices, got ", *input);
  return ranked;
}

/// `input`'s batch dimensions followed by `tail`.
RankedTensorType batchOf(RankedTensorType input, ArrayRef<int64_t> tail) {
  SmallVector<int64_t> shape(input.getShape().drop_back(2));
  shape.append(tail.begin(), tail.end());
  return RankedTensorType::get(shape, input.getElementType());
}

int64_t minDim(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return ShapedType::kDynamic;
  return std::min(a, b);
}

} // namespace

/// Cholesky, MatrixInverse: the input's type.
LogicalResult inferSquareMatrices(const InferContext &ctx, InferResult &out) {
  auto input = matrices(ctx, true);
  if (failed(input))
    return failure();
  out.push_back(*input ? Type(*input) : ctx.operandType(0));
  return success();
}

/// MatrixSolve (batches equal) and MatrixTriangularSolve (batches broadcast): rhs's
/// columns.
LogicalResult inferMatrixSolve(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("matrix and rhs");
  if (failed(inputs))
    return failure();
  auto matrix = dyn_cast<RankedTensorType>(inputs->first);
  auto rhs = dyn_cast<RankedTensorType>(inputs->second);
  if (!matrix || !rhs) {
    out.push_back(UnrankedTensorType::get(inputs->first.getElementType()));
    return success();
  }
  int64_t r = matrix.getRank(), rr = rhs.getRank();
  if (r < 2 || rr < 2)
    return ctx.error("matrix and rhs must have rank 2 or more, got ", matrix, " and ", rhs);
  int64_t n = matrix.getDimSize(r - 1);
  if (conflict(matrix.getDimSize(r - 2), n))
    return ctx.error("the matrix must be square, got ", matrix);
  if (conflict(rhs.getDimSize(rr - 2), n) ||
      conflict(rhs.getDimSize(rr - 2), matrix.getDimSize(r - 2)))
    return ctx.error("rhs must have as many rows as the matrix, got ", rhs, " for ", matrix);
  SmallVector<int64_t> batch;
  if (ctx.opName == "tf.MatrixSolve") {
    if (r != rr ||
        failed(verifyCompatibleShape(matrix.getShape().drop_back(2), rhs.getShape().drop_back(2))))
      return ctx.error("matrix and rhs must have the same batch dimensions, got ", matrix, " and ",
                       rhs);
    batch.assign(rhs.getShape().drop_back(2).begin(), rhs.getShape().drop_back(2).end());
  } else if (!OpTrait::util::getBroadcastedShape(matrix.getShape().drop_back(2),
                                                 rhs.getShape().drop_back(2), batch)) {
    return ctx.error("the batch dimensions of ", matrix, " and ", rhs, " do not broadcast");
  }
  batch.append({rhs.getDimSize(rr - 2), rhs.getDimSize(rr - 1)});
  out.push_back(RankedTensorType::get(batch, rhs.getElementType()));
  return success();
}

/// q [..., m, p], r [..., p, n]: p = m with full_matrices, else min(m, n).
LogicalResult inferQr(const InferContext &ctx, InferResult &out) {
  auto input = matrices(ctx, false);
  if (failed(input))
    return failure();
  if (!*input) {
    out.append(2, ctx.operandType(0));
    return success();
  }
  int64_t r = input->getRank(), m = input->getDimSize(r - 2), n = input->getDimSize(r - 1);
  int64_t p = boolAttr(ctx, "full_matrices", false) ? m : minDim(m, n);
  out.push_back(batchOf(*input, {m, p}));
  out.push_back(batchOf(*input, {p, n}));
  return success();
}

/// e [..., n]; v [..., n, n] with compute_v, else [0].
LogicalResult inferSelfAdjointEigV2(const InferContext &ctx, InferResult &out) {
  auto input = matrices(ctx, true);
  if (failed(input))
    return failure();
  if (!*input) {
    out.append(2, ctx.operandType(0));
    return success();
  }
  int64_t n = input->getDimSize(input->getRank() - 1);
  out.push_back(batchOf(*input, {n}));
  out.push_back(boolAttr(ctx, "compute_v", true)
                    ? Type(*input)
                    : Type(RankedTensorType::get({0}, input->getElementType())));
  return success();
}

/// s [..., p] (p = min(m, n)); with compute_uv u [..., m, m or p] and v [..., n, n or p]
/// (full_matrices or not), else both [0].
LogicalResult inferSvd(const InferContext &ctx, InferResult &out) {
  auto input = matrices(ctx, false);
  if (failed(input))
    return failure();
  if (!*input) {
    out.append(3, ctx.operandType(0));
    return success();
  }
  int64_t r = input->getRank(), m = input->getDimSize(r - 2), n = input->getDimSize(r - 1);
  int64_t p = minDim(m, n);
  out.push_back(batchOf(*input, {p}));
  if (!boolAttr(ctx, "compute_uv", true)) {
    out.append(2, RankedTensorType::get({0}, input->getElementType()));
    return success();
  }
  bool full = boolAttr(ctx, "full_matrices", false);
  out.push_back(batchOf(*input, {m, full ? m : p}));
  out.push_back(batchOf(*input, {n, full ? n : p}));
  return success();
}

/// diagonals [..., 3, m] and rhs [..., m, k] of one batch: rhs's type.
LogicalResult inferTridiagonalSolve(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("diagonals and rhs");
  if (failed(inputs))
    return failure();
  auto diagonals = dyn_cast<RankedTensorType>(inputs->first);
  auto rhs = dyn_cast<RankedTensorType>(inputs->second);
  if (diagonals && rhs) {
    int64_t r = diagonals.getRank();
    if (r < 2 || rhs.getRank() != r || conflict(diagonals.getDimSize(r - 2), 3) ||
        conflict(diagonals.getDimSize(r - 1), rhs.getDimSize(r - 2)) ||
        failed(
            verifyCompatibleShape(diagonals.getShape().drop_back(2), rhs.getShape().drop_back(2))))
      return ctx.error("diagonals must be [..., 3, M] and rhs [..., M, K] with one batch, got ",
                       diagonals, " and ", rhs);
  }
  if (boolAttr(ctx, "perturb_singular", false))
    return ctx.error("Kiln does not support perturb_singular (a pivot perturbed away from 0)");
  out.push_back(inputs->second);
  return success();
}

} // namespace kiln::tf
