// RUN: kiln-opt --split-input-file --kiln-lower-parallel-loops %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-parallel-loops="min-elements=100000" %s | FileCheck %s --check-prefix=LARGE
// RUN: kiln-opt --split-input-file --kiln-lower-parallel-loops="reassociate-reductions=1" %s | FileCheck %s --check-prefix=REASSOC

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
// LARGE-NOT: @bn_relu.parallel
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
#col = affine_map<(d0, d1) -> (d1)>

// Tests what stays serial: a small generic, a reduction whose first loop of two or more
// iterations is the reduction (column sums), and one whose output it also reads through
// another map (a transpose in place).
// CHECK-LABEL: func.func @serial
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: launch
func.func @serial(%small: memref<8x8xf32>, %x: memref<256x256xf32>, %sums: memref<256xf32>) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%small : memref<8x8xf32>) {
  ^bb0(%out: f32):
    %r = arith.addf %out, %out : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#t, #col], iterator_types = ["reduction", "parallel"]}
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

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests that a reduction over the last dimension splits by rows (256 rows, a grain of 32
// rows of 256 elements), its additions reassociated when asked (REASSOC).
// CHECK-LABEL: func.func @row_sums
// CHECK: call @row_sums.parallel0.launch(%{{.*}}, %{{.*}}, %arg0, %arg1)
// CHECK: func.func private @row_sums.parallel0(
// CHECK: scf.for
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// REASSOC-LABEL: func.func private @row_sums.parallel0(
// REASSOC: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @row_sums(%x: memref<256x256xf32>, %sums: memref<256xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256x256xf32>) outs(%sums : memref<256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %out, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#rows = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Tests that a softmax's chain (fill, maximum, exponentials, fill, sum, quotients), its
// temporaries views of one arena, goes into one function split by heads: each thread runs
// all six ops on one head (32 x 128 scores) after another. The views come before the
// first op; the constants are cloned into the body.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG: %[[N:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[G:.*]] = arith.constant 1 : i64
// CHECK: call @softmax.parallel0.launch(%[[N]], %[[G]],
// CHECK-NOT: linalg
// CHECK: return
// CHECK: func.func private @softmax.parallel0(
// CHECK: scf.for
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: math.exp
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: arith.divf
// CHECK-NOT: linalg.{{generic|fill}}
// CHECK: return
func.func @softmax(%x: memref<1x8x32x128xf32>, %y: memref<1x8x32x128xf32>, %arena: memref<133120xi8>) {
  %c0 = arith.constant 0 : index
  %max = memref.view %arena[%c0][] : memref<133120xi8> to memref<1x8x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%max : memref<1x8x32xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<1x8x32x128xf32>) outs(%max : memref<1x8x32xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  }
  %c2048 = arith.constant 2048 : index
  %e = memref.view %arena[%c2048][] : memref<133120xi8> to memref<1x8x32x128xf32>
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %max : memref<1x8x32x128xf32>, memref<1x8x32xf32>) outs(%e : memref<1x8x32x128xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  }
  %c1024 = arith.constant 1024 : index
  %sum = memref.view %arena[%c1024][] : memref<133120xi8> to memref<1x8x32xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<1x8x32xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : memref<1x8x32x128xf32>) outs(%sum : memref<1x8x32xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %sum : memref<1x8x32x128xf32>, memref<1x8x32xf32>) outs(%y : memref<1x8x32x128xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// Tests what keeps ops of the same split apart: the second reads the first's output
// transposed (row i needs every row the first writes), the fourth reads bytes of the arena
// that the third writes through another view (a different offset): four functions.
// CHECK-LABEL: func.func @apart
// CHECK: call @apart.parallel0.launch
// CHECK: call @apart.parallel1.launch
// CHECK: call @apart.parallel2.launch
// CHECK: call @apart.parallel3.launch
func.func @apart(%x: memref<256x256xf32>, %y: memref<256x256xf32>, %arena: memref<524288xi8>) {
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<524288xi8> to memref<256x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<256x256xf32>) outs(%t : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<256x256xf32>) outs(%y : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<256x256xf32>) outs(%t : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  }
  %c1024 = arith.constant 1024 : index
  %shifted = memref.view %arena[%c1024][] : memref<524288xi8> to memref<256x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted : memref<256x256xf32>) outs(%y : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an op whose body loads from the first op's output directly (a window op reading
// its unpadded input at computed positions: row i reads rows i - 1 to i + 1) does not join
// the first's split: two functions, one after the other.
// CHECK-LABEL: func.func @window_read
// CHECK: call @window_read.parallel0.launch
// CHECK: call @window_read.parallel1.launch
func.func @window_read(%x: memref<256x256xf32>, %y: memref<256x256xf32>, %arena: memref<262144xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  %t = memref.view %arena[%c0][] : memref<262144xi8> to memref<256x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<256x256xf32>) outs(%t : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<256x256xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %below = arith.addi %i, %c1 : index
    %row = arith.minui %below, %c255 : index
    %v = memref.load %t[%row, %j] : memref<256x256xf32>
    linalg.yield %v : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d1, d2)>

// Tests that the split loop is the op's own first loop of two or more iterations when it
// is checked alone: the output leaves out the batch loop of one iteration, and the op
// splits along its 256 rows.
// CHECK-LABEL: func.func @batch_dropped
// CHECK: call @batch_dropped.parallel0.launch
func.func @batch_dropped(%x: memref<1x256x256xf32>, %y: memref<256x256xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<1x256x256xf32>) outs(%y : memref<256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  return
}
