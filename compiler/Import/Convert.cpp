//===- Convert.cpp - protobuf values to MLIR attributes -----------------------===//
#include "compiler/Import/Convert.h"
#include "compiler/Import/Import.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;

namespace kiln::import {

Type convertDataType(int dtype, MLIRContext *ctx) {
  if (dtype > 100)
    dtype -= 100; // reference types: the same element type
  Builder b(ctx);
  switch (dtype) {
  case tensorflow::DT_FLOAT:
    return b.getF32Type();
  case tensorflow::DT_DOUBLE:
    return b.getF64Type();
  case tensorflow::DT_HALF:
    return b.getF16Type();
  case tensorflow::DT_BFLOAT16:
    return b.getBF16Type();
  case tensorflow::DT_INT8:
    return b.getIntegerType(8);
  case tensorflow::DT_INT16:
    return b.getIntegerType(16);
  case tensorflow::DT_INT32:
    return b.getIntegerType(32);
  case tensorflow::DT_INT64:
    return b.getIntegerType(64);
  case tensorflow::DT_UINT8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case tensorflow::DT_UINT16:
    return b.getIntegerType(16, false);
  case tensorflow::DT_UINT32:
    return b.getIntegerType(32, false);
  case tensorflow::DT_UINT64:
    return b.getIntegerType(64, false);
  case tensorflow::DT_BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

std::string dataTypeEnumName(int dtype) {
  if (tensorflow::DataType_IsValid(dtype))
    return tensorflow::DataType_Name(static_cast<tensorflow::DataType>(dtype));
  return "dtype " + std::to_string(dtype);
}

Type parseDataType(StringRef name, MLIRContext *ctx) {
  std::string lower = name.lower();
  StringRef n = lower;
  if (n.consume_front("dt_")) {
    tensorflow::DataType dtype;
    if (!tensorflow::DataType_Parse(name.upper(), &dtype))
      return {};
    return convertDataType(dtype, ctx);
  }
  static const struct {
    const char *names[3];
    tensorflow::DataType dtype;
  } table[] = {
      {{"f32", "float32", "float"}, tensorflow::DT_FLOAT},
      {{"f64", "float64", "double"}, tensorflow::DT_DOUBLE},
      {{"f16", "float16", "half"}, tensorflow::DT_HALF},
      {{"bf16", "bfloat16", nullptr}, tensorflow::DT_BFLOAT16},
      {{"i8", "int8", nullptr}, tensorflow::DT_INT8},
      {{"i16", "int16", nullptr}, tensorflow::DT_INT16},
      {{"i32", "int32", nullptr}, tensorflow::DT_INT32},
      {{"i64", "int64", nullptr}, tensorflow::DT_INT64},
      {{"u8", "uint8", "ui8"}, tensorflow::DT_UINT8},
      {{"u16", "uint16", "ui16"}, tensorflow::DT_UINT16},
      {{"u32", "uint32", "ui32"}, tensorflow::DT_UINT32},
      {{"u64", "uint64", "ui64"}, tensorflow::DT_UINT64},
      {{"bool", "i1", nullptr}, tensorflow::DT_BOOL},
  };
  for (const auto &entry : table)
    for (const char *candidate : entry.names)
      if (candidate && n == candidate)
        return convertDataType(entry.dtype, ctx);
  return {};
}

std::string dataTypeName(Type type) {
  if (type.isInteger(1))
    return "bool";
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string checkShape(const tensorflow::TensorShapeProto &shape) {
  for (const auto &dim : shape.dim())
    if (dim.size() < -1)
      return "dimension " + std::to_string(dim.size()) +
             " is invalid (sizes are non-negative, or -1 for unknown)";
  return "";
}

std::optional<SmallVector<int64_t>> convertShape(const tensorflow::TensorShapeProto &shape) {
  if (shape.unknown_rank())
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (const auto &dim : shape.dim())
    dims.push_back(dim.size() < 0 ? ShapedType::kDynamic : dim.size());
  return dims;
}

namespace {

/// Copies the typed value field into `bytes` with TensorFlow's rule: fewer values than
/// elements means the last one repeats; none means zeros. Only the first element is
/// stored when all are equal, which MLIR treats as a splat.
template <typename Stored, typename Field>
bool fillTyped(const Field &field, int64_t count, std::vector<char> &bytes, std::string &error) {
  int64_t n = field.size();
  if (n > count) {
    error = "has " + std::to_string(n) + " values for " + std::to_string(count) + " elements";
    return false;
  }
  if (count == 0)
    return true;
  if (n <= 1) {
    Stored v = n == 0 ? Stored() : static_cast<Stored>(field.Get(0));
    bytes.resize(sizeof(Stored));
    std::memcpy(bytes.data(), &v, sizeof(Stored));
    return true;
  }
  bytes.resize(count * sizeof(Stored));
  for (int64_t i = 0; i < count; ++i) {
    Stored v = static_cast<Stored>(field.Get(std::min(i, n - 1)));
    std::memcpy(bytes.data() + i * sizeof(Stored), &v, sizeof(Stored));
  }
  return true;
}

} // namespace

ElementsAttr convertTensor(const tensorflow::TensorProto &tensor, MLIRContext *ctx,
                           std::string &error) {
  Type element = convertDataType(tensor.dtype(), ctx);
  if (!element) {
    error = "tensor of unsupported dtype " + dataTypeEnumName(tensor.dtype());
    return {};
  }
  auto dims = convertShape(tensor.tensor_shape());
  if (!dims || llvm::any_of(*dims, [](int64_t d) { return d < 0; })) {
    error = "constant tensor with an unknown or negative dimension";
    return {};
  }
  bool isBool = element.isInteger(1);
  int64_t elementBytes = isBool ? 1 : (element.getIntOrFloatBitWidth() + 7) / 8;
  // Constants are embedded in the compiled object: refuse sizes that cannot be.
  constexpr int64_t kMaxConstantBytes = int64_t(1) << 32;
  int64_t count = 1, totalBytes = 0;
  for (int64_t d : *dims)
    if (llvm::MulOverflow(count, d, count)) {
      error = "constant tensor's element count overflows";
      return {};
    }
  if (llvm::MulOverflow(count, elementBytes, totalBytes) || totalBytes > kMaxConstantBytes) {
    error = "constant tensor of " + std::to_string(count) + " elements is larger than the " +
            "4 GiB Kiln can embed";
    return {};
  }
  auto type = RankedTensorType::get(*dims, element);

  std::vector<char> bytes;
  if (!tensor.tensor_content().empty()) {
    const std::string &content = tensor.tensor_content();
    if (static_cast<int64_t>(content.size()) != count * elementBytes) {
      error = "tensor_content has " + std::to_string(content.size()) +
              " bytes; shape and dtype need " + std::to_string(count * elementBytes);
      return {};
    }
    bytes.assign(content.begin(), content.end());
  } else {
    bool ok = true;
    switch (tensor.dtype() > 100 ? tensor.dtype() - 100 : tensor.dtype()) {
    case tensorflow::DT_FLOAT:
      ok = fillTyped<float>(tensor.float_val(), count, bytes, error);
      break;
    case tensorflow::DT_DOUBLE:
      ok = fillTyped<double>(tensor.double_val(), count, bytes, error);
      break;
    case tensorflow::DT_INT32:
      ok = fillTyped<int32_t>(tensor.int_val(), count, bytes, error);
      break;
    case tensorflow::DT_INT16:
      ok = fillTyped<int16_t>(tensor.int_val(), count, bytes, error);
      break;
    case tensorflow::DT_INT8:
      ok = fillTyped<int8_t>(tensor.int_val(), count, bytes, error);
      break;
    case tensorflow::DT_UINT8:
      ok = fillTyped<uint8_t>(tensor.int_val(), count, bytes, error);
      break;
    case tensorflow::DT_UINT16:
      ok = fillTyped<uint16_t>(tensor.int_val(), count, bytes, error);
      break;
    case tensorflow::DT_INT64:
      ok = fillTyped<int64_t>(tensor.int64_val(), count, bytes, error);
      break;
    case tensorflow::DT_UINT32:
      ok = fillTyped<uint32_t>(tensor.uint32_val(), count, bytes, error);
      break;
    case tensorflow::DT_UINT64:
      ok = fillTyped<uint64_t>(tensor.uint64_val(), count, bytes, error);
      break;
    case tensorflow::DT_BOOL:
      ok = fillTyped<uint8_t>(tensor.bool_val(), count, bytes, error);
      break;
    case tensorflow::DT_HALF:
    case tensorflow::DT_BFLOAT16:
      ok = fillTyped<uint16_t>(tensor.half_val(), count, bytes, error);
      break;
    default:
      error = "tensor of unsupported dtype " + dataTypeEnumName(tensor.dtype());
      return {};
    }
    if (!ok)
      return {};
  }

  if (isBool) {
    // MLIR packs i1 values; build them one by one.
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    if (values.size() == 1 && count != 1)
      return DenseElementsAttr::get(type, values.front());
    return DenseElementsAttr::get(type, values);
  }
  bool splat = false;
  ArrayRef<char> raw(bytes.data(), bytes.size());
  if (count > 0 && static_cast<int64_t>(bytes.size()) == count * elementBytes && count > 1) {
    splat = true;
    for (int64_t i = 1; i < count && splat; ++i)
      splat = std::memcmp(bytes.data(), bytes.data() + i * elementBytes, elementBytes) == 0;
    if (splat)
      raw = raw.take_front(elementBytes);
  }
  if (!DenseElementsAttr::isValidRawBuffer(type, raw, splat)) {
    error = "cannot build a constant from its data";
    return {};
  }
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

namespace {

Attribute convertListElement(const tensorflow::AttrValue::ListValue &list, MLIRContext *ctx,
                             std::string &error) {
  Builder b(ctx);
  SmallVector<Attribute> items;
  for (const auto &s : list.s())
    items.push_back(b.getStringAttr(s));
  for (int64_t i : list.i())
    items.push_back(b.getI64IntegerAttr(i));
  for (float f : list.f())
    items.push_back(b.getF32FloatAttr(f));
  for (bool v : list.b())
    items.push_back(b.getBoolAttr(v));
  for (int t : list.type()) {
    Type type = convertDataType(t, ctx);
    if (!type) {
      error = "unsupported dtype " + dataTypeEnumName(t) + " in a type list";
      return {};
    }
    items.push_back(TypeAttr::get(type));
  }
  for (const auto &shape : list.shape()) {
    error = checkShape(shape);
    if (!error.empty())
      return {};
    auto dims = convertShape(shape);
    items.push_back(tf::ShapeAttr::get(ctx, dims ? *dims : ArrayRef<int64_t>{}, !dims));
  }
  for (const auto &tensor : list.tensor()) {
    Attribute t = convertTensor(tensor, ctx, error);
    if (!t)
      return {};
    items.push_back(t);
  }
  for (const auto &func : list.func())
    items.push_back(FlatSymbolRefAttr::get(ctx, func.name()));
  return b.getArrayAttr(items);
}

} // namespace

Attribute convertAttr(const tensorflow::AttrValue &value, MLIRContext *ctx, std::string &error) {
  Builder b(ctx);
  switch (value.value_case()) {
  case tensorflow::AttrValue::kS:
    return b.getStringAttr(value.s());
  case tensorflow::AttrValue::kI:
    return b.getI64IntegerAttr(value.i());
  case tensorflow::AttrValue::kF:
    return b.getF32FloatAttr(value.f());
  case tensorflow::AttrValue::kB:
    return b.getBoolAttr(value.b());
  case tensorflow::AttrValue::kType: {
    Type type = convertDataType(value.type(), ctx);
    if (!type) {
      error = "unsupported dtype " + dataTypeEnumName(value.type());
      return {};
    }
    return TypeAttr::get(type);
  }
  case tensorflow::AttrValue::kShape: {
    error = checkShape(value.shape());
    if (!error.empty())
      return {};
    auto dims = convertShape(value.shape());
    return tf::ShapeAttr::get(ctx, dims ? *dims : ArrayRef<int64_t>{}, !dims);
  }
  case tensorflow::AttrValue::kTensor:
    return convertTensor(value.tensor(), ctx, error);
  case tensorflow::AttrValue::kList:
    return convertListElement(value.list(), ctx, error);
  case tensorflow::AttrValue::kFunc:
    return FlatSymbolRefAttr::get(ctx, value.func().name());
  case tensorflow::AttrValue::kPlaceholder:
    error = "attribute placeholder '" + value.placeholder() + "' outside a function";
    return {};
  case tensorflow::AttrValue::VALUE_NOT_SET:
    return b.getUnitAttr();
  }
  error = "unknown attribute kind";
  return {};
}

} // namespace kiln::import
