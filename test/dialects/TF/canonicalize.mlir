// RUN: kiln-opt --split-input-file --canonicalize %s | FileCheck %s

// The convolutions' canonicalization patterns (dialects/TF/Ops/Convolution.cpp), which
// kiln-graph-fold-pads applies: a zero Pad before a VALID or EXPLICIT convolution becomes
// its explicit padding, for each of the three convolution ops.
// CHECK-LABEL: func.func @each_convolution
// CHECK-NOT: "tf.Pad"
// CHECK: "tf.Conv2D"(%arg0, %arg1) {explicit_paddings = [0, 0, 1, 1, 2, 2, 0, 0], padding = "EXPLICIT"
// CHECK: "tf.DepthwiseConv2dNative"(%arg0, %arg2) {explicit_paddings = [0, 0, 1, 1, 2, 2, 0, 0], padding = "EXPLICIT"
// CHECK: "tf._FusedConv2D"(%arg0, %arg1, %arg3)
// CHECK-SAME: explicit_paddings = [0, 0, 1, 1, 2, 2, 0, 0]
// CHECK-SAME: padding = "EXPLICIT"
func.func @each_convolution(%x: tensor<1x4x4x2xf32>, %f: tensor<3x3x2x2xf32>, %d: tensor<3x3x2x1xf32>, %b: tensor<2xf32>)
    -> (tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32>) {
  %p = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [1, 1], [2, 2], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %0 = "tf.Pad"(%x, %p) : (tensor<1x4x4x2xf32>, tensor<4x2xi32>) -> tensor<1x6x8x2xf32>
  %1 = "tf.Conv2D"(%0, %f) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x6x8x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x4x6x2xf32>
  %2 = "tf.DepthwiseConv2dNative"(%0, %d) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x6x8x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x4x6x2xf32>
  %3 = "tf._FusedConv2D"(%0, %f, %b) {fused_ops = ["BiasAdd"], num_args = 1 : i64, padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x6x8x2xf32>, tensor<3x3x2x2xf32>, tensor<2xf32>) -> tensor<1x4x6x2xf32>
  return %1, %2, %3 : tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32>, tensor<1x4x6x2xf32>
}

// -----

// A SAME convolution keeps its Pad: its padding depends on the padded size.
// CHECK-LABEL: func.func @same
// CHECK: %[[P:.*]] = "tf.Pad"(%arg0
// CHECK: "tf.Conv2D"(%[[P]], %arg1) {padding = "SAME"
func.func @same(%x: tensor<1x4x4x2xf32>, %f: tensor<3x3x2x2xf32>) -> tensor<1x6x6x2xf32> {
  %p = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %0 = "tf.Pad"(%x, %p) : (tensor<1x4x4x2xf32>, tensor<4x2xi32>) -> tensor<1x6x6x2xf32>
  %1 = "tf.Conv2D"(%0, %f) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x6x6x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x6x6x2xf32>
  return %1 : tensor<1x6x6x2xf32>
}
