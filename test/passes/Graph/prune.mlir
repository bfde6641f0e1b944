// RUN: kiln-opt --split-input-file --kiln-graph-prune %s | FileCheck %s

// Tests that ops no result depends on are removed.
// CHECK-LABEL: func.func @unused
func.func @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: "tf.Relu"
  // CHECK-NOT: "tf.Tanh"
  %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that control inputs keep their producers alive, and that a dead NoOp goes.
// CHECK-LABEL: func.func @control
func.func @control(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[T:.*]] = "tf.Tanh"
  // CHECK: %[[N:.*]] = "tf.NoOp"(%[[T]])
  // CHECK: "tf.Relu"(%arg0, %[[N]])
  // CHECK-NOT: "tf.NoOp"
  %0 = "tf.Tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.NoOp"(%0) : (tensor<4xf32>) -> !tf.control
  %2 = "tf.Relu"(%x, %1) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  %3 = "tf.NoOp"(%2) : (tensor<4xf32>) -> !tf.control
  return %2 : tensor<4xf32>
}

// -----

// Tests that a chain feeding only a dead op is removed entirely.
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<2xi32>) -> tensor<2xi32> {
  // CHECK-NEXT: return %arg0
  %c = "tf.Const"() {value = dense<1> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Add"(%x, %c) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = "tf.Mul"(%0, %0) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %x : tensor<2xi32>
}
