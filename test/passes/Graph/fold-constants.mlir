// RUN: kiln-opt --split-input-file --kiln-graph-fold-constants --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s

// Tests that Shape, Size and Rank of static tensors become constants with the node's name.
// CHECK-LABEL: func.func @queries
func.func @queries(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<i32>, tensor<i32>) {
  // CHECK-DAG: "tf.Const"() {dtype = i64, value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64> loc("s")
  // CHECK-DAG: "tf.Const"() {dtype = i32, value = dense<6> : tensor<i32>} : () -> tensor<i32> loc("n")
  // CHECK-DAG: "tf.Const"() {dtype = i32, value = dense<2> : tensor<i32>} : () -> tensor<i32> loc("r")
  // CHECK-NOT: tf.Shape
  // CHECK-NOT: tf.Size
  // CHECK-NOT: tf.Rank
  %0 = "tf.Shape"(%x) {out_type = i64} : (tensor<2x3xf32>) -> tensor<2xi64> loc("s")
  %1 = "tf.Size"(%x) : (tensor<2x3xf32>) -> tensor<i32> loc("n")
  %2 = "tf.Rank"(%x) : (tensor<2x3xf32>) -> tensor<i32> loc("r")
  return %0, %1, %2 : tensor<2xi64>, tensor<i32>, tensor<i32>
}

// -----

// Tests that the shape of a tensor with an unknown dimension stays, while its rank folds.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x3xf32>) -> (tensor<2xi32>, tensor<i32>) {
  // CHECK: "tf.Shape"
  // CHECK: "tf.Const"() {dtype = i32, value = dense<2> : tensor<i32>}
  %0 = "tf.Shape"(%x) : (tensor<?x3xf32>) -> tensor<2xi32>
  %1 = "tf.Rank"(%x) : (tensor<?x3xf32>) -> tensor<i32>
  return %0, %1 : tensor<2xi32>, tensor<i32>
}

// -----

