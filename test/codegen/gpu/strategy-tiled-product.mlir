// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=print-strategies=true' %s | FileCheck %s

// Tests that a matrix product the tensor cores do not take (f32, without allow-tf32) is
// made a tiled kernel: a block of 256 threads per 64 x 64 tile of the output (one here),
// both operands staged 16 deep through workgroup memory (A's tile transposed, its rows
// padded to 68), each thread's 4 x 4 outputs carried through the loop over the 3 stages
// of k = 48 with the next stage's 8 elements, each step reading the thread's groups of A
// and B from workgroup memory as one vector each, the outputs stored where inside.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @product
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c1{{(_[0-9]+)?}}, {{[^=]*}}= %c1{{(_[0-9]+)?}}, {{[^=]*}}= %c1) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}}, {{.*}}) workgroup(%[[SA:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-16: memref.load %arg2
// CHECK: scf.for {{.*}} to %c3{{(_[0-9]+)?}} {{.*}} -> ({{(f32, ){23}f32}})
// CHECK: gpu.barrier
// CHECK: vector.load %[[SA]][{{.*}}] {alignment = 16 : i64} : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.load %[[SB]][{{.*}}] {alignment = 16 : i64} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-16: arith.addf {{.*}} fastmath<contract> : f32
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-COUNT-16: memref.store {{.*}}, %arg2
// CHECK: gpu.terminator
func.func @product(%a: memref<64x48xf32>, %b: memref<48x64xf32>, %c: memref<64x64xf32>,
                   %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: tiled-product: a matrix product of at least 16 in each size, not for the tensor cores}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x48xf32>, memref<48x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %t = arith.addf %z, %m : f32
    linalg.yield %t : f32
  }
  return
}
