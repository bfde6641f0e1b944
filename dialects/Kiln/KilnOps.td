//===- KilnOps.td - The kiln dialect's ops ------------------------*- tablegen -*-===//
//
// The `kiln` dialect holds what Kiln adds to a TensorFlow graph on its way to machine
// code: the partitions a placed graph is cut into (one per device), the transfers of
// tensors between them (section 3.2.2 of the TensorFlow paper), the checks of input
// values that TensorFlow's kernels make at run time and the calls of the runtime's
// kernels.
//
//===----------------------------------------------------------------------------===//

#ifndef KILN_KILN_OPS_TD
#define KILN_KILN_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

include "dialects/Kiln/KilnAttrs.td"

class Kiln_Op<string mnemonic, list<Trait> traits = []> : Op<Kiln_Dialect, mnemonic, traits>;

def Kiln_PartitionOp : Kiln_Op<"partition", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs one device's part of the graph, concurrently with the others";
  let description = [{
    Calls `callee`, the function holding the ops placed on `device`, with the entry
    function's inputs it reads, and yields the entry function's outputs it computes. All
    `kiln.partition` ops of a function start together, each on a thread of its own (or a
    device of its own), and the function returns when every one has finished; they exchange
    tensors only through `kiln.send`/`kiln.recv` pairs, so their order in the block does not
    matter.

    ```mlir
    %0 = kiln.partition @main.cpu1(%x) on "/job:localhost/replica:0/task:0/device:CPU:1"
        : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, StrAttr:$device,
                       Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = [{
    $callee `(` $inputs `)` `on` $device attr-dict `:` functional-type($inputs, $outputs)
  }];
}

def Kiln_SendOp : Kiln_Op<"send"> {
  let summary = "hands a tensor to the partition that receives it";
  let description = [{
    Sends the value (a tensor, or after bufferization the buffer holding it) under
    `tensor_name`, the key its `kiln.recv` waits for. It may return before the value is
    received; the value may be reused as soon as it returns.

    ```mlir
    kiln.send %0 as "a:0;/device:CPU:1" : tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$value, StrAttr:$tensor_name);
  let assemblyFormat = "$value `as` $tensor_name attr-dict `:` type($value)";
}

def Kiln_RecvOp : Kiln_Op<"recv"> {
  let summary = "waits for a tensor from another partition";
  let description = [{
    Blocks until the tensor sent under `tensor_name` arrives and writes it into `dest`. On
    tensors it yields the received value (`dest` says its shape: a `tensor.empty`); after
    bufferization `dest` is the buffer and there is no result.

    ```mlir
    %1 = kiln.recv "a:0;/device:CPU:1" into %e : tensor<4xf32> -> tensor<4xf32>
    kiln.recv "a:0;/device:CPU:1" into %buf : memref<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$tensor_name, AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$dest);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = "$tensor_name `into` $dest attr-dict `:` type($dest) (`->` type($result)^)?";
  let hasVerifier = 1;
}

def Kiln_CheckOp : Kiln_Op<"check"> {
  let summary = "fails the model's call when a tensor's values break a condition";
  let description = [{
    Where TensorFlow's kernel reports an error about input values, Kiln checks them:
    `nonzero` (an integer divisor), `nonnegative` (an integer power's exponent),
    `in_range`, each value v in [0, bound) with the bounds along the last dimension
    (`bounds` holds one bound for every element, or one per position of the last
    dimension: a GatherNd's index tuples), or `below`, v < bound (negative values pass: an
    UnsortedSegmentSum drops them); on floats, `not_nan` and `not_inf` (CheckNumerics). `message` is what the failed call reports, with
    `{index}` standing for the first failing element's coordinates and `{value}` for its
    value; `unsigned_values` says the integers are unsigned.

    The op has no result and is never removed. `kiln-graph-insert-checks` adds it (or fails
    compilation when the values are constants that break it); after bufferization it reads
    a buffer, and `kiln-lower-checks` turns it into a loop that records the first failure in
    the function's status argument.

    ```mlir
    kiln.check "in_range" %indices bounds [5], "node 'g' (GatherV2): indices{index} = {value} is not in [0, 5)" : tensor<4xi32>
    ```
  }];
  let arguments = (ins StrAttr:$kind, AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$subject,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$bounds, StrAttr:$message,
                       UnitAttr:$unsigned_values);
  let assemblyFormat = [{
    $kind $subject (`bounds` $bounds^)? `,` $message attr-dict `:` type($subject)
  }];
  let hasVerifier = 1;
}

def Kiln_AttentionOp : Kiln_Op<"attention", [Pure,
    AllTypesMatch<["init", "result"]>]> {
  let summary = "scaled dot-product attention, softmax(scale * q k^T + mask) v, in one kernel";
  let description = [{
    Per head: `out = softmax(scale * q k^T) v`, the softmax over each row of scores with
    its maximum subtracted first (TensorFlow's Softmax). `q` is batch x heads x sq x d, `k`
    batch x heads x sk x d, `v` batch x heads x sk x dv and the result batch x heads x sq
    x dv, each of them batch x seq x heads x width instead with its `*_seq_major` flag (the
    layout the projections write, so that the transposes around the products go). An
    optional `mask` is added to the scaled scores: [1 or batch, 1 or heads, 1 or sq, sk],
    broadcast where it has size 1 (BERT's [batch, 1, 1, sk]). `init` is only the result's
    destination (a `tensor.empty`); its values are not read.

    `kiln-lower-fuse-attention` makes it from the graph's two batched products and the
    softmax between them; bufferization turns it into `kiln.kernel_call "attention_f32"`,
    (`attention_masked_f32` with a mask), whose scores never leave the kernel's cache-sized
    block.

    ```mlir
    %o = kiln.attention %q, %k, %v into %init {scale = 1.250000e-01 : f32, q_seq_major}
        : tensor<1x128x12x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>
        -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$q, AnyStaticShapeTensor:$k,
                       AnyStaticShapeTensor:$v, Optional<AnyStaticShapeTensor>:$mask,
                       AnyStaticShapeTensor:$init, F32Attr:$scale,
                       UnitAttr:$q_seq_major, UnitAttr:$k_seq_major, UnitAttr:$v_seq_major,
                       UnitAttr:$out_seq_major);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`mask` $mask^ `:` type($mask))? `into` $init attr-dict `:` type($q)
    `,` type($k) `,` type($v) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The sizes: batch, heads, sq, sk, d, dv.
    ::llvm::SmallVector<int64_t, 6> getSizes();
  }];
}

