//===- TFOps.td - TensorFlow ops ---------------------------------*- tablegen -*-===//
//
// One def per TensorFlow op. Each op lists its data inputs in `dataArgs` (attributes
// included) and names the C++ function that infers its result types in `inferFn`; the
// trailing control-input group, purity and type inference come from TF_Op. Shape inference
// and type checking live in dialects/TF/Ops/<Family>.cpp.
//
//===----------------------------------------------------------------------------===//

#ifndef KILN_TF_OPS_TD
#define KILN_TF_OPS_TD

include "dialects/TF/TFDialect.td"
include "dialects/TF/TFTypes.td"
include "dialects/TF/TFAttrs.td"
include "dialects/TF/TFInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// `effects` replaces Pure for ops with side effects (_Send, _Recv).
class TF_Op<string mnemonic, list<Trait> traits = [], list<Trait> effects = [Pure]>
    : Op<TF_Dialect, mnemonic, !listconcat(traits, effects, [
        TF_GraphOpInterface,
        DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  // Data inputs and attributes of the op; control inputs are appended.
  dag dataArgs = (ins);
  // Function in namespace kiln::tf (dialects/TF/Ops) computing the result types.
  string inferFn = ?;
  // More C++ declarations for the op class.
  code opExtraDecls = [{}];
  let arguments = !con(dataArgs, (ins Variadic<AnyType>:$control_inputs));
  let extraClassDeclaration = [{
    /// Result types are compatible when element types match and shapes agree where
    /// both are known.
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs, ::mlir::TypeRange rhs) {
      return ::kiln::tf::areCompatibleResultTypes(lhs, rhs);
    }
    /// TensorFlow's names of the op's output arguments, in order, comma-separated.
    static ::llvm::StringRef getOutputArgNames() { return "}] #
      !interleave(!foreach(i, !range(!size(results)), !getdagname(results, i)), ",") # [{"; }
  }] # opExtraDecls;
  // ODS writes inferReturnTypes itself when every result type is buildable (NoOp).
  let extraClassDefinition = !if(!empty(inferFn), "", [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *context,
        ::std::optional<::mlir::Location> location, ::mlir::ValueRange operands,
        ::mlir::DictionaryAttr attributes, ::mlir::OpaqueProperties,
        ::mlir::RegionRange, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      ::kiln::tf::InferContext ctx{context, location, operands, attributes,
                                   getOperationName()};
      if (::mlir::failed(::kiln::tf::}] # inferFn # [{(ctx, inferred)))
        return ::mlir::failure();
      return ::kiln::tf::checkInferredTypes(ctx, inferred);
    }
  }]);
}

//===----------------------------------------------------------------------===//
// Graph structure: inputs, constants, identity, ordering.
//===----------------------------------------------------------------------===//

def TF_PlaceholderOp : TF_Op<"Placeholder"> {
  let summary = "a value fed from outside the graph";
  let description = [{
    ```mlir
    %x = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<?x784>} : () -> tensor<?x784xf32>
    ```
    When a graph is compiled, every fed Placeholder becomes an argument of the entry
    function; one that is needed but not fed is an error.
  }];
  let dataArgs = (ins TypeAttr:$dtype, OptionalAttr<TF_ShapeAttr>:$shape);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferPlaceholder";
}

def TF_ConstOp : TF_Op<"Const"> {
  let summary = "a constant tensor";
  let description = [{
    ```mlir
    %c = "tf.Const"() {dtype = i32, value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
    ```
    Not `ConstantLike`: TensorFlow constants may have control inputs.
  }];
  let dataArgs = (ins ElementsAttr:$value, OptionalAttr<TypeAttr>:$dtype);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferConst";
}

