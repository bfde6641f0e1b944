//===- KilnOps.td - The kiln dialect: partitions and Send/Recv ----*- tablegen -*-===//
//
// The `kiln` dialect holds what Kiln adds to a TensorFlow graph on its way to machine
// code: the partitions a placed graph is cut into (one per device) and the transfers of
// tensors between them (section 3.2.2 of the TensorFlow paper).
//
//===----------------------------------------------------------------------------===//

#ifndef KILN_KILN_OPS_TD
#define KILN_KILN_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln::dialect";
  let summary = "Kiln's own ops: device partitions and the transfers between them";
  let description = [{
    A graph placed on several devices (`kiln compile --devices`) becomes one function per
    device, called from the entry function by `kiln.partition` ops that all run at the same
    time; tensors cross between partitions only through `kiln.send` and `kiln.recv`.
  }];
}

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

#endif // KILN_KILN_OPS_TD
