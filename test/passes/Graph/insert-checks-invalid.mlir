// Tests that constant operands that break their conditions are compile-time errors with
// the message the run-time check would give: the node, the element and its value.
// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-insert-checks %s
// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-insert-checks=constants-only %s

func.func @gather(%p: tensor<4x2xf32>) -> tensor<2x3x2xf32> {
  %i = "tf.Const"() {value = dense<[[0, 1, 3], [2, 4, 0]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
  %a = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  // expected-error @unknown {{node 'g' (GatherV2): indices[1,1] = 4 is not in [0, 4)}}
  %0 = "tf.GatherV2"(%p, %i, %a) : (tensor<4x2xf32>, tensor<2x3xi32>, tensor<i32>) -> tensor<2x3x2xf32> loc("g")
  return %0 : tensor<2x3x2xf32>
}

// -----

func.func @negative_index(%p: tensor<4xf32>) -> tensor<1xf32> {
  %i = "tf.Const"() {value = dense<[-1]> : tensor<1xi64>} : () -> tensor<1xi64>
  %a = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  // expected-error @unknown {{node 'g' (GatherV2): indices[0] = -1 is not in [0, 4)}}
  %0 = "tf.GatherV2"(%p, %i, %a) : (tensor<4xf32>, tensor<1xi64>, tensor<i32>) -> tensor<1xf32> loc("g")
  return %0 : tensor<1xf32>
}

// -----

func.func @gather_nd(%p: tensor<5x3xf32>) -> tensor<2xf32> {
  %i = "tf.Const"() {value = dense<[[4, 2], [1, 3]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  // expected-error @unknown {{node 'n' (GatherNd): indices[1,1] = 3 does not index into params of shape [5,3]}}
  %0 = "tf.GatherNd"(%p, %i) : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<2xf32> loc("n")
  return %0 : tensor<2xf32>
}

// -----

func.func @divisor(%x: tensor<3xi64>) -> tensor<3xi64> {
  %y = "tf.Const"() {value = dense<[3, 0, 0]> : tensor<3xi64>} : () -> tensor<3xi64>
  // expected-error @unknown {{node 'q/div' (FloorMod): integer division by zero (y[1] is 0)}}
  %0 = "tf.FloorMod"(%x, %y) : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64> loc("q/div")
  return %0 : tensor<3xi64>
}

// -----

func.func @scalar_exponent(%x: tensor<3xi32>) -> tensor<3xi32> {
  %y = "tf.Const"() {value = dense<-2147483648> : tensor<i32>} : () -> tensor<i32>
  // expected-error @unknown {{node 'p' (Pow): integers to negative integer powers are not allowed (y = -2147483648)}}
  %0 = "tf.Pow"(%x, %y) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32> loc("p")
  return %0 : tensor<3xi32>
}

// -----

func.func @escaped_name(%x: tensor<1xi32>) -> tensor<1xi32> {
  %y = "tf.Const"() {value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  // expected-error @unknown {{node 'a\22b\0Ac' (Div): integer division by zero (y[0] is 0)}}
  %0 = "tf.Div"(%x, %y) : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32> loc("a\"b\nc")
  return %0 : tensor<1xi32>
}

// -----

func.func @assert_false(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = "tf.Const"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
  // expected-error @unknown {{node 'positive' (Assert): assertion failed (the condition is false)}}
  %ctl = "tf.Assert"(%c, %x) {T = [f32]} : (tensor<i1>, tensor<3xf32>) -> !tf.control loc("positive")
  %0 = "tf.Identity"(%x, %ctl) : (tensor<3xf32>, !tf.control) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @check_numerics_constant() -> tensor<3xf64> {
  %c = "tf.Const"() {value = dense<[1.0, 0x7FF0000000000000, 2.0]> : tensor<3xf64>} : () -> tensor<3xf64>
  // expected-error @unknown {{node 'c' (CheckNumerics): w : Tensor had Inf values (tensor[1] is infinite)}}
  %0 = "tf.CheckNumerics"(%c) {message = "w"} : (tensor<3xf64>) -> tensor<3xf64> loc("c")
  return %0 : tensor<3xf64>
}
