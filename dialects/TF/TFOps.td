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

class TF_Op<string mnemonic, list<Trait> traits = []>
    : Op<TF_Dialect, mnemonic, !listconcat(traits, [
        Pure, TF_GraphOpInterface,
        DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  // Data inputs and attributes of the op; control inputs are appended.
  dag dataArgs = (ins);
  // Function in namespace kiln::tf (dialects/TF/Ops) computing the result types.
  string inferFn = ?;
  let arguments = !con(dataArgs, (ins Variadic<AnyType>:$control_inputs));
  let extraClassDeclaration = [{
    /// Result types are compatible when element types match and shapes agree where
    /// both are known.
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs, ::mlir::TypeRange rhs) {
      return ::kiln::tf::areCompatibleResultTypes(lhs, rhs);
    }
  }];
  // ODS writes inferReturnTypes itself when every result type is buildable (NoOp).
  let extraClassDefinition = !if(!empty(inferFn), "", [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(::mlir::MLIRContext *context,
        ::std::optional<::mlir::Location> location, ::mlir::ValueRange operands,
        ::mlir::DictionaryAttr attributes, ::mlir::OpaqueProperties,
        ::mlir::RegionRange, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::kiln::tf::}] # inferFn # [{(
          ::kiln::tf::InferContext{context, location, operands, attributes}, inferred);
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

def TF_IdentityOp : TF_Op<"Identity"> {
  let summary = "returns its input";
  let description = [{
    ```mlir
    %y = "tf.Identity"(%x) {T = f32} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dataArgs = (ins TF_Tensor:$input, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_Tensor:$output);
  let inferFn = "inferSameAsFirstOperand";
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

//===----------------------------------------------------------------------===//
// Elementwise arithmetic with NumPy broadcasting.
//===----------------------------------------------------------------------===//

class TF_BinaryOp<string mnemonic, string what> : TF_Op<mnemonic> {
  let summary = what # ", elementwise, with NumPy broadcasting";
  let description = [{
    ```mlir
    %z = "tf.}] # mnemonic # [{"(%x, %y) {T = f32} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
    Both operands have the element type `T`; the result shape is the broadcast of theirs.
  }];
  let dataArgs = (ins TF_NumberTensor:$x, TF_NumberTensor:$y, OptionalAttr<TypeAttr>:$T);
  let results = (outs TF_NumberTensor:$z);
  let inferFn = "inferBroadcastBinary";
}

def TF_AddOp : TF_BinaryOp<"Add", "x + y">;
def TF_AddV2Op : TF_BinaryOp<"AddV2", "x + y">;
def TF_SubOp : TF_BinaryOp<"Sub", "x - y">;
def TF_MulOp : TF_BinaryOp<"Mul", "x * y">;
def TF_RealDivOp : TF_BinaryOp<"RealDiv", "x / y (integer division truncates toward zero)">;
def TF_MaximumOp : TF_BinaryOp<"Maximum", "max(x, y)">;
def TF_MinimumOp : TF_BinaryOp<"Minimum", "min(x, y)">;

//===----------------------------------------------------------------------===//
// Activations.
//===----------------------------------------------------------------------===//

class TF_ActivationOp<string mnemonic, string what, string inName, string outName,
                      Type type = TF_NumberTensor> : TF_Op<mnemonic> {
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

def TF_ReluOp : TF_ActivationOp<"Relu", "max(features, 0)", "features", "activations">;
def TF_Relu6Op : TF_ActivationOp<"Relu6", "min(max(features, 0), 6)", "features", "activations">;
def TF_SigmoidOp : TF_ActivationOp<"Sigmoid", "1 / (1 + exp(-x))", "x", "y", TF_FloatTensor>;
def TF_TanhOp : TF_ActivationOp<"Tanh", "hyperbolic tangent", "x", "y", TF_FloatTensor>;
def TF_SoftmaxOp : TF_ActivationOp<"Softmax",
    "exp(logits) / sum(exp(logits)) along the last dimension", "logits", "softmax",
    TF_FloatTensor>;

//===----------------------------------------------------------------------===//
// Linear algebra.
//===----------------------------------------------------------------------===//

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
}

def TF_CastOp : TF_Op<"Cast"> {
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
}

#endif // KILN_TF_OPS_TD
