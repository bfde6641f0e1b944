//===- Factorizations.cpp - matrix factorizations as calls of the runtime's -----===//
//
// Cholesky, MatrixInverse, MatrixSolve, MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd
// and TridiagonalSolve become one `kiln.kernel` each: the runtime's kernel for float32 or
// float64 (kiln/kernels/linalg.h, Eigen's algorithms as TensorFlow's CPU kernels run them)
// over the whole batch; float16 and bfloat16 are widened to float32 around it. Where
// TensorFlow's kernel fails (a singular matrix, an eigensolver that does not converge) the
// kernel's `ok` result, one i32 per matrix, is checked by a `kiln.check`. The ops are
// TF_HostOnly, so these kernels only ever run on a CPU.
//
//===----------------------------------------------------------------------------===//
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// Builds one kernel call of an op: its operands widened to the kernel's float type, its
/// results narrowed back to the op's.
class KernelBuilder {
public:
  KernelBuilder(ConversionPatternRewriter &rewriter, Operation *op, Type element, bool checks)
      : b(rewriter), op(op), loc(op->getLoc()), element(element),
        kernelElement(element.isF64() ? element : Type(rewriter.getF32Type())), checks(checks) {}

  /// The kernel's name for `base`: "cholesky_f32".
  std::string name(StringRef base) const {
    return (base + (kernelElement.isF64() ? "_f64" : "_f32")).str();
  }

  /// `value`, a float tensor, with elements of type `to` (castElement's float rules).
  Value convert(Value value, Type to) {
    auto type = cast<RankedTensorType>(value.getType());
    Type from = type.getElementType();
    if (from == to)
      return value;
    return buildElementwise(b, loc, type.clone(to), value,
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              return castElement(nb, l, args[0], from, to, to);
                            });
  }

  /// Calls `kernel` on `inputs` (already widened) for results of `shapes` (float, the
  /// kernel's element type; an i32 `ok` tensor of shape `okShape` last when `okShape` is
  /// set), with `params`.
  SmallVector<Value> call(StringRef kernel, ValueRange inputs,
                          ArrayRef<SmallVector<int64_t>> shapes,
                          std::optional<ArrayRef<int64_t>> okShape, NamedAttrList params) {
    SmallVector<Value> inits;
    for (const auto &shape : shapes)
      inits.push_back(tensor::EmptyOp::create(b, loc, shape, kernelElement));
    if (okShape)
      inits.push_back(tensor::EmptyOp::create(b, loc, *okShape, b.getI32Type()));
    auto call = dialect::KernelOp::create(b, loc, ValueRange(inits).getTypes(),
                                          b.getStringAttr(name(kernel)), inputs, inits,
                                          params.getDictionary(b.getContext()));
    return SmallVector<Value>(call.getResults());
  }

  /// Fails the call when an element of `ok` is 0: `what` says of the matrix{index}.
  void check(Value ok, StringRef what) {
    if (!checks)
      return;
    std::string message = tf::InferContext::of(op).nodePrefix() + what.str();
    dialect::CheckOp::create(b, loc, b.getStringAttr("nonzero"), ok, b.getDenseI64ArrayAttr({}),
                             b.getStringAttr(message), UnitAttr());
  }

  ConversionPatternRewriter &b;
  Operation *op;
  Location loc;
  Type element, kernelElement;
  bool checks;
};

