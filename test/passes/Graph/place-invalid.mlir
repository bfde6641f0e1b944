// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-place="devices=/cpu:0,/cpu:1" %s

// Tests that a constraint no listed device meets is an error naming the node (the
// diagnostics are at the nodes' names, which carry no line, hence @unknown).
func.func @gpu_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @unknown {{no device in --devices can run node 'g' (device '/device:GPU:*'); devices: /job:localhost/replica:0/task:0/device:CPU:0 /job:localhost/replica:0/task:0/device:CPU:1}}
  %0 = "tf.Relu"(%x) {device = "/device:GPU:*"} : (tensor<4xf32>) -> tensor<4xf32> loc("g")
  return %0 : tensor<4xf32>
}

// -----

// Tests that colocated nodes with conflicting devices are an error naming all of them.
func.func @conflict(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @unknown {{no device in --devices can run the colocated nodes 'a' (device '/cpu:0') 'b' (device '/cpu:1')}}
  %0 = "tf.Relu"(%x) {device = "/cpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("a")
  %1 = "tf.Tanh"(%x) {_class = ["loc:@a"], device = "/cpu:1"} : (tensor<4xf32>) -> tensor<4xf32> loc("b")
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that a device attribute that is not a device name is reported.
func.func @bad_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @unknown {{node 'n' has device '/tpu:0', which is not a device name}}
  %0 = "tf.Relu"(%x) {device = "/tpu:0"} : (tensor<4xf32>) -> tensor<4xf32> loc("n")
  return %0 : tensor<4xf32>
}
