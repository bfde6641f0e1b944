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
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

namespace kiln::tf {

/// Dimensions as TensorFlow prints them: "[4,?,3]" ("?" unknown, "[]" for a scalar).
std::string describeDims(llvm::ArrayRef<int64_t> dims);

/// A type as a TensorFlow user reads it: "float32 [4,3]", "int32 []" for a scalar,
/// "float32 [?,3]" with an unknown dimension, "bool (unknown shape)", "uint8" for an
/// element type.
std::string describeType(mlir::Type type);
/// An attribute as a TensorFlow user reads it: "a bool (true)", "an integer (3)", "a shape
/// ([2])", "a dtype (float32)", "no value" ...
std::string describeAttribute(mlir::Attribute attr);

/// A message argument in those terms: types and attributes described, anything else as is.
template <typename T> decltype(auto) presentable(T &&value) {
  using D = std::decay_t<T>;
  if constexpr (std::is_convertible_v<D, mlir::Type>)
    return describeType(value);
  else if constexpr (std::is_convertible_v<D, mlir::Attribute>)
    return describeAttribute(value);
  else
    return std::forward<T>(value);
}

/// What an inference function sees: the op's operands (data inputs first, then control
/// inputs) and attributes, and where to report errors.
struct InferContext {
  mlir::MLIRContext *context;
  std::optional<mlir::Location> location;
  mlir::ValueRange operands;
  mlir::DictionaryAttr attributes;
  llvm::StringRef opName; // "tf.Relu"