// Tests that Identity is forwarded, but not when control inputs order it.
// CHECK-LABEL: func.func @identity
func.func @identity(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK: %[[N:.*]] = "tf.NoOp"
  // CHECK: %[[KEPT:.*]] = "tf.Identity"(%arg0, %[[N]])
  // CHECK: return %arg0, %[[KEPT]]
  %0 = "tf.Identity"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %n = "tf.NoOp"() : () -> !tf.control
  %1 = "tf.Identity"(%x, %n) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that Keras' Flatten shape subgraph folds step by step to one constant: Shape, then
// StridedSlice of that constant, then Pack of constants.
// CHECK-LABEL: func.func @flatten
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2xi32> {
  // CHECK: %[[R:.*]] = "tf.Const"() {dtype = i32, value = dense<[2, -1]> : tensor<2xi32>}
  // CHECK-NEXT: return %[[R]]
  %s = "tf.Shape"(%x) : (tensor<2x3x4xf32>) -> tensor<3xi32>
  %b = "tf.Const"() {value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %e = "tf.Const"() {value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %batch = "tf.StridedSlice"(%s, %b, %e, %e) {shrink_axis_mask = 1 : i64} : (tensor<3xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<i32>
  %m = "tf.Const"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %p = "tf.Pack"(%batch, %m) {N = 2 : i64, axis = 0 : i64} : (tensor<i32>, tensor<i32>) -> tensor<2xi32>
  return %p : tensor<2xi32>
}

// -----

// Tests that Range of constants folds.
// CHECK-LABEL: func.func @range
func.func @range() -> tensor<4xi32> {
  // CHECK: "tf.Const"() {dtype = i32, value = dense<[2, 5, 8, 11]> : tensor<4xi32>}
  %s = "tf.Const"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %l = "tf.Const"() {value = dense<12> : tensor<i32>} : () -> tensor<i32>
  %d = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.Range"(%s, %l, %d) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that a float Range folds as TensorFlow computes it, start + T(i) * delta in the
// element type: 0.1f * 3 rounds to 0.3 (0x3E99999A) before 0.25 is added.
// CHECK-LABEL: func.func @range_float
func.func @range_float() -> tensor<4xf32> {
  // CHECK: "tf.Const"() {dtype = f32, value = dense<[2.500000e-01, 3.500000e-01, 4.500000e-01, 5.500000e-01]> : tensor<4xf32>}
  %s = "tf.Const"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %l = "tf.Const"() {value = dense<0.6> : tensor<f32>} : () -> tensor<f32>
  %d = "tf.Const"() {value = dense<0.1> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Range"(%s, %l, %d) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests the size budget: no op whose result has more than 2^20 elements folds, here a
// Range of 2^31 elements (it used to run for minutes and run out of memory) and an Add
// of two constants of 2^20 + 1 elements; at 2^20 elements, Add still folds.
// CHECK-LABEL: func.func @budget
// CHECK: "tf.Range"
// CHECK: "tf.AddV2"({{.*}}) {{.*}} -> tensor<1048577xf32>
// CHECK-NOT: "tf.AddV2"
func.func @budget() -> (tensor<2147483648xi64>, tensor<1048577xf32>, tensor<1048576xf32>) {
  %s = "tf.Const"() {value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %l = "tf.Const"() {value = dense<2147483648> : tensor<i64>} : () -> tensor<i64>
  %d = "tf.Const"() {value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %0 = "tf.Range"(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2147483648xi64>
  %a = "tf.Const"() {value = dense<1.0> : tensor<1048577xf32>} : () -> tensor<1048577xf32>
  %1 = "tf.AddV2"(%a, %a) : (tensor<1048577xf32>, tensor<1048577xf32>) -> tensor<1048577xf32>
  %b = "tf.Const"() {value = dense<1.0> : tensor<1048576xf32>} : () -> tensor<1048576xf32>
  %2 = "tf.AddV2"(%b, %b) : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  return %0, %1, %2 : tensor<2147483648xi64>, tensor<1048577xf32>, tensor<1048576xf32>
}

// -----

// Tests that arithmetic on constants folds (NumPy broadcasting, computed in double and
// rounded once): a batch normalisation's statistics as Keras freezes them,
// inv = Rsqrt(variance + epsilon) * gamma and beta - mean * inv, become two constants,
// and the ops on the data stay.
// CHECK-LABEL: func.func @batchnorm_statistics
func.func @batchnorm_statistics(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-DAG: "tf.Const"() {{.*}}value = dense<[2.000000e+00, 1.000000e+00, 5.000000e-01]> : tensor<3xf32>
  // CHECK-DAG: "tf.Const"() {{.*}}value = dense<[-1.000000e+00, 0.000000e+00, 1.500000e+00]> : tensor<3xf32>
  // CHECK-NOT: "tf.Rsqrt"
  // CHECK-NOT: "tf.Sub"
  // CHECK: "tf.Mul"(%arg0
  // CHECK: "tf.AddV2"
  %var = "tf.Const"() {value = dense<[0.24, 0.99, 3.99]> : tensor<3xf32>} : () -> tensor<3xf32>
  %eps = "tf.Const"() {value = dense<0.01> : tensor<f32>} : () -> tensor<f32>
  %gamma = "tf.Const"() {value = dense<[1.0, 1.0, 1.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %mean = "tf.Const"() {value = dense<[1.0, 2.0, -1.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %beta = "tf.Const"() {value = dense<[1.0, 2.0, 1.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = "tf.AddV2"(%var, %eps) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = "tf.Rsqrt"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %inv = "tf.Mul"(%1, %gamma) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "tf.Mul"(%mean, %inv) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %shift = "tf.Sub"(%beta, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = "tf.Mul"(%x, %inv) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = "tf.AddV2"(%3, %shift) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}

// -----

// Tests that integer division and ops with control inputs are not folded here.
// CHECK-LABEL: func.func @not_folded
func.func @not_folded(%c: !tf.control) -> (tensor<2xi32>, tensor<2xf32>) {
  // CHECK: "tf.FloorMod"
  // CHECK: "tf.Neg"
  %a = "tf.Const"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.FloorMod"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %f = "tf.Const"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "tf.Neg"(%f, %c) : (tensor<2xf32>, !tf.control) -> tensor<2xf32>
  return %0, %1 : tensor<2xi32>, tensor<2xf32>
}

// -----

// Tests that Reshape, ExpandDims and Squeeze of constants fold (Keras 3 reshapes each batch
// normalisation's statistics to 1x1x1xC before the arithmetic, which then folds too), and
// that a Reshape with a control input is not folded here.
// CHECK-LABEL: func.func @reshaped_statistics
func.func @reshaped_statistics(%x: tensor<1x2x2x3xf32>, %c: !tf.control)
    -> (tensor<1x2x2x3xf32>, tensor<3x1xi32>, tensor<3xi32>, tensor<1x3xf32>) {
  // CHECK-NOT: "tf.Rsqrt"
  // CHECK: %[[INV:.*]] = "tf.Const"() {{.*}}value = dense<{{\[\[\[\[}}2.000000e+00, 1.000000e+00, 5.000000e-01]]]]> : tensor<1x1x1x3xf32>
  // CHECK-NEXT: "tf.Mul"(%arg0, %[[INV]])
  // CHECK: "tf.Const"() {{.*}}value = dense<{{\[\[}}1], [2], [3]]> : tensor<3x1xi32>
  // CHECK: "tf.Const"() {{.*}}value = dense<[4, 5, 6]> : tensor<3xi32>
  // CHECK: "tf.Reshape"({{.*}}, %arg1)
  %var = "tf.Const"() {value = dense<[0.24, 0.99, 3.99]> : tensor<3xf32>} : () -> tensor<3xf32>
  %shape = "tf.Const"() {value = dense<[1, 1, 1, 3]> : tensor<4xi32>} : () -> tensor<4xi32>
  %eps = "tf.Const"() {value = dense<0.01> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Reshape"(%var, %shape) : (tensor<3xf32>, tensor<4xi32>) -> tensor<1x1x1x3xf32>
  %1 = "tf.AddV2"(%0, %eps) : (tensor<1x1x1x3xf32>, tensor<f32>) -> tensor<1x1x1x3xf32>
  %2 = "tf.Rsqrt"(%1) : (tensor<1x1x1x3xf32>) -> tensor<1x1x1x3xf32>
  %3 = "tf.Mul"(%x, %2) : (tensor<1x2x2x3xf32>, tensor<1x1x1x3xf32>) -> tensor<1x2x2x3xf32>
  %ints = "tf.Const"() {value = dense<[1, 2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %one = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %4 = "tf.ExpandDims"(%ints, %one) : (tensor<3xi32>, tensor<i32>) -> tensor<3x1xi32>
  %col = "tf.Const"() {value = dense<[[4], [5], [6]]> : tensor<3x1xi32>} : () -> tensor<3x1xi32>
  %5 = "tf.Squeeze"(%col) {squeeze_dims = [1]} : (tensor<3x1xi32>) -> tensor<3xi32>
  %f = "tf.Const"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %r = "tf.Const"() {value = dense<[1, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %7 = "tf.Reshape"(%f, %r, %c) : (tensor<3xf32>, tensor<2xi32>, !tf.control) -> tensor<1x3xf32>
  // CHECK-NOT: "tf.ExpandDims"
  // CHECK-NOT: "tf.Squeeze"
  return %3, %4, %5, %7 : tensor<1x2x2x3xf32>, tensor<3x1xi32>, tensor<3xi32>, tensor<1x3xf32>
}

// -----

// Tests that a bias before a frozen batch normalisation, (x + b) * s + t, becomes
// x * s + (b * s + t) per channel (b = [1, 2, 3], s = [2, 0.5, 4], t = [10, 20, 30]:
// [12, 21, 42]), from a BiasAdd with the scale first and an AddV2 with the constant first;
// and that it is left alone when the sum has another user, when the shift is not per
// channel, and for a BiasAdd in NCHW (whose channels are not the last dimension's 3).
// CHECK-LABEL: func.func @bias_before_batch_norm
func.func @bias_before_batch_norm(%x: tensor<2x2x3xf32>, %y: tensor<4x3xf32>, %z: tensor<1x3x2x3xf32>)
    -> (tensor<2x2x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x3x2x3xf32>) {
  %b = "tf.Const"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %s = "tf.Const"() {value = dense<[[[2.0, 0.5, 4.0]]]> : tensor<1x1x3xf32>} : () -> tensor<1x1x3xf32>
  %t = "tf.Const"() {value = dense<[10.0, 20.0, 30.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  // CHECK: %[[S:.*]] = "tf.Const"() {{.*}}tensor<1x1x3xf32>
  // CHECK: %[[M:.*]] = "tf.Mul"(%[[S]], %arg0)
  // CHECK: %[[T:.*]] = "tf.Const"() {{.*}}value = dense<[1.200000e+01, 2.100000e+01, 4.200000e+01]> : tensor<3xf32>
  // CHECK: "tf.AddV2"(%[[M]], %[[T]])
  %0 = "tf.BiasAdd"(%x, %b) : (tensor<2x2x3xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
  %1 = "tf.Mul"(%s, %0) : (tensor<1x1x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %2 = "tf.AddV2"(%1, %t) : (tensor<2x2x3xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
  // CHECK: %[[S2:.*]] = "tf.Const"() {{.*}}value = dense<2.000000e+00> : tensor<f32>
  // CHECK: %[[M2:.*]] = "tf.Mul"(%arg1, %[[S2]])
  // CHECK: %[[T2:.*]] = "tf.Const"() {{.*}}value = dense<[1.200000e+01, 2.400000e+01, 3.600000e+01]> : tensor<3xf32>
  // CHECK: "tf.Add"(%[[T2]], %[[M2]])
  %two = "tf.Const"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %3 = "tf.AddV2"(%b, %y) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = "tf.Mul"(%3, %two) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %5 = "tf.Add"(%t, %4) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: %[[KEPT:.*]] = "tf.BiasAdd"(%arg1,
  // CHECK: "tf.Mul"(%[[KEPT]],
  %6 = "tf.BiasAdd"(%y, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %7 = "tf.Mul"(%6, %two) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %8 = "tf.AddV2"(%7, %t) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: %[[ROWS:.*]] = "tf.BiasAdd"(%arg1,
  // CHECK: "tf.Mul"(%[[ROWS]],
  %rows = "tf.Const"() {value = dense<[[1.0], [2.0], [3.0], [4.0]]> : tensor<4x1xf32>} : () -> tensor<4x1xf32>
  %9 = "tf.BiasAdd"(%y, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %10 = "tf.Mul"(%9, %two) : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %11 = "tf.AddV2"(%10, %rows) : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  // CHECK: %[[NCHW:.*]] = "tf.BiasAdd"(%arg2,
  // CHECK: "tf.Mul"(%[[NCHW]],
  %12 = "tf.BiasAdd"(%z, %b) {data_format = "NCHW"} : (tensor<1x3x2x3xf32>, tensor<3xf32>) -> tensor<1x3x2x3xf32>
  %13 = "tf.Mul"(%12, %two) : (tensor<1x3x2x3xf32>, tensor<f32>) -> tensor<1x3x2x3xf32>
  %14 = "tf.AddV2"(%13, %t) : (tensor<1x3x2x3xf32>, tensor<3xf32>) -> tensor<1x3x2x3xf32>
  return %2, %5, %8, %6, %11, %14 : tensor<2x2x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x3x2x3xf32>
}

// -----

// Tests that tensors without channels are left alone (nothing to fold, nothing to read).
// CHECK-LABEL: func.func @bias_without_channels
func.func @bias_without_channels(%x: tensor<2x0xf32>) -> tensor<2x0xf32> {
  // CHECK: "tf.BiasAdd"
  // CHECK: "tf.Mul"
  // CHECK: "tf.AddV2"
  %b = "tf.Const"() {value = dense<> : tensor<0xf32>} : () -> tensor<0xf32>
  %0 = "tf.BiasAdd"(%x, %b) : (tensor<2x0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
  %1 = "tf.Mul"(%0, %b) : (tensor<2x0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
  %2 = "tf.AddV2"(%1, %b) : (tensor<2x0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
  return %2 : tensor<2x0xf32>
}
