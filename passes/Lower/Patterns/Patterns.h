//===- Patterns.h - tf to linalg conversion patterns -----------------*- C++ -*-===//
#ifndef KILN_PASSES_LOWER_PATTERNS_PATTERNS_H
#define KILN_PASSES_LOWER_PATTERNS_PATTERNS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::lower {

/// How scalar arithmetic treats an element type. tf tensors may have unsigned element
/// types; after conversion everything is signless, so patterns decide from the tf type.
enum class ElementKind { Float, Signed, Unsigned, Bool };

ElementKind kindOf(mlir::Type tfElementType);

/// Maps tf types to the types upstream dialects accept (unsigned integers to signless).
class TFTypeConverter : public mlir::TypeConverter {
public:
  TFTypeConverter();
};

/// `type` converted by `converter` if that gives a ranked tensor of static shape (what every
/// lowering here needs), else null.
mlir::RankedTensorType staticTensorType(const mlir::TypeConverter *converter, mlir::Type type);

using BodyBuilder =
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// The indexing map that reads an input of `inputType` for a result of rank `resultRank`
/// with NumPy broadcasting: trailing dimensions align, size-1 dimensions repeat.
mlir::AffineMap broadcastMap(mlir::RankedTensorType inputType, mlir::RankedTensorType resultType);

/// One element `x` converted from the tf element type `srcTf` to `dstTf` (builtin type
/// `dst`), by TensorFlow's Cast rules.
mlir::Value castElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Type srcTf,
                        mlir::Type dstTf, mlir::Type dst);

/// A parallel linalg.generic over `resultType` reading `inputs` through `inputMaps`.
mlir::Value buildParallelGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                                 llvm::ArrayRef<mlir::AffineMap> inputMaps, BodyBuilder body);

/// A parallel linalg.generic over `resultType` reading `inputs` with NumPy broadcasting.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                             BodyBuilder body);

/// Maps the result indices of a gather to the input indices to read (index values).
using IndexMapFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::Value>)>;

/// A generic over `resultType` whose element at each index is `input` read at
/// `inputIndex(index)` with tensor.extract.
mlir::Value buildGather(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
                        mlir::Value input, IndexMapFn inputIndex);

/// An index constant.
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// `index` (an index value) clamped to [0, size - 1], so that a read at it stays inside
/// a dimension of `size` elements.
mlir::Value clampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index, int64_t size);

/// args[0] op args[1] in float or integer arithmetic, by `kind`.
template <typename FloatOp, typename IntOp>
mlir::Value arithmetic(mlir::OpBuilder &b, mlir::Location loc, ElementKind kind,
                       mlir::ValueRange args) {
  if (kind == ElementKind::Float)
    return FloatOp::create(b, loc, args[0], args[1]);
  return IntOp::create(b, loc, args[0], args[1]);
}

/// args[0] op args[1] in float, signed or unsigned arithmetic, by `kind`.
template <typename FloatOp, typename SignedOp, typename UnsignedOp>
mlir::Value signedArithmetic(mlir::OpBuilder &b, mlir::Location loc, ElementKind kind,
                             mlir::ValueRange args) {
  if (kind == ElementKind::Float)
    return FloatOp::create(b, loc, args[0], args[1]);
  if (kind == ElementKind::Unsigned)
    return UnsignedOp::create(b, loc, args[0], args[1]);
  return SignedOp::create(b, loc, args[0], args[1]);
}

/// A scalar constant of `type` (integer, index or float) holding `value`.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, double value);

/// tensor.empty + linalg.fill with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                         mlir::Value value);

/// The integers of a converted constant operand (an arith.constant), if it is one.
std::optional<llvm::SmallVector<int64_t>> constantInts(mlir::Value value);

/// `value` (static shape) reshaped to `type` with the same number of elements, as
/// collapse_shape/expand_shape views (no data moves after bufferization).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                      mlir::RankedTensorType type);

/// acc + a * b, in float or integer arithmetic: the body of every contraction.
mlir::Value multiplyAdd(mlir::OpBuilder &b, mlir::Location loc, ElementKind kind, mlir::Value a,
                        mlir::Value x, mlir::Value acc);

/// C = op(lhs) x op(rhs) (2-D, static), as the linalg.generic contraction over loops
/// (m, k, n) that kiln-lower-kernel-calls turns into a kernel call.
mlir::Value buildMatmul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs, mlir::Value rhs,
                        mlir::RankedTensorType resultType, bool transposeA, bool transposeB,
                        ElementKind kind);

/// TensorList ops on their dense tensors (after kiln-graph-resolve-lists).
void populateListPatterns(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
/// tf.If, tf.Case, tf.While and tf.Yield to scf.if, scf.index_switch and scf.while.
void populateControlFlowPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateStructurePatterns(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateElementwisePatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateLinearAlgebraPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateShapePatterns(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateReductionPatterns(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateDiagonalPatterns(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);
void populateScatterPatterns(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
/// Where, Unique and the non-max suppressions, at their bounds (kiln-graph-bound-sizes).
void populateDataDependentPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// The special functions (Lgamma, Igamma, Betainc ...): calls of libkiln_kernels'.
/// With `checks`, a kiln.check of each kernel's status where TensorFlow's kernel fails.
void populateFactorizationPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns, bool checks);
void populateSpecialPatterns(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
/// StatelessRandomGetKeyCounter and the V2 stateless random ops (Philox-4x32-10).
void populateRandomPatterns(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateImagePatterns(const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
/// `winograd`: f32 3x3 convolutions may use the Winograd kernel.
void populateConvolutionPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns, bool winograd = true);

} // namespace kiln::lower

#endif // KILN_PASSES_LOWER_PATTERNS_PATTERNS_H
