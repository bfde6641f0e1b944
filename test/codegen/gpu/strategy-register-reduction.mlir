// RUN: kiln-opt --split-input-file --verify-diagnostics '--kiln-gpu-kernels=print-strategies=true' %s | FileCheck %s

// Tests that a reduction with parallel dimensions that is not along its operand's
// innermost dimension (a mean over H and W of an NHWC image; its parallel dimensions
// moved first) is made a register reduction: one thread per output element (2 x 2048:
// 16 blocks of 256), its reduction loops inside it carrying the sum in a register, the
// output loaded once before them and stored once after.
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @spatial_sum
// CHECK: gpu.launch blocks({{.*}}) in ({{[^=]*}}= %c16{{(_[0-9]+)?}}, {{.*}}) threads({{.*}}) in ({{[^=]*}}= %c256{{(_[0-9]+)?}},
// CHECK: arith.cmpi ult, %{{.*}}, %c4096
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[N:.*]], %[[C:.*]]] : memref<2x2048xf32>
// CHECK: %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32)
// CHECK: %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (f32)
// CHECK: %[[V:.*]] = memref.load %arg0
// CHECK-NOT: memref.store
// CHECK: %[[S:.*]] = arith.addf %[[V]], %[[B]]
// CHECK: scf.yield %[[S]]
// CHECK: scf.yield %[[INNER]]
// CHECK: memref.store %[[OUTER]], %arg1[%[[N]], %[[C]]]
func.func @spatial_sum(%x: memref<2x7x7x2048xf32>, %y: memref<2x2048xf32>, %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  // expected-remark @+1 {{kernel strategy: register-reduction: a reduction with parallel dimensions and static sizes}}
  linalg.generic {indexing_maps = [#in, #out],
                  iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x : memref<2x7x7x2048xf32>) outs(%y : memref<2x2048xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Tests that a reduction whose output a fill sets right before it (a depthwise
// convolution's zeros) is made a register reduction starting from the fill's value: no
// kernel of the fill's, the output not loaded, stored once.
#f = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4, d2)>
#o = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @filled_window
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: memref.load %arg2
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %arg2
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @filled_window(%x: memref<6x6x8xf32>, %w: memref<3x3x8xf32>, %y: memref<4x4x8xf32>,
                         %s: memref<0xi8>)
    attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4x4x8xf32>)
  // expected-remark @+1 {{kernel strategy: register-reduction: a reduction with parallel dimensions, from the fill folded into it}}
  linalg.generic {indexing_maps = [#f, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%w : memref<3x3x8xf32>) outs(%y : memref<4x4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = linalg.index 2 : index
    %ki = linalg.index 3 : index
    %kj = linalg.index 4 : index
    %ii = arith.addi %i, %ki : index
    %jj = arith.addi %j, %kj : index
    %v = memref.load %x[%ii, %jj, %c] : memref<6x6x8xf32>
    %m = arith.mulf %v, %in : f32
    %a = arith.addf %o, %m : f32
    linalg.yield %a : f32
  }
  return
}