def Kiln_KernelOp : Kiln_Op<"kernel", [Pure, AttrSizedOperandSegments]> {
  let summary = "a kernel of the runtime on tensors, its results in new buffers";
  let description = [{
    The tensor form of `kiln.kernel_call`: reads `inputs` and writes its results, one per
    `init` (their types; the values of an `init`, a `tensor.empty`, are not read) through the
    kernel `kernel` of the kernel table, whose outputs it writes whole. `params` are the
    call's. Lowerings of ops the runtime computes in one call (the matrix factorizations)
    make it; bufferization turns it into the `kiln.kernel_call`, with contiguous copies of
    buffers that are views.

    ```mlir
    %l = kiln.kernel "cholesky_f32" ins(%a : tensor<2x4x4xf32>) outs(%e : tensor<2x4x4xf32>)
        params {batch = 2 : i64, n = 4 : i64} -> tensor<2x4x4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$kernel, Variadic<AnyStaticShapeTensor>:$inputs,
                       Variadic<AnyStaticShapeTensor>:$inits, DictionaryAttr:$params);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let assemblyFormat = [{
    $kernel (`ins` `(` $inputs^ `:` type($inputs) `)`)? `outs` `(` $inits `:` type($inits) `)`
    `params` $params attr-dict `->` type($results)
  }];
  let hasVerifier = 1;
}

def Kiln_KernelCallOp : Kiln_Op<"kernel_call", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "calls a kernel of the runtime on buffers";
  let description = [{
    Calls the kernel `kernel`, a row of the kernel table (dialects/Kiln/KernelTable.cpp),
    which says the kernel's buffers (their roles, in order, and ranks), its parameters and
    its C signature. `inputs` are the buffers it reads, first the row's, then the
    per-channel buffers its epilogues read; `outputs` are the buffers it writes. `params`
    holds the sizes (i64), pairs (strides, dilations, padding: `array<i64: …>`), flags
    (unit attributes) and epilogues (`#kiln.epilogue`) the row declares. The verifier
    checks the call against the row; `kiln-codegen-expand-kernel-calls` turns it into the
    call of the row's C function, passing buffers by address.

    The call reads its inputs and writes its outputs; it also reads them unless the row's
    overwrite flag is set (or the row always writes its outputs whole).

    ```mlir
    kiln.kernel_call "matmul_epilogue_f32" ins(%a, %b, %bias : memref<64x128xf32>, memref<128x32xf32>, memref<32xf32>)
        outs(%c : memref<64x32xf32>)
        params {m = 64 : i64, n = 32 : i64, k = 128 : i64, overwrite,
                epilogue = #kiln.epilogue<bias = input 2, lo = 0.0>}
    ```
  }];
  let arguments = (ins StrAttr:$kernel, Variadic<AnyMemRef>:$inputs,
                       Variadic<AnyMemRef>:$outputs, DictionaryAttr:$params);
  let assemblyFormat = [{
    $kernel (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`outs` `(` $outputs^ `:` type($outputs) `)`)? `params` $params attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The kernel table's row for this call (the verifier makes sure there is one).
    const ::kiln::dialect::KernelInfo &getInfo();
    /// The fixed input or output of the row's `role`.
    ::mlir::Value getInput(::llvm::StringRef role);
    ::mlir::Value getOutput(::llvm::StringRef role);
    /// The fixed input or, failing that, output of the row's `role`.
    ::mlir::Value getBuffer(::llvm::StringRef role);
    /// Parameters by name: an i64 or i32 size, an f32, a pair, whether a flag is present,
    /// an epilogue (null when absent).
    int64_t getInt(::llvm::StringRef name);
    float getF32(::llvm::StringRef name);
    ::llvm::ArrayRef<int64_t> getPair(::llvm::StringRef name);
    bool hasFlag(::llvm::StringRef name);
    ::kiln::dialect::EpilogueAttr getEpilogue(::llvm::StringRef name = "epilogue");
  }];
}

