// RUN: kiln-opt --split-input-file --kiln-graph-fold-constants %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-graph-fold-constants %s | FileCheck %s --check-prefix=GONE

// The folders of the tf ops (dialects/TF/Ops/Elementwise.cpp), which kiln-graph-fold-constants
// runs on constant operands: one case per op, with values whose results are exact.

// CHECK-LABEL: func.func @unary
// GONE-LABEL: func.func @unary
// GONE-NOT: "tf.{{(Neg|Abs|Square|Sqrt|Rsqrt|Exp|Log|Relu|Relu6)}}"
func.func @unary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                       tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>) {
  %a = "tf.Const"() {dtype = f32, value = dense<[2.5, -4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %p = "tf.Const"() {dtype = f32, value = dense<[16.0, 0.25]> : tensor<2xf32>} : () -> tensor<2xf32>
  %z = "tf.Const"() {dtype = f32, value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %r = "tf.Const"() {dtype = f32, value = dense<[-1.0, 3.0, 7.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  // CHECK-DAG: dense<[-2.500000e+00, 4.000000e+00]>
  %0 = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dense<[2.500000e+00, 4.000000e+00]>
  %1 = "tf.Abs"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dense<[6.250000e+00, 1.600000e+01]>
  %2 = "tf.Square"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dense<[4.000000e+00, 5.000000e-01]>
  %3 = "tf.Sqrt"(%p) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dense<[2.500000e-01, 2.000000e+00]>
  %4 = "tf.Rsqrt"(%p) : (tensor<2xf32>) -> tensor<2xf32>
  // exp(0) = 1, log(1) = 0; exp(1) rounds once from double to f32.
  // CHECK-DAG: dense<[1.000000e+00, 2.71828175]>
  %5 = "tf.Exp"(%z) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dense<[0xFF800000, 0.000000e+00]>
  %6 = "tf.Log"(%z) : (tensor<2xf32>) -> tensor<2xf32>
  // CHECK-DAG: dense<[0.000000e+00, 3.000000e+00, 7.000000e+00]>
  %7 = "tf.Relu"(%r) : (tensor<3xf32>) -> tensor<3xf32>
  // CHECK-DAG: dense<[0.000000e+00, 3.000000e+00, 6.000000e+00]>
  %8 = "tf.Relu6"(%r) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
      tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Binary ops broadcast as NumPy does: [2, 1] with [3] gives [2, 3].
// CHECK-LABEL: func.func @binary
// GONE-LABEL: func.func @binary
// GONE-NOT: "tf.{{(Add|AddV2|Sub|Mul|RealDiv|Maximum|Minimum|SquaredDifference|Pow)}}"
func.func @binary() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
                        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
                        tensor<2x3xf32>) {
  %x = "tf.Const"() {dtype = f32, value = dense<[[2.0], [-1.0]]> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %y = "tf.Const"() {dtype = f32, value = dense<[1.0, 4.0, 0.5]> : tensor<3xf32>} : () -> tensor<3xf32>
  // CHECK-DAG: dense<{{\[}}[3.000000e+00, 6.000000e+00, 2.500000e+00], [0.000000e+00, 3.000000e+00, -5.000000e-01]]>
  %0 = "tf.Add"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "tf.AddV2"(%y, %x) : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[1.000000e+00, -2.000000e+00, 1.500000e+00], [-2.000000e+00, -5.000000e+00, -1.500000e+00]]>
  %2 = "tf.Sub"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[2.000000e+00, 8.000000e+00, 1.000000e+00], [-1.000000e+00, -4.000000e+00, -5.000000e-01]]>
  %3 = "tf.Mul"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[2.000000e+00, 5.000000e-01, 4.000000e+00], [-1.000000e+00, -2.500000e-01, -2.000000e+00]]>
  %4 = "tf.RealDiv"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[2.000000e+00, 4.000000e+00, 2.000000e+00], [1.000000e+00, 4.000000e+00, 5.000000e-01]]>
  %5 = "tf.Maximum"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e-01], [-1.000000e+00, -1.000000e+00, -1.000000e+00]]>
  %6 = "tf.Minimum"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[1.000000e+00, 4.000000e+00, 2.250000e+00], [4.000000e+00, 2.500000e+01, 2.250000e+00]]>
  %7 = "tf.SquaredDifference"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-DAG: dense<{{\[}}[2.000000e+00, 1.600000e+01, 1.41421354], [-1.000000e+00, 1.000000e+00, {{0x.FC00000}}]]>
  %8 = "tf.Pow"(%x, %y) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>
}

