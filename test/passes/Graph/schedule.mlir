// RUN: kiln-opt --split-input-file --kiln-graph-schedule %s | FileCheck %s

// Tests the paper's case: two branches each make a large tensor and reduce it. In program
// order both large tensors are alive at once; scheduled, each branch finishes (and frees its
// tensor) before the other starts. The constant axis moves to just before its first user.
// CHECK-LABEL: func.func @branches
func.func @branches(%x: tensor<256x256xf32>, %w: tensor<256x256xf32>, %v: tensor<256x256xf32>) -> (tensor<f32>, tensor<f32>) {
  // CHECK: %[[A:.*]] = "tf.MatMul"(%arg0, %arg1)
  // CHECK-NEXT: %[[AX:.*]] = "tf.Const"
  // CHECK-NEXT: "tf.Sum"(%[[A]], %[[AX]])
  // CHECK-NEXT: %[[B:.*]] = "tf.MatMul"(%arg0, %arg2)
  // CHECK-NEXT: "tf.Sum"(%[[B]], %[[AX]])
  %axes = "tf.Const"() {value = dense<[0, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %a = "tf.MatMul"(%x, %w) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %b = "tf.MatMul"(%x, %v) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %sa = "tf.Sum"(%a, %axes) : (tensor<256x256xf32>, tensor<2xi32>) -> tensor<f32>
  %sb = "tf.Sum"(%b, %axes) : (tensor<256x256xf32>, tensor<2xi32>) -> tensor<f32>
  return %sa, %sb : tensor<f32>, tensor<f32>
}

// -----

// Tests that an order that is already best stays, and that control inputs are
// dependencies: the Tanh waits for the NoOp that orders it after the Relu.
// CHECK-LABEL: func.func @kept
func.func @kept(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  // CHECK: %[[R:.*]] = "tf.Relu"(%arg0)
  // CHECK-NEXT: %[[N:.*]] = "tf.NoOp"(%[[R]])
  // CHECK-NEXT: "tf.Tanh"(%arg0, %[[N]])
  %0 = "tf.Relu"(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %n = "tf.NoOp"(%0) : (tensor<64xf32>) -> !tf.control
  %1 = "tf.Tanh"(%x, %n) : (tensor<64xf32>, !tf.control) -> tensor<64xf32>
  return %0, %1 : tensor<64xf32>, tensor<64xf32>
}
