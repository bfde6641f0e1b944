//===- Convert.h - protobuf values to MLIR attributes (internal) -----*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_CONVERT_H
#define KILN_COMPILER_IMPORT_CONVERT_H

#include "attr_value.pb.h"
#include "tensor.pb.h"
#include "tensor_shape.pb.h"
#include "types.pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <string>

namespace kiln::import {

/// The element type of a TensorFlow dtype (reference types map to their base), or null
/// when Kiln has no element type for it (strings, resources, quantized types...).
mlir::Type convertDataType(int dtype, mlir::MLIRContext *context);

/// TensorFlow's name of a dtype, such as DT_FLOAT.
std::string dataTypeEnumName(int dtype);

/// An error message if the shape has dimensions below -1, or "".
std::string checkShape(const tensorflow::TensorShapeProto &shape);

/// Dimensions of a TensorShapeProto (-1 becomes ShapedType::kDynamic), or none for an
/// unknown rank.
std::optional<llvm::SmallVector<int64_t>> convertShape(const tensorflow::TensorShapeProto &shape);

/// Converts a TensorProto to a dense elements attribute. On failure returns null and
/// sets `error`.
mlir::ElementsAttr convertTensor(const tensorflow::TensorProto &tensor, mlir::MLIRContext *context,
                                 std::string &error);

/// Converts an AttrValue. On failure returns null and sets `error`.
mlir::Attribute convertAttr(const tensorflow::AttrValue &value, mlir::MLIRContext *context,
                            std::string &error);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_CONVERT_H
