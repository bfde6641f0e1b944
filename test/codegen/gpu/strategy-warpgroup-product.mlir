// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=warpgroup-mma=true print-strategies=true' %s | FileCheck %s

// Tests that with warpgroup-mma (kiln compile --gpu-arch sm_90a) an f16 product of at
// least 128 x 128 outputs and 64 deep, its A and B row-major matrices the tensor memory
// accelerator can read, is made a Hopper kernel: on the host a tensor map per operand, in
// the kernel two warpgroups (256 threads) per 128 x 128 tile (136 columns: a grid of
// 2 x 2), 3 stages of dynamic shared memory loaded by TMA and waited for on mbarriers,
// each step's products one nvgpu.warpgroup.mma, the sums through shared memory to the
// output.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @narrow
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c2{{(_[0-9]+)?}}, {{[^=]*}}= %c2{{(_[0-9]+)?}}, {{.*}}) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}}, {{.*}}) dynamic_shared_memory_size %c99328_i32
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: nvgpu.mbarrier.arrive.expect_tx {{.*}}, %c32768
// CHECK: nvgpu.tma.async.load
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.warpgroup.mma {{.*}} {transposeB}
// CHECK: scf.yield
// CHECK: nvgpu.warpgroup.mma.store {{.*}} to memref<64x128xf32, #gpu.address_space<workgroup>>
// CHECK: arith.truncf {{.*}} : vector<8xf32> to vector<8xf16>
// CHECK: vector.store {{.*}}, %arg2{{.*}} {alignment = 16 : i64}
func.func @narrow(%a: memref<256x200xf16>, %b: memref<200x136xf16>, %c: memref<256x136xf16>,
                  %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: warpgroup-product: an f16 product of at least 128 x 128 x 64 whose operands TMA can read}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<256x200xf16>, memref<200x136xf16>) outs(%c : memref<256x136xf16>) {
  ^bb0(%x: f16, %q: f16, %z: f16):
    %m = arith.mulf %x, %q : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  return
}
