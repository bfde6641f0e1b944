// RUN: kiln-opt --split-input-file --kiln-gpu-module-to-binary %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-module-to-binary --mlir-disable-threading %s | FileCheck %s
// RUN: %if ptxas %{ kiln-opt --split-input-file --kiln-gpu-module-to-binary="format=fatbin toolkit=%cuda_home" %s | FileCheck %s --check-prefix=FATBIN %}
// RUN: not kiln-opt --split-input-file --kiln-gpu-module-to-binary="format=elf" %s 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not kiln-opt --kiln-gpu-module-to-binary %S/Inputs/module-to-binary-invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID

// Tests that each gpu.module becomes a gpu.binary of its name in its place, holding its
// kernels' PTX, the modules compiled on threads or without, and with format=fatbin
// assembled by ptxas (where the toolkit is here).
// CHECK: gpu.binary @first [#gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}assembly = "{{.*}}.visible .entry one(
// CHECK-NOT: .entry two(
// CHECK-SAME: ">]
// CHECK-NEXT: gpu.binary @second [#gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}assembly = "{{.*}}.visible .entry two(
// CHECK-NOT: gpu.module
// A fatbin begins with its magic number, 0xba55ed50.
// FATBIN: gpu.binary @first [#gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}}, "P\EDU\BA
// FATBIN: gpu.binary @second [#gpu.object<#nvvm.target<chip = "sm_80">, {{.*}}}, "P\EDU\BA
// FORMAT: error: kiln-gpu-module-to-binary: format 'elf' is neither isa nor fatbin
gpu.module @first [#nvvm.target<chip = "sm_80">] {
  llvm.func @one(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
    %c = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %c, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}
gpu.module @second [#nvvm.target<chip = "sm_80">] {
  llvm.func @two(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
    %c = llvm.mlir.constant(2.0 : f32) : f32
    llvm.store %c, %p : f32, !llvm.ptr<1>
    llvm.return
  }
}

// INVALID: module-to-binary-invalid.mlir:3:1: error: has no target to compile it for
// INVALID-NEXT: gpu.module @untargeted {
// INVALID: module-to-binary-invalid.mlir:13:1: error: has no target to compile it for
// INVALID-NEXT: gpu.module @untargeted_too {