/// The static result types of `op`, or null.
SmallVector<RankedTensorType> resultTypes(const TypeConverter *converter, Operation *op) {
  SmallVector<RankedTensorType> types;
  for (Type t : op->getResultTypes()) {
    auto type = staticTensorType(converter, t);
    if (!type)
      return {};
    types.push_back(type);
  }
  return types;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

SmallVector<int64_t> shapeOf(Value v) {
  return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
}

NamedAttrList sizes(OpBuilder &b, ArrayRef<std::pair<StringRef, int64_t>> values) {
  NamedAttrList params;
  for (auto [name, value] : values)
    params.set(name, b.getI64IntegerAttr(value));
  return params;
}

/// The sizes of a batch of matrices of `shape`: "batch", then the rows' and the columns'
/// counts under the kernel's names for them.
NamedAttrList matrixSizes(OpBuilder &b, ArrayRef<int64_t> shape, StringRef rows, StringRef cols) {
  return sizes(b, {{"batch", product(shape.drop_back(2))},
                   {rows, shape[shape.size() - 2]},
                   {cols, shape.back()}});
}

void setFlag(OpBuilder &b, NamedAttrList &params, StringRef name, bool present) {
  if (present)
    params.set(name, b.getUnitAttr());
}

/// A pattern for one op: `build` makes its replacement from the widened operands.
template <typename OpT> struct FactorizationLowering : OpConversionPattern<OpT> {
  FactorizationLowering(const TypeConverter &converter, MLIRContext *context, bool checks)
      : OpConversionPattern<OpT>(converter, context), checks(checks) {}
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<RankedTensorType> types = resultTypes(this->getTypeConverter(), op);
    if (types.empty())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    KernelBuilder k(rewriter, op, types[0].getElementType(), checks);
    SmallVector<Value> operands;
    for (Value v : adaptor.getOperands().take_front(
             cast<tf::GraphOpInterface>(op.getOperation()).getDataInputs().size())) {
      if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
        return rewriter.notifyMatchFailure(op, "needs static shapes");
      operands.push_back(k.convert(v, k.kernelElement));
    }
    SmallVector<Value> results = build(op, k, operands, types);
    for (Value &r : results)
      r = k.convert(r, k.element);
    rewriter.replaceOp(op, results);
    return success();
  }
  SmallVector<Value> build(OpT op, KernelBuilder &k, ArrayRef<Value> operands,
                           ArrayRef<RankedTensorType> types) const;
  bool checks;
};

template <>
SmallVector<Value> FactorizationLowering<tf::CholeskyOp>::build(tf::CholeskyOp, KernelBuilder &k,
                                                                ArrayRef<Value> operands,
                                                                ArrayRef<RankedTensorType>) const {
  SmallVector<int64_t> shape = shapeOf(operands[0]);
  int64_t n = shape.back();
  return k.call("cholesky", operands, {shape}, std::nullopt,
                sizes(k.b, {{"batch", product(ArrayRef(shape).drop_back(2))}, {"n", n}}));
}

template <>
SmallVector<Value>
FactorizationLowering<tf::MatrixInverseOp>::build(tf::MatrixInverseOp op, KernelBuilder &k,
                                                  ArrayRef<Value> operands,
                                                  ArrayRef<RankedTensorType>) const {
  SmallVector<int64_t> shape = shapeOf(operands[0]);
  ArrayRef<int64_t> batch = ArrayRef(shape).drop_back(2);
  NamedAttrList params = sizes(k.b, {{"batch", product(batch)}, {"n", shape.back()}});
  setFlag(k.b, params, "adjoint", op.getAdjoint());
  SmallVector<Value> r = k.call("matrix_inverse", operands, {shape}, batch, params);
  k.check(r[1], "the matrix{index} is not invertible (a zero pivot)");
  return {r[0]};
}

template <>
SmallVector<Value>
FactorizationLowering<tf::MatrixSolveOp>::build(tf::MatrixSolveOp op, KernelBuilder &k,
                                                ArrayRef<Value> operands,
                                                ArrayRef<RankedTensorType>) const {
  SmallVector<int64_t> shape = shapeOf(operands[1]);
  ArrayRef<int64_t> batch = ArrayRef(shape).drop_back(2);
  NamedAttrList params = matrixSizes(k.b, shape, "n", "k");
  setFlag(k.b, params, "adjoint", op.getAdjoint());
  SmallVector<Value> r = k.call("matrix_solve", operands, {shape}, batch, params);
  k.check(r[1], "the matrix{index} is not invertible (a zero pivot)");
  return {r[0]};
}

template <>
SmallVector<Value> FactorizationLowering<tf::MatrixTriangularSolveOp>::build(
    tf::MatrixTriangularSolveOp op, KernelBuilder &k, ArrayRef<Value> operands,
    ArrayRef<RankedTensorType> types) const {
  // The batch dimensions broadcast: both operands are expanded to the result's batch.
  SmallVector<int64_t> shape(types[0].getShape());
  ArrayRef<int64_t> batch = ArrayRef(shape).drop_back(2);
  int64_t n = shape[shape.size() - 2];
  SmallVector<Value> inputs;
  const SmallVector<int64_t> tails[] = {{n, n}, {n, shape.back()}};
  for (auto [operand, tail] : llvm::zip(operands, tails)) {
    SmallVector<int64_t> full(batch);
    full.append(tail.begin(), tail.end());
    auto type = RankedTensorType::get(full, k.kernelElement);
    inputs.push_back(
        operand.getType() == type
            ? operand
            : buildElementwise(k.b, k.loc, type, operand,
                               [](OpBuilder &, Location, ValueRange args) { return args[0]; }));
  }
  NamedAttrList params = matrixSizes(k.b, shape, "n", "k");
  setFlag(k.b, params, "adjoint", op.getAdjoint());
  setFlag(k.b, params, "lower", op.getLower());
  return k.call("triangular_solve", inputs, {shape}, std::nullopt, params);
}

