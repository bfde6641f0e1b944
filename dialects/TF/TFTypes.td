//===- TFTypes.td - tf dialect types -----------------------------*- tablegen -*-===//

#ifndef KILN_TF_TYPES_TD
#define KILN_TF_TYPES_TD

include "dialects/TF/TFDialect.td"

class TF_Type<string name, string typeMnemonic> : TypeDef<TF_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def TF_ControlType : TF_Type<"Control", "control"> {
  let summary = "a control token: ordering without data";
  let description = [{
    The result of an op that has no data outputs (`tf.NoOp`). It is used only as a control
    input of other ops.
  }];
}

#endif // KILN_TF_TYPES_TD
