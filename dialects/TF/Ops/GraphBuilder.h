//===- GraphBuilder.h - building tf ops in place of one ----------*- C++ -*-===//
//
// What kiln-graph-decompose's rewrites (Aliases.cpp, Gradients.cpp) build their
// replacements with: tf ops created at the op they replace, their types inferred.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_TF_OPS_GRAPHBUILDER_H
#define KILN_DIALECTS_TF_OPS_GRAPHBUILDER_H

#include "dialects/TF/TFOps.h"

namespace kiln::tf {

/// The data operands of `op` (its control inputs dropped).
inline mlir::ValueRange dataOf(mlir::Operation *op) {
  return llvm::cast<GraphOpInterface>(op).getDataInputs();
}

/// `v`'s type if it is a ranked tensor, else null.
inline mlir::RankedTensorType rankedOf(mlir::Value v) {
  return llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
}

/// Builds the replacement's ops at `op`; an op whose inference fails sets `failed` and
/// stands in as its first operand, so that the caller checks once, at the end.
struct GraphBuilder {
  mlir::RewriterBase &rewriter;
  mlir::Operation *op;
  bool failed = false;

  mlir::Value create(llvm::StringRef name, mlir::ValueRange operands,
                     llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    if (mlir::Value result = createTF(rewriter, op->getLoc(), name, operands, attrs))
      return result;
    failed = true;
    return operands.front();
  }
  /// The op `name` with all its results (null, setting `failed`, if inference fails).
  mlir::Operation *createOp(llvm::StringRef name, mlir::ValueRange operands,
                            llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    mlir::OperationState state(op->getLoc(), ("tf." + name).str());
    state.addOperands(operands);
    state.addAttributes(attrs);
    mlir::Operation *created = createInferred(rewriter, state);
    failed |= !created;
    return created;
  }
  /// A constant of `shape` holding integers `values` (i32 unless `element` is given).
  mlir::Value intTensor(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> values,
                        mlir::Type element = {}) {
    element = element ? element : rewriter.getI32Type();
    llvm::SmallVector<mlir::Attribute> attrs;
    for (int64_t v : values)
      attrs.push_back(mlir::IntegerAttr::get(element, v));
    return constant(element, shape, attrs);
  }
  /// x reshaped to `shape` (x itself when it has that static shape already).
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape) {
    auto t = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
    if (t && t.hasStaticShape() && t.getShape() == shape)
      return x;
    return create("Reshape", {x, ints(shape)});
  }
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm) {
    return create("Transpose", {x, ints(perm)});
  }
  /// x padded with `value` by (before, after) amounts per dimension (2 entries a dimension).
  mlir::Value pad(mlir::Value x, llvm::ArrayRef<int64_t> amounts, mlir::Value value) {
    int64_t rank = static_cast<int64_t>(amounts.size()) / 2;
    return create("PadV2", {x, intTensor({rank, 2}, amounts), value});
  }
  /// x[begin:end:stride] in every dimension.
  mlir::Value stridedSlice(mlir::Value x, llvm::ArrayRef<int64_t> begin,
                           llvm::ArrayRef<int64_t> end, llvm::ArrayRef<int64_t> strides) {
    return create("StridedSlice", {x, ints(begin), ints(end), ints(strides)});
  }
  mlir::Value constant(mlir::Type element, llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<mlir::Attribute> values) {
    auto type = mlir::RankedTensorType::get(shape, element);
    return ConstOp::create(rewriter, op->getLoc(), type, mlir::DenseElementsAttr::get(type, values),
                           mlir::TypeAttr::get(element), mlir::ValueRange{});
  }
  mlir::Value ints(llvm::ArrayRef<int64_t> values, mlir::Type element = {}) {
    return intTensor({static_cast<int64_t>(values.size())}, values, element);
  }
  mlir::Value scalar(mlir::Type element, double value) {
    mlir::Attribute a;
    if (auto f = llvm::dyn_cast<mlir::FloatType>(element))
      a = mlir::FloatAttr::get(f, value);
    else
      a = mlir::IntegerAttr::get(element, static_cast<int64_t>(value));
    return constant(element, {}, {a});
  }
  mlir::NamedAttribute attr(llvm::StringRef name, mlir::Attribute value) {
    return rewriter.getNamedAttr(name, value);
  }
  /// The attributes of `op` named in `names`.
  llvm::SmallVector<mlir::NamedAttribute> copied(llvm::ArrayRef<llvm::StringRef> names) {
    llvm::SmallVector<mlir::NamedAttribute> attrs;
    for (llvm::StringRef name : names)
      if (mlir::Attribute a = op->getAttr(name))
        attrs.push_back(attr(name, a));
    return attrs;
  }
  /// x summed over `axes`.
  mlir::Value sum(mlir::Value x, llvm::ArrayRef<int64_t> axes) {
    return create("Sum", {x, ints(axes)}, {attr("keep_dims", rewriter.getBoolAttr(false))});
  }
};

/// Replaces `op` by `replacement` (one value a result), which must have types compatible
/// with the op's inferred ones (more refined is fine): true when it did, failure (reported
/// at the op) when the rewrite failed or its types differ.
inline mlir::FailureOr<bool>
replaceDecomposed(mlir::RewriterBase &rewriter, mlir::Operation *op,
                  const mlir::FailureOr<llvm::SmallVector<mlir::Value>> &replacement) {
  if (mlir::failed(replacement))
    return mlir::failure();
  for (auto [value, result] : llvm::zip(*replacement, op->getResults()))
    if (!areCompatibleResultTypes(value.getType(), result.getType()))
      return op->emitError() << "was rewritten as " << describeType(value.getType()) << " where "
                             << describeType(result.getType()) << " was inferred";
  rewriter.replaceOp(op, *replacement);
  return true;
}

} // namespace kiln::tf

#endif // KILN_DIALECTS_TF_OPS_GRAPHBUILDER_H
