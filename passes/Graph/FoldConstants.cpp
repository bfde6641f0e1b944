//===- FoldConstants.cpp - compile-time values become tf.Const ----------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

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

/// The per-channel values of a constant f32 operand of a binary op whose other operand has
/// `channels` channels in its last dimension: a scalar, or a tensor of shape [..., 1, C] or
/// [..., 1, 1] (every dimension but the last 1, the last C or 1) broadcast to C values.
std::optional<SmallVector<double>> channelValues(Value value, int64_t channels) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(constantOf(value));
  if (!dense || !dense.getElementType().isF32() || channels <= 0 || dense.empty())
    return std::nullopt;
  ArrayRef<int64_t> shape = dense.getType().getShape();
  for (size_t i = 0; i + 1 < shape.size(); ++i)
    if (shape[i] != 1)
      return std::nullopt;
  int64_t last = shape.empty() ? 1 : shape.back();
  if (last != 1 && last != channels)
    return std::nullopt;
  SmallVector<double> values;
  for (APFloat v : dense.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  values.resize(channels, values.front());
  return values;
}

/// The operand of binary `op` that is not `other`, and its index.
std::pair<Value, unsigned> otherOperand(Operation *op, Value other) {
  unsigned i = op->getOperand(0) == other ? 1 : 0;
  return {op->getOperand(i), i};
}

/// A bias added just before a frozen batch normalisation: (x + b) * s + t, with b, s and t
/// f32 constants per channel (the last dimension; b of a BiasAdd in NHWC or of an Add or
/// AddV2), each intermediate used once, becomes x * s + (b * s + t), the new shift computed
/// in double and rounded once, as the statistics are. Keras writes a convolution with a
/// bias followed by BatchNormalization so, and the matrix-product and convolution kernels
/// apply a scale then a shift while the result is in registers, not a shift first
/// (kiln-lower-kernel-calls). Returns whether it rewrote `mul`.
bool foldBiasIntoShift(kiln::tf::MulOp mul) {
  for (Value scaled : mul->getOperands().take_front(2)) {
    Operation *biasAdd = scaled.getDefiningOp();
    if (!biasAdd || !scaled.hasOneUse() || !mul->hasOneUse() ||
        !isa<kiln::tf::BiasAddOp, kiln::tf::AddOp, kiln::tf::AddV2Op>(biasAdd) ||
        biasAdd->getNumOperands() != 2 || mul->getNumOperands() != 2)
      continue;
    if (auto format = biasAdd->getAttrOfType<StringAttr>("data_format");
        format && format.getValue() != "NHWC")
      continue;
    Operation *shift = *mul->getUsers().begin();
    if (!isa<kiln::tf::AddOp, kiln::tf::AddV2Op>(shift) || shift->getNumOperands() != 2)
      continue;
    auto type = dyn_cast<RankedTensorType>(scaled.getType());
    if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
        mul->getResult(0).getType() != type || shift->getResult(0).getType() != type)
      continue;
    int64_t channels = type.getShape().back();
    // x is the operand with the full type; b, s and t per channel.
    Value x = biasAdd->getOperand(0), b = biasAdd->getOperand(1);
    if (x.getType() != type)
      std::swap(x, b);
    auto [s, sIndex] = otherOperand(mul, scaled);
    auto [t, tIndex] = otherOperand(shift, mul->getResult(0));
    auto bv = channelValues(b, channels), sv = channelValues(s, channels),
         tv = channelValues(t, channels);
    if (x.getType() != type || !bv || !sv || !tv)
      continue;
    SmallVector<float> shifted;
    for (int64_t c = 0; c < channels; ++c)
      shifted.push_back(static_cast<float>((*bv)[c] * (*sv)[c] + (*tv)[c]));
    OpBuilder builder(shift);
    auto shiftType = RankedTensorType::get({channels}, type.getElementType());
    Operation *constant = shift->getDialect()->materializeConstant(
        builder, DenseElementsAttr::get(shiftType, ArrayRef<float>(shifted)), shiftType,
        shift->getLoc());
    if (!constant)
      continue;
    mul->setOperand(1 - sIndex, x);
    shift->setOperand(tIndex, constant->getResult(0));
    biasAdd->erase();
    return true;
  }
  return false;
}

struct FoldConstantsPass : kiln::graph::impl::FoldConstantsPassBase<FoldConstantsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<kiln::tf::TFDialect>(op->getDialect()) && !isa<kiln::tf::ConstOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (kiln::graph::foldConstantOp(op))
        ++numFolded;
    SmallVector<kiln::tf::MulOp> muls;
    func.walk([&](kiln::tf::MulOp mul) { muls.push_back(mul); });
    for (kiln::tf::MulOp mul : muls)
      if (foldBiasIntoShift(mul))
        ++numBiasesFolded;
  }
};

} // namespace

std::optional<SmallVector<Value>> kiln::graph::foldConstantOp(Operation *op) {
  // The budget: a result too large to compute here is left to run time (a Range of
  // 2^31 constants ran for minutes and ran out of memory).
  if (llvm::any_of(op->getResultTypes(), [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && tensor.hasStaticShape() &&
               tensor.getNumElements() > kiln::tf::kMaxFoldedElements;
      }))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands())
    operands.push_back(constantOf(v));
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.empty())
    return std::nullopt;
  OpBuilder b(op);
  SmallVector<Value> replacements;
  SmallVector<Operation *> constants;
  for (auto [result, folded] : llvm::zip(op->getResults(), results)) {
    if (auto value = dyn_cast<Value>(folded)) {
      replacements.push_back(value);
      continue;
    }
    // A tf.Const (TFDialect::materializeConstant), if the value is a tensor's elements.
    Operation *constant = op->getDialect()->materializeConstant(b, cast<Attribute>(folded),
                                                                result.getType(), op->getLoc());
    if (!constant)
      break;
    constants.push_back(constant);
    replacements.push_back(constant->getResult(0));
  }
  if (replacements.size() != op->getNumResults()) {
    for (Operation *constant : constants)
      constant->erase();
    return std::nullopt;
  }
  op->replaceAllUsesWith(replacements);
  op->erase();
  return replacements;
}
