// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Image.cpp.

// Tests that resizes read compile-time coordinate tables: nearest indices [0, 0, 1, 1] for
// 2 -> 4 pixels, and bilinear lower/upper/weight tables with a lerp in f32.
// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x2x2x1xf32>) -> (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) {
  // CHECK-DAG: arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
  // CHECK-DAG: arith.constant dense<[0.000000e+00, 5.000000e-01, 0.000000e+00, 5.000000e-01]> : tensor<4xf32>
  // CHECK: arith.subf
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %s = "tf.Const"() {value = dense<4> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeNearestNeighbor"(%x, %s) : (tensor<1x2x2x1xf32>, tensor<2xi32>) -> tensor<1x4x4x1xf32>
  %1 = "tf.ResizeBilinear"(%x, %s) : (tensor<1x2x2x1xf32>, tensor<2xi32>) -> tensor<1x4x4x1xf32>
  return %0, %1 : tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>
}
