// RUN: kiln-opt --split-input-file --kiln-lower-fuse-elementwise %s | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Tests that a chain of elementwise generics (scale, shift, clamp) becomes one generic
// whose body holds all three operations.
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<4x8xf32>, %s: tensor<8xf32>, %t: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%arg0, %arg1, %arg2 : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
  // CHECK: arith.mulf
  // CHECK: arith.addf
  // CHECK: arith.maximumf
  // CHECK-NOT: linalg.generic
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %t : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests that an elementwise producer is not fused into a contraction (the matmul keeps the
// form the kernel-call pass matches), and that a producer with two users is kept.
// CHECK-LABEL: func.func @no_fusion
func.func @no_fusion(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %init: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x8xf32>) {
  // CHECK: %[[NEG:.*]] = linalg.generic
  // CHECK: arith.negf
  // CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
  // CHECK-SAME: ins(%[[NEG]], %arg1
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%0, %w : tensor<4x8xf32>, tensor<8x3xf32>) outs(%init : tensor<4x3xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  return %1, %0 : tensor<4x3xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bcast = affine_map<(d0, d1, d2) -> (d0, 0, d2)>

// Tests that a sigmoid of one value per channel (a squeeze-and-excitation gate) is not fused
// into the product that broadcasts it over the rows (its exp would run once per element),
// while a reciprocal square root of one value per channel is (one instruction more).
// CHECK-LABEL: func.func @broadcast_gate
func.func @broadcast_gate(%x: tensor<1x64x8xf32>, %g: tensor<1x1x8xf32>) -> (tensor<1x64x8xf32>, tensor<1x64x8xf32>) {
  // CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<1x1x8xf32>)
  // CHECK: math.exp
  // CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<1x64x8xf32>, tensor<1x1x8xf32>)
  // CHECK-NOT: math.exp
  // CHECK: arith.mulf
  // CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x64x8xf32>, tensor<1x1x8xf32>)
  // CHECK: math.rsqrt
  // CHECK: arith.mulf
  // CHECK-NOT: linalg.generic
  %one = arith.constant 1.0 : f32
  %ev = tensor.empty() : tensor<1x1x8xf32>
  %e = tensor.empty() : tensor<1x64x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<1x1x8xf32>) outs(%ev : tensor<1x1x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x1x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : tensor<1x64x8xf32>, tensor<1x1x8xf32>) outs(%e : tensor<1x64x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x64x8xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<1x1x8xf32>) outs(%ev : tensor<1x1x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<1x1x8xf32>
  %z = linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %q : tensor<1x64x8xf32>, tensor<1x1x8xf32>) outs(%e : tensor<1x64x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x64x8xf32>
  return %y, %z : tensor<1x64x8xf32>, tensor<1x64x8xf32>
}
