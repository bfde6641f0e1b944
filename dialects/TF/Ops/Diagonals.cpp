//===- Diagonals.cpp - MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*, Diag ------===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

/// The operand that holds `k`, or -1 for the first forms (the main diagonal).
static int kOperand(StringRef opName) {
  if (opName == "tf.MatrixSetDiagV2" || opName == "tf.MatrixSetDiagV3")
    return 2;
  if (opName.ends_with("V2") || opName.ends_with("V3"))
    return 1;
  return -1;
}

/// The range of diagonals and their alignment: none when `k` is not a constant, failure
/// (reported through ctx when `report`) when it is not 1 or 2 increasing values or align is
/// unknown.
static FailureOr<std::optional<DiagonalRange>> readRange(const InferContext &ctx, bool report) {
  auto fail = [&](auto &&...args) -> FailureOr<std::optional<DiagonalRange>> {
    if (report)
      (void)ctx.error(args...);
    return failure();
  };
  DiagonalRange range;
  if (ctx.opName.ends_with("V3")) {
    auto align = ctx.attr<StringAttr>("align");
    StringRef a = align ? align.getValue() : "RIGHT_LEFT";
    if (a != "LEFT_RIGHT" && a != "RIGHT_LEFT" && a != "LEFT_LEFT" && a != "RIGHT_RIGHT")
      return fail("align must be LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT or RIGHT_RIGHT, got \"", a,
                  "\"");
    range.leftSuper = a.starts_with("LEFT");
    range.leftSub = a.ends_with("LEFT");
  }
  int index = kOperand(ctx.opName);
  if (index < 0)
    return std::optional<DiagonalRange>(range);
  auto k = ctx.constantInts(index);
  if (!k)
    return std::optional<DiagonalRange>();
  if (k->empty() || k->size() > 2 || (k->size() == 2 && (*k)[0] > (*k)[1]))
    return fail("k must be a diagonal or a range [lo, hi] with lo <= hi, got ", describeDims(*k));
  range.lo = k->front();
  range.hi = k->back();
  return std::optional<DiagonalRange>(range);
}

std::optional<DiagonalRange> diagonalRange(Operation *op) {
  auto range = readRange(InferContext::of(op, false), false);
  return succeeded(range) ? *range : std::nullopt;
}

/// Checks that padding_value (operand `index`, if the op has one) is a scalar of `element`.
static LogicalResult checkPadding(const InferContext &ctx, int index, Type element) {
  if (index < 0)
    return success();
  auto padding = cast<TensorType>(ctx.operandType(index));
  if (padding.getElementType() != element || (padding.hasRank() && padding.getRank() != 0))
    return ctx.error("padding_value must be a scalar of ", element, ", got ", padding);
  return success();
}

