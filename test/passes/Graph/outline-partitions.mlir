// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-outline-partitions %s | FileCheck %s

// Tests that each device's ops move, in order, to a function of their own that takes the
// inputs it reads and returns the outputs it computes, and that the entry function keeps its
// signature and only calls the partitions, in the order of their device names. Partition 1
// sends to 0 and receives back from it.
// CHECK-LABEL: func.func @ping_pong
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[A:.*]] = kiln.partition @ping_pong.cpu0(%[[X]]) on "/cpu:0" : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = kiln.partition @ping_pong.cpu1(%[[Y]]) on "/cpu:1" : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[B]], %[[A]]
// CHECK: func.func private @ping_pong.cpu0(%[[X0:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[R:.*]] = "tf._Recv"() {{.*}}tensor_name = "t:0;/cpu:0"
// CHECK-NEXT: %[[M:.*]] = "tf.Mul"(%[[R]], %[[X0]])
// CHECK-NEXT: "tf._Send"(%[[M]]) {{.*}}tensor_name = "m:0;/cpu:1"
// CHECK-NEXT: %[[N:.*]] = "tf.Neg"(%[[X0]])
// CHECK-NEXT: return %[[N]]
// CHECK: func.func private @ping_pong.cpu1(%[[Y1:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[T:.*]] = "tf.Tanh"(%[[Y1]])
// CHECK-NEXT: "tf._Send"(%[[T]])
// CHECK-NEXT: %[[R1:.*]] = "tf._Recv"() {{.*}}tensor_name = "m:0;/cpu:1"
// CHECK-NEXT: %[[S:.*]] = "tf.Sigmoid"(%[[R1]])
// CHECK-NEXT: return %[[S]]
func.func @ping_pong(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "tf.Tanh"(%y) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32> loc("t")
  "tf._Send"(%0) {T = f32, device = "/cpu:1", recv_device = "/cpu:0", send_device = "/cpu:1", tensor_name = "t:0;/cpu:0"} : (tensor<4xf32>) -> ()
  %1 = "tf._Recv"() {device = "/cpu:0", recv_device = "/cpu:0", send_device = "/cpu:1", tensor_name = "t:0;/cpu:0", tensor_type = f32} : () -> tensor<4xf32>
  %2 = "tf.Mul"(%1, %x) {device = "/cpu:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("m")
  "tf._Send"(%2) {T = f32, device = "/cpu:0", recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "m:0;/cpu:1"} : (tensor<4xf32>) -> ()
  %3 = "tf._Recv"() {device = "/cpu:1", recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "m:0;/cpu:1", tensor_type = f32} : () -> tensor<4xf32>
  %4 = "tf.Sigmoid"(%3) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "tf.Neg"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32>
  return %4, %5 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a control edge between devices is dropped while one within a device stays, and
// that an output that is an input passes through the first partition.
// CHECK-LABEL: func.func @controls
// CHECK-NEXT: %[[C:.*]] = kiln.partition @controls.cpu0(%arg0) on "/device:CPU:0" : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[G:.*]] = kiln.partition @controls.gpu0(%arg0) on "/device:GPU:0" : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[G]], %[[C]]
// CHECK: func.func private @controls.cpu0(%[[B:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[T:.*]] = "tf.Tanh"(%[[B]]) {device = "/device:CPU:0"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: "tf._Send"(%[[T]])
// CHECK-NEXT: return %[[B]]
// CHECK: func.func private @controls.gpu0(%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = "tf.Relu"(%[[A]])
// CHECK-NEXT: %[[N:.*]] = "tf.Neg"(%[[A]], %[[R]])
// CHECK-NEXT: return %[[N]]
func.func @controls(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "tf.Relu"(%x) {device = "/device:GPU:0"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Tanh"(%x, %0) {device = "/device:CPU:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "tf._Send"(%1) {T = f32, device = "/device:CPU:0", recv_device = "/device:GPU:0", send_device = "/device:CPU:0", tensor_name = "t:0;/device:GPU:0"} : (tensor<4xf32>) -> ()
  %2 = "tf.Neg"(%x, %0) {device = "/device:GPU:0"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that functions on one device, or not placed, are left alone.
// CHECK-LABEL: func.func @one_device
// CHECK-NEXT: "tf.Relu"
// CHECK-NOT: kiln.partition
func.func @one_device(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Relu"(%x) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @unplaced
// CHECK-NEXT: "tf.Relu"
func.func @unplaced(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Relu"(%x) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Tests that a data edge between devices without a _Send/_Recv pair is an error naming both
// nodes.
func.func @unpartitioned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("r")
  // expected-error @unknown {{node 'n' on /cpu:1 reads node 'r' on /cpu:0 without a _Recv; run kiln-graph-partition before outlining}}
  %1 = "tf.Neg"(%0) {device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32> loc("n")
  return %1 : tensor<4xf32>
}
