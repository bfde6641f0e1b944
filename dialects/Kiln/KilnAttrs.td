//===- KilnAttrs.td - The kiln dialect's attributes --------------*- tablegen -*-===//
#ifndef KILN_KILN_ATTRS_TD
#define KILN_KILN_ATTRS_TD

include "dialects/Kiln/KilnDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_EpilogueAttr : AttrDef<Kiln_Dialect, "Epilogue"> {
  let mnemonic = "epilogue";
  let summary = "what a kernel applies to each value it writes";
  let description = [{
    `min(max(v * scale + bias, lo), hi)` for each value v a kernel writes, where `scale`
    and `bias` are either constants or, with `input N`, the kernel call's input N (a buffer
    with one value per output channel, the last dimension). Fields at their identity
    (scale 1, bias 0, no bounds) are left out.

    ```mlir
    #kiln.epilogue<scale = input 2, bias = input 3, lo = 0.0, hi = 6.0>
    #kiln.epilogue<bias = 0.5>
    ```
  }];
  let parameters = (ins "int64_t":$scale_input, "::mlir::FloatAttr":$scale,
                        "int64_t":$bias_input, "::mlir::FloatAttr":$bias,
                        "::mlir::FloatAttr":$lo, "::mlir::FloatAttr":$hi);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The identity: scale 1, bias 0, no bounds.
    static EpilogueAttr getIdentity(::mlir::MLIRContext *context);
    /// Each value as a float (the bounds as +-infinity when absent).
    float getScaleValue() const;
    float getBiasValue() const;
    float getLoValue() const;
    float getHiValue() const;
    /// The same epilogue with its input positions moved by `offset`.
    EpilogueAttr withInputsShifted(int64_t offset) const;
  }];
}

#endif // KILN_KILN_ATTRS_TD