LogicalResult inferMatrixDiagPart(const InferContext &ctx, InferResult &out) {
  bool first = ctx.opName == "tf.MatrixDiagPart";
  auto input = ctx.firstInput(first ? 1 : 3);
  auto maybeRange = readRange(ctx, true);
  if (failed(input) || failed(maybeRange) ||
      failed(checkPadding(ctx, first ? -1 : 2, input->getElementType())))
    return failure();
  if (!input->hasRank()) {
    out.push_back(UnrankedTensorType::get(input->getElementType()));
    return success();
  }
  if (input->getRank() < 2)
    return ctx.error("input must have rank 2 or more, got ", *input);
  int64_t m = input->getDimSize(input->getRank() - 2), n = input->getShape().back();
  SmallVector<int64_t> shape(input->getShape().drop_back(2));
  std::optional<DiagonalRange> range = *maybeRange;
  if (!range) {
    out.push_back(UnrankedTensorType::get(input->getElementType()));
    return success();
  }
  bool known = !ShapedType::isDynamic(m) && !ShapedType::isDynamic(n);
  if (known && (range->lo <= -m || range->hi >= n) && !(m == 0 || n == 0))
    return ctx.error("diagonals ", range->lo, " to ", range->hi, " are not all in a ", m, "x", n,
                     " matrix");
  if (range->count() > 1)
    shape.push_back(range->count());
  // The longest diagonal's length (of the range, so of its row nearest the main one).
  shape.push_back(
      known ? std::min(m + std::min<int64_t>(range->hi, 0), n - std::max<int64_t>(range->lo, 0))
            : ShapedType::kDynamic);
  out.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult inferMatrixDiag(const InferContext &ctx, InferResult &out) {
  bool first = ctx.opName == "tf.MatrixDiag";
  auto input = ctx.firstInput(first ? 1 : 5);
  auto maybeRange = readRange(ctx, true);
  if (failed(input) || failed(maybeRange) ||
      failed(checkPadding(ctx, first ? -1 : 4, input->getElementType())))
    return failure();
  std::optional<DiagonalRange> range = *maybeRange;
  std::optional<SmallVector<int64_t>> rows = first ? SmallVector<int64_t>{-1} : ctx.constantInts(2);
  std::optional<SmallVector<int64_t>> cols = first ? SmallVector<int64_t>{-1} : ctx.constantInts(3);
  if (!input->hasRank() || !range || !rows || !cols || rows->size() != 1 || cols->size() != 1) {
    out.push_back(UnrankedTensorType::get(input->getElementType()));
    return success();
  }
  int64_t diagonalRank = range->count() > 1 ? 2 : 1;
  if (input->getRank() < diagonalRank)
    return ctx.error("diagonal must have rank ", diagonalRank, " or more, got ", *input);
  if (diagonalRank == 2 && !input->isDynamicDim(input->getRank() - 2) &&
      input->getDimSize(input->getRank() - 2) != range->count())
    return ctx.error("diagonal holds ", input->getDimSize(input->getRank() - 2),
                     " diagonals for k ", range->lo, " to ", range->hi);
  SmallVector<int64_t> shape(input->getShape().drop_back(diagonalRank));
  int64_t length = input->getShape().back();
  int64_t m = rows->front(), n = cols->front();
  if (ShapedType::isDynamic(length)) {
    m = m < 0 ? ShapedType::kDynamic : m;
    n = n < 0 ? ShapedType::kDynamic : n;
  } else {
    // As TensorFlow infers an unknown size: the least that holds the longest diagonal.
    int64_t minRows = length - std::min<int64_t>(range->hi, 0);
    int64_t minCols = length + std::max<int64_t>(range->lo, 0);
    if (m < 0 && n < 0)
      m = n = std::max(minRows, minCols);
    else if (m < 0)
      m = minRows;
    else if (n < 0)
      n = minCols;
    if (m < minRows || n < minCols)
      return ctx.error("a ", m, "x", n, " matrix cannot hold diagonals ", range->lo, " to ",
                       range->hi, " of ", length, " entries");
  }
  shape.push_back(m);
  shape.push_back(n);
  out.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult inferMatrixSetDiag(const InferContext &ctx, InferResult &out) {
  bool first = ctx.opName == "tf.MatrixSetDiag";
  auto input = ctx.firstInput(first ? 2 : 3);
  auto maybeRange = readRange(ctx, true);
  if (failed(input) || failed(maybeRange))
    return failure();
  auto diagonal = cast<TensorType>(ctx.operandType(1));
  if (diagonal.getElementType() != input->getElementType())
    return ctx.error("diagonal must have input's dtype ", input->getElementType(), ", got ",
                     diagonal);
  if (input->hasRank() && input->getRank() < 2)
    return ctx.error("input must have rank 2 or more, got ", *input);
  std::optional<DiagonalRange> range = *maybeRange;
  if (range && input->hasStaticShape() && diagonal.hasRank()) {
    int64_t m = input->getDimSize(input->getRank() - 2), n = input->getShape().back();
    SmallVector<int64_t> expected(input->getShape().drop_back(2));
    if (range->count() > 1)
      expected.push_back(range->count());
    expected.push_back(
        std::min(m + std::min<int64_t>(range->hi, 0), n - std::max<int64_t>(range->lo, 0)));
    if (failed(verifyCompatibleShape(expected, diagonal.getShape())))
      return ctx.error("diagonal must have the shape ", describeDims(expected), ", got ", diagonal);
  }
  out.push_back(*input);
  return success();
}

LogicalResult inferDiag(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  if (!input->hasRank()) {
    out.push_back(UnrankedTensorType::get(input->getElementType()));
    return success();
  }
  ArrayRef<int64_t> dims = input->getShape();
  SmallVector<int64_t> shape(dims);
  if (ctx.opName == "tf.Diag") {
    if (dims.empty())
      return ctx.error("diagonal must have rank 1 or more, got ", *input);
    llvm::append_range(shape, dims);
  } else {
    int64_t half = dims.size() / 2;
    if (dims.empty() || dims.size() % 2 != 0 ||
        failed(verifyCompatibleShape(dims.take_front(half), dims.drop_front(half))))
      return ctx.error("input must have a shape [D..., D...], got ", *input);
    shape.resize(half);
  }
  out.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

} // namespace kiln::tf
