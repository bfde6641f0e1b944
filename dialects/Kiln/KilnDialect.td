//===- KilnDialect.td - The kiln dialect -------------------------*- tablegen -*-===//
#ifndef KILN_KILN_DIALECT_TD
#define KILN_KILN_DIALECT_TD

include "mlir/IR/OpBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::kiln::dialect";
  let summary = "Kiln's own ops: partitions, transfers, checks and kernel calls";
  let description = [{
    A graph placed on several devices (`kiln compile --devices`) becomes one function per
    device, called from the entry function by `kiln.partition` ops that all run at the same
    time; tensors cross between partitions only through `kiln.send` and `kiln.recv`.
    `kiln.check` makes the checks of input values TensorFlow's kernels make at run time,
    and `kiln.kernel_call` calls one of the runtime's kernels on buffers.
  }];
  let useDefaultAttributePrinterParser = 1;
}

#endif // KILN_KILN_DIALECT_TD
