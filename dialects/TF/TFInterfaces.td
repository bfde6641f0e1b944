//===- TFInterfaces.td - interfaces of tf ops --------------------*- tablegen -*-===//

#ifndef KILN_TF_INTERFACES_TD
#define KILN_TF_INTERFACES_TD

include "mlir/IR/OpBase.td"

def TF_GraphOpInterface : OpInterface<"GraphOpInterface"> {
  let cppNamespace = "::kiln::tf";
  let description = [{
    Every tf op is a graph node: its operands are its data inputs followed by its control
    inputs. Graph passes use this interface to tell the two apart without knowing the op.
  }];
  let methods = [
    InterfaceMethod<"Returns the control inputs (ordering only, no data).",
      "::mlir::OperandRange", "getControlInputs", (ins), [{}],
      [{ return $_op.getControlInputs(); }]>,
    InterfaceMethod<"Returns the control inputs, mutable.",
      "::mlir::MutableOperandRange", "getControlInputsMutable", (ins), [{}],
      [{ return $_op.getControlInputsMutable(); }]>,
    InterfaceMethod<"Returns the data inputs.",
      "::mlir::OperandRange", "getDataInputs", (ins), [{}],
      [{ return $_op->getOperands().drop_back($_op.getControlInputs().size()); }]>,
    StaticInterfaceMethod<[{
      Returns TensorFlow's names of the op's output arguments (its OpDef's output_arg),
      comma-separated, in order: a function body names output `i` of argument `name` of
      node `n` as `n:name:i`.
    }], "::llvm::StringRef", "getOutputArgNames", (ins)>,
  ];
}

def TF_RuntimeChecksInterface : OpInterface<"RuntimeChecksInterface"> {
  let cppNamespace = "::kiln::tf";
  let description = [{
    Ops whose TensorFlow kernels report errors about input values (integer division by
    zero, an index out of range, an integer raised to a negative power). Each says which of
    its operands must meet which condition; `kiln-graph-insert-checks` makes a `kiln.check`
    of each, or a compile-time error where the operand is a constant that breaks it.
  }];
  let methods = [
    InterfaceMethod<"Appends the conditions the op's operands must meet.",
      "void", "getRuntimeChecks",
      (ins "::llvm::SmallVectorImpl<::kiln::tf::RuntimeCheck> &":$checks)>,
  ];
}

// Ops each of whose result elements is computed from the operands' elements at the same
// position (after NumPy broadcasting) and from nothing else: `kiln-graph-bound-sizes` lets
// them take tensors of value-dependent size, whose padding they carry along untouched.
def TF_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::kiln::tf::traits";
}

// Ops whose lowering is one sequential loop over their input (Where, Unique, the non-max
// suppressions): `kiln-graph-place` keeps them on a CPU.
def TF_HostOnly : NativeOpTrait<"HostOnly"> {
  let cppNamespace = "::kiln::tf::traits";
}

#endif // KILN_TF_INTERFACES_TD
