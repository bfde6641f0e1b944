// RUN: kiln-opt --split-input-file --kiln-graph-cse %s | FileCheck %s

// Tests the paper's case: two copies of one computation (as layered abstractions build
// them) become one, and what used the copy uses the original; the merge cascades (the two
// Muls are identical once their Relus are).
// CHECK-LABEL: func.func @copies
func.func @copies(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[C:.*]] = "tf.Const"
  // CHECK-NEXT: %[[R:.*]] = "tf.Relu"(%arg0)
  // CHECK-NEXT: %[[M:.*]] = "tf.Mul"(%[[R]], %[[C]])
  // CHECK-NEXT: %[[A:.*]] = "tf.AddV2"(%[[M]], %[[M]])
  // CHECK-NEXT: return %[[A]]
  %c1 = "tf.Const"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %r1 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %m1 = "tf.Mul"(%r1, %c1) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %c2 = "tf.Const"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %r2 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %m2 = "tf.Mul"(%r2, %c2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a = "tf.AddV2"(%m1, %m2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Tests what is not merged: different attributes, different operands or operand order,
// different devices, and unfed Placeholders (each is its own input).
// CHECK-LABEL: func.func @different
func.func @different(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: "tf.LeakyRelu"(%arg0) {alpha = 1.000000e-01 : f32}
  // CHECK: "tf.LeakyRelu"(%arg0) {alpha = 2.000000e-01 : f32}
  // CHECK: "tf.MatMul"(%arg0, %arg1) {transpose_a = true}
  // CHECK: "tf.MatMul"(%arg1, %arg0) {transpose_a = true}
  // CHECK: "tf.Relu"(%arg0) {device = "/cpu:0"}
  // CHECK: "tf.Relu"(%arg0) {device = "/cpu:1"}
  // CHECK: "tf.Placeholder"()
  // CHECK: "tf.Placeholder"()
  %0 = "tf.LeakyRelu"(%x) {alpha = 0.1 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.LeakyRelu"(%x) {alpha = 0.2 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "tf.MatMul"(%x, %y) {transpose_a = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %3 = "tf.MatMul"(%y, %x) {transpose_a = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %4 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "tf.Relu"(%x) {device = "/cpu:1"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<4>} : () -> tensor<4xf32>
  %7 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<4>} : () -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that control dependencies are kept: ops with the same control inputs merge, an op
// with another (or no) control input stays.
// CHECK-LABEL: func.func @control
func.func @control(%x: tensor<4xf32>, %c: !tf.control, %d: !tf.control) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[A:.*]] = "tf.Tanh"(%arg0, %arg1)
  // CHECK-NEXT: %[[B:.*]] = "tf.Tanh"(%arg0, %arg2)
  // CHECK-NEXT: %[[N:.*]] = "tf.Tanh"(%arg0) :
  // CHECK-NEXT: return %[[A]], %[[A]], %[[B]], %[[N]]
  %0 = "tf.Tanh"(%x, %c) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  %1 = "tf.Tanh"(%x, %c) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  %2 = "tf.Tanh"(%x, %d) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  %3 = "tf.Tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
