// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Structure.cpp.

// Tests that Reshape becomes collapse + expand, Const an arith.constant, Identity nothing.
// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  // CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  // CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  // CHECK: return %[[R]]
  %s = "tf.Const"() {value = dense<[3, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Identity"(%x) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %1 = "tf.Reshape"(%0, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// Tests that control dependencies and the NoOps that carry them disappear.
// CHECK-LABEL: func.func @control
func.func @control(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: tf.
  // CHECK: linalg.generic
  // CHECK-NOT: tf.
  %n = "tf.NoOp"(%x) : (tensor<4xf32>) -> !tf.control
  %0 = "tf.Relu"(%x, %n) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an op of unknown shape, which kiln-lower-freeze-interface would have reported
// by its cause (test/passes/Lower/freeze-interface.mlir), stops the lowering.
func.func @dynamic(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has a result of unknown shape; run kiln-lower-freeze-interface first}}
  %0 = "tf.Identity"(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that _Send and _Recv become the kiln dialect's send and recv (into an empty tensor of
// the received shape), keeping the tensor name.
// CHECK-LABEL: func.func @send_recv
func.func @send_recv(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: tf._
  // CHECK: %[[S:.*]] = linalg.generic
  // CHECK: kiln.send %[[S]] as "a:0;/cpu:1" : tensor<4xf32>
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
  // CHECK: %[[R:.*]] = kiln.recv "a:0;/cpu:1" into %[[E]] : tensor<4xf32> -> tensor<4xf32>
  // CHECK: return %[[R]]
  %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "tf._Send"(%0) {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1"} : (tensor<4xf32>) -> ()
  %1 = "tf._Recv"() {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1", tensor_type = f32} : () -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
