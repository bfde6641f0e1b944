// RUN: kiln-opt --split-input-file --kiln-graph-insert-checks %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-graph-insert-checks=constants-only %s | FileCheck %s --check-prefix=CONST

// Tests that integer division and remainder check their divisor, named by the node, and
// that float division does not.
// CHECK-LABEL: func.func @division
// CHECK: kiln.check "nonzero" %arg1, "node 'q' (FloorDiv): integer division by zero (y{index} is 0)" : tensor<4xi32>
// CHECK-NEXT: "tf.FloorDiv"
// CHECK: kiln.check "nonzero" %arg2, "node 'r' (Mod): integer division by zero (y{index} is 0)" {unsigned_values} : tensor<4xui8>
// CHECK-NEXT: "tf.Mod"
// CHECK-NOT: kiln.check
// CONST-LABEL: func.func @division
// CONST-NOT: kiln.check
func.func @division(%x: tensor<4xi32>, %y: tensor<4xi32>, %u: tensor<4xui8>, %f: tensor<4xf32>)
    -> (tensor<4xi32>, tensor<4xui8>, tensor<4xf32>) {
  %0 = "tf.FloorDiv"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> loc("q")
  %1 = "tf.Mod"(%u, %u) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8> loc("r")
  %2 = "tf.RealDiv"(%f, %f) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("s")
  return %0, %1, %2 : tensor<4xi32>, tensor<4xui8>, tensor<4xf32>
}

// -----

