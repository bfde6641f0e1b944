// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=print-strategies=true' %s | FileCheck %s

// Tests that a float sum along its operand's innermost dimension (a row's) is made a
// block reduction: a block of 256 threads per output element (8 rows: 8 blocks), each
// thread summing a strided share of the row, the block combining the shares with
// gpu.all_reduce and thread 0 adding the total to the output.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_sums
// CHECK: gpu.launch blocks(%[[ROW:[^,]*]], {{.*}}) in ({{[^=]*}}= %c8{{(_[0-9]+)?}}, {{.*}}) threads(%[[T:[^,]*]], {{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}},
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[T]] to %c1000 step %c256{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %arg0[{{.*}}] : memref<8x1000xf32>
// CHECK: arith.addf %[[V]], %[[ACC]] fastmath<contract> : f32
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[OLD:.*]] = memref.load %arg1[{{.*}}] : memref<8xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[TOTAL]], %[[OLD]] fastmath<contract> : f32
// CHECK: memref.store %[[NEW]], %arg1[{{.*}}] : memref<8xf32>
func.func @row_sums(%x: memref<8x1000xf32>, %y: memref<8xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: block-reduction: a float reduction along its operands' innermost dimension, at least 32 long}}
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1000xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  return
}
