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

// -----

// Tests that a pair marked kiln.compressed (kiln-graph-partition's compress-transfers) sends
// the upper 16 bits of each f32, the quiet bit set for a NaN, and widens them with zeros on
// receipt; an unmarked pair and a marked pair of another type cross whole.
// CHECK-LABEL: func.func @compressed_send_recv
func.func @compressed_send_recv(%x: tensor<2x3xf32>, %n: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xi32>) {
  // CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xi16>)
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: i16):
  // CHECK-NEXT: %[[B:.*]] = arith.bitcast %[[IN]] : f32 to i32
  // CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : i32
  // CHECK-NEXT: %[[U:.*]] = arith.shrui %[[B]], %[[C16]] : i32
  // CHECK-NEXT: %[[H:.*]] = arith.trunci %[[U]] : i32 to i16
  // CHECK-NEXT: %[[QUIET:.*]] = arith.constant 64 : i16
  // CHECK-NEXT: %[[Q:.*]] = arith.ori %[[H]], %[[QUIET]] : i16
  // CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
  // CHECK-NEXT: %[[V:.*]] = arith.select %[[NAN]], %[[Q]], %[[H]] : i16
  // CHECK-NEXT: linalg.yield %[[V]] : i16
  // CHECK: kiln.send %[[T]] as "x:0;/cpu:1" : tensor<2x3xi16>
  // CHECK: kiln.send %arg1 as "n:0;/cpu:1" : tensor<3xi32>
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xi16>
  // CHECK: %[[R:.*]] = kiln.recv "x:0;/cpu:1" into %[[E]] : tensor<2x3xi16> -> tensor<2x3xi16>
  // CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<2x3xi16>) outs(%{{.*}} : tensor<2x3xf32>)
  // CHECK-NEXT: ^bb0(%[[IN2:.*]]: i16, %{{.*}}: f32):
  // CHECK-NEXT: %[[SH:.*]] = arith.constant 16 : i32
  // CHECK-NEXT: %[[X:.*]] = arith.extui %[[IN2]] : i16 to i32
  // CHECK-NEXT: %[[S:.*]] = arith.shli %[[X]], %[[SH]] : i32
  // CHECK-NEXT: %[[F:.*]] = arith.bitcast %[[S]] : i32 to f32
  // CHECK-NEXT: linalg.yield %[[F]] : f32
  // CHECK: %[[RN:.*]] = kiln.recv "n:0;/cpu:1" into %{{.*}} : tensor<3xi32> -> tensor<3xi32>
  // CHECK: return %[[W]], %[[RN]]
  "tf._Send"(%x) {kiln.compressed, recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "x:0;/cpu:1"} : (tensor<2x3xf32>) -> ()
  "tf._Send"(%n) {kiln.compressed, recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "n:0;/cpu:1"} : (tensor<3xi32>) -> ()
  %0 = "tf._Recv"() {kiln.compressed, recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "x:0;/cpu:1", tensor_type = f32} : () -> tensor<2x3xf32>
  %1 = "tf._Recv"() {kiln.compressed, recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "n:0;/cpu:1", tensor_type = i32} : () -> tensor<3xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<3xi32>
}
