//===- FoldConstants.cpp - compile-time values become tf.Const ----------------===//
#include "passes/Graph/Passes.h"
#include "dialects/TF/TFOps.h"

#include <cmath>

namespace kiln::graph {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// The constant attribute of `value` if a tf.Const defines it.
Attribute constantOf(Value value) {
  auto c = value.getDefiningOp<kiln::tf::ConstOp>();
  return c ? c.getValueAttr() : Attribute();
}

/// The value of an elementwise tf op on constants, computed in double and rounded once to
/// the result type (float types only), or null when `op` is not one of those.
std::optional<double> applyElementwise(StringRef name, ArrayRef<double> x) {
  double a = x[0], b = x.size() > 1 ? x[1] : 0.0;
  if (x.size() == 1) {
    if (name == "tf.Neg") return -a;
    if (name == "tf.Abs") return std::fabs(a);
    if (name == "tf.Square") return a * a;
    if (name == "tf.Sqrt") return std::sqrt(a);
    if (name == "tf.Rsqrt") return 1.0 / std::sqrt(a);
    if (name == "tf.Exp") return std::exp(a);
    if (name == "tf.Log") return std::log(a);
    if (name == "tf.Relu") return a < 0 ? 0.0 : a;
    if (name == "tf.Relu6") return a < 0 ? 0.0 : a > 6 ? 6.0 : a;
    return std::nullopt;
  }
  if (name == "tf.Add" || name == "tf.AddV2") return a + b;
  if (name == "tf.Sub") return a - b;
  if (name == "tf.Mul") return a * b;
  if (name == "tf.RealDiv") return a / b;
  if (name == "tf.Maximum") return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
  if (name == "tf.Minimum") return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
  if (name == "tf.SquaredDifference") return (a - b) * (a - b);
  if (name == "tf.Pow") return std::pow(a, b);
  return std::nullopt;
}

/// Folds arithmetic on constants (a batch normalisation's statistics, say, which frozen
/// graphs compute with Rsqrt, Mul and Sub) with NumPy broadcasting.
DenseElementsAttr foldElementwise(Operation *op, ArrayRef<Attribute> operands) {
  auto graphOp = dyn_cast<kiln::tf::GraphOpInterface>(op);
  if (!graphOp || !graphOp.getControlInputs().empty() || op->getNumResults() != 1)
    return {};
  size_t arity = graphOp.getDataInputs().size();
  if (arity < 1 || arity > 2 || !applyElementwise(op->getName().getStringRef(),
                                                  SmallVector<double>(arity, 1.0)))
    return {};
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !isa<FloatType>(type.getElementType()) ||
      type.getNumElements() > kiln::tf::kMaxFoldedElements)
    return {};
  SmallVector<DenseFPElementsAttr> inputs;
  for (size_t i = 0; i < arity; ++i) {
    auto attr = dyn_cast_or_null<DenseFPElementsAttr>(operands[i]);
    if (!attr || attr.getElementType() != type.getElementType())
      return {};
    inputs.push_back(attr);
  }
  int64_t rank = type.getRank();
  SmallVector<SmallVector<double>> values;
  for (DenseFPElementsAttr a : inputs) {
    auto shape = a.getType().getShape();
    if (static_cast<int64_t>(shape.size()) > rank)
      return {};
    SmallVector<double> v;
    for (const APFloat &f : a.getValues<APFloat>())
      v.push_back(f.convertToDouble());
    values.push_back(std::move(v));
  }
  auto semantics = &cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> result;
  SmallVector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < type.getNumElements(); ++flat) {
    // The input element each operand broadcasts to this position.
    SmallVector<double> x;
    for (auto [a, v] : llvm::zip(inputs, values)) {
      auto shape = a.getType().getShape();
      int64_t offset = 0, lead = rank - static_cast<int64_t>(shape.size());
      for (size_t d = 0; d < shape.size(); ++d)
        offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[lead + d]);
      x.push_back(a.isSplat() ? v[0] : v[offset]);
    }
    APFloat r(*applyElementwise(op->getName().getStringRef(), x));
    bool lost;
    r.convert(*semantics, APFloat::rmNearestTiesToEven, &lost);
    result.push_back(r);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == type.getDimSize(d); --d)
      index[d] = 0;
  }
  return DenseElementsAttr::get(type, result);
}

struct FoldConstantsPass : kiln::graph::impl::FoldConstantsPassBase<FoldConstantsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<kiln::tf::TFDialect>(op->getDialect()) && !isa<kiln::tf::ConstOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      // The budget: a result too large to compute here is left to run time (a Range of
      // 2^31 constants ran for minutes and ran out of memory).
      if (llvm::any_of(op->getResultTypes(), [](Type t) {
            auto tensor = dyn_cast<RankedTensorType>(t);
            return tensor && tensor.hasStaticShape() &&
                   tensor.getNumElements() > kiln::tf::kMaxFoldedElements;
          }))
        continue;
      SmallVector<Attribute> operands;
      for (Value v : op->getOperands())
        operands.push_back(constantOf(v));
      SmallVector<OpFoldResult> results;
      if (DenseElementsAttr computed = foldElementwise(op, operands))
        results.push_back(computed);
      else if (failed(op->fold(operands, results)) || results.empty())
        continue;
      OpBuilder b(op);
      SmallVector<Value> replacements;
      for (auto [result, folded] : llvm::zip(op->getResults(), results)) {
        if (auto value = dyn_cast<Value>(folded)) {
          replacements.push_back(value);
          continue;
        }
        auto elements = dyn_cast<ElementsAttr>(cast<Attribute>(folded));
        if (!elements || elements.getType() != result.getType())
          break;
        replacements.push_back(kiln::tf::ConstOp::create(
            b, op->getLoc(), elements.getType(), elements,
            TypeAttr::get(elements.getElementType()), ValueRange{}));
      }
      if (replacements.size() != op->getNumResults())
        continue;
      op->replaceAllUsesWith(replacements);
      op->erase();
      ++numFolded;
    }
  }
};

} // namespace