  /// Reports an error at the node, "node 'NAME' (Relu): ..." when the location names the
  /// node: types and attributes among `args` are described in TensorFlow's terms
  /// (presentable), not MLIR's.
  template <typename... Args> mlir::LogicalResult error(Args &&...args) const {
    return mlir::emitOptionalError(location, nodePrefix(),
                                   presentable(std::forward<Args>(args))...);
  }
  /// The context of an op that exists: its operands, attributes, name and location (or no
  /// location, so that nothing is reported: a folder).
  static InferContext of(mlir::Operation *op, bool report = true) {
    return {op->getContext(), report ? std::optional<mlir::Location>(op->getLoc()) : std::nullopt,
            op->getOperands(), op->getAttrDictionary(), op->getName().getStringRef()};
  }
  /// "node 'NAME' (Relu): " if the location is a node's name, else "".
  std::string nodePrefix() const;
  /// The attribute `name`, which must be there and be an AttrT; `kind` says what that is
  /// in TensorFlow's terms ("a string (s: ...)") for the error that it is missing or of
  /// another kind.
  template <typename AttrT>
  mlir::FailureOr<AttrT> requireAttr(llvm::StringRef name, llvm::StringRef kind) const {
    mlir::Attribute raw = attributes ? attributes.get(name) : mlir::Attribute();
    if (!raw)
      return error("requires the attribute '", name, "', ", kind);
    if (auto typed = llvm::dyn_cast<AttrT>(raw))
      return typed;
    return error("attribute '", name, "' must be ", kind, ", got ", raw);
  }
  template <typename AttrT> AttrT attr(llvm::StringRef name) const {
    return attributes ? llvm::dyn_cast_or_null<AttrT>(attributes.get(name)) : AttrT();
  }
  /// The `index`th operand's type, or null if there are not that many operands.
  mlir::Type operandType(unsigned index) const {
    return index < operands.size() ? operands[index].getType() : mlir::Type();
  }
  /// Checks that there are `count` tensor operands and that `T`, if given, is the first
  /// one's element type; returns the first one's type.
  mlir::FailureOr<mlir::TensorType> firstInput(unsigned count) const;
  /// Checks that the first two operands are tensors of one element type (which must
  /// match `T`); returns their types. `what` names them in errors.
  mlir::FailureOr<std::pair<mlir::TensorType, mlir::TensorType>>
  twoInputs(llvm::StringRef what) const;
  /// Fails unless the op has at least `count` operands that are tensors.
  mlir::LogicalResult requireTensorOperands(unsigned count) const;
  /// Fails if the type attribute `name` is present and differs from `actual`.
  mlir::LogicalResult checkTypeAttr(llvm::StringRef name, mlir::Type actual) const;
  /// For list ops (ConcatV2, Pack, AddN): the first N operands, N from the attribute.
  mlir::FailureOr<mlir::ValueRange> listValues() const;
  /// The values of operand `index` if it is a tf.Const of integers.
  std::optional<llvm::SmallVector<int64_t>> constantInts(unsigned index) const;
  /// The integer-list attribute `name`, or none.
  std::optional<llvm::SmallVector<int64_t>> intList(llvm::StringRef name) const;
  /// Fails unless `a` and `b` have the same element type, which must also match `T`.
  mlir::LogicalResult checkSameElementType(mlir::TensorType a, mlir::TensorType b,
                                           llvm::StringRef what) const;
};

/// An integer tensor constant of ranked `type` holding `values`.
mlir::Attribute intConstant(mlir::Type type, llvm::ArrayRef<int64_t> values);

/// The element shape a TensorList op's constant `element_shape` operand gives (-1
/// dimensions as kDynamic), or none for an unknown rank (a scalar -1) or a non-constant.
std::optional<llvm::SmallVector<int64_t>> listElementShape(mlir::Value operand);

/// The values of `value` if a tf.Const of integers defines it.
std::optional<llvm::SmallVector<int64_t>> constantIntsOf(mlir::Value value);

/// A slice of a static tensor as a gather: output dimension j reads input dimension
/// `inputDim[j]` (or none, -1, for a new axis of size 1) at begin + stride * index; input
/// dimensions no output dimension reads are fixed at `fixedIndex`.
struct SliceSpec {
  llvm::SmallVector<int64_t> outputShape;
  llvm::SmallVector<int64_t> inputDim, begin, stride; // per output dimension
  llvm::SmallVector<int64_t> fixedIndex;              // per input dimension, -1 if read
};

/// TensorFlow's StridedSlice canonicalisation (masks, negative indices, clamping).
mlir::FailureOr<SliceSpec>
computeStridedSlice(const InferContext &ctx, llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<int64_t> begin, llvm::ArrayRef<int64_t> end,
                    llvm::ArrayRef<int64_t> strides, int64_t beginMask, int64_t endMask,
                    int64_t ellipsisMask, int64_t newAxisMask, int64_t shrinkMask);
/// Slice's begin/size (size -1 means to the end).
mlir::FailureOr<SliceSpec> computeSlice(const InferContext &ctx, llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> begin,
                                        llvm::ArrayRef<int64_t> size);

/// The most elements a tensor may have (2^48): the byte sizes of its shape, its views
/// and the arena computed in int64 cannot overflow below it.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 48;

/// The most elements a folder computes at compile time (2^20): larger results are left
/// to run time, where they cost memory once instead of compile time and model size.
inline constexpr int64_t kMaxFoldedElements = int64_t(1) << 20;

/// The number of elements of `shape`'s known dimensions, or none if it exceeds
/// kMaxTensorElements (dynamic dimensions count as 1).
std::optional<int64_t> boundedElementCount(llvm::ArrayRef<int64_t> shape);

/// Checks what an inference function returned: every known dimension is non-negative and
/// the known dimensions have at most kMaxTensorElements elements, so that a hostile
/// shape (a Range to 1e300, a Fill of [2^40, 2^40]) is an error at its node rather than
/// an overflow later. Every op's inferReturnTypes calls it.
mlir::LogicalResult checkInferredTypes(const InferContext &ctx, llvm::ArrayRef<mlir::Type> types);

/// A condition an op's operand must meet at run time (RuntimeChecksInterface): the kinds
/// and the message template are those of kiln.check.
struct RuntimeCheck {
  mlir::Value subject;
  std::string kind; // "nonzero", "nonnegative", "in_range", "below"; floats: "not_nan", "not_inf"
  llvm::SmallVector<int64_t> bounds; // in_range: one, or one per position of the last dim
  std::string message;               // the problem, with {index} and {value}
};

/// True if `lhs` and `rhs` have the same element types and compatible shapes (a dynamic
/// dimension or unknown rank is compatible with anything).
bool areCompatibleResultTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);

using InferResult = llvm::SmallVectorImpl<mlir::Type>;

/// Which dimensions of a 4-D tensor hold height, width and channels.
struct Layout {
  int64_t h, w, c;
  static Layout of(llvm::StringRef dataFormat) {
    return dataFormat == "NCHW" ? Layout{2, 3, 1} : Layout{1, 2, 3};
  }
};

/// One spatial dimension of a convolution or pooling window, as TensorFlow computes it.
struct WindowDim {
  int64_t output;              // ShapedType::kDynamic when the input size is unknown
  int64_t padBefore, padAfter; // zero for VALID
};

/// The output size and padding of a window of `size` elements (dilated by `dilation`)
/// moved by `stride` over `input` elements with TensorFlow's "SAME", "VALID" or "EXPLICIT"
/// padding (the last using `explicitBefore`/`explicitAfter`). Fails on bad arguments.
mlir::FailureOr<WindowDim> computeWindow(const InferContext &ctx, int64_t input, int64_t size,
                                         int64_t stride, int64_t dilation, llvm::StringRef padding,
                                         int64_t explicitBefore, int64_t explicitAfter);

