//===- KilnAttrs.td - The kiln dialect's attributes --------------*- tablegen -*-===//
#ifndef KILN_KILN_ATTRS_TD
#define KILN_KILN_ATTRS_TD

include "dialects/Kiln/KilnDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_EpilogueAttr : AttrDef<Kiln_Dialect, "Epilogue"> {
  let mnemonic = "epilogue";
  let summary = "what a kernel applies to each value it writes";
  let description = [{
    `act(min(max(v * scale + bias, lo), hi))` for each value v a kernel writes, where
    `scale` and `bias` are either constants or, with `input N`, the kernel call's input N (a
    buffer with one value per output channel, the last dimension), and `act` is the
    identity, or with `swish`, x / (1 + exp(-x)) (Swish, SiLU: x * sigmoid(x)). Fields at
    their identity (scale 1, bias 0, no bounds, no activation) are left out.

    ```mlir
    #kiln.epilogue<scale = input 2, bias = input 3, lo = 0.0, hi = 6.0>
    #kiln.epilogue<bias = 0.5>
    #kiln.epilogue<scale = input 2, bias = input 3, swish>
    ```
  }];
  let parameters = (ins "int64_t":$scale_input, "::mlir::FloatAttr":$scale,
                        "int64_t":$bias_input, "::mlir::FloatAttr":$bias,
                        "::mlir::FloatAttr":$lo, "::mlir::FloatAttr":$hi, "bool":$swish);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The identity: scale 1, bias 0, no bounds, no activation.
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

def Kiln_TensorAttr : AttrDef<Kiln_Dialect, "Tensor"> {
  let mnemonic = "tensor";
  let summary = "one feed or fetch of an entry point";
  let description = [{
    The tensor's name in the graph (`node:port`), the name a tfcompile config gives it
    (`alias`), and, once `kiln-lower-freeze-interface` has fixed it, its type (static, of
    rank 16 or less, KILN_MAX_RANK: what the C header declares). A fetch whose size depends
    on values (`kiln-graph-bound-sizes`) has the type of its bound and names, with `shape`,
    the fetch that holds its actual shape (int64, one entry per dimension); the entry
    point writes it densely at that shape.

    ```mlir
    #kiln.tensor<"x:0" alias "x" : tensor<1x224x224x3xf32>>
    #kiln.tensor<"logits:0">
    #kiln.tensor<"where:0" : tensor<12x2xi64> shape 1>
    ```
  }];
  let parameters = (ins StringRefParameter<"node:port">:$name,
                        OptionalParameter<"::mlir::StringAttr">:$alias,
                        OptionalParameter<"::mlir::RankedTensorType">:$type,
                        DefaultValuedParameter<"int64_t", "-1">:$shape);
  let assemblyFormat = "`<` $name (`alias` $alias^)? (`:` $type^)? (`shape` $shape^)? `>`";
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$name, "::mlir::StringAttr":$alias,
                     "::mlir::RankedTensorType":$type), [{
      return $_get($_ctxt, name, alias, type, -1);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Kiln_PartAttr : AttrDef<Kiln_Dialect, "Part"> {
  let mnemonic = "part";
  let summary = "one separately compiled function of an entry point";
  let description = [{
    An entry point runs one function, or, for a graph placed on several devices, one per
    partition, all at once; from `kiln-lower-partitions` on, it runs its parts. A part
    names its function, its device (empty when the graph was not placed), the positions in
    the entry's feeds of the inputs it takes and in its fetches of the outputs it writes
    (in its own argument order). `kiln-lower-assign-scratch` records where its scratch
    starts in the entry's arena, how much it uses and how much one slot per buffer would
    have needed (`naive_bytes`, for `--stats`); `kiln-lower-checks` records whether it
    takes the checks' status as its last argument.

    ```mlir
    #kiln.part<function = @main, device = "/cpu:0", inputs = [0], outputs = [0, 1], scratch_offset = 0, scratch_bytes = 4096, naive_bytes = 8192, status = true>
    ```
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$function, "::mlir::StringAttr":$device,
                        "::mlir::DenseI64ArrayAttr":$inputs, "::mlir::DenseI64ArrayAttr":$outputs,
                        DefaultValuedParameter<"int64_t", "0">:$scratch_offset,
                        DefaultValuedParameter<"int64_t", "0">:$scratch_bytes,
                        DefaultValuedParameter<"int64_t", "0">:$naive_bytes,
                        DefaultValuedParameter<"bool", "false">:$status);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The same part with its scratch placed: `bytes` from `offset` in the entry's arena
    /// (`naive`: what one slot per buffer would take).
    PartAttr withScratch(int64_t offset, int64_t bytes, int64_t naive) const;
    /// The same part taking the checks' status as its last argument.
    PartAttr withStatus() const;
  }];
}

def Kiln_CheckAttr : AttrDef<Kiln_Dialect, "Check"> {
  let mnemonic = "check";
  let summary = "one run-time check of a compiled model";
  let description = [{
    What `kiln-lower-checks` records of a `kiln.check` in the model's table: the message
    (a printf-like format whose `{index}` and `{value}` the runtime fills in), the shape of
    the buffer checked, to print a failing element's index, and whether its values are
    unsigned. A failed check's number in the status is its position in the table + 1.

    ```mlir
    #kiln.check<message = "node 'q' (FloorDiv): integer division by zero (y{index} is 0)", dims = [2, 3], unsigned_values = false>
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$message, "::mlir::DenseI64ArrayAttr":$dims,
                        DefaultValuedParameter<"bool", "false">:$unsigned_values);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // KILN_KILN_ATTRS_TD
