// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=print-strategies=true' %s | FileCheck %s

// Tests that a plain f16 product of at least 16 in each size is made a kernel on the
// tensor cores: a block of 4 warps (128 threads) per 64 x 64 tile of the output, the
// output's old values through an f32 tile of workgroup memory into each warp's 2 x 2
// accumulators of 16 x 16, A and B staged 32 deep (rows padded to 40 and 72) over the 2
// stages of k = 64, each stage two wmma steps of 2 x 2 products, the sums stored back to
// the f32 tile and rounded to f16 once where inside the output.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @half_product
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{[^=]*}}= %c128{{(_[0-9]+)?}}, {{.*}}) workgroup(%[[TA:.*]] : memref<64x40xf16, #gpu.address_space<workgroup>>, %[[TB:.*]] : memref<32x72xf16, #gpu.address_space<workgroup>>, %[[TC:.*]] : memref<64x72xf32, #gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK-COUNT-4: gpu.subgroup_mma_load_matrix %[[TC]]{{.*}} {leadDimension = 72 : index} : memref<64x72xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: scf.for {{.*}} to %c2{{(_[0-9]+)?}} {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix %[[TA]]{{.*}} {leadDimension = 40 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[TB]]{{.*}} {leadDimension = 72 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK-COUNT-8: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-COUNT-4: gpu.subgroup_mma_store_matrix {{.*}}, %[[TC]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store {{.*}}, %arg2
func.func @half_product(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf16>,
                        %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: tensor-core-product: a plain f16 product, or f32 with allow-tf32, of at least 16 in each size}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf16>) {
  ^bb0(%x: f16, %y: f16, %z: f16):
    %m = arith.mulf %x, %y : f16
    %t = arith.addf %z, %m : f16
    linalg.yield %t : f16
  }
  return
}
