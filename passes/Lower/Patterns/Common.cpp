//===- Common.cpp - helpers shared by the tf to linalg patterns ---------------===//
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

using namespace mlir;

namespace kiln::lower {

ElementKind kindOf(Type tfElementType) {
  if (isa<FloatType>(tfElementType))
    return ElementKind::Float;
  if (tfElementType.isInteger(1))
    return ElementKind::Bool;
  if (tfElementType.isUnsignedInteger())
    return ElementKind::Unsigned;
  return ElementKind::Signed;
}

static Type signlessElement(Type t) {
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

TFTypeConverter::TFTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](IntegerType t) -> Type { return signlessElement(t); });
  addConversion(
      [](RankedTensorType t) -> Type { return t.clone(signlessElement(t.getElementType())); });
  addConversion([](UnrankedTensorType t) -> Type {
    return UnrankedTensorType::get(signlessElement(t.getElementType()));
  });
}

RankedTensorType staticTensorType(const TypeConverter *converter, Type type) {
  auto t = dyn_cast_or_null<RankedTensorType>(converter->convertType(type));
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

AffineMap broadcastMap(RankedTensorType inputType, RankedTensorType resultType) {
  MLIRContext *ctx = inputType.getContext();
  int64_t resultRank = resultType.getRank(), inputRank = inputType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < inputRank; ++i) {
    int64_t resultDim = resultRank - inputRank + i;
    if (inputType.getDimSize(i) == 1 && resultType.getDimSize(resultDim) != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(resultDim, ctx));
  }
  return AffineMap::get(resultRank, 0, exprs, ctx);
}

Value buildParallelGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                           ValueRange inputs, ArrayRef<AffineMap> inputMaps, BodyBuilder body) {
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), resultType.getElementType());
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic =
      linalg::GenericOp::create(b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
                                iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
                                  Value v = body(nb, nloc, args.drop_back());
                                  linalg::YieldOp::create(nb, nloc, v);
                                });
  return generic.getResult(0);
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
                       BodyBuilder body) {
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(broadcastMap(cast<RankedTensorType>(in.getType()), resultType));
  return buildParallelGeneric(b, loc, resultType, inputs, maps, body);
}

Value multiplyAdd(OpBuilder &b, Location loc, ElementKind kind, Value a, Value x, Value acc) {
  if (kind == ElementKind::Float)
    return arith::AddFOp::create(b, loc, acc, arith::MulFOp::create(b, loc, a, x));
  return arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, a, x));
}

std::optional<SmallVector<int64_t>> constantInts(Value v) {
  DenseIntElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &i : attr.getValues<APInt>())
    values.push_back(i.getSExtValue());
  return values;
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value buildGather(OpBuilder &b, Location loc, RankedTensorType resultType, Value input,
                  IndexMapFn inputIndex) {
  return buildParallelGeneric(
      b, loc, resultType, ValueRange{}, {}, [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> index;
        for (int64_t i = 0; i < resultType.getRank(); ++i)
          index.push_back(linalg::IndexOp::create(nb, l, i));
        return tensor::ExtractOp::create(nb, l, input, inputIndex(nb, l, index));
      });
}

Value clampIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Value zero = indexConstant(b, loc, 0);
  Value low = arith::MaxSIOp::create(b, loc, index, zero);
  Value last = indexConstant(b, loc, std::max<int64_t>(size - 1, 0));
  return arith::MinSIOp::create(b, loc, low, last);
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, value));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

} // namespace kiln::lower