template <>
SmallVector<Value> FactorizationLowering<tf::QrOp>::build(tf::QrOp op, KernelBuilder &k,
                                                          ArrayRef<Value> operands,
                                                          ArrayRef<RankedTensorType> types) const {
  SmallVector<int64_t> shape = shapeOf(operands[0]);
  NamedAttrList params = matrixSizes(k.b, shape, "m", "n");
  setFlag(k.b, params, "full_matrices", op.getFullMatrices());
  return k.call(
      "qr", operands,
      {SmallVector<int64_t>(types[0].getShape()), SmallVector<int64_t>(types[1].getShape())},
      std::nullopt, params);
}

template <>
SmallVector<Value>
FactorizationLowering<tf::SelfAdjointEigV2Op>::build(tf::SelfAdjointEigV2Op op, KernelBuilder &k,
                                                     ArrayRef<Value> operands,
                                                     ArrayRef<RankedTensorType> types) const {
  SmallVector<int64_t> shape = shapeOf(operands[0]);
  ArrayRef<int64_t> batch = ArrayRef(shape).drop_back(2);
  NamedAttrList params = sizes(k.b, {{"batch", product(batch)}, {"n", shape.back()}});
  SmallVector<int64_t> e(types[0].getShape());
  const char *failure = "the eigensolver did not converge for the matrix{index}";
  if (!op.getComputeV()) {
    SmallVector<Value> r = k.call("eigenvalues", operands, {e}, batch, params);
    k.check(r[1], failure);
    Value none = tensor::EmptyOp::create(k.b, k.loc, ArrayRef<int64_t>{0}, k.kernelElement);
    return {r[0], none};
  }
  SmallVector<Value> r = k.call("self_adjoint_eig", operands, {e, shape}, batch, params);
  k.check(r[2], failure);
  return {r[0], r[1]};
}

template <>
SmallVector<Value> FactorizationLowering<tf::SvdOp>::build(tf::SvdOp op, KernelBuilder &k,
                                                           ArrayRef<Value> operands,
                                                           ArrayRef<RankedTensorType> types) const {
  SmallVector<int64_t> shape = shapeOf(operands[0]);
  NamedAttrList params = matrixSizes(k.b, shape, "m", "n");
  SmallVector<int64_t> s(types[0].getShape());
  if (!op.getComputeUv()) {
    Value none = tensor::EmptyOp::create(k.b, k.loc, ArrayRef<int64_t>{0}, k.kernelElement);
    return {k.call("singular_values", operands, {s}, std::nullopt, params)[0], none, none};
  }
  setFlag(k.b, params, "full_matrices", op.getFullMatrices());
  return k.call(
      "svd", operands,
      {s, SmallVector<int64_t>(types[1].getShape()), SmallVector<int64_t>(types[2].getShape())},
      std::nullopt, params);
}

template <>
SmallVector<Value>
FactorizationLowering<tf::TridiagonalSolveOp>::build(tf::TridiagonalSolveOp op, KernelBuilder &k,
                                                     ArrayRef<Value> operands,
                                                     ArrayRef<RankedTensorType>) const {
  SmallVector<int64_t> shape = shapeOf(operands[1]);
  NamedAttrList params = matrixSizes(k.b, shape, "m", "k");
  setFlag(k.b, params, "partial_pivoting", op.getPartialPivoting());
  return k.call("tridiagonal_solve", operands, {shape}, std::nullopt, params);
}

} // namespace

void populateFactorizationPatterns(const TypeConverter &converter, RewritePatternSet &patterns,
                                   bool checks) {
  patterns.add<FactorizationLowering<tf::CholeskyOp>, FactorizationLowering<tf::MatrixInverseOp>,
               FactorizationLowering<tf::MatrixSolveOp>,
               FactorizationLowering<tf::MatrixTriangularSolveOp>, FactorizationLowering<tf::QrOp>,
               FactorizationLowering<tf::SelfAdjointEigV2Op>, FactorizationLowering<tf::SvdOp>,
               FactorizationLowering<tf::TridiagonalSolveOp>>(converter, patterns.getContext(),
                                                              checks);
}

} // namespace kiln::lower
