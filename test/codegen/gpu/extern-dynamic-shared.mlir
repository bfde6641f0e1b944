// RUN: kiln-opt --pass-pipeline='builtin.module(gpu.module(kiln-gpu-extern-dynamic-shared))' %s | FileCheck %s

// Tests that kiln-gpu-extern-dynamic-shared declares the zero-sized shared array
// convert-gpu-to-nvvm made for gpu.dynamic_shared_memory extern (NVPTX then writes
// `.extern .shared .align 16 .b8 __dynamic_shmem__0[]`, which ptxas places after the
// kernels' other shared variables), and leaves other globals alone: a sized shared array
// (an mbarrier's), a zero-sized one in global memory, and one already external.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<3 x i64>
// CHECK: llvm.mlir.global internal @empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global external @other() {addr_space = 3 : i32} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<3 x i64>
  llvm.mlir.global internal @empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global external @other() {addr_space = 3 : i32} : !llvm.array<0 x i8>
}
