// RUN: kiln-opt --split-input-file --kiln-graph-fold-pads %s | FileCheck %s

// Tests Keras's ZeroPadding2D before a strided VALID depthwise convolution (MobileNetV2):
// the convolution reads the unpadded input with the Pad's amounts as EXPLICIT padding, and
// the Pad is gone.
// CHECK-LABEL: func.func @depthwise
func.func @depthwise(%x: tensor<1x8x8x4xf32>, %f: tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32> {
  // CHECK-NOT: tf.Pad
  // CHECK: "tf.DepthwiseConv2dNative"(%arg0, %arg1)
  // CHECK-SAME: explicit_paddings = [0, 0, 0, 1, 0, 1, 0, 0], padding = "EXPLICIT"
  // CHECK-SAME: (tensor<1x8x8x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
  %p = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %0 = "tf.Pad"(%x, %p) : (tensor<1x8x8x4xf32>, tensor<4x2xi32>) -> tensor<1x9x9x4xf32>
  %1 = "tf.DepthwiseConv2dNative"(%0, %f) {padding = "VALID", strides = [1, 2, 2, 1]} : (tensor<1x9x9x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}

// -----

// Tests that a zero PadV2 adds its amounts to a convolution's EXPLICIT padding, NCHW
// included (the amounts are in the data format's order), and that a _FusedConv2D takes
// them too.
// CHECK-LABEL: func.func @explicit
func.func @explicit(%x: tensor<1x4x6x6xf32>, %f: tensor<3x3x4x2xf32>, %b: tensor<2xf32>) -> (tensor<1x2x7x5xf32>, tensor<1x2x5x4xf32>) {
  // CHECK-NOT: tf.PadV2
  // CHECK: "tf.Conv2D"(%arg0, %arg1)
  // CHECK-SAME: explicit_paddings = [0, 0, 0, 0, 2, 1, 1, 0], padding = "EXPLICIT"
  // CHECK: "tf._FusedConv2D"(%arg0, %arg1, %arg2)
  // CHECK-SAME: explicit_paddings = [0, 0, 0, 0, 1, 0, 0, 0]
  // CHECK-SAME: padding = "EXPLICIT"
  %p = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [0, 0], [1, 0], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %z = "tf.Const"() {dtype = f32, value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.PadV2"(%x, %p, %z) : (tensor<1x4x6x6xf32>, tensor<4x2xi32>, tensor<f32>) -> tensor<1x4x7x6xf32>
  %1 = "tf.Conv2D"(%0, %f) {data_format = "NCHW", explicit_paddings = [0, 0, 0, 0, 1, 1, 1, 0], padding = "EXPLICIT", strides = [1, 1, 1, 1]} : (tensor<1x4x7x6xf32>, tensor<3x3x4x2xf32>) -> tensor<1x2x7x5xf32>
  %2 = "tf._FusedConv2D"(%0, %f, %b) {data_format = "NCHW", fused_ops = ["BiasAdd"], num_args = 1 : i64, padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x4x7x6xf32>, tensor<3x3x4x2xf32>, tensor<2xf32>) -> tensor<1x2x5x4xf32>
  return %1, %2 : tensor<1x2x7x5xf32>, tensor<1x2x5x4xf32>
}

// -----

// Tests what is not folded: a PadV2 with ones, a Pad of the channels, a SAME convolution
// (its padding depends on the padded size), a Pad with a control input, a Pad that is the
// filter. The SAME convolution's Pad is also the input of a VALID one: that one takes the
// padding, and the Pad stays for the other.
// CHECK-LABEL: func.func @kept
func.func @kept(%x: tensor<1x6x6x2xf32>, %f: tensor<3x3x2x2xf32>, %c: !tf.control) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>, tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>, tensor<1x7x7x2xf32>) {
  // CHECK: %[[ONES:.*]] = "tf.PadV2"(%arg0
  // CHECK: "tf.Conv2D"(%[[ONES]], %arg1) {padding = "VALID"
  // CHECK: %[[CH:.*]] = "tf.Pad"(%arg0
  // CHECK: "tf.DepthwiseConv2dNative"(%[[CH]]
  // CHECK: %[[P:.*]] = "tf.Pad"(%arg0, %{{.*}})
  // CHECK: "tf.Conv2D"(%[[P]], %arg1) {padding = "SAME"
  // CHECK: %[[CTL:.*]] = "tf.Pad"(%arg0, %{{.*}}, %arg2)
  // CHECK: "tf.Conv2D"(%[[CTL]], %arg1) {padding = "VALID"
  // CHECK: %[[FP:.*]] = "tf.Pad"(%arg1
  // CHECK: "tf.Conv2D"(%arg0, %[[FP]]) {padding = "VALID"
  // CHECK: "tf.Conv2D"(%arg0, %arg1)
  // CHECK-SAME: explicit_paddings = [0, 0, 1, 0, 1, 0, 0, 0], padding = "EXPLICIT"
  %one = "tf.Const"() {dtype = f32, value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %p = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [1, 0], [1, 0], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %pc = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [0, 0], [0, 0], [0, 2]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %pf = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [0, 0], [0, 0], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
  %0 = "tf.PadV2"(%x, %p, %one) : (tensor<1x6x6x2xf32>, tensor<4x2xi32>, tensor<f32>) -> tensor<1x7x7x2xf32>
  %1 = "tf.Conv2D"(%0, %f) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x7x7x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x5x5x2xf32>
  %2 = "tf.Pad"(%x, %pc) : (tensor<1x6x6x2xf32>, tensor<4x2xi32>) -> tensor<1x6x6x4xf32>
  %fd = "tf.Const"() {dtype = f32, value = dense<1.0> : tensor<3x3x4x1xf32>} : () -> tensor<3x3x4x1xf32>
  %3 = "tf.DepthwiseConv2dNative"(%2, %fd) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x6x6x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
  %4 = "tf.Pad"(%x, %p) : (tensor<1x6x6x2xf32>, tensor<4x2xi32>) -> tensor<1x7x7x2xf32>
  %5 = "tf.Conv2D"(%4, %f) {padding = "SAME", strides = [1, 1, 1, 1]} : (tensor<1x7x7x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x7x7x2xf32>
  %6 = "tf.Pad"(%x, %p, %c) : (tensor<1x6x6x2xf32>, tensor<4x2xi32>, !tf.control) -> tensor<1x7x7x2xf32>
  %7 = "tf.Conv2D"(%6, %f) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x7x7x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x5x5x2xf32>
  %8 = "tf.Pad"(%f, %pf) : (tensor<3x3x2x2xf32>, tensor<4x2xi32>) -> tensor<3x3x2x2xf32>
  %9 = "tf.Conv2D"(%x, %8) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x6x6x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x4x4x2xf32>
  %10 = "tf.Conv2D"(%4, %f) {padding = "VALID", strides = [1, 1, 1, 1]} : (tensor<1x7x7x2xf32>, tensor<3x3x2x2xf32>) -> tensor<1x5x5x2xf32>
  return %3, %9, %1, %7, %10, %5 : tensor<1x4x4x4xf32>, tensor<1x4x4x2xf32>, tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>, tensor<1x5x5x2xf32>, tensor<1x7x7x2xf32>
}
