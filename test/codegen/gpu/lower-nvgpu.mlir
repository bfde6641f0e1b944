// RUN: kiln-opt --kiln-gpu-lower-nvgpu %s | FileCheck %s

// Tests that kiln-gpu-lower-nvgpu leaves a module without nvgpu ops as it is: a wmma
// kernel's loop carries fragments (which upstream's convert-nvgpu-to-nvvm refuses: LLVM's
// type converter does not know them) and an index, and keeps both.
// CHECK-LABEL: func.func @wmma
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (!gpu.mma_matrix<16x16xf32, "COp">, index)
// CHECK-NOT: unrealized_conversion_cast
func.func @wmma(%a: memref<16x16xf16, #gpu.address_space<workgroup>>, %c: memref<16x16xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : index
  %blocks = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %blocks, %gz = %blocks)
             threads(%tx, %ty, %tz) in (%sx = %blocks, %sy = %blocks, %sz = %blocks) {
    %init = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
    %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init, %n = %c0) -> (!gpu.mma_matrix<16x16xf32, "COp">, index) {
      %x = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
      %y = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
      %d = gpu.subgroup_mma_compute %x, %y, %acc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      %m = arith.addi %n, %one : index
      scf.yield %d, %m : !gpu.mma_matrix<16x16xf32, "COp">, index
    }
    gpu.subgroup_mma_store_matrix %r#0, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
