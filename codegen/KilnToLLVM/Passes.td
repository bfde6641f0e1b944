//===- Passes.td - codegen passes: kiln ops to calls and LLVM ----*- tablegen -*-===//

#ifndef KILN_CODEGEN_KILNTOLLVM_PASSES_TD
#define KILN_CODEGEN_KILNTOLLVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExpandKernelCallsPass : Pass<"kiln-codegen-expand-kernel-calls", "mlir::ModuleOp"> {
  let summary = "Turn kiln.kernel_call into the call of the kernel's C function";
  let description = [{
    Replaces every `kiln.kernel_call` with a `func.call` of its kernel's C function, as the
    kernel table's row says: buffers by address (an i64), sizes and pairs as i64 constants,
    the flags present ORed into one i32, and each epilogue as six arguments (the scale's
    address or 0, the scale, the bias's address or 0, the bias, the lower and the upper
    bound; the identity when the epilogue is absent). The C function is declared once per
    module. It runs first in `kiln-llvm-pipeline`, after buffer planning, so the lowered
    stage (`kiln compile --stage lowered`) shows the typed calls.

    Before:
    ```mlir
    kiln.kernel_call "matmul_f32" ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>)
        outs(%c : memref<8x16xf32>) params {m = 8 : i64, n = 16 : i64, k = 4 : i64, overwrite}
    ```
    After:
    ```mlir
    %pa = memref.extract_aligned_pointer_as_index %a : memref<8x4xf32> -> index
    %ia = arith.index_cast %pa : index to i64
    ...
    %flags = arith.constant 4 : i32
    call @kiln_kernel_matmul_f32(%ia, %ib, %ic, %m, %n, %k, %flags)
        : (i64, i64, i64, i64, i64, i64, i32) -> ()
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect", "mlir::memref::MemRefDialect",
  ];
  let statistics = [
    Statistic<"numCalls", "calls", "Kernel calls expanded">,
  ];
}

#endif // KILN_CODEGEN_KILNTOLLVM_PASSES_TD