def TF_IdentityOp : TF_Op<"Identity", [TF_Elementwise]> {
  let summary = "returns its input";
  let description = [{
    ```mlir
    %y = "tf.Identity"(%x) {T = f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSameAsFirstOperand";
  let hasFolder = 1;
}

def TF_AssertOp : TF_Op<"Assert", [TF_HostOnly,
    DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "fails the run when `condition` (a bool scalar) is false";
  let description = [{
    The operands are the condition, the data TensorFlow prints with its error (as many as
    `T` has types), then the control inputs. It runs when what is fetched depends on it
    (by a control edge, as TensorFlow runs it); its check is a kiln.check of the condition
    (kiln-graph-insert-checks), reported as "node 'NAME' (Assert): assertion failed (the
    condition is false)"; the data are not printed. A constant false condition is an
    error while compiling.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, TypeArrayAttr:$T,
                   OptionalAttr<I64Attr>:$summarize);
  let results = (outs TF_ControlType:$control);
  let inferFn = "";
  let opExtraDecls = [{
    /// The data inputs: the condition, then one per type in `T`.
    unsigned getNumDataInputs() {
      return std::min<unsigned>(1 + getT().size(), getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_IdentityNOp : TF_Op<"IdentityN"> {
  let summary = "returns its inputs, a list whose element types are `T`";
  let description = [{
    The operands are the data inputs (as many as `T` has types), then the control inputs.
    ```mlir
    %a, %b = "tf.IdentityN"(%x, %y) {T = [f32, i32]}
        : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, TypeArrayAttr:$T);
  let results = (outs Variadic<TF_Tensor>:$output);
  let inferFn = "inferIdentityN";
  let hasFolder = 1;
  let opExtraDecls = [{
    /// The data inputs: one per type in `T`.
    unsigned getNumDataInputs() {
      return std::min<unsigned>(getT().size(), getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getValues() {
      return getInputsAndControls().take_front(getNumDataInputs());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_NoOpOp : TF_Op<"NoOp"> {
  let summary = "does nothing; used to group control dependencies";
  let description = [{
    ```mlir
    %ctl = "tf.NoOp"(%a, %b) : (tensor<4xf32>, tensor<f32>) -> !tf.control
    ```
  }];
  let results = (outs TF_ControlType:$control);
  let inferFn = "";
}

def TF_SendOp : TF_Op<"_Send", [], [MemoryEffects<[MemWrite]>]> {
  let summary = "sends `tensor` from `send_device` to the _Recv of the same `tensor_name`";
  let description = [{
    Inserted by kiln-graph-partition on every edge that crosses devices (the paper's
    section 3.2.2), as TensorFlow names it.
    ```mlir
    "tf._Send"(%x) {tensor_name = "relu:0;/job:localhost/replica:0/task:0/device:CPU:1",
        send_device = "/job:localhost/replica:0/task:0/device:CPU:0",
        recv_device = "/job:localhost/replica:0/task:0/device:CPU:1"} : (tensor<4xf32>) -> ()
    ```
  }];
  let dataArgs = (ins TF_Tensor:$tensor, StrAttr:$tensor_name, StrAttr:$send_device,
      StrAttr:$recv_device, OptionalAttr<I64Attr>:$send_device_incarnation,
      OptionalAttr<BoolAttr>:$client_terminated, OptionalAttr<TypeAttr>:$T);
  let results = (outs);
  let inferFn = "inferNoResults";
}

def TF_RecvOp : TF_Op<"_Recv", [], [MemoryEffects<[MemRead]>]> {
  let summary = "receives the tensor the _Send of the same `tensor_name` sends";
  let description = [{
    Its result type is the tensor's (`tensor_type` gives the element type; the shape is
    the one the partitioning pass knew).
    ```mlir
    %x = "tf._Recv"() {tensor_name = "relu:0;/job:localhost/replica:0/task:0/device:CPU:1",
        tensor_type = f32, send_device = "...CPU:0", recv_device = "...CPU:1"} : () -> tensor<4xf32>
    ```
  }];
  let dataArgs = (ins StrAttr:$tensor_name, StrAttr:$send_device, StrAttr:$recv_device,
      TypeAttr:$tensor_type, OptionalAttr<I64Attr>:$send_device_incarnation,
      OptionalAttr<BoolAttr>:$client_terminated);
  let results = (outs TF_Tensor:$tensor);
  let inferFn = "inferRecv";
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic with NumPy broadcasting.
//===----------------------------------------------------------------------===//

class TF_BinaryOp<string mnemonic, string what, Type operandType = TF_NumberTensor,
                  Type resultType = operandType, string infer = "inferBroadcastBinary",
                  list<Trait> traits = []>
    : TF_Op<mnemonic, !listconcat(traits, [TF_Elementwise])> {
  let summary = what # ", elementwise, with NumPy broadcasting";
  let description = [{
    ```mlir
    %z = "tf.}] # mnemonic # [{"(%x, %y) {T = f32} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
    Both operands have the element type `T`; the result shape is the broadcast of theirs.
  }];
  let dataArgs = (ins operandType:$x, operandType:$y, OptionalAttr<TypeAttr>:$T);
  let results = (outs resultType:$z);
  let inferFn = infer;
}

// Folded on constants (kiln-graph-fold-constants).
let hasFolder = 1 in {
  def TF_AddOp : TF_BinaryOp<"Add", "x + y">;
  def TF_AddV2Op : TF_BinaryOp<"AddV2", "x + y">;
  def TF_SubOp : TF_BinaryOp<"Sub", "x - y">;
  def TF_MulOp : TF_BinaryOp<"Mul", "x * y">;
}
// Integer division and remainder: TensorFlow's kernels report a zero divisor.
class TF_DivisionOp<string mnemonic, string what>
    : TF_BinaryOp<mnemonic, what, TF_NumberTensor, TF_NumberTensor, "inferBroadcastBinary",
                  [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]>;
// Folded on constants (kiln-graph-fold-constants).
let hasFolder = 1 in
def TF_RealDivOp : TF_DivisionOp<"RealDiv", "x / y (integer division truncates toward zero)">;
def TF_DivOp : TF_DivisionOp<"Div", "x / y (integer division truncates toward zero)">;
def TF_TruncateDivOp : TF_DivisionOp<"TruncateDiv", "x / y rounded toward zero">;
def TF_TruncateModOp : TF_DivisionOp<"TruncateMod",
    "the remainder of x / y rounded toward zero: it has the sign of x (C's % and fmod)">;
def TF_ModOp : TF_DivisionOp<"Mod",
    "the remainder of x / y rounded toward zero, as TruncateMod">;
// Folded on constants (kiln-graph-fold-constants).
let hasFolder = 1 in {
  def TF_MaximumOp : TF_BinaryOp<"Maximum", "max(x, y)">;
  def TF_MinimumOp : TF_BinaryOp<"Minimum", "min(x, y)">;
  def TF_SquaredDifferenceOp : TF_BinaryOp<"SquaredDifference", "(x - y) * (x - y)">;
  def TF_PowOp : TF_BinaryOp<"Pow", "x to the power y (integers: y must not be negative)",
      TF_NumberTensor, TF_NumberTensor, "inferBroadcastBinary",
      [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]>;
}
def TF_FloorDivOp : TF_DivisionOp<"FloorDiv", "floor(x / y) (integers round toward -inf)">;
def TF_FloorModOp : TF_DivisionOp<"FloorMod",
    "x - floor(x / y) * y: the remainder with the sign of y">;
def TF_Atan2Op : TF_BinaryOp<"Atan2",
    "the angle of the point (x, y) in (-pi, pi]: TensorFlow's operands are (y, x), so `x` "
    "here is its y", TF_FloatTensor>;
def TF_XlogyOp : TF_BinaryOp<"Xlogy", "x * log(y), 0 where x is 0", TF_FloatTensor>;
def TF_Xlog1pyOp : TF_BinaryOp<"Xlog1py", "x * log1p(y), 0 where x is 0", TF_FloatTensor>;
def TF_XdivyOp : TF_BinaryOp<"Xdivy", "x / y, 0 where x is 0", TF_FloatTensor>;
def TF_DivNoNanOp : TF_BinaryOp<"DivNoNan", "x / y, 0 where y is 0", TF_FloatTensor>;
def TF_MulNoNanOp : TF_BinaryOp<"MulNoNan", "x * y, 0 where y is 0 (even for an infinite or NaN x)",
    TF_FloatTensor>;
def TF_NextAfterOp : TF_BinaryOp<"NextAfter",
    "the next representable number after x in the direction of y", TensorOf<[F32, F64]>>;
def TF_BitwiseAndOp : TF_BinaryOp<"BitwiseAnd", "x & y", TF_IntTensor>;
def TF_BitwiseOrOp : TF_BinaryOp<"BitwiseOr", "x | y", TF_IntTensor>;
def TF_BitwiseXorOp : TF_BinaryOp<"BitwiseXor", "x ^ y", TF_IntTensor>;
def TF_LeftShiftOp : TF_BinaryOp<"LeftShift",
    "x << y, y clamped to [0, bits - 1] as TensorFlow's kernels clamp it", TF_IntTensor>;
def TF_RightShiftOp : TF_BinaryOp<"RightShift",
    "x >> y (arithmetic for signed x), y clamped to [0, bits - 1]", TF_IntTensor>;

def TF_ApproximateEqualOp : TF_Op<"ApproximateEqual"> {
  let summary = "|x - y| < tolerance, elementwise (x and y of one shape)";
  let description = [{
    ```mlir
    %z = "tf.ApproximateEqual"(%x, %y) {tolerance = 1.0e-05 : f32}
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$x, TF_NumberTensor:$y,
      DefaultValuedOptionalAttr<F32Attr, "1e-5f">:$tolerance, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I1]>:$z);
  let inferFn = "inferApproximateEqual";
}

def TF_ClipByValueOp : TF_Op<"ClipByValue", [TF_Elementwise]> {
  let summary = "max(min(t, clip_value_max), clip_value_min), elementwise";
  let description = [{
    The bounds are scalars or have the shape of `t` (`input` here: `t` would clash with the
    type attribute `T`).
    ```mlir
    %y = "tf.ClipByValue"(%t, %lo, %hi) : (tensor<4x3xf32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$input, TF_NumberTensor:$clip_value_min,
      TF_NumberTensor:$clip_value_max, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferClipByValue";
}

class TF_CompareOp<string mnemonic, string what>
    : TF_BinaryOp<mnemonic, what, TF_Tensor, TensorOf<[I1]>, "inferBroadcastCompare">;
// Folded on constants: a loop's counter and condition (kiln-graph-infer-shapes unrolls
// loops whose condition folds).
let hasFolder = 1 in {
def TF_EqualOp : TF_CompareOp<"Equal", "x == y">;
def TF_NotEqualOp : TF_CompareOp<"NotEqual", "x != y (true where either is NaN)">;
def TF_LessOp : TF_CompareOp<"Less", "x < y">;
def TF_LessEqualOp : TF_CompareOp<"LessEqual", "x <= y">;
def TF_GreaterOp : TF_CompareOp<"Greater", "x > y">;
def TF_GreaterEqualOp : TF_CompareOp<"GreaterEqual", "x >= y">;

def TF_LogicalAndOp : TF_BinaryOp<"LogicalAnd", "x && y", TensorOf<[I1]>>;
def TF_LogicalOrOp : TF_BinaryOp<"LogicalOr", "x || y", TensorOf<[I1]>>;
}

def TF_SelectV2Op : TF_Op<"SelectV2", [TF_Elementwise]> {
  let summary = "condition ? t : e, elementwise, with NumPy broadcasting of all three";
  let description = [{
    ```mlir
    %r = "tf.SelectV2"(%c, %t, %e) : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TensorOf<[I1]>:$condition, TF_Tensor:$then_value, TF_Tensor:$else_value,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSelectV2";
}

def TF_SelectOp : TF_Op<"Select"> {
  let summary = "condition ? t : e, where t and e have one shape";
  let description = [{
    `condition` has the shape of `t`, or is a vector choosing whole rows along dimension 0.
    ```mlir
    %r = "tf.Select"(%c, %t, %e) : (tensor<4xi1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TensorOf<[I1]>:$condition, TF_Tensor:$then_value, TF_Tensor:$else_value,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSelect";
}

//===----------------------------------------------------------------------===//
// Activations.
//===----------------------------------------------------------------------===//

class TF_ActivationOp<string mnemonic, string what, string inName = "x", string outName = "y",
                      Type type = TF_NumberTensor, list<Trait> traits = [TF_Elementwise]>
    : TF_Op<mnemonic, traits> {
  let summary = what;
  let description = [{
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x) {T = f32} : (tensor<4x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let dataArgs = !dag(ins, [type, OptionalAttr<TypeAttr>], [inName, "T"]);
  let results = !dag(outs, [type], [outName]);
  let inferFn = "inferSameAsFirstOperand";
}

// Folded on constants (kiln-graph-fold-constants).
let hasFolder = 1 in {
  def TF_ReluOp : TF_ActivationOp<"Relu", "max(features, 0)", "features", "activations">;
  def TF_Relu6Op : TF_ActivationOp<"Relu6", "min(max(features, 0), 6)", "features", "activations">;
}
def TF_SigmoidOp : TF_ActivationOp<"Sigmoid", "1 / (1 + exp(-x))", "x", "y", TF_FloatTensor>;
def TF_TanhOp : TF_ActivationOp<"Tanh", "hyperbolic tangent", "x", "y", TF_FloatTensor>;
def TF_EluOp : TF_ActivationOp<"Elu", "x < 0 ? exp(x) - 1 : x", "features", "activations",
    TF_FloatTensor>;
def TF_SoftplusOp : TF_ActivationOp<"Softplus", "log(exp(x) + 1), computed stably",
    "features", "activations", TF_FloatTensor>;
// Folded on constants (kiln-graph-fold-constants).
let hasFolder = 1 in {
  def TF_SquareOp : TF_ActivationOp<"Square", "x * x">;
  def TF_SqrtOp : TF_ActivationOp<"Sqrt", "square root", "x", "y", TF_FloatTensor>;
  def TF_RsqrtOp : TF_ActivationOp<"Rsqrt", "1 / sqrt(x)", "x", "y", TF_FloatTensor>;
  def TF_ExpOp : TF_ActivationOp<"Exp", "e to the power x", "x", "y", TF_FloatTensor>;
  def TF_LogOp : TF_ActivationOp<"Log", "natural logarithm", "x", "y", TF_FloatTensor>;
  def TF_NegOp : TF_ActivationOp<"Neg", "-x">;
  def TF_AbsOp : TF_ActivationOp<"Abs", "|x|">;
}
def TF_FloorOp : TF_ActivationOp<"Floor", "largest integer not greater than x", "x", "y",
    TF_FloatTensor>;
def TF_ErfOp : TF_ActivationOp<"Erf", "the error function", "x", "y", TF_FloatTensor>;
def TF_ErfcOp : TF_ActivationOp<"Erfc",
    "the complementary error function 1 - erf(x), computed without the cancellation near 1",
    "x", "y", TF_FloatTensor>;
def TF_SinOp : TF_ActivationOp<"Sin", "the sine of x (radians)", "x", "y", TF_FloatTensor>;
def TF_CosOp : TF_ActivationOp<"Cos", "the cosine of x (radians)", "x", "y", TF_FloatTensor>;
def TF_SignOp : TF_ActivationOp<"Sign",
    "-1, 0 or 1 as x is negative, zero or positive (NaN for NaN)">;
def TF_TanOp : TF_ActivationOp<"Tan", "the tangent of x (radians)", "x", "y", TF_FloatTensor>;
def TF_AsinOp : TF_ActivationOp<"Asin", "the arcsine of x", "x", "y", TF_FloatTensor>;
def TF_AcosOp : TF_ActivationOp<"Acos", "the arccosine of x", "x", "y", TF_FloatTensor>;
def TF_AtanOp : TF_ActivationOp<"Atan", "the arctangent of x", "x", "y", TF_FloatTensor>;
def TF_SinhOp : TF_ActivationOp<"Sinh", "the hyperbolic sine of x", "x", "y", TF_FloatTensor>;
def TF_CoshOp : TF_ActivationOp<"Cosh", "the hyperbolic cosine of x", "x", "y", TF_FloatTensor>;
def TF_AsinhOp : TF_ActivationOp<"Asinh", "the inverse hyperbolic sine of x", "x", "y",
    TF_FloatTensor>;
def TF_AcoshOp : TF_ActivationOp<"Acosh", "the inverse hyperbolic cosine of x", "x", "y",
    TF_FloatTensor>;
def TF_AtanhOp : TF_ActivationOp<"Atanh", "the inverse hyperbolic tangent of x", "x", "y",
    TF_FloatTensor>;
def TF_Expm1Op : TF_ActivationOp<"Expm1", "exp(x) - 1, computed without the cancellation near 0",
    "x", "y", TF_FloatTensor>;
def TF_Log1pOp : TF_ActivationOp<"Log1p", "log(1 + x), computed without the rounding near 0",
    "x", "y", TF_FloatTensor>;
def TF_CeilOp : TF_ActivationOp<"Ceil", "smallest integer not less than x", "x", "y",
    TF_FloatTensor>;
def TF_RintOp : TF_ActivationOp<"Rint", "x rounded to the nearest integer, halves to even",
    "x", "y", TF_FloatTensor>;
def TF_RoundOp : TF_ActivationOp<"Round",
    "x rounded to the nearest integer, halves to even (integers unchanged)">;
def TF_ReciprocalOp : TF_ActivationOp<"Reciprocal", "1 / x", "x", "y", TF_FloatTensor>;
def TF_InvOp : TF_ActivationOp<"Inv", "1 / x (Reciprocal's old name)", "x", "y",
    TF_FloatTensor>;
def TF_SoftsignOp : TF_ActivationOp<"Softsign", "x / (1 + |x|)", "features", "activations",
    TF_FloatTensor>;
def TF_SeluOp : TF_ActivationOp<"Selu",
    "scale * (x > 0 ? x : alpha * (exp(x) - 1)), with scale 1.0507... and alpha 1.6732...",
    "features", "activations", TF_FloatTensor>;
def TF_InvertOp : TF_ActivationOp<"Invert", "~x, every bit flipped", "x", "y", TF_IntTensor>;

def TF_BucketizeOp : TF_Op<"Bucketize"> {
  let summary = "the bucket of each element: how many of the sorted `boundaries` are <= it";
  let description = [{
    NaN is above every boundary, as TensorFlow's binary search leaves it.
    ```mlir
    %y = "tf.Bucketize"(%x) {boundaries = [0.0 : f32, 1.0 : f32]} : (tensor<4xf32>) -> tensor<4xi32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$input, F32ArrayAttr:$boundaries, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I32]>:$output);
  let inferFn = "inferBucketize";
}

class TF_PredicateOp<string mnemonic, string what> : TF_Op<mnemonic, [TF_Elementwise]> {
  let summary = what;
  let description = [{
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x) {T = f32} : (tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$x, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I1]>:$y);
  let inferFn = "inferSameShapeBool";
}
def TF_IsNanOp : TF_PredicateOp<"IsNan", "whether x is NaN">;
def TF_IsInfOp : TF_PredicateOp<"IsInf", "whether x is infinite (either sign)">;
def TF_IsFiniteOp : TF_PredicateOp<"IsFinite", "whether x is neither infinite nor NaN">;

def TF_PopulationCountOp : TF_Op<"PopulationCount"> {
  let summary = "the number of bits set in each element, as uint8";
  let description = [{
    ```mlir
    %y = "tf.PopulationCount"(%x) {T = i32} : (tensor<4xi32>) -> tensor<4xui8>
    ```
  }];
  let dataArgs = (ins TF_IntTensor:$x, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[UI8]>:$y);
  let inferFn = "inferPopulationCount";
}
def TF_StopGradientOp : TF_ActivationOp<"StopGradient",
    "returns its input (and stops gradients)", "input", "output", TF_Tensor>;
def TF_SnapshotOp : TF_ActivationOp<"Snapshot", "returns a copy of its input", "input",
    "output", TF_Tensor>;
def TF_PreventGradientOp : TF_ActivationOp<"PreventGradient",
    "returns its input (a gradient through it is an error)", "input", "output", TF_Tensor>;

def TF_CheckNumericsOp : TF_Op<"CheckNumerics", [TF_HostOnly,
    DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "returns its input, failing the run when it holds a NaN or an infinity";
  let description = [{
    Its checks are kiln.checks of the input (kiln-graph-insert-checks): a NaN fails the run
    with "node 'NAME' (CheckNumerics): MESSAGE : Tensor had NaN values (tensor[i] is
    NaN)", else an infinity with "... Inf values" (TensorFlow names both when there are
    both); a constant input that fails is an error while compiling. Kept on the CPU.
  }];
  let dataArgs = (ins TF_FloatTensor:$tensor,
      DefaultValuedOptionalAttr<StrAttr, "\"\"">:$message, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferSameAsFirstOperand";
}

def TF_EnsureShapeOp : TF_Op<"EnsureShape"> {
  let summary = "returns its input, whose shape must be compatible with `shape`";
  let description = [{
    The input's type is refined by `shape` (unknown dimensions become known); a shape that
    contradicts it is an error at compile time.
    ```mlir
    %y = "tf.EnsureShape"(%x) {shape = #tf.shape<2x3>} : (tensor<?x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_ShapeAttr:$shape, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferEnsureShape";
}
def TF_ZerosLikeOp : TF_ActivationOp<"ZerosLike", "zeros of the input's shape and type",
    "x", "y", TF_Tensor>;
def TF_OnesLikeOp : TF_ActivationOp<"OnesLike", "ones of the input's shape and type",
    "x", "y", TF_Tensor>;
let hasFolder = 1 in
def TF_LogicalNotOp : TF_ActivationOp<"LogicalNot", "!x", "x", "y", TensorOf<[I1]>>;

def TF_LeakyReluOp : TF_Op<"LeakyRelu"> {
  let summary = "x > 0 ? x : alpha * x";
  let description = [{
    ```mlir
    %y = "tf.LeakyRelu"(%x) {alpha = 2.0e-01 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$features, DefaultValuedOptionalAttr<F32Attr, "0.2f">:$alpha,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$activations);
  let inferFn = "inferSameAsFirstOperand";
}

// The gradients TensorFlow's autodiff writes for the activations: elementwise, both
// operands of one shape (no broadcasting), as TensorFlow's CPU kernels compute them.
class TF_ActivationGradOp<string mnemonic, string what, string lhs, string rhs,
                          string out = "backprops", Type type = TF_FloatTensor>
    : TF_Op<mnemonic> {
  let summary = what;
  let description = [{
    ```mlir
    %z = "tf.}] # mnemonic # [{"(%a, %b) {T = f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dataArgs = !dag(ins, [type, type, OptionalAttr<TypeAttr>], [lhs, rhs, "T"]);
  let results = !dag(outs, [type], [out]);
  let inferFn = "inferSameShapeBinary";
}
def TF_ReluGradOp : TF_ActivationGradOp<"ReluGrad", "gradients * (features > 0)",
    "gradients", "features", "backprops", TF_NumberTensor>;
def TF_Relu6GradOp : TF_ActivationGradOp<"Relu6Grad", "gradients * (0 < features < 6)",
    "gradients", "features", "backprops", TF_NumberTensor>;
def TF_EluGradOp : TF_ActivationGradOp<"EluGrad",
    "outputs < 0 ? gradients * (outputs + 1) : gradients", "gradients", "outputs">;
def TF_SeluGradOp : TF_ActivationGradOp<"SeluGrad",
    "outputs < 0 ? gradients * (outputs + scale * alpha) : gradients * scale",
    "gradients", "outputs">;
def TF_SoftplusGradOp : TF_ActivationGradOp<"SoftplusGrad",
    "gradients / (exp(-features) + 1)", "gradients", "features">;
def TF_SoftsignGradOp : TF_ActivationGradOp<"SoftsignGrad",
    "gradients / (1 + |features|)^2", "gradients", "features">;
def TF_SigmoidGradOp : TF_ActivationGradOp<"SigmoidGrad", "dy * y * (1 - y)", "y", "dy", "z">;
def TF_TanhGradOp : TF_ActivationGradOp<"TanhGrad", "dy * (1 - y * y)", "y", "dy", "z">;
def TF_SqrtGradOp : TF_ActivationGradOp<"SqrtGrad", "0.5 * dy / y", "y", "dy", "z">;
def TF_RsqrtGradOp : TF_ActivationGradOp<"RsqrtGrad", "-0.5 * (dy * y) * (y * y)", "y", "dy",
    "z">;
def TF_ReciprocalGradOp : TF_ActivationGradOp<"ReciprocalGrad", "-y * y * dy", "y", "dy", "z">;
def TF_InvGradOp : TF_ActivationGradOp<"InvGrad", "-y * y * dy (ReciprocalGrad's old name)",
    "y", "dy", "z">;

def TF_LeakyReluGradOp : TF_Op<"LeakyReluGrad"> {
  let summary = "features > 0 ? gradients : gradients * alpha";
  let description = [{
    ```mlir
    %z = "tf.LeakyReluGrad"(%g, %x) {alpha = 2.0e-01 : f32}
        : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$gradients, TF_FloatTensor:$features,
      DefaultValuedOptionalAttr<F32Attr, "0.2f">:$alpha, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$backprops);
  let inferFn = "inferSameShapeBinary";
}

def TF_SoftmaxOp : TF_ActivationOp<"Softmax",
    "exp(logits) / sum(exp(logits)) along the last dimension", "logits", "softmax",
    TF_FloatTensor, []>;
def TF_LogSoftmaxOp : TF_ActivationOp<"LogSoftmax",
    "logits - log(sum(exp(logits))) along the last dimension", "logits", "logsoftmax",
    TF_FloatTensor, []>;

//===----------------------------------------------------------------------===//
// Linear algebra.
//===----------------------------------------------------------------------===//

class TF_BatchMatMulOpBase<string mnemonic> : TF_Op<mnemonic> {
  let summary = "batched matrix product over the last two dimensions";
  let description = [{
    The leading (batch) dimensions broadcast NumPy-style (BatchMatMulV2) or must be equal
    (BatchMatMul); `adj_x`/`adj_y` transpose the last two dimensions of x/y.
    ```mlir
    %z = "tf.BatchMatMulV2"(%x, %y) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$x, TF_NumberTensor:$y,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adj_x,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adj_y, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBatchMatMul";
}

def TF_BatchMatMulOp : TF_BatchMatMulOpBase<"BatchMatMul">;
def TF_BatchMatMulV2Op : TF_BatchMatMulOpBase<"BatchMatMulV2">;

def TF_MatMulOp : TF_Op<"MatMul"> {
  let summary = "matrix product of two 2-D tensors, optionally transposed";
  let description = [{
    ```mlir
    %c = "tf.MatMul"(%a, %b) {transpose_a = false, transpose_b = true}
        : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$a, TF_NumberTensor:$b,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_a,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_b,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$product);
  let inferFn = "inferMatMul";
}

def TF_BiasAddOp : TF_Op<"BiasAdd"> {
  let summary = "adds a 1-D bias along the channel dimension";
  let description = [{
    With `data_format = "NHWC"` (the default) the channel is the last dimension; with
    `"NCHW"` it is dimension 1 (for inputs of rank 3 or more; for rank 2, the last).
    ```mlir
    %y = "tf.BiasAdd"(%x, %b) {data_format = "NHWC"} : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$value, TF_NumberTensor:$bias,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBiasAdd";
}

//===----------------------------------------------------------------------===//
// Shapes and types.
//===----------------------------------------------------------------------===//

def TF_ReshapeOp : TF_Op<"Reshape"> {
  let summary = "the same elements in a new shape";
  let description = [{
    `shape` is a 1-D integer tensor; one entry may be -1 and is then computed from the
    number of elements. The result shape is known when `shape` is a constant.
    ```mlir
    %y = "tf.Reshape"(%x, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<3x4xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$tensor, TF_IndexTensor:$shape,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tshape);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferReshape";
  let hasFolder = 1;
}

def TF_CastOp : TF_Op<"Cast", [TF_Elementwise]> {
  let summary = "converts each element to `DstT`";
  let description = [{
    Float to integer truncates toward zero; any value to bool is `x != 0`; bool to a number
    is 0 or 1.
    ```mlir
    %y = "tf.Cast"(%x) {SrcT = i32, DstT = f32} : (tensor<4xi32>) -> tensor<4xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$x, TypeAttr:$DstT, OptionalAttr<TypeAttr>:$SrcT,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$Truncate);
  let results = (outs TF_Tensor:$y);
  let inferFn = "inferCast";
  // Folded on constants (kiln-graph-fold-constants): Keras's shape arithmetic casts.
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions.
//===----------------------------------------------------------------------===//

class TF_ReductionOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what # " over the dimensions in `reduction_indices`";
  let description = [{
    `reduction_indices` is a scalar or 1-D integer tensor (negative values count from the
    end); with `keep_dims` the reduced dimensions stay with size 1.
    ```mlir
    %r = "tf.}] # mnemonic # [{"(%x, %axes) {keep_dims = false} : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<2xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$reduction_indices,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$keep_dims,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferReduction";
}

// Integer ones folded on constants (shape arithmetic: tf.boolean_mask's Prod of dims).
let hasFolder = 1 in {
def TF_SumOp : TF_ReductionOp<"Sum", "the sum">;
def TF_ProdOp : TF_ReductionOp<"Prod", "the product">;
}
def TF_MeanOp : TF_ReductionOp<"Mean", "the mean (integer means truncate)">;
def TF_MaxOp : TF_ReductionOp<"Max", "the maximum">;
def TF_MinOp : TF_ReductionOp<"Min", "the minimum">;
def TF_AllOp : TF_ReductionOp<"All", "the logical and (of booleans)">;
def TF_AnyOp : TF_ReductionOp<"Any", "the logical or (of booleans)">;

class TF_ArgReductionOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = "the index of the " # what # " along `dimension` (the first one on ties)";
  let description = [{
    ```mlir
    %i = "tf.}] # mnemonic # [{"(%x, %d) {output_type = i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2xi64>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$dimension,
      OptionalAttr<TypeAttr>:$output_type, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_IndexTensor:$output);
  let inferFn = "inferArgReduction";
}

def TF_ArgMaxOp : TF_ArgReductionOp<"ArgMax", "largest value">;
def TF_ArgMinOp : TF_ArgReductionOp<"ArgMin", "smallest value">;

class TF_CumulativeOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = "running " # what # " along `axis`";
  let description = [{
    `axis` (a constant scalar; negative counts from the end) is the dimension scanned;
    `exclusive` leaves each element out of its own result (the first is the identity),
    `reverse` scans from the end.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x, %axis) {exclusive = false, reverse = false}
        : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x5xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$x, TF_IndexTensor:$axis,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$exclusive,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$reverse, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_NumberTensor:$out);
  let inferFn = "inferCumulative";
  let opExtraDecls = [{
    /// The scanned dimension, if `axis` is a constant in range.
    std::optional<int64_t> getScannedAxis();
  }];
}
def TF_CumsumOp : TF_CumulativeOp<"Cumsum", "sums">;
def TF_CumprodOp : TF_CumulativeOp<"Cumprod", "products">;
def TF_CumulativeLogsumexpOp : TF_CumulativeOp<"CumulativeLogsumexp",
    "log(sum(exp(x))), each step max + log1p(exp(min - max)) as TensorFlow's kernel computes "
    "it (the identity -inf)">;

class TF_SearchSortedOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = "for each of `values`, " # what # " in its row of `sorted_inputs`";
  let description = [{
    Both are [B, ...]: row b of `values` searches row b of `sorted_inputs`, which must be
    sorted (as TensorFlow's binary search needs it; Kiln counts, which gives the same index
    for a sorted row).
    ```mlir
    %i = "tf.}] # mnemonic # [{"(%sorted, %v) {out_type = i32}
        : (tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$sorted_inputs, TF_NumberTensor:$values,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$out_type);
  let results = (outs TF_IndexTensor:$output);
  let inferFn = "inferSearchSorted";
}
def TF_LowerBoundOp : TF_SearchSortedOp<"LowerBound",
    "the index of the first element not less than it">;
def TF_UpperBoundOp : TF_SearchSortedOp<"UpperBound",
    "the index of the first element greater than it">;

def TF_InTopKV2Op : TF_Op<"InTopKV2"> {
  let summary = "whether each row's target class is among its `k` largest predictions";
  let description = [{
    True when fewer than k predictions of the row are greater than the target's (ties count
    for the target); false for a target out of range or a non-finite prediction, as
    TensorFlow computes it. `k` may be fed.
  }];
  let dataArgs = (ins TF_FloatTensor:$predictions, TF_IndexTensor:$targets,
                  TF_IndexTensor:$k, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I1]>:$precision);
  let inferFn = "inferInTopK";
}

def TF_TopKV2Op : TF_Op<"TopKV2"> {
  let summary = "the `k` largest entries of each row (the last dimension) and their indices";
  let description = [{
    `k` must be a constant. The entries come in decreasing order; equal values keep their
    order in the row (the lower index first), and NaN counts as larger than every number,
    so results are defined for every input (TensorFlow's order of NaNs depends on its sort).
    The order is the same when `sorted` is false, which TensorFlow allows.
    ```mlir
    %v, %i = "tf.TopKV2"(%x, %k) : (tensor<2x9xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$input, TF_IndexTensor:$k,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$sorted, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$Tk, OptionalAttr<TypeAttr>:$index_type);
  let results = (outs TF_NumberTensor:$values, TF_IndexTensor:$indices);
  let inferFn = "inferTopKV2";
}

//===----------------------------------------------------------------------===//
// Data movement.
//===----------------------------------------------------------------------===//

def TF_TransposeOp : TF_Op<"Transpose"> {
  let summary = "permutes the dimensions: y.shape[i] = x.shape[perm[i]]";
  let description = [{
    ```mlir
    %y = "tf.Transpose"(%x, %perm) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$x, TF_IndexTensor:$perm, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tperm);
  let results = (outs TF_Tensor:$y);
  let inferFn = "inferTranspose";
}

def TF_SqueezeOp : TF_Op<"Squeeze"> {
  let summary = "removes dimensions of size 1 (those in squeeze_dims, or all)";
  let description = [{
    ```mlir
    %y = "tf.Squeeze"(%x) {squeeze_dims = [1]} : (tensor<2x1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<I64ArrayAttr>:$squeeze_dims,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSqueeze";
  let hasFolder = 1;
}

def TF_ExpandDimsOp : TF_Op<"ExpandDims"> {
  let summary = "inserts a dimension of size 1 at index `dim` (negative counts from the end)";
  let description = [{
    ```mlir
    %y = "tf.ExpandDims"(%x, %d) : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x1x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$dim, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tdim);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferExpandDims";
  let hasFolder = 1;
}

class TF_PadOpBase<string mnemonic, string what, dag extra> : TF_Op<mnemonic> {
  let summary = what;
  let description = [{
    `paddings` is a [rank, 2] integer tensor of (before, after) amounts per dimension.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x, %p) : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<4x7xf32>
    ```
  }];
  let dataArgs = !con((ins TF_Tensor:$input, TF_IndexTensor:$paddings), extra,
                      (ins OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tpaddings));
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferPad";
}

def TF_PadOp : TF_PadOpBase<"Pad", "pads with zeros", (ins)>;
def TF_PadV2Op : TF_PadOpBase<"PadV2", "pads with the scalar `constant_values`",
                              (ins TF_Tensor:$constant_values)> {
  let inferFn = "inferPadV2";
}

def TF_ShapeOp : TF_Op<"Shape"> {
  let summary = "the shape of the input as a 1-D tensor of `out_type`";
  let description = [{
    Folds to a constant once the input shape is static.
    ```mlir
    %s = "tf.Shape"(%x) {out_type = i32} : (tensor<2x3xf32>) -> tensor<2xi32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$out_type,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_IndexTensor:$output);
  let inferFn = "inferShapeOf";
  let hasFolder = 1;
}

def TF_SizeOp : TF_Op<"Size"> {
  let summary = "the number of elements of the input, a scalar of `out_type`";
  let description = [{
    ```mlir
    %n = "tf.Size"(%x) {out_type = i32} : (tensor<2x3xf32>) -> tensor<i32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$out_type,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_IndexTensor:$output);
  let inferFn = "inferSizeOf";
  let hasFolder = 1;
}

def TF_RankOp : TF_Op<"Rank"> {
  let summary = "the rank of the input, an i32 scalar";
  let description = [{
    ```mlir
    %r = "tf.Rank"(%x) : (tensor<2x3xf32>) -> tensor<i32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I32]>:$output);
  let inferFn = "inferRankOf";
  let hasFolder = 1;
}

def TF_GatherV2Op : TF_Op<"GatherV2", [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "gathers slices of `params` along `axis` at `indices`";
  let description = [{
    The result shape is params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis+1:]: with `batch_dims` b (negative counts from indices' rank), the
    first b dimensions are a batch that params and indices share (b <= axis). An index out
    of range is an error, as in TensorFlow's CPU kernel (a kiln.check; with
    --no-runtime-checks it gives zeros).
    ```mlir
    %y = "tf.GatherV2"(%p, %i, %a) : (tensor<5x3xf32>, tensor<4xi32>, tensor<i32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$params, TF_IndexTensor:$indices, TF_IndexTensor:$axis,
                  DefaultValuedOptionalAttr<I64Attr, "0">:$batch_dims,
                  OptionalAttr<TypeAttr>:$Tparams, OptionalAttr<TypeAttr>:$Tindices,
                  OptionalAttr<TypeAttr>:$Taxis);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferGatherV2";
}

def TF_GatherNdOp : TF_Op<"GatherNd", [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "gathers slices of `params` at the index tuples in the last dimension of `indices`";
  let description = [{
    With `indices` of shape [..., Q], the result shape is indices.shape[:-1] +
    params.shape[Q:]. An index tuple out of range is an error, as for GatherV2.
    ```mlir
    %y = "tf.GatherNd"(%p, %i) : (tensor<5x3x2xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$params, TF_IndexTensor:$indices,
                  OptionalAttr<TypeAttr>:$Tparams, OptionalAttr<TypeAttr>:$Tindices);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferGatherNd";
}

def TF_FillOp : TF_Op<"Fill"> {
  let summary = "a tensor of shape `dims` filled with the scalar `value`";
  let description = [{
    ```mlir
    %y = "tf.Fill"(%dims, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$dims, TF_Tensor:$value, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$index_type);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferFill";
}

def TF_InvertPermutationOp : TF_Op<"InvertPermutation", [
    DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "the inverse of the permutation x: y[x[i]] = i";
  let description = [{
    Each entry of `x` must be in [0, size), checked at run time as TensorFlow checks it
    (an entry out of range writes nothing under `--no-runtime-checks`).
    ```mlir
    %y = "tf.InvertPermutation"(%x) : (tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$x, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_IndexTensor:$y);
  let inferFn = "inferInvertPermutation";
}

def TF_LinSpaceOp : TF_Op<"LinSpace"> {
  let summary = "`num` evenly spaced values from `start` to `stop`, both included";
  let description = [{
    `num` must be a positive constant; the values are start + i * (stop - start) / (num - 1),
    the last one `stop` itself, as TensorFlow computes them.
    ```mlir
    %y = "tf.LinSpace"(%a, %b, %n) : (tensor<f32>, tensor<f32>, tensor<i32>) -> tensor<5xf32>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$start, TF_FloatTensor:$stop, TF_IndexTensor:$num,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferLinSpace";
}

def TF_RollOp : TF_Op<"Roll"> {
  let summary = "the elements shifted along `axis`, those shifted past the end coming round";
  let description = [{
    `axis` must be a constant (a scalar or a vector; negative counts from the end; an axis
    given twice shifts by the sum); `shift`, of the same size, may be fed at run time and
    may be negative or larger than the dimension.
    ```mlir
    %y = "tf.Roll"(%x, %shift, %axis) : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$shift, TF_IndexTensor:$axis,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tshift,
                  OptionalAttr<TypeAttr>:$Taxis);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferRoll";
}

def TF_ReverseSequenceOp : TF_Op<"ReverseSequence", [
    DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "the first `seq_lengths[b]` elements of each batch entry b reversed along `seq_dim`";
  let description = [{
    Each length must be in [0, the size of `seq_dim`], checked at run time as TensorFlow
    checks it (a longer one reverses the whole dimension under `--no-runtime-checks`).
    ```mlir
    %y = "tf.ReverseSequence"(%x, %lens) {seq_dim = 1 : i64, batch_dim = 0 : i64}
        : (tensor<2x5x3xf32>, tensor<2xi64>) -> tensor<2x5x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$seq_lengths, I64Attr:$seq_dim,
                  DefaultValuedOptionalAttr<I64Attr, "0">:$batch_dim, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tlen);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferReverseSequence";
  let opExtraDecls = [{
    /// seq_dim and batch_dim counted from the front, if they are in range.
    std::optional<std::pair<int64_t, int64_t>> getDims();
  }];
}

def TF_TileOp : TF_Op<"Tile"> {
  let summary = "repeats the input `multiples[i]` times along each dimension i";
  let description = [{
    ```mlir
    %y = "tf.Tile"(%x, %m) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$multiples, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tmultiples);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferTile";
}

def TF_BroadcastToOp : TF_Op<"BroadcastTo"> {
  let summary = "the input repeated NumPy-style to `shape`";
  let description = [{
    The input's dimensions align with the last of `shape`'s; each is 1 or the size `shape`
    gives. The result shape is known when `shape` is a constant.
    ```mlir
    %y = "tf.BroadcastTo"(%x, %s) : (tensor<1x3xf32>, tensor<3xi32>) -> tensor<2x4x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$shape, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferBroadcastTo";
}

def TF_MatrixBandPartOp : TF_Op<"MatrixBandPart"> {
  let summary = "each innermost matrix with the elements outside a band set to zero";
  let description = [{
    Element [..., m, n] is kept where `num_lower` < 0 or m - n <= `num_lower`, and
    `num_upper` < 0 or n - m <= `num_upper` (both scalars): (-1, 0) keeps the lower
    triangle, a decoder's causal mask.
    ```mlir
    %y = "tf.MatrixBandPart"(%x, %l, %u) : (tensor<2x4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<2x4x4xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$num_lower, TF_IndexTensor:$num_upper,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tindex);
  let results = (outs TF_Tensor:$band);
  let inferFn = "inferMatrixBandPart";
}

def TF_ReverseV2Op : TF_Op<"ReverseV2"> {
  let summary = "the input with the order of its elements reversed along each axis of `axis`";
  let description = [{
    `axis` must be a constant (negative axes count from the end; an axis given twice is an
    error, as in TensorFlow). Keras's Bidirectional layers reverse their sequences with it.
    ```mlir
    %y = "tf.ReverseV2"(%x, %a) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<2x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$tensor, TF_IndexTensor:$axis, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferReverseV2";
  let opExtraDecls = [{
    /// The axes reversed (in [0, rank)), or none if `axis` is not a valid constant.
    std::optional<llvm::SmallVector<int64_t>> getReversedAxes();
  }];
}

def TF_PlaceholderWithDefaultOp : TF_Op<"PlaceholderWithDefault"> {
  let summary = "a placeholder that yields `input` when it is not fed";
  let description = [{
    Feeding it replaces it by an argument like a Placeholder; otherwise it is its input,
    whose shape must match the declared `shape`.
    ```mlir
    %y = "tf.PlaceholderWithDefault"(%d) {dtype = f32, shape = #tf.shape<2>} : (tensor<2xf32>) -> tensor<2xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$dtype,
                  OptionalAttr<TF_ShapeAttr>:$shape);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferPlaceholderWithDefault";
  let hasFolder = 1;
}

def TF_SliceOp : TF_Op<"Slice"> {
  let summary = "the block of `size` elements starting at `begin` (size -1: to the end)";
  let description = [{
    ```mlir
    %y = "tf.Slice"(%x, %b, %s) : (tensor<4x5xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$begin, TF_IndexTensor:$size,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Index);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSlice";
}

def TF_StridedSliceOp : TF_Op<"StridedSlice"> {
  let summary = "NumPy-style strided slicing with TensorFlow's five masks";
  let description = [{
    `begin`, `end` and `strides` are 1-D; bit i of `begin_mask`/`end_mask` ignores begin[i]
    or end[i], `ellipsis_mask` marks an ellipsis, `new_axis_mask` inserts a dimension of
    size 1 and `shrink_axis_mask` takes one index and drops the dimension. Strides may be
    negative.
    ```mlir
    %y = "tf.StridedSlice"(%x, %b, %e, %s) {shrink_axis_mask = 1 : i64}
        : (tensor<4x5xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<5xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$begin, TF_IndexTensor:$end,
      TF_IndexTensor:$strides,
      DefaultValuedOptionalAttr<I64Attr, "0">:$begin_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$end_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$ellipsis_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$new_axis_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$shrink_axis_mask,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Index);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferStridedSlice";
  let hasFolder = 1;
}

def TF_SplitOp : TF_Op<"Split"> {
  let summary = "splits `value` into `num_split` equal parts along `split_dim`";
  let description = [{
    ```mlir
    %a, %b = "tf.Split"(%d, %x) {num_split = 2 : i64} : (tensor<i32>, tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$split_dim, TF_Tensor:$value, I64Attr:$num_split,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs Variadic<TF_Tensor>:$output);
  let inferFn = "inferSplit";
}

def TF_SplitVOp : TF_Op<"SplitV"> {
  let summary = "splits `value` along `split_dim` into parts of `size_splits` (one may be -1)";
  let description = [{
    ```mlir
    %a, %b = "tf.SplitV"(%x, %sizes, %d) {num_split = 2 : i64} : (tensor<4x6xf32>, tensor<2xi32>, tensor<i32>) -> (tensor<4x1xf32>, tensor<4x5xf32>)
    ```
  }];
  let dataArgs = (ins TF_Tensor:$value, TF_IndexTensor:$size_splits,
                  TF_IndexTensor:$split_dim, I64Attr:$num_split, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tlen);
  let results = (outs Variadic<TF_Tensor>:$output);
  let inferFn = "inferSplitV";
}

def TF_UnpackOp : TF_Op<"Unpack"> {
  let summary = "unstacks `value` along `axis` into `num` tensors of one rank less";
  let description = [{
    ```mlir
    %a, %b = "tf.Unpack"(%x) {num = 2 : i64, axis = 0 : i64} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    ```
  }];
  let dataArgs = (ins TF_Tensor:$value, I64Attr:$num,
                  DefaultValuedOptionalAttr<I64Attr, "0">:$axis, OptionalAttr<TypeAttr>:$T);
  let results = (outs Variadic<TF_Tensor>:$output);
  let inferFn = "inferUnpack";
}

def TF_RangeOp : TF_Op<"Range"> {
  let summary = "start, start + delta, ... up to (not including) limit";
  let description = [{
    Needs constant operands (the size must be known); results of up to 2^20 elements fold
    to a constant, larger ones are computed at run time. Element i is start + T(i) * delta
    in the element type T, as TensorFlow computes it.
    ```mlir
    %r = "tf.Range"(%start, %limit, %delta) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<5xi32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$start, TF_NumberTensor:$limit, TF_NumberTensor:$delta,
                  OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferRange";
  let hasFolder = 1;
}

def TF_OneHotOp : TF_Op<"OneHot"> {
  let summary = "on_value where the new last dimension equals the index, off_value elsewhere";
  let description = [{
    Only `axis = -1` is supported.
    ```mlir
    %y = "tf.OneHot"(%i, %depth, %on, %off) : (tensor<3xi32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$indices, TensorOf<[I32]>:$depth, TF_Tensor:$on_value,
                  TF_Tensor:$off_value, DefaultValuedOptionalAttr<I64Attr, "-1">:$axis,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$TI);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferOneHot";
}

class TF_SpaceDepthOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what;
  let description = [{
    NHWC only.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x) {block_size = 2 : i64} : (tensor<1x2x2x4xf32>) -> tensor<1x4x4x1xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, I64Attr:$block_size,
                  DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
}

def TF_DepthToSpaceOp : TF_SpaceDepthOp<"DepthToSpace",
    "moves blocks of channels into spatial blocks"> {
  let inferFn = "inferDepthToSpace";
}
def TF_SpaceToDepthOp : TF_SpaceDepthOp<"SpaceToDepth",
    "moves spatial blocks into channels"> {
  let inferFn = "inferSpaceToDepth";
}

class TF_SpaceBatchOp<string mnemonic, string what, string amounts> : TF_Op<mnemonic> {
  let summary = what;
  let description = [{
    `block_shape` (M entries) and `}] # amounts # [{` ([M, 2]) must be constants; they apply
    to the M dimensions after the batch. `kiln-graph-decompose` writes the op as Pad or
    Slice, Reshape and Transpose, and a SpaceToBatchND, a convolution and a BatchToSpaceND
    (TensorFlow's dilated convolution) as one dilated convolution.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x, %block, %amounts)
        : (tensor<1x4x4x3xf32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<...xf32>
    ```
  }];
  let dataArgs = !dag(ins, [TF_Tensor, TF_IndexTensor, TF_IndexTensor, OptionalAttr<TypeAttr>,
                            OptionalAttr<TypeAttr>, OptionalAttr<TypeAttr>],
                      ["input", "block_shape", amounts, "T", "Tblock_shape", !if(!eq(amounts,
                       "paddings"), "Tpaddings", "Tcrops")]);
  let results = (outs TF_Tensor:$output);
}
def TF_SpaceToBatchNDOp : TF_SpaceBatchOp<"SpaceToBatchND",
    "pads the block dimensions, then moves blocks of them into the batch", "paddings"> {
  let inferFn = "inferSpaceToBatchND";
}
def TF_BatchToSpaceNDOp : TF_SpaceBatchOp<"BatchToSpaceND",
    "moves blocks of the batch into the block dimensions, then crops them", "crops"> {
  let inferFn = "inferBatchToSpaceND";
}

def TF_MirrorPadOp : TF_Op<"MirrorPad"> {
  let summary = "pads by mirroring the input (REFLECT excludes the edge, SYMMETRIC repeats it)";
  let description = [{
    ```mlir
    %y = "tf.MirrorPad"(%x, %p) {mode = "REFLECT"} : (tensor<3xf32>, tensor<1x2xi32>) -> tensor<5xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$paddings, StrAttr:$mode,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tpaddings);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMirrorPad";
}

class TF_ResizeOp<string mnemonic, string what, Type resultType, string infer>
    : TF_Op<mnemonic> {
  let summary = what # " resize of NHWC images to `size` (height, width)";
  let description = [{
    TensorFlow's coordinate rules: `align_corners` maps corner to corner,
    `half_pixel_centers` samples at pixel centres.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x, %size) : (tensor<1x4x4x3xf32>, tensor<2xi32>) -> tensor<1x8x8x3xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$images, TensorOf<[I32]>:$size,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$align_corners,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$half_pixel_centers,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs resultType:$resized_images);
  let inferFn = infer;
}

def TF_ResizeNearestNeighborOp : TF_ResizeOp<"ResizeNearestNeighbor", "nearest-neighbour",
                                             TF_NumberTensor, "inferResizeNearest">;
def TF_ResizeBilinearOp : TF_ResizeOp<"ResizeBilinear", "bilinear (result in f32)",
                                      TensorOf<[F32]>, "inferResizeBilinear">;
def TF_ResizeBicubicOp : TF_ResizeOp<"ResizeBicubic",
    "bicubic (Keys' kernel, TensorFlow's table of its coefficients; result in f32)",
    TensorOf<[F32]>, "inferResizeBilinear">;
def TF_ResizeAreaOp : TF_ResizeOp<"ResizeArea",
    "area-weighted (each output the mean of the input cells it covers; result in f32)",
    TensorOf<[F32]>, "inferResizeBilinear">;

// Ops whose leading data inputs are a list of N tensors. Their operands are one list:
// the N values, `extraData` more data inputs, then the control inputs, so that no segment
// sizes are needed; `N` (which TensorFlow always writes) says where the controls start.
class TF_ListOp<string mnemonic, int extraData> : TF_Op<mnemonic> {
  dag attrArgs = (ins);
  let arguments = !con((ins Variadic<AnyType>:$inputs_and_controls, I64Attr:$N), attrArgs);
  let opExtraDecls = [{
    /// The number of data inputs: the N listed values and }] # extraData # [{ more.
    unsigned getNumDataInputs() {
      return std::min<unsigned>(getN() + }] # extraData # [{, getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getValues() {
      return getInputsAndControls().take_front(std::min<unsigned>(getN(), getNumDataInputs()));
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_ConcatV2Op : TF_ListOp<"ConcatV2", 1> {
  let summary = "joins the `values` along dimension `axis` (negative counts from the end)";
  let description = [{
    ```mlir
    %y = "tf.ConcatV2"(%a, %b, %axis) {N = 2 : i64}
        : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<i32>) -> tensor<2x8xf32>
    ```
  }];
  let attrArgs = (ins OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tidx);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferConcat";
  // Folded on constants (kiln-graph-fold-constants): shapes and permutations built by
  // concatenation.
  let hasFolder = 1;
}

def TF_EinsumOp : TF_ListOp<"Einsum", 0> {
  let summary = "sums of products over the dimensions `equation` labels";
  let description = [{
    One or two inputs; `equation` labels each input's dimensions with letters ("..." for
    dimensions that broadcast) and, after "->", the output's (without it, the letters used
    once, in order). A label in several inputs multiplies along it; a label missing from
    the output is summed over. `kiln-graph-decompose` writes it as Transpose, Reshape,
    MatMul or BatchMatMulV2 and Sum.
    ```mlir
    %y = "tf.Einsum"(%q, %k) {N = 2 : i64, equation = "aecd,abcd->acbe"}
        : (tensor<1x64x4x32xf32>, tensor<1x64x4x32xf32>) -> tensor<1x4x64x64xf32>
    ```
  }];
  let attrArgs = (ins StrAttr:$equation, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferEinsum";
}

def TF_PackOp : TF_ListOp<"Pack", 0> {
  let summary = "stacks the `values`, all of one shape, along a new dimension `axis`";
  let description = [{
    ```mlir
    %y = "tf.Pack"(%a, %b) {N = 2 : i64, axis = 0 : i64}
        : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let attrArgs = (ins DefaultValuedOptionalAttr<I64Attr, "0">:$axis,
                   OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferPack";
  let hasFolder = 1;
}

def TF_AddNOp : TF_ListOp<"AddN", 0> {
  let summary = "the elementwise sum of the `inputs`, all of one shape";
  let description = [{
    ```mlir
    %y = "tf.AddN"(%a, %b, %c) {N = 3 : i64}
        : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let attrArgs = (ins OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$sum);
  let inferFn = "inferAddN";
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, normalisation.
//===----------------------------------------------------------------------===//

class TF_ConvOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what;
  let description = [{
    `strides` and `dilations` have 4 entries in `data_format` order (the batch and channel
    entries must be 1); `padding` is "SAME", "VALID" or "EXPLICIT" (then
    `explicit_paddings` holds 8 values, before and after for each dimension).
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x, %f) {padding = "SAME", strides = [1, 1, 1, 1]}
        : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$input, TF_FloatTensor:$filter,
      I64ArrayAttr:$strides, StrAttr:$padding,
      OptionalAttr<I64ArrayAttr>:$explicit_paddings,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  // A zero Pad before the input becomes explicit padding (kiln-graph-fold-pads).
  let hasCanonicalizer = 1;
}

def TF_Conv2DOp : TF_ConvOp<"Conv2D",
    "2-D convolution; the filter is [height, width, in_channels, out_channels]"> {
  let inferFn = "inferConv2D";
}

def TF_DepthwiseConv2dNativeOp : TF_ConvOp<"DepthwiseConv2dNative",
    "depthwise 2-D convolution; the filter is [height, width, channels, multiplier]"> {
  let inferFn = "inferDepthwiseConv2D";
}

def TF_Conv2DBackpropInputOp : TF_Op<"Conv2DBackpropInput"> {
  let summary = "the gradient of Conv2D with respect to its input (a transposed convolution)";
  let description = [{
    `input_sizes` (a constant) is the shape of the Conv2D input; `filter` is that Conv2D's
    [height, width, in_channels, out_channels] filter and `out_backprop` has the shape of its
    output. The window attributes are those of the forward Conv2D.
    ```mlir
    %dx = "tf.Conv2DBackpropInput"(%sizes, %f, %dy) {padding = "SAME", strides = [1, 2, 2, 1]}
        : (tensor<4xi32>, tensor<3x3x2x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x8x2xf32>
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$input_sizes, TF_FloatTensor:$filter,
      TF_FloatTensor:$out_backprop, I64ArrayAttr:$strides, StrAttr:$padding,
      OptionalAttr<I64ArrayAttr>:$explicit_paddings,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations, OptionalAttr<BoolAttr>:$use_cudnn_on_gpu,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferConv2DBackpropInput";
}

// TensorFlow's grappler-fused ops: a convolution or matrix product and its epilogue in one
// node. The operands are the two data inputs, `num_args` epilogue arguments (the bias, or
// the scale, offset, mean and variance of a batch normalisation), then control inputs.
class TF_FusedOp<string mnemonic> : TF_Op<mnemonic> {
  dag attrArgs = (ins);
  let arguments = !con((ins Variadic<AnyType>:$inputs_and_controls, I64Attr:$num_args,
      DefaultValuedOptionalAttr<I64Attr, "0">:$num_host_args, StrArrayAttr:$fused_ops,
      OptionalAttr<F32Attr>:$epsilon, OptionalAttr<F32Attr>:$leakyrelu_alpha,
      OptionalAttr<TypeAttr>:$T), attrArgs);
  let results = (outs TF_FloatTensor:$output);
  let opExtraDecls = [{
    /// Two data inputs, the epilogue arguments and the host arguments.
    unsigned getNumDataInputs() {
      return std::min<unsigned>(2 + getNumArgs() + getNumHostArgs(),
                                getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getArgs() {
      return getInputsAndControls().slice(2, getNumArgs());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_FusedConv2DOp : TF_FusedOp<"_FusedConv2D"> {
  let summary = "Conv2D followed by the `fused_ops` epilogue (grappler's remapper)";
  let description = [{
    `fused_ops` is ["BiasAdd"] or ["FusedBatchNorm"] (inference statistics, `epsilon`),
    optionally followed by one of Relu, Relu6, Elu or LeakyRelu (`leakyrelu_alpha`), the
    combinations TensorFlow's CPU kernel implements; `num_args` is 1 for BiasAdd and 4 for
    FusedBatchNorm.
    ```mlir
    %y = "tf._FusedConv2D"(%x, %f, %b) {fused_ops = ["BiasAdd", "Relu"], num_args = 1 : i64,
        padding = "SAME", strides = [1, 1, 1, 1]}
        : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
    ```
  }];
  let attrArgs = (ins I64ArrayAttr:$strides, StrAttr:$padding,
      OptionalAttr<I64ArrayAttr>:$explicit_paddings,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations);
  let inferFn = "inferFusedConv2D";
  let hasCanonicalizer = 1;
}

def TF_FusedMatMulOp : TF_FusedOp<"_FusedMatMul"> {
  let summary = "MatMul followed by the `fused_ops` epilogue (grappler's remapper)";
  let description = [{
    `fused_ops` is ["BiasAdd"], optionally followed by one of Relu, Relu6, Elu, LeakyRelu
    (`leakyrelu_alpha`), Tanh or Sigmoid; `num_args` is 1.
    ```mlir
    %y = "tf._FusedMatMul"(%a, %b, %bias) {fused_ops = ["BiasAdd", "Relu6"], num_args = 1 : i64}
        : (tensor<3x4xf32>, tensor<4x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
    ```
  }];
  let attrArgs = (ins DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_a,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_b);
  let inferFn = "inferFusedMatMul";
}

class TF_PoolOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what # " over `ksize` windows";
  let description = [{
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x) {ksize = [1, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 1]}
        : (tensor<1x8x8x2xf32>) -> tensor<1x4x4x2xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$input, I64ArrayAttr:$ksize, I64ArrayAttr:$strides,
      StrAttr:$padding, DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferPool";
}

def TF_MaxPoolOp : TF_PoolOp<"MaxPool", "the maximum">;
def TF_AvgPoolOp : TF_PoolOp<"AvgPool", "the mean of the elements inside the input">;

def TF_Conv3DBackpropInputV2Op : TF_Op<"Conv3DBackpropInputV2"> {
  let summary = "the gradient of Conv3D with respect to its input (a transposed 3-D "
                "convolution, Keras's Conv3DTranspose)";
  let description = [{
    `input_sizes` (a constant) is the shape of the Conv3D input (NDHWC); `filter` is that
    Conv3D's [depth, height, width, in, out] filter and `out_backprop` has the shape of its
    output. The window attributes are those of the forward Conv3D.
  }];
  let dataArgs = (ins TF_IndexTensor:$input_sizes, TF_FloatTensor:$filter,
      TF_FloatTensor:$out_backprop, I64ArrayAttr:$strides, StrAttr:$padding,
      DefaultValuedOptionalAttr<StrAttr, "\"NDHWC\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$Tshape);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferConv3DBackpropInput";
}

def TF_Conv3DOp : TF_Op<"Conv3D"> {
  let summary = "3-D convolution; the filter is [depth, height, width, in_channels, out_channels]";
  let description = [{
    NDHWC only (TensorFlow's CPU kernel has no other layout); `strides` and `dilations`
    have 5 entries, 1 for the batch and the channels; padding SAME or VALID. A filter with
    a proper divisor of the input's channels is a grouped convolution.
    ```mlir
    %y = "tf.Conv3D"(%x, %f) {padding = "SAME", strides = [1, 1, 1, 1, 1]}
        : (tensor<1x4x8x8x3xf32>, tensor<3x3x3x3x8xf32>) -> tensor<1x4x8x8x8xf32>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$input, TF_FloatTensor:$filter, I64ArrayAttr:$strides,
      StrAttr:$padding, DefaultValuedOptionalAttr<StrAttr, "\"NDHWC\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferConv3D";
}

class TF_Pool3DOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what # " over `ksize` windows of 3 dimensions";
  let description = [{
    NDHWC only; `ksize` and `strides` have 5 entries, 1 for the batch and the channels.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%x) {ksize = [1, 2, 2, 2, 1], padding = "VALID", strides = [1, 2, 2, 2, 1]}
        : (tensor<1x4x8x8x2xf32>) -> tensor<1x2x4x4x2xf32>
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$input, I64ArrayAttr:$ksize, I64ArrayAttr:$strides,
      StrAttr:$padding, DefaultValuedOptionalAttr<StrAttr, "\"NDHWC\"">:$data_format,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferPool3D";
}
def TF_MaxPool3DOp : TF_Pool3DOp<"MaxPool3D", "the maximum">;
def TF_AvgPool3DOp : TF_Pool3DOp<"AvgPool3D", "the mean of the elements inside the input">;

class TF_FusedBatchNormOpBase<string mnemonic, dag extraResults> : TF_Op<mnemonic> {
  let summary = "batch normalisation: (x - mean) * scale / sqrt(variance + epsilon) + offset";
  let description = [{
    Only inference (`is_training = false`) is supported: the batch statistics outputs are
    the given mean and variance.
    ```mlir
    %y, %m, %v, %r1, %r2 = "tf.}] # mnemonic # [{"(%x, %s, %o, %mean, %var) {epsilon = 1.0e-3 : f32, is_training = false}
        : (...) -> (...)
    ```
  }];
  let dataArgs = (ins TF_FloatTensor:$x, TF_FloatTensor:$scale, TF_FloatTensor:$offset,
      TF_FloatTensor:$mean, TF_FloatTensor:$variance,
      DefaultValuedOptionalAttr<F32Attr, "0.0001f">:$epsilon,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$is_training,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$U);
  let results = !con((outs TF_FloatTensor:$y, TF_FloatTensor:$batch_mean,
                      TF_FloatTensor:$batch_variance, TF_FloatTensor:$reserve_space_1,
                      TF_FloatTensor:$reserve_space_2), extraResults);
  let inferFn = "inferFusedBatchNorm";
}

def TF_FusedBatchNormOp : TF_FusedBatchNormOpBase<"FusedBatchNorm", (outs)>;
def TF_FusedBatchNormV2Op : TF_FusedBatchNormOpBase<"FusedBatchNormV2", (outs)>;
def TF_FusedBatchNormV3Op : TF_FusedBatchNormOpBase<"FusedBatchNormV3",
                                                    (outs TF_FloatTensor:$reserve_space_3)> {
  let inferFn = "inferFusedBatchNormV3";
}

def TF_FusedBatchNormExOp : TF_Op<"_FusedBatchNormEx"> {
  let summary = "grappler's fusion of FusedBatchNormV3, the addition of a side input and an "
                "activation";
  let description = [{
    The operands are FusedBatchNormV3's five, `num_side_inputs` (0 or 1) side inputs of
    y's shape, then the control inputs. `kiln-graph-decompose` writes it as FusedBatchNormV3,
    AddV2 of the side input and the activation (`activation_mode`: Identity, Relu, Relu6,
    Elu or LeakyRelu with `leakyrelu_alpha`); the statistics results are V3's.
  }];
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls,
      DefaultValuedOptionalAttr<I64Attr, "0">:$num_side_inputs,
      DefaultValuedOptionalAttr<StrAttr, "\"Identity\"">:$activation_mode,
      DefaultValuedOptionalAttr<F32Attr, "0.0001f">:$epsilon,
      DefaultValuedOptionalAttr<F32Attr, "1.0f">:$exponential_avg_factor,
      DefaultValuedOptionalAttr<F32Attr, "0.2f">:$leakyrelu_alpha,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$is_training,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$U);
  let results = (outs TF_FloatTensor:$y, TF_FloatTensor:$batch_mean,
                      TF_FloatTensor:$batch_variance, TF_FloatTensor:$reserve_space_1,
                      TF_FloatTensor:$reserve_space_2, TF_FloatTensor:$reserve_space_3);
  let inferFn = "inferFusedBatchNormEx";
  let opExtraDecls = [{
    /// FusedBatchNormV3's five inputs and the side inputs.
    unsigned getNumDataInputs() {
      return std::min<unsigned>(5 + getNumSideInputs(), getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Functional control flow: If and While, their functions imported as regions.
//===----------------------------------------------------------------------===//

def TF_YieldOp : Op<TF_Dialect, "Yield", [Pure, Terminator, ReturnLike,
                                           ParentOneOf<["IfOp", "CaseOp", "WhileOp"]>]> {
  let summary = "the results of an If or Case branch, or of a While condition or body";
  let arguments = (ins Variadic<TF_Tensor>:$values);
}

def TF_IfOp : TF_Op<"If", [IsolatedFromAbove], [RecursiveMemoryEffects]> {
  let summary = "runs one of two branches on the inputs";
  let description = [{
    TensorFlow's `If` and `StatelessIf`, whose `then_branch` and `else_branch` functions
    are imported as the two regions: each takes the inputs (one block argument per type in
    `Tin`) and yields the results. `cond` is true when it is a nonzero scalar (a bool, a
    number) or a tensor with elements, as TensorFlow converts it.
    ```mlir
    %y = "tf.If"(%c, %x) ({
    ^bb0(%a: tensor<4xf32>):
      %n = "tf.Neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      "tf.Yield"(%n) : (tensor<4xf32>) -> ()
    }, {
    ^bb0(%a: tensor<4xf32>):
      "tf.Yield"(%a) : (tensor<4xf32>) -> ()
    }) {Tin = [f32]} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    ```
    The results' types join the two branches' (a dimension they disagree on is unknown).
  }];
  let arguments = (ins TF_Tensor:$cond, Variadic<AnyType>:$inputs_and_controls,
                   TypeArrayAttr:$Tin);
  let results = (outs Variadic<TF_Tensor>:$output);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
  let hasVerifier = 1;
  let inferFn = "";
  let opExtraDecls = [{
    unsigned getNumInputs() {
      return std::min<unsigned>(getTin().size(), getInputsAndControls().size());
    }
    /// The inputs the branches take (after `cond`).
    ::mlir::OperandRange getInputs() { return getInputsAndControls().take_front(getNumInputs()); }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), 1 + getNumInputs(),
                                         getOperation()->getNumOperands() - 1 - getNumInputs());
    }
  }];
}

def TF_CaseOp : TF_Op<"Case", [IsolatedFromAbove], [RecursiveMemoryEffects]> {
  let summary = "runs branch `branch_index` on the inputs, or the last one if out of range";
  let description = [{
    TensorFlow's `Case` and `StatelessCase`: one region per function of `branches`, each
    taking the inputs (one block argument per type in `Tin`) and yielding the results.
    `branch_index` is an int32 scalar; outside [0, N) the last branch runs, as in
    TensorFlow. The results' types join the branches'.
  }];
  let arguments = (ins TF_Tensor:$branch_index, Variadic<AnyType>:$inputs_and_controls,
                   TypeArrayAttr:$Tin);
  let results = (outs Variadic<TF_Tensor>:$output);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let hasVerifier = 1;
  let inferFn = "";
  let opExtraDecls = [{
    unsigned getNumInputs() {
      return std::min<unsigned>(getTin().size(), getInputsAndControls().size());
    }
    ::mlir::OperandRange getInputs() { return getInputsAndControls().take_front(getNumInputs()); }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), 1 + getNumInputs(),
                                         getOperation()->getNumOperands() - 1 - getNumInputs());
    }
  }];
}

def TF_WhileOp : TF_Op<"While", [IsolatedFromAbove], [RecursiveMemoryEffects]> {
  let summary = "runs `body` on the loop variables while `cond` holds";
  let description = [{
    TensorFlow's `While` and `StatelessWhile`, whose `cond` and `body` functions are
    imported as regions: each takes the loop variables (one block argument per type in
    `T`); `cond` yields one scalar (true: run `body` again, converted as If's), `body`
    yields the next values. The results are the variables' values when `cond` fails.
    Loop variables keep their types: a body that changes a variable's shape is an error.
    ```mlir
    %i, %x = "tf.While"(%zero, %x0) ({
    ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
      %c = "tf.Less"(%i, %n) ...
      "tf.Yield"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
      ...
      "tf.Yield"(%i1, %x1) : (tensor<i32>, tensor<4xf32>) -> ()
    }) {T = [i32, f32], parallel_iterations = 10 : i64} : ...
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, TypeArrayAttr:$T,
                   OptionalAttr<I64Attr>:$parallel_iterations);
  let results = (outs Variadic<TF_Tensor>:$output);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let hasVerifier = 1;
  let inferFn = "";
  let opExtraDecls = [{
    unsigned getNumInputs() {
      return std::min<unsigned>(getT().size(), getInputsAndControls().size());
    }
    /// The loop variables' initial values.
    ::mlir::OperandRange getInputs() { return getInputsAndControls().take_front(getNumInputs()); }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumInputs(),
                                         getOperation()->getNumOperands() - getNumInputs());
    }
  }];
}

//===----------------------------------------------------------------------===//
// TensorLists, as dense tensors: a list of N elements of shape S is a tensor [N, S...].
//===----------------------------------------------------------------------===//

// TensorFlow's lists are variant handles; Kiln gives them the dense type of their
// contents from the start (unranked until kiln-graph-resolve-lists finds N and S).
def TF_TensorListReserveOp : TF_Op<"TensorListReserve"> {
  let summary = "a list of `num_elements` elements, all zeros until set";
  let description = [{
    `element_shape` may be partly or wholly unknown (-1): kiln-graph-resolve-lists then
    finds it from what the list is set to or read as.
    ```mlir
    %l = "tf.TensorListReserve"(%shape, %n) {element_dtype = f32} : (tensor<2xi32>, tensor<i32>) -> tensor<5x2x3xf32>
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$element_shape, TF_IndexTensor:$num_elements,
                  TypeAttr:$element_dtype, OptionalAttr<TypeAttr>:$shape_type);
  let results = (outs TF_Tensor:$handle);
  let inferFn = "inferTensorListReserve";
}

def TF_TensorListFromTensorOp : TF_Op<"TensorListFromTensor"> {
  let summary = "the list of `tensor`'s rows";
  let dataArgs = (ins TF_Tensor:$tensor, TF_IndexTensor:$element_shape,
                  OptionalAttr<TypeAttr>:$element_dtype, OptionalAttr<TypeAttr>:$shape_type);
  let results = (outs TF_Tensor:$output_handle);
  let inferFn = "inferSameAsFirstOperand";
}

def TF_TensorListGetItemOp : TF_Op<"TensorListGetItem",
                                   [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "element `index` of the list";
  let description = [{
    An index out of range is an error, as in TensorFlow (with --no-runtime-checks it reads
    the nearest element).
  }];
  let dataArgs = (ins TF_Tensor:$input_handle, TensorOf<[I32]>:$index,
                  TF_IndexTensor:$element_shape, TypeAttr:$element_dtype);
  let results = (outs TF_Tensor:$item);
  let inferFn = "inferTensorListGetItem";
}

def TF_TensorListSetItemOp : TF_Op<"TensorListSetItem",
                                   [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "the list with element `index` replaced by `item`";
  let description = [{
    Only lists of fixed length: `resize_if_index_out_of_bounds` must be false, and an index
    out of range is an error, as in TensorFlow (with --no-runtime-checks it writes the
    nearest element).
  }];
  let dataArgs = (ins TF_Tensor:$input_handle, TensorOf<[I32]>:$index, TF_Tensor:$item,
                  TypeAttr:$element_dtype,
                  DefaultValuedOptionalAttr<BoolAttr, "false">:$resize_if_index_out_of_bounds);
  let results = (outs TF_Tensor:$output_handle);
  let inferFn = "inferTensorListSetItem";
}

def TF_TensorListStackOp : TF_Op<"TensorListStack"> {
  let summary = "the list's elements stacked into one tensor";
  let dataArgs = (ins TF_Tensor:$input_handle, TF_IndexTensor:$element_shape,
                  TypeAttr:$element_dtype,
                  DefaultValuedOptionalAttr<I64Attr, "-1">:$num_elements);
  let results = (outs TF_Tensor:$tensor);
  let inferFn = "inferTensorListStack";
}

def TF_TensorListGatherOp : TF_Op<"TensorListGather"> {
  let summary = "the list's elements at `indices`, stacked";
  let description = [{
    The result is [indices.shape..., S...]; kiln-graph-decompose makes it a GatherV2 of the
    list's tensor on axis 0, with GatherV2's check that each index is in range.
  }];
  let dataArgs = (ins TF_Tensor:$input_handle, TensorOf<[I32]>:$indices,
                  TF_IndexTensor:$element_shape, TypeAttr:$element_dtype);
  let results = (outs TF_Tensor:$values);
  let inferFn = "inferTensorListGather";
}

def TF_TensorListScatterIntoExistingListOp
    : TF_Op<"TensorListScatterIntoExistingList",
            [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "the list with element `indices[k]` replaced by `tensor[k]`, for each k";
  let description = [{
    `indices` is a vector of K indices and `tensor` is [K, S...]; an index out of range is an
    error, as in TensorFlow. Where an index repeats, the last write wins.
  }];
  let dataArgs = (ins TF_Tensor:$input_handle, TF_Tensor:$tensor, TensorOf<[I32]>:$indices,
                  TypeAttr:$element_dtype);
  let results = (outs TF_Tensor:$output_handle);
  let inferFn = "inferTensorListScatterIntoExistingList";
}

def TF_TensorListLengthOp : TF_Op<"TensorListLength"> {
  let summary = "the number of elements of the list";
  let dataArgs = (ins TF_Tensor:$input_handle);
  let results = (outs TensorOf<[I32]>:$length);
  let inferFn = "inferTensorListLength";
  let hasFolder = 1;
}

def TF_TensorListElementShapeOp : TF_Op<"TensorListElementShape"> {
  let summary = "the shape of the list's elements";
  let dataArgs = (ins TF_Tensor:$input_handle, TypeAttr:$shape_type);
  let results = (outs TF_IndexTensor:$element_shape);
  let inferFn = "inferTensorListElementShape";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Image processing and quantization simulation (Ops/ImageOps.cpp).
//===----------------------------------------------------------------------===//

def TF_ExtractImagePatchesOp : TF_Op<"ExtractImagePatches"> {
  let summary = "the ksizes windows of NHWC images (dilated by rates), each flattened into "
                "the depth of its output position; zeros outside the image (SAME)";
  let dataArgs = (ins TF_Tensor:$images, I64ArrayAttr:$ksizes, I64ArrayAttr:$strides,
                  I64ArrayAttr:$rates, StrAttr:$padding, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$patches);
  let inferFn = "inferExtractImagePatches";
}

def TF_LRNOp : TF_Op<"LRN"> {
  let summary = "local response normalisation over the depth: x / (bias + alpha * sum of "
                "the squares within depth_radius)^beta";
  let dataArgs = (ins TF_FloatTensor:$input,
      DefaultValuedOptionalAttr<I64Attr, "5">:$depth_radius,
      DefaultValuedOptionalAttr<F32Attr, "1.0f">:$bias,
      DefaultValuedOptionalAttr<F32Attr, "1.0f">:$alpha,
      DefaultValuedOptionalAttr<F32Attr, "0.5f">:$beta, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferLRN";
}

def TF_LRNGradOp : TF_Op<"LRNGrad"> {
  let summary = "the gradient of LRN with respect to its input, given LRN's input and "
                "output images";
  let dataArgs = (ins TF_FloatTensor:$input_grads, TF_FloatTensor:$input_image,
      TF_FloatTensor:$output_image,
      DefaultValuedOptionalAttr<I64Attr, "5">:$depth_radius,
      DefaultValuedOptionalAttr<F32Attr, "1.0f">:$bias,
      DefaultValuedOptionalAttr<F32Attr, "1.0f">:$alpha,
      DefaultValuedOptionalAttr<F32Attr, "0.5f">:$beta, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferLRNGrad";
}

def TF_ResizeBilinearGradOp : TF_Op<"ResizeBilinearGrad"> {
  let summary = "the gradient of ResizeBilinear with respect to its images: each gradient "
                "spread back to the four pixels its output read, by their weights";
  let dataArgs = (ins TensorOf<[F32]>:$grads, TF_FloatTensor:$original_image,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$align_corners,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$half_pixel_centers,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferResizeBilinearGrad";
}

def TF_CropAndResizeOp : TF_Op<"CropAndResize",
    [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "boxes (normalized [y1, x1, y2, x2], fed) cut from the images of box_ind "
                "and resized to crop_size, bilinear or nearest; extrapolation_value outside";
  let description = [{
    `crop_size` is a constant; a box index outside the batch is an error at run time, as in
    TensorFlow. The result is float32, computed as TensorFlow's CPU kernel computes it.
  }];
  let dataArgs = (ins TF_NumberTensor:$image, TensorOf<[F32]>:$boxes, TensorOf<[I32]>:$box_ind,
      TensorOf<[I32]>:$crop_size,
      DefaultValuedOptionalAttr<StrAttr, "\"bilinear\"">:$method,
      DefaultValuedOptionalAttr<F32Attr, "0.0f">:$extrapolation_value, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[F32]>:$crops);
  let inferFn = "inferCropAndResize";
}

def TF_ScaleAndTranslateOp : TF_Op<"ScaleAndTranslate"> {
  let summary = "images resampled to `size` with a sampling kernel, scaled and translated "
                "(tf.image.resize's lanczos, gaussian and mitchellcubic methods, antialiased "
                "resizes)";
  let description = [{
    `size`, `scale` and `translation` are constants. As TensorFlow's CPU kernel: per axis,
    each output position takes a span of input positions whose kernel weights (scaled by
    the inverse scale when antialiasing a downscale) are normalised to sum to 1, computed
    at compile time; rows first, then columns, in float32.
  }];
  let dataArgs = (ins TF_NumberTensor:$images, TensorOf<[I32]>:$size, TensorOf<[F32]>:$scale,
      TensorOf<[F32]>:$translation,
      DefaultValuedOptionalAttr<StrAttr, "\"lanczos3\"">:$kernel_type,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$antialias, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[F32]>:$resized_images);
  let inferFn = "inferScaleAndTranslate";
}

def TF_BitcastOp : TF_Op<"Bitcast"> {
  let summary = "the input's bytes read as `type` (little-endian): a last dimension is added "
                "when `type` is narrower, removed when it is wider";
  let dataArgs = (ins TF_NumberTensor:$input, TypeAttr:$type, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBitcast";
}

class TF_ColorOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what # " of the last dimension (3 channels), as TensorFlow's kernel computes it";
  let dataArgs = (ins TF_FloatTensor:$images, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferColor";
}
def TF_RGBToHSVOp : TF_ColorOp<"RGBToHSV", "hue, saturation and value from red, green, blue">;
def TF_HSVToRGBOp : TF_ColorOp<"HSVToRGB", "red, green and blue from hue, saturation, value">;

class TF_AdjustColorOp<string mnemonic, string what, string factor> : TF_Op<mnemonic> {
  let summary = what # ", pixel by pixel as TensorFlow's CPU kernel (float32)";
  let dataArgs = !con((ins TensorOf<[F32]>:$images),
                      !dag(ins, [TensorOf<[F32]>], [factor]), (ins OptionalAttr<TypeAttr>:$T));
  let results = (outs TensorOf<[F32]>:$output);
  let inferFn = "inferAdjustColor";
}
def TF_AdjustSaturationOp : TF_AdjustColorOp<"AdjustSaturation",
    "saturation scaled by `scale` (clamped to [0, 1]) in TensorFlow's HSV", "scale">;
def TF_AdjustHueOp : TF_AdjustColorOp<"AdjustHue",
    "hue turned by `delta` (a fraction of the colour wheel)", "delta">;

def TF_AdjustContrastv2Op : TF_Op<"AdjustContrastv2"> {
  let summary = "(x - mean) * contrast_factor + mean, the mean of each channel over the "
                "image's height and width";
  let dataArgs = (ins TF_FloatTensor:$images, TensorOf<[F32]>:$contrast_factor,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferColor";
}

class TF_FakeQuantOp<string mnemonic, string what, dag bounds> : TF_Op<mnemonic> {
  let summary = "inputs quantized to num_bits between " # what # " (nudged so that 0 is "
                "exact) and back, as TensorFlow computes it";
  let dataArgs = !con((ins TensorOf<[F32]>:$inputs), bounds,
      (ins DefaultValuedOptionalAttr<I64Attr, "8">:$num_bits,
           DefaultValuedOptionalAttr<BoolAttr, "false">:$narrow_range));
  let results = (outs TensorOf<[F32]>:$outputs);
  let inferFn = "inferFakeQuant";
}
def TF_FakeQuantWithMinMaxArgsOp : TF_FakeQuantOp<"FakeQuantWithMinMaxArgs",
    "the attributes min and max",
    (ins DefaultValuedOptionalAttr<F32Attr, "-6.0f">:$min,
         DefaultValuedOptionalAttr<F32Attr, "6.0f">:$max)>;
def TF_FakeQuantWithMinMaxVarsOp : TF_FakeQuantOp<"FakeQuantWithMinMaxVars",
    "the scalars min and max", (ins TensorOf<[F32]>:$min, TensorOf<[F32]>:$max)>;
def TF_FakeQuantWithMinMaxVarsPerChannelOp : TF_FakeQuantOp<
    "FakeQuantWithMinMaxVarsPerChannel",
    "min and max, one of each per position of the last dimension",
    (ins TensorOf<[F32]>:$min, TensorOf<[F32]>:$max)>;

// The gradients of the FakeQuant ops: `gradients` passed where `inputs` is within the
// nudged bounds (0 elsewhere); the Vars forms also sum the gradients below the lower
// bound and above the upper one, for min and max.
class TF_FakeQuantGradOp<string mnemonic, string what, dag bounds, dag outputs>
    : TF_Op<mnemonic> {
  let summary = "the gradient of " # what # " with respect to its inputs (and bounds)";
  let dataArgs = !con((ins TensorOf<[F32]>:$gradients, TensorOf<[F32]>:$inputs), bounds,
      (ins DefaultValuedOptionalAttr<I64Attr, "8">:$num_bits,
           DefaultValuedOptionalAttr<BoolAttr, "false">:$narrow_range));
  let results = outputs;
  let inferFn = "inferFakeQuantGrad";
}
def TF_FakeQuantWithMinMaxArgsGradientOp : TF_FakeQuantGradOp<
    "FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxArgs",
    (ins DefaultValuedOptionalAttr<F32Attr, "-6.0f">:$min,
         DefaultValuedOptionalAttr<F32Attr, "6.0f">:$max),
    (outs TensorOf<[F32]>:$backprops)>;
def TF_FakeQuantWithMinMaxVarsGradientOp : TF_FakeQuantGradOp<
    "FakeQuantWithMinMaxVarsGradient", "FakeQuantWithMinMaxVars",
    (ins TensorOf<[F32]>:$min, TensorOf<[F32]>:$max),
    (outs TensorOf<[F32]>:$backprops_wrt_input, TensorOf<[F32]>:$backprop_wrt_min,
          TensorOf<[F32]>:$backprop_wrt_max)>;
def TF_FakeQuantWithMinMaxVarsPerChannelGradientOp : TF_FakeQuantGradOp<
    "FakeQuantWithMinMaxVarsPerChannelGradient", "FakeQuantWithMinMaxVarsPerChannel",
    (ins TensorOf<[F32]>:$min, TensorOf<[F32]>:$max),
    (outs TensorOf<[F32]>:$backprops_wrt_input, TensorOf<[F32]>:$backprop_wrt_min,
          TensorOf<[F32]>:$backprop_wrt_max)>;

//===----------------------------------------------------------------------===//
// Diagonals of matrices (Ops/Diagonals.cpp): the diagonals d = col - row in [lo, hi] of the
// last two dimensions, `k` a constant d or [lo, hi]. With several diagonals each is a row
// of `max_diag_len` entries, from the highest diagonal down, padded on the side `align`
// says ("LEFT_RIGHT": superdiagonals start at the left, subdiagonals end at the right;
// V1 and V2 align both LEFT).
//===----------------------------------------------------------------------===//

def TF_MatrixDiagPartV3Op : TF_Op<"MatrixDiagPartV3"> {
  let summary = "the diagonals k of the innermost matrices, padded with padding_value";
  let description = [{
    ```mlir
    %d = "tf.MatrixDiagPartV3"(%x, %k, %pad) {align = "RIGHT_LEFT"}
        : (tensor<2x4x5xf32>, tensor<2xi32>, tensor<f32>) -> tensor<2x3x4xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, TensorOf<[I32]>:$k, TF_Tensor:$padding_value,
      DefaultValuedOptionalAttr<StrAttr, "\"RIGHT_LEFT\"">:$align, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$diagonal);
  let inferFn = "inferMatrixDiagPart";
}
def TF_MatrixDiagPartV2Op : TF_Op<"MatrixDiagPartV2"> {
  let summary = "MatrixDiagPartV3 with both alignments LEFT";
  let dataArgs = (ins TF_Tensor:$input, TensorOf<[I32]>:$k, TF_Tensor:$padding_value,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$diagonal);
  let inferFn = "inferMatrixDiagPart";
}
def TF_MatrixDiagPartOp : TF_Op<"MatrixDiagPart"> {
  let summary = "the main diagonal of the innermost matrices";
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$diagonal);
  let inferFn = "inferMatrixDiagPart";
}

def TF_MatrixDiagV3Op : TF_Op<"MatrixDiagV3"> {
  let summary = "matrices of num_rows x num_cols (-1: the least that holds the diagonals) "
                "with the diagonals k and padding_value elsewhere";
  let dataArgs = (ins TF_Tensor:$diagonal, TensorOf<[I32]>:$k, TensorOf<[I32]>:$num_rows,
      TensorOf<[I32]>:$num_cols, TF_Tensor:$padding_value,
      DefaultValuedOptionalAttr<StrAttr, "\"RIGHT_LEFT\"">:$align, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMatrixDiag";
}
def TF_MatrixDiagV2Op : TF_Op<"MatrixDiagV2"> {
  let summary = "MatrixDiagV3 with both alignments LEFT";
  let dataArgs = (ins TF_Tensor:$diagonal, TensorOf<[I32]>:$k, TensorOf<[I32]>:$num_rows,
      TensorOf<[I32]>:$num_cols, TF_Tensor:$padding_value, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMatrixDiag";
}
def TF_MatrixDiagOp : TF_Op<"MatrixDiag"> {
  let summary = "square matrices with the diagonal given and zeros elsewhere";
  let dataArgs = (ins TF_Tensor:$diagonal, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMatrixDiag";
}

def TF_MatrixSetDiagV3Op : TF_Op<"MatrixSetDiagV3"> {
  let summary = "the input with its diagonals k replaced";
  let dataArgs = (ins TF_Tensor:$input, TF_Tensor:$diagonal, TensorOf<[I32]>:$k,
      DefaultValuedOptionalAttr<StrAttr, "\"RIGHT_LEFT\"">:$align, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMatrixSetDiag";
}
def TF_MatrixSetDiagV2Op : TF_Op<"MatrixSetDiagV2"> {
  let summary = "MatrixSetDiagV3 with both alignments LEFT";
  let dataArgs = (ins TF_Tensor:$input, TF_Tensor:$diagonal, TensorOf<[I32]>:$k,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMatrixSetDiag";
}
def TF_MatrixSetDiagOp : TF_Op<"MatrixSetDiag"> {
  let summary = "the input with its main diagonal replaced";
  let dataArgs = (ins TF_Tensor:$input, TF_Tensor:$diagonal, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMatrixSetDiag";
}

def TF_DiagOp : TF_Op<"Diag"> {
  let summary = "a tensor of shape [D..., D...] with the input on its diagonal and zeros "
                "elsewhere";
  let dataArgs = (ins TF_Tensor:$diagonal, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferDiag";
}
def TF_DiagPartOp : TF_Op<"DiagPart"> {
  let summary = "the diagonal of a tensor of shape [D..., D...]";
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$diagonal);
  let inferFn = "inferDiag";
}

//===----------------------------------------------------------------------===//
// Scatters: segment reductions, bin counts, ScatterNd and TensorScatter* (Ops/Scatter.cpp).
// Each writes rows of its output at indices read at run time, in order, so that the last
// of repeated indices wins where rows are replaced.
//===----------------------------------------------------------------------===//

class TF_SegmentOp<string mnemonic, string what> : TF_Op<mnemonic,
    [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = what;
  let description = [{
    Output row s (of `num_segments`, a constant) combines the rows of `data` whose
    `segment_ids` (a prefix of data's shape) are s; a segment no row has holds the
    reduction's identity (the lowest or highest finite value for Max and Min, as
    TensorFlow's kernels leave it). A negative id drops its row; an id of num_segments or
    more is an error at run time, as TensorFlow reports it.
    ```mlir
    %y = "tf.}] # mnemonic # [{"(%data, %ids, %n) : (tensor<5x3xf32>, tensor<5xi32>, tensor<i32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$data, TF_IndexTensor:$segment_ids,
      TF_IndexTensor:$num_segments, OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tindices,
      OptionalAttr<TypeAttr>:$Tnumsegments);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferSegment";
}
def TF_UnsortedSegmentSumOp : TF_SegmentOp<"UnsortedSegmentSum", "sums of the rows of each segment">;
def TF_UnsortedSegmentProdOp : TF_SegmentOp<"UnsortedSegmentProd",
    "products of the rows of each segment">;
def TF_UnsortedSegmentMaxOp : TF_SegmentOp<"UnsortedSegmentMax",
    "maxima of the rows of each segment">;
def TF_UnsortedSegmentMinOp : TF_SegmentOp<"UnsortedSegmentMin",
    "minima of the rows of each segment">;
def TF_SegmentSumV2Op : TF_SegmentOp<"SegmentSumV2",
    "sums of the rows of each segment (ids sorted, as XLA computes it)">;
def TF_SegmentProdV2Op : TF_SegmentOp<"SegmentProdV2",
    "products of the rows of each segment (ids sorted, as XLA computes it)">;
def TF_SegmentMaxV2Op : TF_SegmentOp<"SegmentMaxV2",
    "maxima of the rows of each segment (ids sorted, as XLA computes it)">;
def TF_SegmentMinV2Op : TF_SegmentOp<"SegmentMinV2",
    "minima of the rows of each segment (ids sorted, as XLA computes it)">;

def TF_BincountOp : TF_Op<"Bincount", [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "how often each value in [0, size) occurs in `arr`, or the sum of its weights";
  let description = [{
    `size` is a constant; values of `size` or more are not counted, a negative value is an
    error at run time, as in TensorFlow. Empty `weights` count 1 for each value.
    ```mlir
    %y = "tf.Bincount"(%arr, %size, %w) : (tensor<8xi32>, tensor<i32>, tensor<0xf32>) -> tensor<5xf32>
    ```
  }];
  let dataArgs = (ins TensorOf<[I32]>:$arr, TensorOf<[I32]>:$size, TF_NumberTensor:$weights,
                  OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$bins);
  let inferFn = "inferBincount";
}

def TF_DenseBincountOp : TF_Op<"DenseBincount",
    [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "Bincount of a vector, or of each row of a matrix; 0 or 1 with `binary_output`";
  let dataArgs = (ins TF_IndexTensor:$input, TF_IndexTensor:$size, TF_NumberTensor:$weights,
                  OptionalAttr<TypeAttr>:$Tidx, OptionalAttr<TypeAttr>:$T,
                  DefaultValuedOptionalAttr<BoolAttr, "false">:$binary_output);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBincount";
}

def TF_ScatterNdOp : TF_Op<"ScatterNd", [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "zeros of `shape` with `updates` added at `indices` (repeats summed)";
  let description = [{
    `indices` is [..., K]: each tuple indexes the first K dimensions of the output; one out
    of range is an error at run time, as in TensorFlow.
    ```mlir
    %y = "tf.ScatterNd"(%i, %u, %shape) : (tensor<2x1xi32>, tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
    ```
  }];
  let dataArgs = (ins TF_IndexTensor:$indices, TF_Tensor:$updates, TF_IndexTensor:$shape,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tindices);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferScatterNd";
}

class TF_TensorScatterOp<string mnemonic, string what> : TF_Op<mnemonic,
    [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "`tensor` with " # what # " at `indices`";
  let description = [{
    `indices` is [..., K]: each tuple indexes the first K dimensions of `tensor`; one out of
    range is an error at run time, as in TensorFlow. Updates apply in order.
  }];
  let dataArgs = (ins TF_Tensor:$tensor, TF_IndexTensor:$indices, TF_Tensor:$updates,
                  OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tindices);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferTensorScatter";
}
def TF_TensorScatterUpdateOp : TF_TensorScatterOp<"TensorScatterUpdate",
    "`updates` written (the last of repeated indices wins)">;
def TF_TensorScatterAddOp : TF_TensorScatterOp<"TensorScatterAdd", "`updates` added">;
def TF_TensorScatterSubOp : TF_TensorScatterOp<"TensorScatterSub", "`updates` subtracted">;
def TF_TensorScatterMaxOp : TF_TensorScatterOp<"TensorScatterMax",
    "the maximum of it and `updates`">;
def TF_TensorScatterMinOp : TF_TensorScatterOp<"TensorScatterMin",
    "the minimum of it and `updates`">;

def TF_SparseToDenseOp : TF_Op<"SparseToDense",
    [DeclareOpInterfaceMethods<TF_RuntimeChecksInterface>]> {
  let summary = "`default_value` everywhere but at `sparse_indices`, which hold `sparse_values`";
  let description = [{
    `output_shape` is a constant; `sparse_indices` a scalar, a vector (of rank-1 indices) or
    an [N, rank] matrix; `sparse_values` a scalar for every index or one value each. An index
    out of range is an error at run time; Kiln does not check that the indices are sorted
    and distinct (`validate_indices`): of repeated indices the last wins.
  }];
  let dataArgs = (ins TF_IndexTensor:$sparse_indices, TF_IndexTensor:$output_shape,
      TF_Tensor:$sparse_values, TF_Tensor:$default_value,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$validate_indices, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$Tindices);
  let results = (outs TF_Tensor:$dense);
  let inferFn = "inferSparseToDense";
}

//===----------------------------------------------------------------------===//
// Older names, composites and gradients that kiln-graph-decompose writes as the ops above
// (dialects/TF/Ops/Aliases.cpp). Each infers its types itself, so that shapes flow through
// it before it is rewritten.
//===----------------------------------------------------------------------===//

def TF_BiasAddV1Op : TF_Op<"BiasAddV1"> {
  let summary = "BiasAdd's first form: the bias along the last dimension";
  let dataArgs = (ins TF_NumberTensor:$value, TF_NumberTensor:$bias, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBiasAdd";
}

def TF_ConjugateTransposeOp : TF_Op<"ConjugateTranspose"> {
  let summary = "Transpose, conjugating complex numbers (so Transpose for the real ones)";
  let dataArgs = (ins TF_Tensor:$x, TF_IndexTensor:$perm, OptionalAttr<TypeAttr>:$T,
                  OptionalAttr<TypeAttr>:$Tperm);
  let results = (outs TF_Tensor:$y);
  let inferFn = "inferTranspose";
}

def TF_EagerConstOp : TF_Op<"_EagerConst"> {
  let summary = "an eager constant captured by a function: its input";
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSameAsFirstOperand";
}

def TF_ControlTriggerOp : TF_Op<"ControlTrigger"> {
  let summary = "does nothing (TensorFlow 1 control flow's NoOp); a NoOp";
  let results = (outs TF_ControlType:$control);
  let inferFn = "";
}

def TF_ConcatOp : TF_Op<"Concat"> {
  let summary = "ConcatV2 with the axis first: joins `values` along `concat_dim`";
  let description = [{
    ```mlir
    %y = "tf.Concat"(%axis, %a, %b) {N = 2 : i64}
        : (tensor<i32>, tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, I64Attr:$N,
                   OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferConcatAxisFirst";
  let opExtraDecls = [{
    unsigned getNumDataInputs() {
      return std::min<unsigned>(getN() + 1, getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_GatherOp : TF_Op<"Gather"> {
  let summary = "GatherV2 on axis 0 (its first form)";
  let dataArgs = (ins TF_Tensor:$params, TF_IndexTensor:$indices,
                  DefaultValuedOptionalAttr<BoolAttr, "true">:$validate_indices,
                  OptionalAttr<TypeAttr>:$Tparams, OptionalAttr<TypeAttr>:$Tindices);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferGatherAxis0";
}

def TF_BatchMatMulV3Op : TF_Op<"BatchMatMulV3"> {
  let summary = "BatchMatMulV2 whose operands (Ta, Tb) and result (Tout) may differ in dtype";
  let description = [{
    The operands are cast to `Tout` first, as TensorFlow's kernel computes in `Tout`.
    ```mlir
    %z = "tf.BatchMatMulV3"(%x, %y) {Ta = i8, Tb = i8, Tout = i32}
        : (tensor<2x3x4xi8>, tensor<4x5xi8>) -> tensor<2x3x5xi32>
    ```
  }];
  let dataArgs = (ins TF_NumberTensor:$x, TF_NumberTensor:$y,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adj_x,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adj_y, OptionalAttr<TypeAttr>:$Ta,
      OptionalAttr<TypeAttr>:$Tb, TypeAttr:$Tout);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBatchMatMulV3";
}

class TF_SpaceBatchV1Op<string mnemonic, string what, string amounts> : TF_Op<mnemonic> {
  let summary = what # " with one `block_size` for both dimensions after the batch";
  let dataArgs = !dag(ins, [TF_Tensor, TF_IndexTensor, I64Attr, OptionalAttr<TypeAttr>,
                            OptionalAttr<TypeAttr>],
                      ["input", amounts, "block_size", "T", "Tidx"]);
  let results = (outs TF_Tensor:$output);
}
def TF_SpaceToBatchOp : TF_SpaceBatchV1Op<"SpaceToBatch", "SpaceToBatchND", "paddings"> {
  let inferFn = "inferSpaceToBatch";
}
def TF_BatchToSpaceOp : TF_SpaceBatchV1Op<"BatchToSpace", "BatchToSpaceND", "crops"> {
  let inferFn = "inferBatchToSpace";
}

def TF_MaxPoolV2Op : TF_Op<"MaxPoolV2"> {
  let summary = "MaxPool with `ksize` and `strides` as (constant) inputs";
  let dataArgs = (ins TF_NumberTensor:$input, TensorOf<[I32]>:$ksize, TensorOf<[I32]>:$strides,
      StrAttr:$padding, DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferMaxPoolV2";
}

def TF_ReverseOp : TF_Op<"Reverse"> {
  let summary = "the tensor reversed along each dimension whose entry of `dims` is true";
  let dataArgs = (ins TF_Tensor:$tensor, TensorOf<[I1]>:$dims, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSameAsFirstOperand";
}

def TF_EmptyOp : TF_Op<"Empty"> {
  let summary = "a tensor of the shape given (zeros: Kiln always initializes it)";
  let dataArgs = (ins TensorOf<[I32]>:$shape, TypeAttr:$dtype,
                  DefaultValuedOptionalAttr<BoolAttr, "false">:$init);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferEmpty";
}

def TF_ShapeNOp : TF_Op<"ShapeN"> {
  let summary = "the shapes of the N inputs";
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, I64Attr:$N,
                   OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$out_type);
  let results = (outs Variadic<TF_IndexTensor>:$output);
  let inferFn = "inferShapeN";
  let hasFolder = 1;
  let opExtraDecls = [{
    unsigned getNumDataInputs() {
      return std::min<unsigned>(getN(), getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_BroadcastArgsOp : TF_Op<"BroadcastArgs"> {
  let summary = "the shape that shapes s0 and s1 broadcast to (computed when both are known)";
  let dataArgs = (ins TF_IndexTensor:$s0, TF_IndexTensor:$s1, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_IndexTensor:$r0);
  let inferFn = "inferBroadcastArgs";
  let hasFolder = 1;
}

def TF_BroadcastGradientArgsOp : TF_Op<"BroadcastGradientArgs"> {
  let summary = "the dimensions along which the gradients of operands of shapes s0 and s1 "
                "are summed (computed when both shapes are known)";
  let dataArgs = (ins TF_IndexTensor:$s0, TF_IndexTensor:$s1, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_IndexTensor:$r0, TF_IndexTensor:$r1);
  let inferFn = "inferBroadcastGradientArgs";
  let hasFolder = 1;
}

def TF_ConcatOffsetOp : TF_Op<"ConcatOffset"> {
  let summary = "where each of N shapes starts in their concatenation along `concat_dim` "
                "(computed when the shapes are known)";
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, I64Attr:$N,
                   OptionalAttr<TypeAttr>:$shape_type);
  let results = (outs Variadic<TF_IndexTensor>:$offset);
  let inferFn = "inferConcatOffset";
  let hasFolder = 1;
  let opExtraDecls = [{
    unsigned getNumDataInputs() {
      return std::min<unsigned>(getN() + 1, getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
}

def TF_DataFormatDimMapOp : TF_Op<"DataFormatDimMap"> {
  let summary = "the index in `dst_format` of each dimension index (of `src_format`) in x";
  let dataArgs = (ins TF_IndexTensor:$x, OptionalAttr<TypeAttr>:$T,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$src_format,
      DefaultValuedOptionalAttr<StrAttr, "\"NCHW\"">:$dst_format);
  let results = (outs TF_IndexTensor:$y);
  let inferFn = "inferDataFormat";
}

def TF_DataFormatVecPermuteOp : TF_Op<"DataFormatVecPermute"> {
  let summary = "x (one entry or row per dimension of `src_format`, or of its spatial "
                "dimensions) permuted to `dst_format`";
  let dataArgs = (ins TF_IndexTensor:$x, OptionalAttr<TypeAttr>:$T,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$src_format,
      DefaultValuedOptionalAttr<StrAttr, "\"NCHW\"">:$dst_format);
  let results = (outs TF_IndexTensor:$y);
  let inferFn = "inferDataFormat";
}

def TF_ToBoolOp : TF_Op<"ToBool"> {
  let summary = "a scalar's truth (nonzero), or whether a tensor of higher rank has elements";
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I1]>:$output);
  let inferFn = "inferToBool";
}

def TF_CrossOp : TF_Op<"Cross"> {
  let summary = "the cross product of 3-vectors along the last dimension";
  let dataArgs = (ins TF_NumberTensor:$a, TF_NumberTensor:$b, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$product);
  let inferFn = "inferCross";
}

def TF_L2LossOp : TF_Op<"L2Loss"> {
  let summary = "sum(t * t) / 2";
  let description = [{
    (Its attribute `T` is not declared: the accessor would clash with the input `t`'s.)
  }];
  let dataArgs = (ins TF_FloatTensor:$t);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferScalarOfFirst";
}

def TF_BiasAddGradOp : TF_Op<"BiasAddGrad"> {
  let summary = "out_backprop summed over every dimension but the channel";
  let dataArgs = (ins TF_NumberTensor:$out_backprop,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferBiasAddGrad";
}

//===----------------------------------------------------------------------===//
// Gradients of window ops, batch normalisation and the cross-entropy losses, which
// kiln-graph-decompose writes as forward ops (dialects/TF/Ops/Gradients.cpp): window
// offsets taken as strided slices of the padded input, products or selections per
// offset, and the gradient put back by spreading it out with the strides.
//===----------------------------------------------------------------------===//

class TF_FilterGradOp<string mnemonic, string what, int rank> : TF_Op<mnemonic> {
  let summary = "the gradient of " # what # " with respect to its filter";
  let description = [{
    `filter_sizes` (a constant) is the filter's shape; `input` and `out_backprop` are the
    forward convolution's input and the gradient of its output; the window attributes are
    the forward op's. Written as one product (or, depthwise, a product summed) per filter
    tap: that tap's strided slice of the padded input against `out_backprop`.
  }];
  let dataArgs = (ins TF_FloatTensor:$input, TF_IndexTensor:$filter_sizes,
      TF_FloatTensor:$out_backprop, I64ArrayAttr:$strides, StrAttr:$padding,
      OptionalAttr<I64ArrayAttr>:$explicit_paddings,
      DefaultValuedOptionalAttr<StrAttr, !if(!eq(rank, 3), "\"NDHWC\"", "\"NHWC\"")>:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations, OptionalAttr<BoolAttr>:$use_cudnn_on_gpu,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferFilterGrad";
}
def TF_Conv2DBackpropFilterOp : TF_FilterGradOp<"Conv2DBackpropFilter", "Conv2D", 2>;
def TF_Conv3DBackpropFilterV2Op : TF_FilterGradOp<"Conv3DBackpropFilterV2", "Conv3D", 3>;
def TF_DepthwiseConv2dNativeBackpropFilterOp
    : TF_FilterGradOp<"DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNative", 2>;

def TF_DepthwiseConv2dNativeBackpropInputOp : TF_Op<"DepthwiseConv2dNativeBackpropInput"> {
  let summary = "the gradient of DepthwiseConv2dNative with respect to its input";
  let description = [{
    As Conv2DBackpropInput with a [height, width, channels, multiplier] filter: per filter
    tap, the gradient's channel multiples weighted by the tap and summed, spread out by the
    strides to that tap's input positions.
  }];
  let dataArgs = (ins TF_IndexTensor:$input_sizes, TF_FloatTensor:$filter,
      TF_FloatTensor:$out_backprop, I64ArrayAttr:$strides, StrAttr:$padding,
      OptionalAttr<I64ArrayAttr>:$explicit_paddings,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferDepthwiseConv2DBackpropInput";
}

class TF_AvgPoolGradOp<string mnemonic, int rank> : TF_Op<mnemonic> {
  let summary = "the gradient of AvgPool" # !if(!eq(rank, 3), "3D", "") # ": each "
                "output's gradient divided among the input elements of its window";
  let dataArgs = (ins TF_IndexTensor:$orig_input_shape, TF_FloatTensor:$grad,
      I64ArrayAttr:$ksize, I64ArrayAttr:$strides, StrAttr:$padding,
      DefaultValuedOptionalAttr<StrAttr, !if(!eq(rank, 3), "\"NDHWC\"", "\"NHWC\"")>:$data_format,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferAvgPoolGrad";
}
def TF_AvgPoolGradOp : TF_AvgPoolGradOp<"AvgPoolGrad", 2>;
def TF_AvgPool3DGradOp : TF_AvgPoolGradOp<"AvgPool3DGrad", 3>;

// MaxPoolGrad: each output's gradient goes to the first maximum of its window (windows
// clipped to the input), as TensorFlow's CPU kernels choose it; MaxPoolGradGrad: each
// output takes the gradient (of the input's shape) at its window's first maximum.
class TF_MaxPoolGradOp<string mnemonic, string what, int rank, dag extra> : TF_Op<mnemonic> {
  let summary = what;
  let dataArgs = !con((ins TF_NumberTensor:$orig_input, TF_NumberTensor:$orig_output,
      TF_NumberTensor:$grad), extra, (ins StrAttr:$padding,
      DefaultValuedOptionalAttr<StrAttr, !if(!eq(rank, 3), "\"NDHWC\"", "\"NHWC\"")>:$data_format,
      OptionalAttr<I64ArrayAttr>:$explicit_paddings, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$TInput));
  let results = (outs TF_NumberTensor:$output);
  let inferFn = "inferMaxPoolGrad";
}
defvar MaxPoolAttrs = (ins I64ArrayAttr:$ksize, I64ArrayAttr:$strides);
defvar MaxPoolOperands = (ins TF_IndexTensor:$ksize, TF_IndexTensor:$strides);
defvar MaxPoolGradWhat = "the gradient of MaxPool with respect to its input";
defvar MaxPoolGradGradWhat = "the gradient of MaxPoolGrad with respect to its gradient";
def TF_MaxPoolGradOp : TF_MaxPoolGradOp<"MaxPoolGrad", MaxPoolGradWhat, 2, MaxPoolAttrs>;
def TF_MaxPoolGradV2Op : TF_MaxPoolGradOp<"MaxPoolGradV2", MaxPoolGradWhat # " (ksize and "
                                          "strides constant operands)", 2, MaxPoolOperands>;
def TF_MaxPool3DGradOp : TF_MaxPoolGradOp<"MaxPool3DGrad", MaxPoolGradWhat, 3, MaxPoolAttrs>;
def TF_MaxPoolGradGradOp : TF_MaxPoolGradOp<"MaxPoolGradGrad", MaxPoolGradGradWhat, 2,
                                            MaxPoolAttrs>;
def TF_MaxPoolGradGradV2Op : TF_MaxPoolGradOp<"MaxPoolGradGradV2", MaxPoolGradGradWhat #
                                              " (ksize and strides constant operands)", 2,
                                              MaxPoolOperands>;
def TF_MaxPool3DGradGradOp : TF_MaxPoolGradOp<"MaxPool3DGradGrad", MaxPoolGradGradWhat, 3,
                                              MaxPoolAttrs>;

class TF_FusedBatchNormGradOpBase<string mnemonic, dag extraArgs> : TF_Op<mnemonic> {
  let summary = "the gradients of FusedBatchNorm with respect to x, scale and offset";
  let description = [{
    `reserve_space_1` and `reserve_space_2` are the mean and variance the forward op used
    (the batch's when `is_training`); the last two results are empty, as TensorFlow's.
  }];
  let dataArgs = !con((ins TF_FloatTensor:$y_backprop, TF_FloatTensor:$x,
      TF_FloatTensor:$scale, TF_FloatTensor:$reserve_space_1,
      TF_FloatTensor:$reserve_space_2), extraArgs, (ins
      DefaultValuedOptionalAttr<F32Attr, "0.0001f">:$epsilon,
      DefaultValuedOptionalAttr<StrAttr, "\"NHWC\"">:$data_format,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$is_training,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$U));
  let results = (outs TF_FloatTensor:$x_backprop, TF_FloatTensor:$scale_backprop,
                      TF_FloatTensor:$offset_backprop, TF_FloatTensor:$reserve_a,
                      TF_FloatTensor:$reserve_b);
  let inferFn = "inferFusedBatchNormGrad";
}
def TF_FusedBatchNormGradOp : TF_FusedBatchNormGradOpBase<"FusedBatchNormGrad", (ins)>;
def TF_FusedBatchNormGradV2Op : TF_FusedBatchNormGradOpBase<"FusedBatchNormGradV2", (ins)>;
def TF_FusedBatchNormGradV3Op : TF_FusedBatchNormGradOpBase<"FusedBatchNormGradV3",
                                    (ins TF_FloatTensor:$reserve_space_3)>;

def TF_SoftmaxCrossEntropyWithLogitsOp : TF_Op<"SoftmaxCrossEntropyWithLogits"> {
  let summary = "softmax cross entropy per row of [batch, classes] logits against label "
                "distributions (broadcast to the logits), and its gradient";
  let dataArgs = (ins TF_FloatTensor:$features, TF_FloatTensor:$labels,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$loss, TF_FloatTensor:$backprop);
  let inferFn = "inferSoftmaxCrossEntropy";
}

def TF_SparseSoftmaxCrossEntropyWithLogitsOp : TF_Op<"SparseSoftmaxCrossEntropyWithLogits"> {
  let summary = "softmax cross entropy per row of [batch, classes] logits against class "
                "indices, and its gradient";
  let description = [{
    A label outside [0, classes) is an error at run time (the gather of the label's
    logit checks it), as on TensorFlow's CPU.
  }];
  let dataArgs = (ins TF_FloatTensor:$features, TF_IndexTensor:$labels,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tlabels);
  let results = (outs TF_FloatTensor:$loss, TF_FloatTensor:$backprop);
  let inferFn = "inferSoftmaxCrossEntropy";
}

//===----------------------------------------------------------------------===//
// More composites kiln-graph-decompose writes as the ops above (dialects/TF/Ops/
// Composites.cpp).
//===----------------------------------------------------------------------===//

def TF_SparseMatMulOp : TF_Op<"SparseMatMul"> {
  let summary = "MatMul with hints that an operand is mostly zeros (ignored); bfloat16 "
                "operands are widened to float32 first";
  let dataArgs = (ins TF_FloatTensor:$a, TF_FloatTensor:$b,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_a,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$transpose_b,
      OptionalAttr<BoolAttr>:$a_is_sparse, OptionalAttr<BoolAttr>:$b_is_sparse,
      OptionalAttr<TypeAttr>:$Ta, OptionalAttr<TypeAttr>:$Tb);
  let results = (outs TF_FloatTensor:$product);
  let inferFn = "inferSparseMatMul";
}

def TF_GenericConvOp : TF_Op<"Conv"> {
  let summary = "convolution of any spatial rank (TensorFlow 2's Conv): a Conv2D or Conv3D";
  let description = [{
    `data_format` is "CHANNELS_LAST" or "CHANNELS_FIRST" (2-D only); `batch_dims` must be
    1; `groups` is implied by the filter's input channels, as for Conv2D and Conv3D.
  }];
  let dataArgs = (ins TF_FloatTensor:$input, TF_FloatTensor:$filter, I64ArrayAttr:$strides,
      StrAttr:$padding, OptionalAttr<I64ArrayAttr>:$explicit_paddings,
      DefaultValuedOptionalAttr<StrAttr, "\"CHANNELS_LAST\"">:$data_format,
      OptionalAttr<I64ArrayAttr>:$dilations,
      DefaultValuedOptionalAttr<I64Attr, "1">:$batch_dims,
      DefaultValuedOptionalAttr<I64Attr, "1">:$groups, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferGenericConv";
}

def TF_UniqueV2Op : TF_Op<"UniqueV2"> {
  let summary = "Unique with an axis operand, which must be [] or [0] (a vector's)";
  let dataArgs = (ins TF_Tensor:$x, TF_IndexTensor:$axis, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$Taxis, OptionalAttr<TypeAttr>:$out_idx);
  let results = (outs TF_Tensor:$y, TF_IndexTensor:$idx);
  let inferFn = "inferUniqueV2";
}

def TF_ApproxTopKOp : TF_Op<"ApproxTopK"> {
  let summary = "the k largest (or smallest) entries along the last dimension, exactly: "
                "TopKV2's result, a valid answer for every recall target";
  let dataArgs = (ins TF_FloatTensor:$input, I64Attr:$k,
      DefaultValuedOptionalAttr<I64Attr, "-1">:$reduction_dimension,
      OptionalAttr<F32Attr>:$recall_target,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$is_max_k,
      OptionalAttr<I64Attr>:$reduction_input_size_override,
      OptionalAttr<BoolAttr>:$aggregate_to_topk, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$values, TensorOf<[I32]>:$indices);
  let inferFn = "inferApproxTopK";
}

def TF_UnaryOpsCompositionOp : TF_Op<"_UnaryOpsComposition"> {
  let summary = "grappler's chain of unary ops, `op_names` applied in order";
  let dataArgs = (ins TF_FloatTensor:$x, ArrayAttr:$op_names, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$y);
  let inferFn = "inferUnaryOpsComposition";
}

def TF_ListDiffOp : TF_Op<"ListDiff"> {
  let summary = "the entries of vector x not in y, in order, and their indices in x (a "
                "data-dependent size: a Where of the entries kept)";
  let dataArgs = (ins TF_Tensor:$x, TF_Tensor:$y, OptionalAttr<TypeAttr>:$T,
      OptionalAttr<TypeAttr>:$out_idx);
  let results = (outs TF_Tensor:$out, TF_IndexTensor:$idx);
  let inferFn = "inferListDiff";
}

def TF_DynamicPartitionOp : TF_Op<"DynamicPartition"> {
  let summary = "the rows of data split by partition number (data-dependent sizes: a "
                "Where per partition)";
  let description = [{
    `partitions` has the shape of data's leading dimensions; a partition number outside
    [0, num_partitions) is an error at run time, as in TensorFlow.
  }];
  let dataArgs = (ins TF_Tensor:$data, TensorOf<[I32]>:$partitions, I64Attr:$num_partitions,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs Variadic<TF_Tensor>:$outputs);
  let inferFn = "inferDynamicPartition";
}

class TF_QuantizeAndDequantizeOp<string mnemonic, dag numBits> : TF_Op<mnemonic> {
  let summary = "input rounded to the levels of a num_bits integer scaled to its range "
                "(given, or the input's minimum and maximum), per tensor or along `axis`";
  let dataArgs = !con((ins TF_FloatTensor:$input, TF_FloatTensor:$input_min,
      TF_FloatTensor:$input_max), numBits, (ins
      DefaultValuedOptionalAttr<BoolAttr, "true">:$signed_input,
      OptionalAttr<BoolAttr>:$range_given,
      DefaultValuedOptionalAttr<StrAttr, "\"HALF_TO_EVEN\"">:$round_mode,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$narrow_range,
      DefaultValuedOptionalAttr<I64Attr, "-1">:$axis, OptionalAttr<TypeAttr>:$T));
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferQuantizeAndDequantize";
}
def TF_QuantizeAndDequantizeV2Op : TF_QuantizeAndDequantizeOp<"QuantizeAndDequantizeV2",
    (ins DefaultValuedOptionalAttr<I64Attr, "8">:$num_bits)>;
def TF_QuantizeAndDequantizeV4Op : TF_QuantizeAndDequantizeOp<"QuantizeAndDequantizeV4",
    (ins DefaultValuedOptionalAttr<I64Attr, "8">:$num_bits)>;
def TF_QuantizeAndDequantizeV3Op : TF_QuantizeAndDequantizeOp<"QuantizeAndDequantizeV3",
    (ins TensorOf<[I32]>:$num_bits)>;

def TF_TridiagonalMatMulOp : TF_Op<"TridiagonalMatMul"> {
  let summary = "the product of tridiagonal matrices (their diagonals [..., 1, M]) and "
                "rhs [..., M, N]";
  let dataArgs = (ins TF_FloatTensor:$superdiag, TF_FloatTensor:$maindiag,
      TF_FloatTensor:$subdiag, TF_FloatTensor:$rhs, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferTridiagonalMatMul";
}

// DynamicStitch: the N index tensors, then the N data tensors.
class TF_StitchOp<string mnemonic> : TF_Op<mnemonic> {
  let summary = "merged[indices[i][j]] = data[i][j], later writes winning; the indices "
                "must be constants (the result's size is their largest + 1)";
  let arguments = (ins Variadic<AnyType>:$inputs_and_controls, I64Attr:$N,
      OptionalAttr<TypeAttr>:$T);
  let opExtraDecls = [{
    /// The number of data inputs: N index tensors and N data tensors.
    unsigned getNumDataInputs() {
      return std::min<unsigned>(2 * getN(), getOperation()->getNumOperands());
    }
    ::mlir::OperandRange getControlInputs() {
      return getInputsAndControls().drop_front(getNumDataInputs());
    }
    ::mlir::MutableOperandRange getControlInputsMutable() {
      return ::mlir::MutableOperandRange(getOperation(), getNumDataInputs(),
                                         getOperation()->getNumOperands() - getNumDataInputs());
    }
  }];
  let results = (outs TF_Tensor:$merged);
  let inferFn = "inferDynamicStitch";
}
def TF_DynamicStitchOp : TF_StitchOp<"DynamicStitch">;
def TF_ParallelDynamicStitchOp : TF_StitchOp<"ParallelDynamicStitch">;

def TF_MirrorPadGradOp : TF_Op<"MirrorPadGrad"> {
  let summary = "the gradient of MirrorPad: each padded element's gradient added to the "
                "element it mirrors";
  let dataArgs = (ins TF_Tensor:$input, TF_IndexTensor:$paddings, StrAttr:$mode,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Tpaddings);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferMirrorPadGrad";
}

class TF_StridedSliceWriteOp<string mnemonic, string what, dag first, dag last>
    : TF_Op<mnemonic> {
  let summary = what;
  let dataArgs = !con(first, (ins TF_IndexTensor:$begin, TF_IndexTensor:$end,
      TF_IndexTensor:$strides), last, (ins
      DefaultValuedOptionalAttr<I64Attr, "0">:$begin_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$end_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$ellipsis_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$new_axis_mask,
      DefaultValuedOptionalAttr<I64Attr, "0">:$shrink_axis_mask,
      OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$Index));
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferStridedSliceWrite";
}
def TF_StridedSliceGradOp : TF_StridedSliceWriteOp<"StridedSliceGrad",
    "the gradient of StridedSlice: zeros of `shape` with dy where the slice read",
    (ins TF_IndexTensor:$shape), (ins TF_Tensor:$dy)>;
def TF_TensorStridedSliceUpdateOp : TF_StridedSliceWriteOp<"TensorStridedSliceUpdate",
    "input with the strided slice replaced by `value`", (ins TF_Tensor:$input),
    (ins TF_Tensor:$value)>;

//===----------------------------------------------------------------------===//
// Stateless random numbers (Ops/Random.cpp): TensorFlow's CPU kernels' Philox-4x32-10
// streams, bit for bit. A key (uint64 [1]) and a 128-bit counter (uint64 [2]) start the
// stream; element i of a result takes lane i % G of the Philox block counter + i / G (G = 4
// for 32-bit samples, 2 for 64-bit ones).
//===----------------------------------------------------------------------===//

def TF_StatelessRandomGetKeyCounterOp : TF_Op<"StatelessRandomGetKeyCounter"> {
  let summary = "the Philox key and counter TensorFlow derives from a [2] seed";
  let dataArgs = (ins TF_IndexTensor:$seed, OptionalAttr<TypeAttr>:$Tseed);
  let results = (outs TensorOf<[UI64]>:$key, TensorOf<[UI64]>:$counter);
  let inferFn = "inferRandomKeyCounter";
}

def TF_StatelessRandomGetKeyCounterAlgOp : TF_Op<"StatelessRandomGetKeyCounterAlg"> {
  let summary = "StatelessRandomGetKeyCounter and the algorithm, Philox (1)";
  let dataArgs = (ins TF_IndexTensor:$seed, OptionalAttr<TypeAttr>:$Tseed);
  let results = (outs TensorOf<[UI64]>:$key, TensorOf<[UI64]>:$counter,
                      TensorOf<[I32]>:$alg);
  let inferFn = "inferRandomKeyCounter";
}

def TF_DeviceIndexOp : TF_Op<"DeviceIndex", [TF_HostOnly]> {
  let summary = "the index of the type of the device it runs on in `device_names` (their "
                "number if absent): that of \"CPU\", where Kiln keeps it";
  let description = [{
    TensorFlow's functions that choose an implementation by device (Keras's recurrent
    layers, `execute_fn_for_device`) switch on it; `kiln-graph-decompose` makes it the
    constant for the CPU, where the op runs (TF_HostOnly), so they take their CPU branch on
    every device.
  }];
  let dataArgs = (ins StrArrayAttr:$device_names);
  let results = (outs TensorOf<[I32]>:$index);
  let inferFn = "inferRandomKeyCounter";
}

def TF_StatelessRandomGetAlgOp : TF_Op<"StatelessRandomGetAlg"> {
  let summary = "the random algorithm for the device: Philox (1), as on TensorFlow's CPU";
  let results = (outs TensorOf<[I32]>:$alg);
  let inferFn = "inferRandomKeyCounter";
}

// The V2 ops: shape, key, counter and alg (1 Philox, or 3, auto-select, which is Philox).
class TF_StatelessRandomV2Op<string mnemonic, string what, dag extraArgs, Type element>
    : TF_Op<mnemonic> {
  let summary = what # ", from a Philox key and counter";
  let dataArgs = !con((ins TF_IndexTensor:$shape, TensorOf<[UI64]>:$key,
      TensorOf<[UI64]>:$counter, TensorOf<[I32]>:$alg), extraArgs,
      (ins OptionalAttr<TypeAttr>:$dtype, OptionalAttr<TypeAttr>:$Tshape));
  let results = (outs TensorOf<[element]>:$output);
  let inferFn = "inferStatelessRandom";
}
defvar RandomFloat = TF_FloatElement;
defvar RandomInt = AnyTypeOf<[I32, I64, UI32, UI64]>;
defvar RandomBounds = (ins TensorOf<[RandomInt]>:$minval, TensorOf<[RandomInt]>:$maxval);
def TF_StatelessRandomUniformV2Op : TF_StatelessRandomV2Op<"StatelessRandomUniformV2",
    "uniform numbers in [0, 1)", (ins), RandomFloat>;
def TF_StatelessRandomNormalV2Op : TF_StatelessRandomV2Op<"StatelessRandomNormalV2",
    "standard normal numbers (Box-Muller)", (ins), RandomFloat>;
def TF_StatelessTruncatedNormalV2Op : TF_StatelessRandomV2Op<"StatelessTruncatedNormalV2",
    "standard normal numbers within 2 of 0 (Box-Muller samples outside dropped)", (ins),
    RandomFloat>;
def TF_StatelessRandomUniformIntV2Op : TF_StatelessRandomV2Op<"StatelessRandomUniformIntV2",
    "integers in [minval, maxval) (constants)", RandomBounds, RandomInt>;
def TF_StatelessRandomUniformFullIntV2Op : TF_StatelessRandomV2Op<
    "StatelessRandomUniformFullIntV2", "integers of every value of the type", (ins), RandomInt>;

// The first forms take a [2] seed, which kiln-graph-decompose turns into a key and a
// counter (StatelessRandomGetKeyCounter) for the V2 op.
class TF_StatelessRandomV1Op<string mnemonic, string what, dag extraArgs, Type element>
    : TF_Op<mnemonic> {
  let summary = what # ", from a [2] seed";
  let dataArgs = !con((ins TF_IndexTensor:$shape, TF_IndexTensor:$seed), extraArgs,
      (ins OptionalAttr<TypeAttr>:$dtype, OptionalAttr<TypeAttr>:$T,
       OptionalAttr<TypeAttr>:$Tseed));
  let results = (outs TensorOf<[element]>:$output);
  let inferFn = "inferStatelessRandom";
}
def TF_StatelessRandomUniformOp : TF_StatelessRandomV1Op<"StatelessRandomUniform",
    "uniform numbers in [0, 1)", (ins), RandomFloat>;
def TF_StatelessRandomNormalOp : TF_StatelessRandomV1Op<"StatelessRandomNormal",
    "standard normal numbers (Box-Muller)", (ins), RandomFloat>;
def TF_StatelessTruncatedNormalOp : TF_StatelessRandomV1Op<"StatelessTruncatedNormal",
    "standard normal numbers within 2 of 0 (Box-Muller samples outside dropped)", (ins),
    RandomFloat>;
def TF_StatelessRandomUniformIntOp : TF_StatelessRandomV1Op<"StatelessRandomUniformInt",
    "integers in [minval, maxval) (constants)", RandomBounds, RandomInt>;
def TF_StatelessRandomUniformFullIntOp : TF_StatelessRandomV1Op<"StatelessRandomUniformFullInt",
    "integers of every value of the type", (ins), RandomInt>;

//===----------------------------------------------------------------------===//
// Special functions: calls, element by element, of libkiln_kernels' Eigen implementations
// (the ones TensorFlow's CPU kernels use), so on a CPU (TF_HostOnly). float16 and
// bfloat16 go through float32.
//===----------------------------------------------------------------------===//

class TF_SpecialUnaryOp<string mnemonic, string what>
    : TF_ActivationOp<mnemonic, what, "x", "y", TF_FloatTensor, [TF_Elementwise, TF_HostOnly]>;
def TF_LgammaOp : TF_SpecialUnaryOp<"Lgamma", "log |gamma(x)|">;
def TF_DigammaOp : TF_SpecialUnaryOp<"Digamma", "the derivative of lgamma(x)">;
def TF_ErfinvOp : TF_SpecialUnaryOp<"Erfinv", "the inverse error function: ndtri((x + 1) / 2) / sqrt(2)">;
def TF_NdtriOp : TF_SpecialUnaryOp<"Ndtri", "the inverse of the standard normal CDF">;
def TF_BesselI0eOp : TF_SpecialUnaryOp<"BesselI0e",
    "the exponentially scaled modified Bessel function of order 0, exp(-|x|) I0(x)">;
def TF_BesselI1eOp : TF_SpecialUnaryOp<"BesselI1e",
    "the exponentially scaled modified Bessel function of order 1, exp(-|x|) I1(x)">;

class TF_SpecialBinaryOp<string mnemonic, string what>
    : TF_BinaryOp<mnemonic, what, TF_FloatTensor, TF_FloatTensor, "inferBroadcastBinary",
                  [TF_HostOnly]>;
def TF_IgammaOp : TF_SpecialBinaryOp<"Igamma",
    "the regularized lower incomplete gamma function P(a, x) (a is `x` here, x is `y`)">;
def TF_IgammacOp : TF_SpecialBinaryOp<"Igammac",
    "the regularized upper incomplete gamma function Q(a, x) (a is `x` here, x is `y`)">;
def TF_IgammaGradAOp : TF_SpecialBinaryOp<"IgammaGradA",
    "the derivative of Igamma(a, x) with respect to a">;
def TF_RandomGammaGradOp : TF_SpecialBinaryOp<"RandomGammaGrad",
    "the derivative of a gamma sample with respect to its alpha (alpha is `x`, the sample `y`)">;
def TF_ZetaOp : TF_SpecialBinaryOp<"Zeta", "the Hurwitz zeta function zeta(x, q) (q is `y`)">;
def TF_PolygammaOp : TF_SpecialBinaryOp<"Polygamma",
    "the polygamma function psi^(n)(x) (n is `x` here, x is `y`)">;

def TF_BetaincOp : TF_Op<"Betainc", [TF_Elementwise, TF_HostOnly]> {
  let summary = "the regularized incomplete beta function I_x(a, b)";
  let description = [{
    Operands that are not scalars have one shape, the result's; scalars apply to every
    element, as in TensorFlow's kernel.
  }];
  let dataArgs = (ins TF_FloatTensor:$a, TF_FloatTensor:$b, TF_FloatTensor:$x,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$z);
  let inferFn = "inferBetainc";
}

//===----------------------------------------------------------------------===//
// Matrix factorizations and solvers, on batches of matrices in the last two dimensions:
// the runtime's kernels (kiln/kernels/linalg.h), Eigen's algorithms as in TensorFlow's CPU
// kernels, so on a CPU (TF_HostOnly); float16 and bfloat16 through float32. Where
// TensorFlow's kernel fails on a singular matrix the compiled model's call fails too.
//===----------------------------------------------------------------------===//

class TF_FactorizationOp<string mnemonic> : TF_Op<mnemonic, [TF_HostOnly]>;

def TF_CholeskyOp : TF_FactorizationOp<"Cholesky"> {
  let summary = "the lower Cholesky factor of each matrix (its lower triangle is read)";
  let description = [{
    A matrix that is not positive definite gives NaNs in its lower triangle, as TensorFlow
    writes them.
  }];
  let dataArgs = (ins TF_FloatTensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferSquareMatrices";
}

def TF_MatrixInverseOp : TF_FactorizationOp<"MatrixInverse"> {
  let summary = "the inverse of each matrix (of its transpose with `adjoint`), by LU with "
                "partial pivoting; a zero pivot fails the call";
  let dataArgs = (ins TF_FloatTensor:$input,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adjoint, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferSquareMatrices";
}

def TF_MatrixSolveOp : TF_FactorizationOp<"MatrixSolve"> {
  let summary = "x with matrix x = rhs (matrix transposed with `adjoint`), by LU with "
                "partial pivoting; a zero pivot fails the call";
  let dataArgs = (ins TF_FloatTensor:$matrix, TF_FloatTensor:$rhs,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adjoint, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferMatrixSolve";
}

def TF_MatrixTriangularSolveOp : TF_FactorizationOp<"MatrixTriangularSolve"> {
  let summary = "x with triangle(matrix) x = rhs, the lower or upper triangle read "
                "(transposed with `adjoint`); batch dimensions broadcast";
  let dataArgs = (ins TF_FloatTensor:$matrix, TF_FloatTensor:$rhs,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$lower,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$adjoint, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferMatrixSolve";
}

def TF_QrOp : TF_FactorizationOp<"Qr"> {
  let summary = "input = q r, q with orthonormal columns, r upper triangular (Householder)";
  let dataArgs = (ins TF_FloatTensor:$input,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$full_matrices, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$q, TF_FloatTensor:$r);
  let inferFn = "inferQr";
}

def TF_SelfAdjointEigV2Op : TF_FactorizationOp<"SelfAdjointEigV2"> {
  let summary = "the eigenvalues (ascending) and eigenvectors (columns) of each symmetric "
                "matrix, its lower triangle read";
  let dataArgs = (ins TF_FloatTensor:$input,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$compute_v, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$e, TF_FloatTensor:$v);
  let inferFn = "inferSelfAdjointEigV2";
}

def TF_SvdOp : TF_FactorizationOp<"Svd"> {
  let summary = "input = u diag(s) v^T, the singular values s descending";
  let dataArgs = (ins TF_FloatTensor:$input,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$compute_uv,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$full_matrices, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$s, TF_FloatTensor:$u, TF_FloatTensor:$v);
  let inferFn = "inferSvd";
}

def TF_TridiagonalSolveOp : TF_FactorizationOp<"TridiagonalSolve"> {
  let summary = "x with t x = rhs, t tridiagonal: diagonals [..., 3, M] holds its "
                "superdiagonal, diagonal and subdiagonal";
  let description = [{
    By Gaussian elimination with partial pivoting (the default) or the Thomas algorithm; a
    singular system gives NaNs, as TensorFlow writes them. `perturb_singular` is refused.
  }];
  let dataArgs = (ins TF_FloatTensor:$diagonals, TF_FloatTensor:$rhs,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$partial_pivoting,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$perturb_singular,
      OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_FloatTensor:$output);
  let inferFn = "inferTridiagonalSolve";
}

//===----------------------------------------------------------------------===//
// Data-dependent sizes. Each op's result size along its first dimension depends on the
// values it reads; `kiln-graph-bound-sizes` gives such a result the static type of its
// bound, and the op then writes its first `count` rows (the size TensorFlow's result would
// have, at most the bound) and zeros after them: the padded form the ops after it see.
//===----------------------------------------------------------------------===//

def TF_WhereOp : TF_Op<"Where", [TF_HostOnly]> {
  let summary = "the coordinates of the input's true (nonzero) elements, in row-major order";
  let description = [{
    ```mlir
    %i = "tf.Where"(%mask) : (tensor<3x4xi1>) -> tensor<?x2xi64>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TensorOf<[I64]>:$index);
  let inferFn = "inferWhere";
}

def TF_UniqueOp : TF_Op<"Unique", [TF_HostOnly]> {
  let summary = "the distinct values of a vector in order of first appearance, and for each "
                "element the position of its value among them";
  let dataArgs = (ins TF_Tensor:$x, OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$out_idx);
  let results = (outs TF_Tensor:$y, TF_IndexTensor:$idx);
  let inferFn = "inferUnique";
}

class TF_NonMaxSuppressionOp<string mnemonic, string what, dag extraArgs, dag extraResults>
    : TF_Op<mnemonic, [TF_HostOnly]> {
  let summary = "greedy non-max suppression of boxes [y1, x1, y2, x2] by score" # what;
  let description = [{
    As TensorFlow's CPU kernel: candidates (score above `score_threshold`) are visited
    in decreasing order of score, the lower index first among equal scores; a candidate is
    selected unless its intersection over union with a selected box exceeds
    `iou_threshold` (with `soft_nms_sigma` > 0, each selected box instead scales its score
    by exp(-iou^2 / (2 sigma)), and it returns to the candidates while above the
    threshold), until `max_output_size` are selected. `iou_threshold` must be in [0, 1]
    and `max_output_size` not negative (checked at run time). With
    `pad_to_max_output_size`, the result has `max_output_size` entries (a constant), zeros
    after `valid_outputs`.
  }];
  let dataArgs = !con((ins TensorOf<[F32]>:$boxes, TensorOf<[F32]>:$scores,
      TensorOf<[I32]>:$max_output_size, TensorOf<[F32]>:$iou_threshold,
      TensorOf<[F32]>:$score_threshold), extraArgs);
  let results = !con((outs TensorOf<[I32]>:$selected_indices), extraResults);
  let inferFn = "inferNonMaxSuppression";
}

def TF_NonMaxSuppressionV3Op : TF_NonMaxSuppressionOp<"NonMaxSuppressionV3", "",
    (ins OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$T_threshold), (outs)>;
def TF_NonMaxSuppressionV4Op : TF_NonMaxSuppressionOp<"NonMaxSuppressionV4",
    ", with the number selected",
    (ins DefaultValuedOptionalAttr<BoolAttr, "false">:$pad_to_max_output_size,
     OptionalAttr<TypeAttr>:$T, OptionalAttr<TypeAttr>:$T_threshold),
    (outs TensorOf<[I32]>:$valid_outputs)>;
def TF_NonMaxSuppressionV5Op : TF_NonMaxSuppressionOp<"NonMaxSuppressionV5",
    ", with the selected boxes' scores and their number; soft-NMS with soft_nms_sigma > 0",
    (ins TensorOf<[F32]>:$soft_nms_sigma,
     DefaultValuedOptionalAttr<BoolAttr, "false">:$pad_to_max_output_size,
     OptionalAttr<TypeAttr>:$T),
    (outs TensorOf<[F32]>:$selected_scores, TensorOf<[I32]>:$valid_outputs)>;

def TF_CombinedNonMaxSuppressionOp : TF_Op<"CombinedNonMaxSuppression", [TF_HostOnly]> {
  let summary = "non-max suppression per batch and class, the survivors of every class "
                "merged by score";
  let description = [{
    As TensorFlow's CPU kernel: for each image and class, hard NMS of the boxes
    ([batch, boxes, q, 4], q = 1 or one box per class) by that class's scores
    ([batch, boxes, classes]) keeps at most `max_output_size_per_class`; the kept boxes of
    all classes are ordered by score (equal scores: the lower class, then the earlier
    selected, first; TensorFlow's order of equal scores is unspecified) and the first
    `max_total_size` (a constant) are the result, boxes clipped to [0, 1] with
    `clip_boxes`, zeros after `valid_detections`. With `pad_per_class`, the result has
    min(max_total_size, max_output_size_per_class * classes) entries instead (both constants).
  }];
  let dataArgs = (ins TensorOf<[F32]>:$boxes, TensorOf<[F32]>:$scores,
      TensorOf<[I32]>:$max_output_size_per_class, TensorOf<[I32]>:$max_total_size,
      TensorOf<[F32]>:$iou_threshold, TensorOf<[F32]>:$score_threshold,
      DefaultValuedOptionalAttr<BoolAttr, "false">:$pad_per_class,
      DefaultValuedOptionalAttr<BoolAttr, "true">:$clip_boxes);
  let results = (outs TensorOf<[F32]>:$nmsed_boxes, TensorOf<[F32]>:$nmsed_scores,
                      TensorOf<[F32]>:$nmsed_classes, TensorOf<[I32]>:$valid_detections);
  let inferFn = "inferCombinedNonMaxSuppression";
}

#endif // KILN_TF_OPS_TD
