//===- Passes.td - codegen passes: kiln ops to calls and LLVM ----*- tablegen -*-===//

#ifndef KILN_CODEGEN_KILNTOLLVM_PASSES_TD
#define KILN_CODEGEN_KILNTOLLVM_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExpandKernelCallsPass : Pass<"kiln-codegen-expand-kernel-calls", "mlir::ModuleOp"> {
  let summary = "Turn kiln.kernel_call into the call of the kernel's C function";
  let description = [{
    Replaces every `kiln.kernel_call` with a `func.call` of its kernel's C function, as the
    kernel table's row says: buffers by address (an i64), sizes and pairs as i64 constants,
    the flags present ORed into one i32, and each epilogue as seven arguments (the scale's
    address or 0, the scale, the bias's address or 0, the bias, the lower and the upper
    bound, the activation as an i32: `KILN_ACTIVATION_SWISH` or none; the identity when the
    epilogue is absent). The C function is declared once per
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

def ParallelLaunchersPass : Pass<"kiln-codegen-parallel-launchers", "mlir::ModuleOp"> {
  let summary = "Define the launchers of parallel loop bodies: calls of kiln_parallel_for";
  let description = [{
    `kiln-lower-parallel-loops` moves a large elementwise op's iterations into a function
    `F.parallelN(begin, end, buffers...)` and calls a declared launcher
    `F.parallelN.launch(count, grain, buffers...)`. Once the module is in the LLVM dialect
    (buffers as bare pointers), this pass defines each launcher: it stores the buffers'
    pointers in an array on its stack and calls the runtime's
    `kiln_parallel_for(count, grain, F.parallelN.thunk, array)`, where the new internal
    function `F.parallelN.thunk(array, begin, end)` loads the pointers and calls the body
    (kiln/runtime/parallel.h). The launcher becomes internal, so LLVM inlines it. A launcher
    without its body is an error.

    Before:
    ```mlir
    llvm.func @f.parallel0(%b: i64, %e: i64, %x: !llvm.ptr) { ... }
    llvm.func @f.parallel0.launch(i64, i64, !llvm.ptr)
    ```
    After:
    ```mlir
    llvm.func internal @f.parallel0.launch(%n: i64, %g: i64, %x: !llvm.ptr) {
      %a = llvm.alloca %c1 x !llvm.ptr : (i64) -> !llvm.ptr
      llvm.store %x, %a : !llvm.ptr, !llvm.ptr
      %t = llvm.mlir.addressof @f.parallel0.thunk : !llvm.ptr
      llvm.call @kiln_parallel_for(%n, %g, %t, %a) : (i64, i64, !llvm.ptr, !llvm.ptr) -> ()
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // KILN_CODEGEN_KILNTOLLVM_PASSES_TD