// Reduction.cpp (search)
mlir::LogicalResult inferSearchSorted(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferInTopK(const InferContext &ctx, InferResult &out);
// ImageOps.cpp
mlir::LogicalResult inferExtractImagePatches(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferLRN(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferLRNGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferResizeBilinearGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferCropAndResize(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferScaleAndTranslate(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferAdjustColor(const InferContext &ctx, InferResult &out);
// DataDependent.cpp
mlir::LogicalResult inferWhere(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferUnique(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferNonMaxSuppression(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferCombinedNonMaxSuppression(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBitcast(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferColor(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFakeQuant(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFakeQuantGrad(const InferContext &ctx, InferResult &out);
// Diagonals.cpp
/// The diagonals a MatrixDiag*, MatrixDiagPart* or MatrixSetDiag* op names: its constant
/// `k` (0 for the first forms), lo <= hi, and the sides they align to.
struct DiagonalRange {
  int64_t lo = 0, hi = 0;
  bool leftSuper = true, leftSub = true;
  int64_t count() const { return hi - lo + 1; }
};
std::optional<DiagonalRange> diagonalRange(mlir::Operation *op);
/// The length of diagonal d of an m x n matrix.
inline int64_t diagonalLength(int64_t d, int64_t m, int64_t n) {
  return std::min(m + std::min<int64_t>(d, 0), n - std::max<int64_t>(d, 0));
}
mlir::LogicalResult inferMatrixDiagPart(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMatrixDiag(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMatrixSetDiag(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDiag(const InferContext &ctx, InferResult &out);
// Scatter.cpp
mlir::LogicalResult inferSegment(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBincount(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferScatterNd(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorScatter(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSparseToDense(const InferContext &ctx, InferResult &out);
// Aliases.cpp
mlir::LogicalResult inferBroadcastArgs(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBroadcastGradientArgs(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferShapeN(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConcatOffset(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConcatAxisFirst(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferGatherAxis0(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBatchMatMulV3(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMaxPoolV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferEmpty(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDataFormat(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferToBool(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferCross(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferScalarOfFirst(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBiasAddGrad(const InferContext &ctx, InferResult &out);
// Structure.cpp
mlir::LogicalResult inferPlaceholder(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPlaceholderWithDefault(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConst(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSameAsFirstOperand(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferIdentityN(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferReverseV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListReserve(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListGetItem(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListSetItem(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListStack(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListLength(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListGather(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTensorListScatterIntoExistingList(const InferContext &ctx,
                                                           InferResult &out);
mlir::LogicalResult inferTensorListElementShape(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferNoResults(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferRecv(const InferContext &ctx, InferResult &out);
// Elementwise.cpp
mlir::LogicalResult inferBroadcastBinary(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferCast(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBroadcastCompare(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSelectV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSelect(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSameShapeBool(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPopulationCount(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBucketize(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferApproximateEqual(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSameShapeBinary(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferClipByValue(const InferContext &ctx, InferResult &out);
// LinearAlgebra.cpp
mlir::LogicalResult inferMatMul(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBiasAdd(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBatchMatMul(const InferContext &ctx, InferResult &out);
// Einsum.cpp
/// An Einsum equation read against its inputs' ranks: a label per dimension of each input
/// and of the output (letters 0-51; the dimensions "..." stands for 52 and up, aligned to
/// the right across inputs), the implicit output ("ij,jk") made explicit.
struct EinsumLabels {
  llvm::SmallVector<llvm::SmallVector<int>> inputs;
  llvm::SmallVector<int> output;
  int64_t ellipsisRank = 0;
};
mlir::FailureOr<EinsumLabels> parseEinsum(const InferContext &ctx, llvm::StringRef equation,
                                          llvm::ArrayRef<int64_t> ranks);
/// A label as messages name it: "'i'", or "... dimension 0".
std::string einsumLabelName(int label);
mlir::LogicalResult inferEinsum(const InferContext &ctx, InferResult &out);
// Shape.cpp
mlir::LogicalResult inferReshape(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTranspose(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSqueeze(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferExpandDims(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPadV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferGatherV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferGatherNd(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFill(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTile(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBroadcastTo(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferEnsureShape(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferInvertPermutation(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferLinSpace(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferRoll(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferReverseSequence(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMatrixBandPart(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSlice(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferStridedSlice(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSplit(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSplitV(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferUnpack(const InferContext &ctx, InferResult &out);
/// The sizes of the parts of a SplitV of `total` elements (one -1 takes the rest).
mlir::FailureOr<llvm::SmallVector<int64_t>>
splitSizes(const InferContext &ctx, llvm::ArrayRef<int64_t> sizes, int64_t total);
mlir::LogicalResult inferConcat(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPack(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferAddN(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferShapeOf(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSizeOf(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferRankOf(const InferContext &ctx, InferResult &out);
// Generate.cpp
mlir::LogicalResult inferRange(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferOneHot(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDepthToSpace(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSpaceToDepth(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSpaceToBatchND(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSpaceToBatch(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBatchToSpace(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConv3D(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConv3DBackpropInput(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPool3D(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBatchToSpaceND(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMirrorPad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferResizeNearest(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferResizeBilinear(const InferContext &ctx, InferResult &out);

/// TensorFlow's source coordinates of a resize: for each output index along a dimension,
/// the input indices below and above and the interpolation weight of the upper one.
struct ResizeAxis {
  llvm::SmallVector<int64_t> lower, upper, nearest;
  llvm::SmallVector<float> lerp;
};
ResizeAxis resizeAxis(int64_t in, int64_t out, bool alignCorners, bool halfPixelCenters);
/// ResizeBicubic's taps along one axis, as TensorFlow's CPU kernel computes them: for each
/// output coordinate, four input indices (clamped) and their weights from its table of Keys
/// cubic coefficients (a = -0.5 with half-pixel centres, where taps outside the image weigh
/// 0 and the rest are renormalised; a = -0.75 otherwise).
struct CubicAxis {
  llvm::SmallVector<int64_t> index[4];
  llvm::SmallVector<float> weight[4];
};
CubicAxis cubicAxis(int64_t in, int64_t out, bool alignCorners, bool halfPixelCenters);
/// ResizeArea's cells along one axis: output o covers inputs [start, end) (clamped when
/// read), the first weighing startScale, the last endScale, the others 1; `scale` is the
/// axis's input/output ratio.
struct AreaAxis {
  llvm::SmallVector<int64_t> start, end;
  llvm::SmallVector<float> startScale, endScale;
  float scale;
};
AreaAxis areaAxis(int64_t in, int64_t out, bool alignCorners);
/// ScaleAndTranslate's spans along one axis (TensorFlow's ComputeSpansCore): output o sums
/// input rows start[o] + j for j < count[o], weighted weight[o * span + j].
struct SpanAxis {
  int64_t span = 0;
  llvm::SmallVector<int64_t> start, count;
  llvm::SmallVector<float> weight;
};
/// Fails (none) for an unknown kernel name.
std::optional<SpanAxis> spanAxis(llvm::StringRef kernel, int64_t in, int64_t out, float scale,
                                 float translate, bool antialias);
/// Whether `kernel` names a ScaleAndTranslate sampling kernel.
bool isSamplingKernel(llvm::StringRef kernel);
// Reduction.cpp
mlir::LogicalResult inferReduction(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferArgReduction(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTopKV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferCumulative(const InferContext &ctx, InferResult &out);
/// The axes of a reduction, in [0, rank), sorted and unique; fails on out-of-range axes.
mlir::FailureOr<llvm::SmallVector<int64_t>>
normalizeAxes(const InferContext &ctx, llvm::ArrayRef<int64_t> axes, int64_t rank);
// Convolution.cpp
mlir::LogicalResult inferConv2D(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferConv2DBackpropInput(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDepthwiseConv2DBackpropInput(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFilterGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferAvgPoolGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMaxPoolGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFusedBatchNormGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSoftmaxCrossEntropy(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferBetainc(const InferContext &ctx, InferResult &out);
// Random.cpp
mlir::LogicalResult inferRandomKeyCounter(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferStatelessRandom(const InferContext &ctx, InferResult &out);
// Factorizations.cpp
mlir::LogicalResult inferSquareMatrices(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMatrixSolve(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferQr(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSelfAdjointEigV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferSvd(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTridiagonalSolve(const InferContext &ctx, InferResult &out);
// Composites.cpp
mlir::LogicalResult inferSparseMatMul(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferGenericConv(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferUniqueV2(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferApproxTopK(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferUnaryOpsComposition(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferListDiff(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDynamicPartition(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDynamicStitch(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferMirrorPadGrad(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferStridedSliceWrite(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferQuantizeAndDequantize(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferTridiagonalMatMul(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferDepthwiseConv2D(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferPool(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFusedBatchNorm(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFusedBatchNormV3(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFusedBatchNormEx(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFusedConv2D(const InferContext &ctx, InferResult &out);
mlir::LogicalResult inferFusedMatMul(const InferContext &ctx, InferResult &out);
/// The activation of a _FusedConv2D/_FusedMatMul epilogue ("" when there is none), after
/// checking `fused_ops` and the argument count. Shared by inference and lowering.
mlir::FailureOr<llvm::StringRef> fusedActivation(const InferContext &ctx, bool allowBatchNorm,
                                                 bool &batchNorm);

} // namespace kiln::tf

#endif // KILN_DIALECTS_TF_OPS_INFER_H