def Kiln_ModelOp : Kiln_Op<"model", [IsolatedFromAbove, NoRegionArguments, SingleBlock,
                                     NoTerminator, HasParent<"::mlir::ModuleOp">]> {
  let summary = "the interface of a compiled model: its entry points and its state";
  let description = [{
    A compiled model is named `name` (the prefix of its C symbols) and has one or more
    entry points (`kiln.entry`), each running a function of the module with its own feeds
    and fetches, which may share state buffers (`kiln.state`) that persist between calls:
    the weights an `init` entry writes, a `train_step` updates and a `predict` reads. The
    op travels through every stage of the compilation; codegen reads the entry points, the
    C header and `NAME_info` from it. One per module; entry and state names are distinct C
    identifiers. The lowering records two tables of the whole model in it: `checks`, the
    run-time checks a failed status refers to by number (`kiln-lower-checks`), and
    `rendezvous_keys`, the tensors its partitions send and receive, which the runtime's
    calls refer to by position (`kiln-lower-rendezvous-calls`).

    ```mlir
    kiln.model "counter" {
      kiln.state "w" : tensor<4xf32>
      kiln.entry "init" = @init feeds [] fetches [] {updates = ["w"]}
      kiln.entry "predict" = @predict feeds [#kiln.tensor<"x:0" : tensor<4xf32>>]
          fetches [#kiln.tensor<"y:0" : tensor<4xf32>>] {state = ["w"]}
    }
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       OptionalAttr<TypedArrayAttrBase<Kiln_CheckAttr, "checks">>:$checks,
                       OptionalAttr<StrArrayAttr>:$rendezvous_keys);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The model's kiln.state named `name`, or null.
    StateOp lookupState(::llvm::StringRef name);
  }];
}

def Kiln_EntryOp : Kiln_Op<"entry", [HasParent<"ModelOp">,
                                     DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "an entry point of a compiled model";
  let description = [{
    The entry point `name` (`NAME_<name>` in C; a single entry named `run` is `NAME_run`)
    runs `function` on its `feeds` and returns its `fetches`. The function takes the feeds
    and then the model's state that the entry reads (`state`, names of `kiln.state` ops),
    and returns the fetches and then the new values of the state it writes (`updates`),
    which replace the old ones once the call has computed everything. From
    `kiln-lower-partitions` on, the entry runs `parts` instead: the function, or the
    partitions it was cut into (on several devices), which run at the same time.

    ```mlir
    kiln.entry "run" = @main feeds [#kiln.tensor<"x:0" alias "x" : tensor<2x8xf32>>]
        fetches [#kiln.tensor<"probs:0" : tensor<2x4xf32>>]
    kiln.entry "train_step" = @step feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"loss:0">]
        {state = ["w"], updates = ["w"]}
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<FlatSymbolRefAttr>:$function,
                       TypedArrayAttrBase<Kiln_TensorAttr, "feeds">:$feeds,
                       TypedArrayAttrBase<Kiln_TensorAttr, "fetches">:$fetches,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$state,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$updates,
                       OptionalAttr<TypedArrayAttrBase<Kiln_PartAttr, "parts">>:$parts);
  let assemblyFormat = "$name (`=` $function^)? `feeds` $feeds `fetches` $fetches attr-dict";
  let hasVerifier = 1;
}

def Kiln_StateOp : Kiln_Op<"state", [HasParent<"ModelOp">]> {
  let summary = "a buffer of a compiled model that persists between calls";
  let description = [{
    A tensor of static type the model keeps between calls of its entry points (a
    variable), of a dtype and rank the C ABI has, in one state buffer the caller allocates
    and zeroes before the first call;
    entries that list it in their `state` read it, those that list it in their `updates`
    write it.

    ```mlir
    kiln.state "w" : tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, TypeAttrOf<AnyStaticShapeTensor>:$type);
  let assemblyFormat = "$name `:` $type attr-dict";
  let hasVerifier = 1;
}

#endif // KILN_KILN_OPS_TD
