// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-place="devices=/cpu:0,/gpu:0" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-place="devices=/cpu:0,/gpu:0 compress-transfers=true" %s | FileCheck %s --check-prefix=COMPRESS

// Tests that a GPU takes stateless ops on numeric tensors, and that an op with regions (a
// tf.If) is placed on the CPU however large: GPUs have no lowering for it yet.
// CHECK-LABEL: func.func @mixed
func.func @mixed(%c: tensor<i1>, %x: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>) {
  // CHECK: "tf.MatMul"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %m = "tf.MatMul"(%x, %x) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("m")
  // CHECK: "tf.If"
  // CHECK: }) {Tin = [f32], device = "/job:localhost/replica:0/task:0/device:CPU:0"}
  %i = "tf.If"(%c, %x) ({
  ^bb0(%a: tensor<1024x1024xf32>):
    %n = "tf.Neg"(%a) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    "tf.Yield"(%n) : (tensor<1024x1024xf32>) -> ()
  }, {
  ^bb0(%a: tensor<1024x1024xf32>):
    "tf.Yield"(%a) : (tensor<1024x1024xf32>) -> ()
  }) {Tin = [f32]} : (tensor<i1>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("i")
  return %m, %i : tensor<1024x1024xf32>, tensor<1024x1024xf32>
}

// -----

// Tests that Where and a non-max suppression (one sequential loop each) stay on the CPU
// while the elementwise op beside them goes to the GPU.
// CHECK-LABEL: func.func @sequential
// CHECK: "tf.Where"{{.*}}device = "/job:localhost/replica:0/task:0/device:CPU:0"
// CHECK: "tf.NonMaxSuppressionV5"{{.*}}device = "/job:localhost/replica:0/task:0/device:CPU:0"
// CHECK: "tf.Mul"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
func.func @sequential(%m: tensor<1024x1024xf32>, %b: tensor<64x4xf32>, %s: tensor<64xf32>, %n: tensor<i32>, %t: tensor<f32>)
    -> (tensor<1048576x2xi64>, tensor<64xi32>, tensor<1024x1024xf32>) {
  %w = "tf.Where"(%m) : (tensor<1024x1024xf32>) -> tensor<1048576x2xi64> loc("w")
  %v:3 = "tf.NonMaxSuppressionV5"(%b, %s, %n, %t, %t, %t) : (tensor<64x4xf32>, tensor<64xf32>, tensor<i32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<64xi32>, tensor<64xf32>, tensor<i32>) loc("v")
  %x = "tf.Mul"(%m, %m) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("x")
  return %w, %v#0, %x : tensor<1048576x2xi64>, tensor<64xi32>, tensor<1024x1024xf32>
}

// -----

// Tests that forcing such an op onto the GPU is an error that says why.
func.func @forced(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @unknown {{no device in --devices can run node 'i' (device '/gpu:0'); devices: /job:localhost/replica:0/task:0/device:CPU:0 /job:localhost/replica:0/task:0/device:GPU:0 (a GPU runs stateless ops on numeric tensors only, so far)}}
  %i = "tf.If"(%c, %x) ({
  ^bb0(%a: tensor<4xf32>):
    "tf.Yield"(%a) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "tf.Yield"(%a) : (tensor<4xf32>) -> ()
  }) {Tin = [f32], device = "/gpu:0"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32> loc("i")
  return %i : tensor<4xf32>
}

// -----

// Tests that compress-transfers halves what moving an f32 tensor costs: the 1024x1024 Relu
// result (4 MiB) takes longer to reach the GPU over PCIe (262 us) than the CPU takes for the
// 10.5 MFLOP product (210 us), but its compressed 2 MiB (131 us) does not.
// CHECK-LABEL: func.func @compressed_transfer_moves_to_gpu
// CHECK: "tf.MatMul"{{.*}}device = "/job:localhost/replica:0/task:0/device:CPU:0"
// COMPRESS-LABEL: func.func @compressed_transfer_moves_to_gpu
// COMPRESS: "tf.MatMul"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
func.func @compressed_transfer_moves_to_gpu(%x: tensor<1024x1024xf32>) -> tensor<1024x5xf32> {
  %w = "tf.Const"() {value = dense<1.0> : tensor<1024x5xf32>} : () -> tensor<1024x5xf32>
  %r = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = "tf.MatMul"(%r, %w) : (tensor<1024x1024xf32>, tensor<1024x5xf32>) -> tensor<1024x5xf32>
  return %m : tensor<1024x5xf32>
}

// -----

// Tests that a control input does not keep an op off the GPU: an Identity after a NoOp (as
// Keras' frozen graphs end) is placed there, and only its data decides.
// CHECK-LABEL: func.func @control_input
func.func @control_input(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %m = "tf.MatMul"(%x, %x) {T = f32, device = "/gpu:0"} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("m")
  %ctl = "tf.NoOp"(%m) : (tensor<1024x1024xf32>) -> !tf.control loc("n")
  // CHECK: "tf.Identity"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %y = "tf.Identity"(%m, %ctl) {T = f32, device = "/gpu:0"} : (tensor<1024x1024xf32>, !tf.control) -> tensor<1024x1024xf32> loc("y")
  return %y : tensor<1024x1024xf32>
}

// -----

// Tests that a frozen variable's read (an Identity of a constant, kept for the control
// edge a NoOp takes from it) goes, with its constant, where its data user is: free on its
// own, the greedy choice would put it on the CPU, idle while the GPU computes the product
// before it, and send the weights to the GPU on every call. The NoOp's control inputs
// carry no data, so they do not pull it either.
// CHECK-LABEL: func.func @frozen_read
func.func @frozen_read(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  // CHECK: "tf.MatMul"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %p = "tf.MatMul"(%x, %x) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("p")
  // CHECK: "tf.Const"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %w = "tf.Const"() {dtype = f32, value = dense<0.5> : tensor<1024x1024xf32>} : () -> tensor<1024x1024xf32> loc("w")
  // CHECK: "tf.Identity"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %r = "tf.Identity"(%w) {T = f32} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("r")
  // CHECK: "tf.NoOp"
  %n = "tf.NoOp"(%r) : (tensor<1024x1024xf32>) -> !tf.control loc("n")
  // CHECK: "tf.MatMul"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %m = "tf.MatMul"(%p, %r) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("m")
  %y = "tf.Identity"(%m, %n) {T = f32} : (tensor<1024x1024xf32>, !tf.control) -> tensor<1024x1024xf32> loc("y")
  return %y : tensor<1024x1024xf32>
}

// -----

// Tests that an op whose input is on a busy GPU is charged for sending its result back
// when weighed on the idle CPU: the Relu of %a would finish first on the CPU (the GPU's
// queue holds four more products), but its 4 MB result would then cross back to the GPU
// that reads it.
// CHECK-LABEL: func.func @return_trip
func.func @return_trip(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %a = "tf.MatMul"(%x, %x) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("a")
  %b = "tf.MatMul"(%a, %a) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("b")
  %c = "tf.MatMul"(%b, %a) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("c")
  %d = "tf.MatMul"(%c, %a) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("d")
  %e = "tf.MatMul"(%d, %a) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("e")
  // CHECK: "tf.Relu"{{.*}}device = "/job:localhost/replica:0/task:0/device:GPU:0"
  %r = "tf.Relu"(%a) {T = f32} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("r")
  %y = "tf.MatMul"(%e, %r) {T = f32} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> loc("y")
  return %y : tensor<1024x1024xf32>
}
