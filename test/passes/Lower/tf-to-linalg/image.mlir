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

// -----

// Tests ResizeBicubic with half-pixel centres from 4x4 to 2x3: compile-time tables of four
// indices and weights per output row and column (taps outside the image weigh 0, the rest
// renormalised: row 0 reads rows 0, 0, 1, 2 weighing 0, 0.53, 0.53, -0.06), then each column
// interpolated along y, the four results along x, in TensorFlow's order.
// CHECK-LABEL: func.func @bicubic
// CHECK: %[[Y0:.*]] = arith.constant dense<[0, 1]> : tensor<2xi64>
// CHECK: %[[WY0:.*]] = arith.constant dense<[0.000000e+00, -0.0588235296]> : tensor<2xf32>
// CHECK: arith.constant dense<0.529411793> : tensor<2xf32>
// CHECK: linalg.generic
// CHECK: %[[P0:.*]] = arith.mulf %{{.*}}, %[[W0:.*]] : f32
// CHECK: %[[P1:.*]] = arith.mulf %{{.*}}, %[[W1:.*]] : f32
// CHECK: %[[S01:.*]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK: %[[P2:.*]] = arith.mulf
// CHECK: %[[S012:.*]] = arith.addf %[[S01]], %[[P2]] : f32
// CHECK: %[[P3:.*]] = arith.mulf
// CHECK: arith.addf %[[S012]], %[[P3]] : f32

func.func @bicubic(%x: tensor<1x4x4x1xf32>) -> tensor<1x2x3x1xf32> {
  %size = "tf.Const"() {value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeBicubic"(%x, %size) {half_pixel_centers = true} : (tensor<1x4x4x1xf32>, tensor<2xi32>) -> tensor<1x2x3x1xf32>
  return %0 : tensor<1x2x3x1xf32>
}

// -----

// Tests ResizeArea of uint8 from 4x5 to 3x2: per output, a loop over its rows (weights of
// the first and last from tables, 1 between) of a loop over the middle columns, the first
// and last columns weighed; the sum times 1 / (4/3 * 5/2).
// CHECK-LABEL: func.func @area
// CHECK: linalg.generic
// CHECK: scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[TOTAL:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ROW:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.addf %[[ROW]], %{{.*}} : f32
// CHECK: %[[ROWSUM:.*]] = arith.select
// CHECK: %[[WEIGHTED:.*]] = arith.mulf %[[ROWSUM]], %{{.*}} : f32
// CHECK: arith.addf %[[TOTAL]], %[[WEIGHTED]] : f32
// CHECK: %[[SCALE:.*]] = arith.constant 0.299999982 : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
func.func @area(%x: tensor<1x4x5x1xui8>) -> tensor<1x3x2x1xf32> {
  %size = "tf.Const"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.ResizeArea"(%x, %size) : (tensor<1x4x5x1xui8>, tensor<2xi32>) -> tensor<1x3x2x1xf32>
  return %0 : tensor<1x3x2x1xf32>
}
