// RUN: kiln-opt --split-input-file --kiln-graph-partition %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-graph-partition=compress-transfers %s | FileCheck %s --check-prefix=COMPRESS

// Tests that a tensor used by two ops on another device crosses once: one _Send after its
// producer and one _Recv before the first consumer there, which both consumers read; a
// consumer on the producer's own device keeps reading the tensor directly.
// CHECK-LABEL: func.func @one_recv_per_destination
func.func @one_recv_per_destination(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[R:.*]] = "tf.Relu"(%arg0) {device = "/cpu:0"}
  // CHECK-NEXT: "tf._Send"(%[[R]]) {T = f32, device = "/cpu:0", recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "r:0;/cpu:1"}
  // CHECK-NEXT: %[[V:.*]] = "tf._Recv"() {device = "/cpu:1", recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "r:0;/cpu:1", tensor_type = f32}
  // CHECK-NEXT: "tf.Tanh"(%[[V]]) {device = "/cpu:1"}
  // CHECK-NEXT: "tf.Neg"(%[[R]]) {device = "/cpu:0"}
  // CHECK-NEXT: "tf.Sigmoid"(%[[V]]) {device = "/cpu:1"}
  // CHECK-NOT: "tf._Recv"
  %0 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("r")
  %1 = "tf.Tanh"(%0) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Neg"(%0) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Sigmoid"(%0) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that each destination device gets its own _Recv, and that a constant used on two
// devices is copied instead of sent.
// CHECK-LABEL: func.func @two_destinations
func.func @two_destinations(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[C:.*]] = "tf.Const"() {device = "/cpu:0"
  // CHECK: %[[R:.*]] = "tf.Relu"(%arg0) {device = "/cpu:0"}
  // CHECK-NEXT: "tf._Send"(%[[R]]) {{.*}}tensor_name = "r:0;/cpu:1"
  // CHECK-NEXT: "tf._Send"(%[[R]]) {{.*}}tensor_name = "r:0;/cpu:2"
  // CHECK-NEXT: %[[C1:.*]] = "tf.Const"() {device = "/cpu:1"
  // CHECK-NEXT: %[[V1:.*]] = "tf._Recv"() {{.*}}tensor_name = "r:0;/cpu:1"
  // CHECK-NEXT: "tf.Mul"(%[[V1]], %[[C1]]) {device = "/cpu:1"}
  // CHECK: %[[V2:.*]] = "tf._Recv"() {{.*}}tensor_name = "r:0;/cpu:2"
  // CHECK-NEXT: "tf.Tanh"(%[[V2]]) {device = "/cpu:2"}
  %c = "tf.Const"() {device = "/cpu:0", value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("r")
  %1 = "tf.Mul"(%0, %c) {device = "/cpu:1"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = "tf.Tanh"(%0) {device = "/cpu:2"} : (tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that compress-transfers marks the f32 pairs kiln.compressed (both ends) and leaves
// the others alone; without it nothing is marked.
// CHECK-LABEL: func.func @compressed
// CHECK-NOT: kiln.compressed
// COMPRESS-LABEL: func.func @compressed
// COMPRESS: "tf._Send"(%{{.*}}) {T = f32, device = "/cpu:0", kiln.compressed, {{.*}}tensor_name = "r:0;/cpu:1"}
// COMPRESS: "tf._Send"(%{{.*}}) {T = i32, device = "/cpu:0", recv_device
// COMPRESS: "tf._Recv"() {device = "/cpu:1", kiln.compressed, {{.*}}tensor_name = "r:0;/cpu:1"
// COMPRESS: "tf._Recv"() {device = "/cpu:1", recv_device
func.func @compressed(%x: tensor<4xf32>, %n: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("r")
  %1 = "tf.Neg"(%n) {device = "/cpu:0"} : (tensor<4xi32>) -> tensor<4xi32> loc("m")
  %2 = "tf.Tanh"(%0) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Neg"(%1) {device = "/cpu:1"} : (tensor<4xi32>) -> tensor<4xi32>
  return %2, %3 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Tests that a tensor another device takes as a control input (`^r`: an op's operands after
// its data inputs; all of a NoOp's) is not sent: the control edge is dropped, as control
// edges order ops on their own device only. A data use on the same device still crosses.
// CHECK-LABEL: func.func @control_inputs_stay
func.func @control_inputs_stay(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = "tf.Relu"(%arg0) {device = "/cpu:0"}
  // CHECK-NEXT: "tf._Send"(%[[R]]) {{.*}}tensor_name = "r:0;/cpu:1"
  // CHECK-NOT: "tf._Send"
  // CHECK: "tf.NoOp"() {device = "/cpu:1"}
  // CHECK: "tf.Neg"(%arg0) {device = "/cpu:1"}
  // CHECK: "tf.Tanh"(%{{.*}}) {device = "/cpu:1"}
  %0 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("r")
  %1 = "tf.NoOp"(%0) {device = "/cpu:1"} : (tensor<4xf32>) -> !tf.control
  %2 = "tf.Neg"(%x, %0) {device = "/cpu:1"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Tanh"(%0, %1) {device = "/cpu:1"} : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
