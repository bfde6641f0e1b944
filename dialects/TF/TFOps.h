//===- TFOps.h - tf dialect operations -------------------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_TF_TFOPS_H
#define KILN_DIALECTS_TF_TFOPS_H

#include "dialects/TF/Ops/Infer.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::tf::traits {
/// TF_Elementwise (TFInterfaces.td): each result element depends only on the operands'
/// elements at its position.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {};
/// TF_HostOnly (TFInterfaces.td): lowered to one sequential loop, run on a CPU.
template <typename ConcreteType>
class HostOnly : public mlir::OpTrait::TraitBase<ConcreteType, HostOnly> {};
} // namespace kiln::tf::traits

#include "dialects/TF/TFInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/TF/TFOps.h.inc"

namespace kiln::tf {

/// The unit attribute kiln-graph-partition's compress-transfers puts on an f32 _Send/_Recv
/// pair: the tensor crosses as the upper 16 bits of each value (bfloat16 by truncation),
/// which the lowering of the pair converts to and from.
inline constexpr llvm::StringLiteral kCompressedAttr = "kiln.compressed";

/// Creates the tf op that `state` names (a registered op; `state` holds its operands and
/// attributes) with the result types its inference function gives. Returns null, after
/// the inference function has reported why at `state.location`, when the operands or
/// attributes are invalid.
mlir::Operation *createInferred(mlir::OpBuilder &builder, mlir::OperationState &state);

/// Creates the tf op `name` ("MatMul") with its first result type inferred; null if
/// inference fails (createInferred).
mlir::Value createTF(mlir::OpBuilder &builder, mlir::Location loc, llvm::StringRef name,
                     mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

/// Replaces `op` by the ops it is made of: Sum and Transpose for one input; for two,
/// Transposes and Reshapes around a MatMul (no batch dimension) or BatchMatMulV2, the
/// operands' order and adj_x/adj_y chosen to need as few transposes as possible. Needs
/// static shapes; reports why at the node and changes nothing when it fails.
mlir::LogicalResult decomposeEinsum(mlir::RewriterBase &rewriter, EinsumOp op);

/// Replaces a grouped Conv2D (the filter's input channels a proper divisor of the
/// input's, as XLA-compiled Keras layers write depthwise convolutions) by a
/// DepthwiseConv2dNative when each group has one input channel, or by one Conv2D per group
/// between a Split of the input and filter and a ConcatV2 of the results. Needs the
/// channel counts and the filter's shape; fails, changing nothing, otherwise.
mlir::LogicalResult decomposeGroupedConv2D(mlir::RewriterBase &rewriter, Conv2DOp op);

/// Replaces a grouped Conv3D (the filter's input channels a proper divisor of the
/// input's) by one Conv3D per group between Splits of the input and filter and a ConcatV2.
/// Fails, changing nothing, otherwise.
mlir::LogicalResult decomposeGroupedConv3D(mlir::RewriterBase &rewriter, Conv3DOp op);

/// Replaces a SpaceToBatchND by Pad, Reshape, Transpose and Reshape, or a BatchToSpaceND by
/// Reshape, Transpose, Reshape and Slice (TensorFlow's definition of the two). Needs static
/// shapes and constant block shapes, paddings and crops; fails, changing nothing, otherwise.
mlir::LogicalResult decomposeSpaceBatch(mlir::RewriterBase &rewriter, mlir::Operation *op);

/// Replaces BatchToSpaceND(conv(SpaceToBatchND(x))), the dilated convolution TensorFlow
/// writes (tf.nn.convolution and depthwise_conv2d with a rate above 1, Keras's dilated
/// and causal layers), by one convolution with dilations and explicit padding: a
/// stride-1 VALID Conv2D or DepthwiseConv2dNative (NHWC) on blocks of 2 dimensions, or the
/// 1-D form, an ExpandDims before the Conv2D and a Squeeze after it. Fails, changing
/// nothing, for any other pattern (crops larger than the paddings, say).
mlir::LogicalResult fuseDilatedConvolution(mlir::RewriterBase &rewriter, BatchToSpaceNDOp op);

/// Replaces a BatchMatMul or BatchMatMulV2 whose `y` has no batch of its own (rank 2, or
/// every batch dimension 1) and whose `x` is not adjoint by one MatMul of x's rows (its
/// batch and row dimensions flattened) with y, reshaped back: Keras's Dense on a sequence.
/// Fails, changing nothing and reporting nothing, for any other product or unknown shapes.
mlir::LogicalResult flattenBatchMatMul(mlir::RewriterBase &rewriter, mlir::Operation *op);

/// Replaces an op TensorFlow keeps under an older name, a composite or a shape gradient
/// (the ops of dialects/TF/Ops/Aliases.cpp) by the ops it stands for: true when it did,
/// false for any other op, failure (reported at the op) when it cannot (a MaxPoolV2 whose
/// ksize is not a constant, a BroadcastGradientArgs of shapes not known).
mlir::FailureOr<bool> decomposeAlias(mlir::RewriterBase &rewriter, mlir::Operation *op);

/// Replaces a gradient op of dialects/TF/Ops/Gradients.cpp (a window op's, batch
/// normalisation's, a cross-entropy loss's) by the forward ops that compute it: true when
/// it did, false for any other op, failure (reported at the op) when it cannot (shapes not
/// known).
mlir::FailureOr<bool> decomposeGradient(mlir::RewriterBase &rewriter, mlir::Operation *op);

/// Replaces an op of dialects/TF/Ops/Composites.cpp (SparseMatMul, Conv, UniqueV2,
/// ApproxTopK, _UnaryOpsComposition, ListDiff, DynamicPartition, DynamicStitch,
/// MirrorPadGrad, StridedSliceGrad, TensorStridedSliceUpdate ...) by the ops it stands
/// for: true when it did, false for any other op, failure (reported at the op) when it
/// cannot.
mlir::FailureOr<bool> decomposeComposite(mlir::RewriterBase &rewriter, mlir::Operation *op);

/// Replaces a stateless random op's first form (a [2] seed) by
/// StatelessRandomGetKeyCounter and the V2 op, and StatelessRandomGetKeyCounterAlg and
/// StatelessRandomGetAlg by the key and counter and a constant Philox (1): true when it
/// did, false for any other op.
mlir::FailureOr<bool> decomposeRandom(mlir::RewriterBase &rewriter, mlir::Operation *op);

} // namespace kiln::tf

#endif // KILN_DIALECTS_TF_TFOPS_H
