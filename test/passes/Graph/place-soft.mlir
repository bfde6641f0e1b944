// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-place="devices=/gpu:0" %s | FileCheck %s

// Tests soft placement: with only /gpu:0 listed, a tf.If (no GPU lowering) goes to the
// host's CPU with the ops of its branches, and the product stays on the GPU.
// CHECK-LABEL: func.func @soft
func.func @soft(%c: tensor<i1>, %x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  // CHECK: "tf.MatMul"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %m = "tf.MatMul"(%x, %x) {T = f32} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> loc("m")
  // CHECK: "tf.If"
  // CHECK: "tf.Neg"{{.*}}device = "/job:localhost/replica:0/task:0/device:CPU:0"
  // CHECK: }) {Tin = [f32], device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %i = "tf.If"(%c, %m) ({
  ^bb0(%a: tensor<64x64xf32>):
    %n = "tf.Neg"(%a) : (tensor<64x64xf32>) -> tensor<64x64xf32>
    "tf.Yield"(%n) : (tensor<64x64xf32>) -> ()
  }, {
  ^bb0(%a: tensor<64x64xf32>):
    "tf.Yield"(%a) : (tensor<64x64xf32>) -> ()
  }) {Tin = [f32]} : (tensor<i1>, tensor<64x64xf32>) -> tensor<64x64xf32> loc("i")
  // An op after it that the GPU can run stays on the GPU (only listed devices are
  // feasible for it).
  // CHECK: "tf.Relu"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %r = "tf.Relu"(%i) {T = f32} : (tensor<64x64xf32>) -> tensor<64x64xf32> loc("r")
  return %m, %r : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// Tests that a node pinned to a device that cannot run it is still an error.
func.func @pinned(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @unknown {{no device in --devices can run node 'i' (device '/gpu:0'); devices: /job:localhost/replica:0/task:0/device:GPU:0 (a GPU runs stateless ops on numeric tensors only, so far)}}
  %i = "tf.If"(%c, %x) ({
  ^bb0(%a: tensor<4xf32>):
    "tf.Yield"(%a) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "tf.Yield"(%a) : (tensor<4xf32>) -> ()
  }) {Tin = [f32], device = "/gpu:0"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> loc("i")
  return %i : tensor<4xf32>
}