// -----

// Maximum and Minimum propagate a NaN, as TensorFlow's do.
// CHECK-LABEL: func.func @nan
// GONE-LABEL: func.func @nan
// CHECK-DAG: dense<[0x7FC00000, 2.000000e+00]>
// CHECK-DAG: dense<[0x7FC00000, 1.000000e+00]>
func.func @nan() -> (tensor<2xf32>, tensor<2xf32>) {
  %x = "tf.Const"() {dtype = f32, value = dense<[0x7FC00000, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = "tf.Const"() {dtype = f32, value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "tf.Maximum"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.Minimum"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Computed in double and rounded once to the result type: 1/3 as the f16 and the f32
// nearest it.
// CHECK-LABEL: func.func @rounding
// CHECK-DAG: dense<3.332520e-01> : tensor<f16>
// CHECK-DAG: dense<0.333333343> : tensor<f32>
func.func @rounding() -> (tensor<f16>, tensor<f32>) {
  %one = "tf.Const"() {dtype = f16, value = dense<1.0> : tensor<f16>} : () -> tensor<f16>
  %three = "tf.Const"() {dtype = f16, value = dense<3.0> : tensor<f16>} : () -> tensor<f16>
  %0 = "tf.RealDiv"(%one, %three) : (tensor<f16>, tensor<f16>) -> tensor<f16>
  %a = "tf.Const"() {dtype = f32, value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %b = "tf.Const"() {dtype = f32, value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %1 = "tf.RealDiv"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<f16>, tensor<f32>
}

// -----

// Not folded: an op ordered by control inputs, integer division (left to the lowering,
// which checks divisors), an operand that is not a constant.
// CHECK-LABEL: func.func @kept
// CHECK: "tf.Neg"
// CHECK: "tf.FloorDiv"
// CHECK: "tf.Mul"
func.func @kept(%p: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %c = "tf.Const"() {dtype = f32, value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %i = "tf.Const"() {dtype = i32, value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %n = "tf.NoOp"() : () -> !tf.control
  %0 = "tf.Neg"(%c, %n) : (tensor<2xf32>, !tf.control) -> tensor<2xf32>
  %1 = "tf.FloorDiv"(%i, %i) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %2 = "tf.Mul"(%c, %p) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>
}

// -----

// Integer arithmetic wraps as TensorFlow's does; comparisons give booleans (NaN unordered:
// only NotEqual holds); logical ops fold on booleans. A loop's counter and condition fold
// so, which lets kiln-graph-infer-shapes unroll a loop that grows a tensor.
// CHECK-LABEL: func.func @integers_and_comparisons
// CHECK-DAG: dense<[-2147483648, 5]> : tensor<2xi32>
// CHECK-DAG: dense<[1, -7]> : tensor<2xi32>
// CHECK-DAG: dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: dense<[200, 7]> : tensor<2xui8>
// CHECK-NOT: "tf.AddV2"
// CHECK-NOT: "tf.Less"
// CHECK-NOT: "tf.LogicalNot"
func.func @integers_and_comparisons() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi1>, tensor<2xi1>,
                                          tensor<3xi1>, tensor<3xi1>, tensor<2xui8>) {
  %a = "tf.Const"() {value = dense<[2147483647, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %b = "tf.Const"() {value = dense<[1, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %c = "tf.Const"() {value = dense<[3, -7]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.AddV2"(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = "tf.Minimum"(%c, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %2 = "tf.Less"(%b, %c) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %3 = "tf.LogicalNot"(%2) : (tensor<2xi1>) -> tensor<2xi1>
  %f = "tf.Const"() {value = dense<[1.0, 0x7FC00000, 2.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %g = "tf.Const"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %4 = "tf.GreaterEqual"(%f, %g) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %5 = "tf.NotEqual"(%f, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %6 = "tf.LogicalOr"(%4, %5) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %u = "tf.Const"() {value = dense<[200, 3]> : tensor<2xui8>} : () -> tensor<2xui8>
  %v = "tf.Const"() {value = dense<[100, 7]> : tensor<2xui8>} : () -> tensor<2xui8>
  %7 = "tf.Maximum"(%u, %v) : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %0, %1, %2, %3, %4, %6, %7 : tensor<2xi32>, tensor<2xi32>, tensor<2xi1>, tensor<2xi1>,
                                      tensor<3xi1>, tensor<3xi1>, tensor<2xui8>
}

// -----

// Cast folds as TensorFlow casts: float to integer toward zero, integers sign- or
// zero-extended or truncated, anything to bool as != 0; a NaN to an integer is left to run
// time (the CPU decides it).
// CHECK-LABEL: func.func @cast
// GONE-LABEL: func.func @cast
// CHECK-DAG: dense<[2, -2, 0, 7]> : tensor<4xi32>
// CHECK-DAG: dense<[2.000000e+00, -3.000000e+00, 2.550000e+02, 0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: dense<[true, true, false, true]> : tensor<4xi1>
// CHECK-DAG: dense<[254, 255, 0, 1]> : tensor<4xui8>
// CHECK: "tf.Cast"(%{{.*}}) {DstT = i32} : (tensor<1xf32>) -> tensor<1xi32>
func.func @cast() -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xui8>, tensor<1xi32>) {
  %f = "tf.Const"() {dtype = f32, value = dense<[2.7, -2.7, 0.0, 7.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %i = "tf.Const"() {dtype = i32, value = dense<[2, -3, 255, 0]> : tensor<4xi32>} : () -> tensor<4xi32>
  %u = "tf.Const"() {dtype = i32, value = dense<[-2, 511, 256, 1]> : tensor<4xi32>} : () -> tensor<4xi32>
  %nan = "tf.Const"() {dtype = f32, value = dense<0x7FC00000> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = "tf.Cast"(%f) {DstT = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "tf.Cast"(%i) {DstT = f32} : (tensor<4xi32>) -> tensor<4xf32>
  %2 = "tf.Cast"(%f) {DstT = i1} : (tensor<4xf32>) -> tensor<4xi1>
  %3 = "tf.Cast"(%u) {DstT = ui8} : (tensor<4xi32>) -> tensor<4xui8>
  %4 = "tf.Cast"(%nan) {DstT = i32} : (tensor<1xf32>) -> tensor<1xi32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xui8>, tensor<1xi32>
}

// -----

// ConcatV2 of constants folds along any axis, empty inputs included (Keras builds a
// transposition's permutation from ranges, one of them empty).
// CHECK-LABEL: func.func @concat
// GONE-LABEL: func.func @concat
// GONE-NOT: tf.ConcatV2
// CHECK-DAG: dense<[0, 2, 1]> : tensor<3xi32>
// CHECK-DAG: dense<{{\[}}[1, 2, 5], [3, 4, 6]]> : tensor<2x3xi32>
func.func @concat() -> (tensor<3xi32>, tensor<2x3xi32>) {
  %a = "tf.Const"() {dtype = i32, value = dense<[0]> : tensor<1xi32>} : () -> tensor<1xi32>
  %b = "tf.Const"() {dtype = i32, value = dense<[2, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %e = "tf.Const"() {dtype = i32, value = dense<> : tensor<0xi32>} : () -> tensor<0xi32>
  %zero = "tf.Const"() {dtype = i32, value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %m = "tf.Const"() {dtype = i32, value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %c = "tf.Const"() {dtype = i32, value = dense<[[5], [6]]> : tensor<2x1xi32>} : () -> tensor<2x1xi32>
  %minus1 = "tf.Const"() {dtype = i32, value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.ConcatV2"(%a, %e, %b, %zero) {N = 3 : i64} : (tensor<1xi32>, tensor<0xi32>, tensor<2xi32>, tensor<i32>) -> tensor<3xi32>
  %1 = "tf.ConcatV2"(%m, %c, %minus1) {N = 2 : i64} : (tensor<2x2xi32>, tensor<2x1xi32>, tensor<i32>) -> tensor<2x3xi32>
  return %0, %1 : tensor<3xi32>, tensor<2x3xi32>
}
