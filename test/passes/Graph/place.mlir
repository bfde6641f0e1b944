// RUN: kiln-opt --split-input-file --kiln-graph-place="devices=/cpu:0,/cpu:1" %s | FileCheck %s

// Tests the cost model: two independent products go to different CPUs (the second would
// wait for the first on CPU 0), each Relu stays with its product (moving its input would
// cost a transfer), and the sum joins them on the device its slower input is on.
// CHECK-LABEL: func.func @parallel
func.func @parallel(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  // CHECK: "tf.MatMul"(%arg0, %arg1) {device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  // CHECK: "tf.MatMul"(%arg1, %arg0) {device = "/job:localhost/replica:0/task:0/device:CPU:1"}
  // CHECK: "tf.Relu"(%0) {device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  // CHECK: "tf.Relu"(%1) {device = "/job:localhost/replica:0/task:0/device:CPU:1"}
  // CHECK: "tf.AddV2"(%2, %3) {device = "/job:localhost/replica:0/task:0/device:CPU:
  %0 = "tf.MatMul"(%a, %b) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = "tf.MatMul"(%b, %a) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  %2 = "tf.Relu"(%0) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %3 = "tf.Relu"(%1) : (tensor<512x512xf32>) -> tensor<512x512xf32>
  %4 = "tf.AddV2"(%2, %3) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %4 : tensor<512x512xf32>
}

// -----

// Tests that a chain of small dependent ops stays on one device: the transfers would cost
// more than the idle CPU saves.
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  // CHECK: "tf.Relu"(%arg0) {device = "[[D:.*]]"}
  // CHECK: "tf.Tanh"(%0) {device = "[[D]]"}
  // CHECK: "tf.Sigmoid"(%1) {device = "[[D]]"}
  %0 = "tf.Relu"(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %1 = "tf.Tanh"(%0) : (tensor<64xf32>) -> tensor<64xf32>
  %2 = "tf.Sigmoid"(%1) : (tensor<64xf32>) -> tensor<64xf32>
  return %2 : tensor<64xf32>
}

// -----

// Tests constraints: a `device` attribute, full, short or partial (CPU 1 of job localhost, any replica and task), pins
// its op, and `_class = ["loc:@node"]` puts a node with the one it names; constants go
// with their first user.
// CHECK-LABEL: func.func @constraints
func.func @constraints(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  // CHECK: "tf.Const"() {device = "/job:localhost/replica:0/task:0/device:CPU:1"
  // CHECK: "tf.Relu"(%arg0) {device = "/job:localhost/replica:0/task:0/device:CPU:1"}
  // CHECK: "tf.Tanh"(%arg0) {_class = ["loc:@r"], device = "/job:localhost/replica:0/task:0/device:CPU:1"}
  // CHECK: "tf.Mul"(%{{.*}}, %{{.*}}) {device = "/job:localhost/replica:0/task:0/device:CPU:1"}
  %c = "tf.Const"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Relu"(%x) {device = "/job:localhost/device:CPU:1"} : (tensor<64xf32>) -> tensor<64xf32> loc("r")
  %1 = "tf.Tanh"(%x) {_class = ["loc:@r"]} : (tensor<64xf32>) -> tensor<64xf32>
  %2 = "tf.Mul"(%x, %c) {device = "/cpu:1"} : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Tests that a loop runs whole on the device it is placed on: the ops of its regions take
// the loop's device, whatever their own attributes said.
// CHECK-LABEL: func.func @loop
// CHECK: "tf.Less"{{.*}}device = "/job:localhost/replica:0/task:0/device:CPU:1"
// CHECK: "tf.Tanh"{{.*}}device = "/job:localhost/replica:0/task:0/device:CPU:1"
// CHECK: device = "/job:localhost/replica:0/task:0/device:CPU:1"{{.*}}: (tensor<i32>, tensor<64xf32>)
func.func @loop(%x: tensor<64xf32>) -> tensor<64xf32> {
  %zero = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.While"(%zero, %x) ({
  ^bb0(%i: tensor<i32>, %v: tensor<64xf32>):
    %n = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
    %c = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %v: tensor<64xf32>):
    %t = "tf.Tanh"(%v) {device = "/device:CPU:0"} : (tensor<64xf32>) -> tensor<64xf32>
    "tf.Yield"(%i, %t) : (tensor<i32>, tensor<64xf32>) -> ()
  }) {T = [i32, f32], device = "/device:CPU:1"} : (tensor<i32>, tensor<64xf32>) -> (tensor<i32>, tensor<64xf32>)
  return %0#1 : tensor<64xf32>
}
