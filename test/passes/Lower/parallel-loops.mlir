// RUN: kiln-opt --split-input-file --kiln-lower-parallel-loops %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-parallel-loops="min-elements=100000" %s | FileCheck %s --check-prefix=LARGE

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>

// Tests that a large elementwise generic (64K elements) is split along its first loop of
// two or more iterations (64 rows; the batch loop has one): the call of its launcher gets
// the 64 iterations, a grain of 8 rows (8192 elements / 1024 per row), and the buffers, the
// per-channel one included; the body runs rows [begin, end) on subviews of them.
// CHECK-LABEL: func.func @bn_relu
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[N:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[G:.*]] = arith.constant 8 : i64
// CHECK: call @bn_relu.parallel0.launch(%[[N]], %[[G]], %arg0, %arg2, %arg1) : (i64, i64, memref<1x64x32x32xf32>, memref<1x64x32x32xf32>, memref<32xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @bn_relu.parallel0(%[[B:.*]]: index, %[[E:.*]]: index, %[[X:.*]]: memref<1x64x32x32xf32>, %[[Y:.*]]: memref<1x64x32x32xf32>, %[[S:.*]]: memref<32xf32>)
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[I:.*]] = %[[B]] to %[[E]]
// CHECK-NEXT: %[[XS:.*]] = memref.subview %[[X]][0, %[[I]], 0, 0] [1, 1, 32, 32] [1, 1, 1, 1]
// CHECK-NEXT: %[[YS:.*]] = memref.subview %[[Y]][0, %[[I]], 0, 0] [1, 1, 32, 32] [1, 1, 1, 1]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[XS]], %[[S]] : {{.*}}) outs(%[[YS]] : {{.*}})
// CHECK: func.func private @bn_relu.parallel0.launch(i64, i64, memref<1x64x32x32xf32>, memref<1x64x32x32xf32>, memref<32xf32>)
// Under a larger min-elements it stays.
// LARGE-LABEL: func.func @bn_relu
// LARGE: linalg.generic
// LARGE-NOT: launch
func.func @bn_relu(%x: memref<1x64x32x32xf32>, %s: memref<32xf32>, %y: memref<1x64x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %s : memref<1x64x32x32xf32>, memref<32xf32>) outs(%y : memref<1x64x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests what stays serial: a small generic, a reduction, and one whose output it also reads
// through another map (a transpose in place).
// CHECK-LABEL: func.func @serial
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: launch
func.func @serial(%small: memref<8x8xf32>, %x: memref<256x256xf32>, %sums: memref<256xf32>) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%small : memref<8x8xf32>) {
  ^bb0(%out: f32):
    %r = arith.addf %out, %out : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256x256xf32>) outs(%sums : memref<256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %out, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<256x256xf32>) outs(%x : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}
