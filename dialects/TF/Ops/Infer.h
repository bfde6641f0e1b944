//===- Infer.h - result type inference of tf ops ---------------------*- C++ -*-===//
//
// Every tf op computes its result types from its operands and attributes with one of the
// functions below (named by `inferFn` in TFOps.td). They also check operand and attribute
// types, so they double as the ops' verifiers, and the shape-inference pass re-runs them
// after feeds have made shapes static. Errors go to `location` when it is set.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_TF_OPS_INFER_H
#define KILN_DIALECTS_TF_OPS_INFER_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace kiln::tf {

/// What an inference function sees: the op's operands (data inputs first, then control
/// inputs) and attributes, and where to report errors.
struct InferContext {
  mlir::MLIRContext *context;
  std::optional<mlir::Location> location;
  mlir::ValueRange operands;
  mlir::DictionaryAttr attributes;

  template <typename... Args>
  mlir::LogicalResult error(Args &&...args) const {
    return mlir::emitOptionalError(location, std::forward<Args>(args)...);
  }
  template <typename AttrT>
  AttrT attr(llvm::StringRef name) const {
    return attributes ? llvm::dyn_cast_or_null<AttrT>(attributes.get(name)) : AttrT();
  }
  /// The `index`th operand's type, or null if there are not that many operands.
  mlir::Type operandType(unsigned index) const {
    return index < operands.size() ? operands[index].getType() : mlir::Type();
  }
  /// Fails unless the op has at least `count` operands that are tensors.
  mlir::LogicalResult requireTensorOperands(unsigned count) const;
  /// Fails if the type attribute `name` is present and differs from `actual`.
  mlir::LogicalResult checkTypeAttr(llvm::StringRef name, mlir::Type actual) const;
  /// Fails unless `a` and `b` have the same element type, which must also match `T`.
  mlir::LogicalResult checkSameElementType(mlir::TensorType a, mlir::TensorType b,
                                           llvm::StringRef what) const;
};

/// True if `lhs` and `rhs` have the same element types and compatible shapes (a dynamic
/// dimension or unknown rank is compatible with anything).
bool areCompatibleResultTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);

using InferResult = llvm::SmallVectorImpl<mlir::Type>;

// Structure.cpp
mlir::LogicalResult inferPlaceholder(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConst(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSameAsFirstOperand(const InferContext &ctx, InferResult &out);
// Elementwise.cpp
mlir::LogicalResult inferBroadcastBinary(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferCast(const InferContext &ctx, InferResult &out);
// LinearAlgebra.cpp
mlir::LogicalResult inferMatMul(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBiasAdd(const InferContext &ctx, InferResult &out);
// Shape.cpp
mlir::LogicalResult inferReshape(const InferContext &ctx, InferResult &out);

} // namespace kiln::tf

#endif // KILN_DIALECTS_TF_OPS_INFER_H