// Tests that an integer Pow checks that its exponent is not negative, and a float one does
// not.
// CHECK-LABEL: func.func @power
// CHECK: kiln.check "nonnegative" %arg1, "node 'p' (Pow): integers to negative integer powers are not allowed (y{index} = {value})" : tensor<3xi64>
// CHECK-NOT: kiln.check
func.func @power(%x: tensor<3xi64>, %y: tensor<3xi64>, %f: tensor<3xf32>) -> (tensor<3xi64>, tensor<3xf32>) {
  %0 = "tf.Pow"(%x, %y) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64> loc("p")
  %1 = "tf.Pow"(%f, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> loc("pf")
  return %0, %1 : tensor<3xi64>, tensor<3xf32>
}

// -----

// Tests that GatherV2 checks its indices against the size of params along the axis
// (negative axes count from the end), and GatherNd each entry of an index tuple against
// the dimension it indexes.
// CHECK-LABEL: func.func @gathers
// CHECK: kiln.check "in_range" %arg1 bounds [3], "node 'g' (GatherV2): indices{index} = {value} is not in [0, 3)" : tensor<2x2xi32>
// CHECK: kiln.check "in_range" %arg2 bounds [5, 3], "node 'n' (GatherNd): indices{index} = {value} does not index into params of shape [5,3,2]" : tensor<4x2xi64>
func.func @gathers(%p: tensor<5x3x2xf32>, %i: tensor<2x2xi32>, %t: tensor<4x2xi64>)
    -> (tensor<5x2x2x2xf32>, tensor<4x2xf32>) {
  %axis = "tf.Const"() {value = dense<-2> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.GatherV2"(%p, %i, %axis) : (tensor<5x3x2xf32>, tensor<2x2xi32>, tensor<i32>) -> tensor<5x2x2x2xf32> loc("g")
  %1 = "tf.GatherNd"(%p, %t) : (tensor<5x3x2xf32>, tensor<4x2xi64>) -> tensor<4x2xf32> loc("n")
  return %0, %1 : tensor<5x2x2x2xf32>, tensor<4x2xf32>
}

// -----

// Tests that constant operands that meet their conditions are checked at compile time, so
// no run-time check is left: a divisor with no zero, indices in range.
// CHECK-LABEL: func.func @constants
// CHECK-NOT: kiln.check
// CONST-LABEL: func.func @constants
// CONST-NOT: kiln.check
func.func @constants(%x: tensor<3xi32>, %p: tensor<4xf32>) -> (tensor<3xi32>, tensor<3xf32>) {
  %y = "tf.Const"() {value = dense<[1, -1, 7]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "tf.FloorDiv"(%x, %y) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %i = "tf.Const"() {value = dense<[0, 3, 2]> : tensor<3xi32>} : () -> tensor<3xi32>
  %a = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %1 = "tf.GatherV2"(%p, %i, %a) : (tensor<4xf32>, tensor<3xi32>, tensor<i32>) -> tensor<3xf32>
  return %0, %1 : tensor<3xi32>, tensor<3xf32>
}

// -----

// Tests that segment ids are checked to be below num_segments (negative ones are dropped,
// not errors), scatter tuples to index into the shape, and bin counts' values to be
// non-negative; constant ids that break it are an error at compile time.
// CHECK-LABEL: func.func @scatters
// CHECK: kiln.check "below" %arg1 bounds [4], "node 's' (UnsortedSegmentSum): segment_ids{index} = {value} is out of range [0, 4)" : tensor<5xi32>
// CHECK: kiln.check "in_range" %arg2 bounds [4, 3], "node 'n' (ScatterNd): indices{index} = {value} does not index into shape [4,3]" : tensor<2x2xi32>
// CHECK: kiln.check "nonnegative" %arg1, "node 'b' (Bincount): input{index} = {value}: the values must not be negative (TensorFlow: Input arr must be non-negative!)" : tensor<5xi32>
func.func @scatters(%d: tensor<5x3xf32>, %ids: tensor<5xi32>, %i: tensor<2x2xi32>, %u: tensor<2xf32>, %w: tensor<0xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xf32>) {
  %n = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.UnsortedSegmentSum"(%d, %ids, %n) : (tensor<5x3xf32>, tensor<5xi32>, tensor<i32>) -> tensor<4x3xf32> loc("s")
  %shape = "tf.Const"() {value = dense<[4, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %1 = "tf.ScatterNd"(%i, %u, %shape) : (tensor<2x2xi32>, tensor<2xf32>, tensor<2xi32>) -> tensor<4x3xf32> loc("n")
  %size = "tf.Const"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
  %2 = "tf.Bincount"(%ids, %size, %w) : (tensor<5xi32>, tensor<i32>, tensor<0xf32>) -> tensor<5xf32> loc("b")
  return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xf32>
}

// -----

// Tests that CropAndResize checks each box index against the batch (TensorFlow reports
// "box_index has values outside [0, batch_size)").
// CHECK-LABEL: func.func @crop_boxes
// CHECK: kiln.check "in_range" %arg2 bounds [2], "node 'c' (CropAndResize): box_ind{index} = {value} is not in [0, 2)" : tensor<4xi32>
func.func @crop_boxes(%x: tensor<2x5x6x3xf32>, %b: tensor<4x4xf32>, %i: tensor<4xi32>) -> tensor<4x3x2x3xf32> {
  %size = "tf.Const"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.CropAndResize"(%x, %b, %i, %size) : (tensor<2x5x6x3xf32>, tensor<4x4xf32>, tensor<4xi32>, tensor<2xi32>) -> tensor<4x3x2x3xf32> loc("c")
  return %0 : tensor<4x3x2x3xf32>
}

// -----

// Tests that Assert checks its condition (a bool scalar), named by the node.
// CHECK-LABEL: func.func @assert
// CHECK: kiln.check "nonzero" %arg0, "node 'positive' (Assert): assertion failed (the condition is false)" : tensor<i1>
// CHECK-NEXT: "tf.Assert"
func.func @assert(%c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %ctl = "tf.Assert"(%c, %x) {T = [f32]} : (tensor<i1>, tensor<3xf32>) -> !tf.control loc("positive")
  %0 = "tf.Identity"(%x, %ctl) : (tensor<3xf32>, !tf.control) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Tests that CheckNumerics checks its input for NaNs, then for infinities, with its message.
// CHECK-LABEL: func.func @check_numerics
// CHECK: kiln.check "not_nan" %arg0, "node 'c' (CheckNumerics): logits : Tensor had NaN values (tensor{index} is NaN)" : tensor<2x3xf32>
// CHECK-NEXT: kiln.check "not_inf" %arg0, "node 'c' (CheckNumerics): logits : Tensor had Inf values (tensor{index} is infinite)" : tensor<2x3xf32>
// CHECK-NEXT: "tf.CheckNumerics"
func.func @check_numerics(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tf.CheckNumerics"(%x) {message = "logits"} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("c")
  return %0 : tensor<2x3xf32>
}
