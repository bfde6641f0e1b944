// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/DataDependent.cpp, on the static bounds
// that kiln-graph-bound-sizes gives their results.

// Tests that Where scans the flattened input in order and writes each nonzero element's
// coordinates (unravelled by the dimensions) into the next row while rows remain.
// CHECK-LABEL: func.func @where
// CHECK: tensor.collapse_shape %arg0
// CHECK: linalg.fill
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: arith.cmpi ne
// CHECK: scf.if
// CHECK: arith.remui %[[P]]
// CHECK: tensor.insert
// CHECK: arith.divui
// CHECK: tensor.insert
func.func @where(%m: tensor<3x4xi1>) -> tensor<5x2xi64> {
  %0 = "tf.Where"(%m) : (tensor<3x4xi1>) -> tensor<5x2xi64>
  return %0 : tensor<5x2xi64>
}

// -----

// Tests that Unique searches the distinct values found so far (float equality: NaNs
// distinct, -0.0 == 0.0) and writes a new one only while rows remain.
// CHECK-LABEL: func.func @unique
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpf oeq
// CHECK: scf.if
// CHECK: tensor.insert
func.func @unique(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi32>) {
  %y, %idx = "tf.Unique"(%x) : (tensor<6xf32>) -> (tensor<6xf32>, tensor<6xi32>)
  return %y, %idx : tensor<6xf32>, tensor<6xi32>
}

// -----

// Tests that a non-max suppression is an scf.while over the best remaining candidate (an
// argmax loop), comparing it with the selected boxes newest first, and that soft-NMS
// (V5) scales scores by exp.
// CHECK-LABEL: func.func @nms
// CHECK: scf.while
// CHECK: scf.for
// CHECK: arith.cmpf ogt
// CHECK: scf.condition
// CHECK: scf.while
// CHECK: arith.divf
// CHECK: math.exp
// CHECK: scf.if
func.func @nms(%b: tensor<10x4xf32>, %s: tensor<10xf32>, %n: tensor<i32>, %t: tensor<f32>)
    -> (tensor<4xi32>, tensor<4xf32>, tensor<i32>) {
  %0:3 = "tf.NonMaxSuppressionV5"(%b, %s, %n, %t, %t, %t) : (tensor<10x4xf32>, tensor<10xf32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<4xi32>, tensor<4xf32>, tensor<i32>
}

// -----

// Tests that CombinedNonMaxSuppression runs one suppression per image and class, then
// picks the best slots, clipping boxes to [0, 1].
// CHECK-LABEL: func.func @combined
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.while
// CHECK: scf.for
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @combined(%b: tensor<1x8x1x4xf32>, %s: tensor<1x8x2xf32>) -> (tensor<1x3x4xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1xi32>) {
  %per = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %total = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %t = "tf.Const"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %0:4 = "tf.CombinedNonMaxSuppression"(%b, %s, %per, %total, %t, %t) : (tensor<1x8x1x4xf32>, tensor<1x8x2xf32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<1x3x4xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1xi32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<1x3x4xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1xi32>
}
