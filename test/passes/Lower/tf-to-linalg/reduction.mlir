// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Reduction.cpp.

// Tests that a Mean with keep_dims reduces, divides by the count and reshapes.
// CHECK-LABEL: func.func @mean
func.func @mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "reduction"]
  // CHECK: arith.addf
  // CHECK: %[[N:.*]] = arith.constant 1.200000e+01 : f32
  // CHECK: arith.divf %{{.*}}, %[[N]]
  // CHECK: tensor.expand_shape {{.*}} into tensor<2x1x1xf32>
  %a = "tf.Const"() {value = dense<[1, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Mean"(%x, %a) {keep_dims = true} : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// Tests ArgMax: a reduction carrying the best value and its index, a strict comparison so
// the first index wins.
// CHECK-LABEL: func.func @argmax
func.func @argmax(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.cmpf ogt
  // CHECK: linalg.index 1
  %d = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ArgMax"(%x, %d) : (tensor<2x5xf32>, tensor<i32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Tests TopKV2 as selection loops: per row (outer loop) and rank (middle loop), one scan of
// the row (inner loop) keeps the first element, in the order "larger, or equal and earlier,
// with NaN above every number", that comes after the previous rank's element.
// CHECK-LABEL: func.func @topk
func.func @topk(%t: tensor<2x9xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  // CHECK: scf.for %[[R:.*]] = %c0 to %c2 step %c1 iter_args
  // CHECK: scf.for %[[J:.*]] = %c0 to %c3 step %c1 iter_args
  // CHECK: scf.for %[[I:.*]] = %c0 to %c9 step %c1 iter_args({{.*}}) -> (f32, index)
  // CHECK: tensor.extract %arg0[%[[R]], %[[I]]]
  // CHECK: arith.cmpf uno
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf oeq
  // CHECK: arith.cmpi slt
  // CHECK: tensor.insert {{.*}}[%[[R]], %[[J]]] : tensor<2x3xf32>
  // CHECK: arith.index_cast {{.*}} : index to i32
  // CHECK: tensor.insert {{.*}}[%[[R]], %[[J]]] : tensor<2x3xi32>
  %k = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.TopKV2"(%t, %k) : (tensor<2x9xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}
