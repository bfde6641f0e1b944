//===- TFDialect.td - The tf dialect: imported TensorFlow ops ----*- tablegen -*-===//
//
// The `tf` dialect holds one op per TensorFlow op, on value tensors, as the importer reads
// them from a GraphDef. Ops keep TensorFlow's spelling (`tf.MatMul`), TensorFlow's attribute
// names, the node name as their location and the node's `device` as an attribute.
//
// Control dependencies (`^node` inputs) are SSA operands in a trailing `control_inputs`
// group: they carry no data, only ordering. A control input refers to output 0 of the node it
// names, or, for nodes without data outputs (NoOp), to its `!tf.control` result.
//
//===----------------------------------------------------------------------------===//

#ifndef KILN_TF_DIALECT_TD
#define KILN_TF_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TF_Dialect : Dialect {
  let name = "tf";
  let cppNamespace = "::kiln::tf";
  let summary = "TensorFlow graph operations, as imported from a GraphDef";
  let description = [{
    One op per TensorFlow op, with TensorFlow's op and attribute names. Values are tensors
    whose element types are TensorFlow's dtypes (`f32`, `i32`, `ui8`, `i1` for bool ...).
    Dimensions unknown at import are dynamic (`?`) until shape inference resolves them from
    the feeds.

    ```mlir
    %0 = "tf.MatMul"(%x, %w) {transpose_a = false, transpose_b = false}
        : (tensor<4x784xf32>, tensor<784x10xf32>) -> tensor<4x10xf32> loc("dense/MatMul")
    ```
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // Attributes live in the op's attribute dictionary: the importer builds ops generically
  // from NodeDefs, and TensorFlow attributes unknown to an op definition must survive.
  let usePropertiesForAttributes = 0;
  // Folded values become tf.Const.
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Element and tensor type constraints (TensorFlow's dtypes).
//===----------------------------------------------------------------------===//

def TF_Bool : TypeAlias<I1, "bool">;
def TF_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def TF_IntElement : AnyTypeOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def TF_NumberElement : AnyTypeOf<[TF_FloatElement, TF_IntElement]>;
def TF_Element : AnyTypeOf<[TF_NumberElement, I1]>;

def TF_Tensor : TensorOf<[TF_Element]>;
def TF_NumberTensor : TensorOf<[TF_NumberElement]>;
def TF_FloatTensor : TensorOf<[TF_FloatElement]>;
def TF_IntTensor : TensorOf<[TF_IntElement]>;
def TF_IndexTensor : TensorOf<[I32, I64]>;

#endif // KILN_TF_DIALECT_TD
