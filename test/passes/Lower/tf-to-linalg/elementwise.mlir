// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Elementwise.cpp.

// Tests that a binary op becomes a linalg.generic with NumPy broadcasting maps.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_add
func.func @broadcast_add(%x: tensor<4x1xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
  // CHECK-SAME: ins(%arg0, %arg1 : tensor<4x1xf32>, tensor<3xf32>) outs(%[[E]] : tensor<4x3xf32>)
  // CHECK: arith.addf
  %0 = "tf.AddV2"(%x, %y) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that unsigned element types become signless and select unsigned arithmetic.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
func.func @unsigned(%x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  // CHECK: arith.maxui
  // CHECK: arith.divui
  %0 = "tf.Maximum"(%x, %y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = "tf.RealDiv"(%0, %y) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %1 : tensor<4xui8>
}

// -----

// Tests that Softmax becomes max-reduce, exp, sum-reduce and divide over the last dimension.
// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // CHECK: arith.constant 0xFF800000 : f32
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.maximumf
  // CHECK: math.exp
  // CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.addf
  // CHECK: arith.divf
  %0 = "tf.Softmax"(%x) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests Cast float to int (truncation), to bool (x != 0) and bool to float.
// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4xf32>) {
  // CHECK: arith.fptosi %{{.*}} : f32 to i32
  // CHECK: arith.cmpf une
  // CHECK: arith.uitofp %{{.*}} : i1 to f32
  %0 = "tf.Cast"(%x) {DstT = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "tf.Cast"(%x) {DstT = i1} : (tensor<4xf32>) -> tensor<4xi1>
  %2 = "tf.Cast"(%b) {DstT = f32} : (tensor<4xi1>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi1>, tensor<4xf32>
}

// -----

// Tests the scalar body each elementwise op and activation gets, for floats.
// CHECK-LABEL: func.func @float_bodies
func.func @float_bodies(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: arith.addf
  // CHECK: arith.subf
  // CHECK: arith.mulf
  // CHECK: arith.minimumf
  // CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: arith.maximumf %{{.*}}, %[[Z]]
  // CHECK: arith.maximumf
  // CHECK: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
  // CHECK-NEXT: arith.minimumf %{{.*}}, %[[SIX]]
  // CHECK: arith.negf
  // CHECK-NEXT: math.exp
  // CHECK: arith.addf
  // CHECK-NEXT: arith.divf
  // CHECK: math.tanh
  %0 = "tf.Add"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Sub"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Mul"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Minimum"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "tf.Relu6"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "tf.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "tf.Tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests the integer bodies: wrapping arithmetic, signed min/max, and a division that
// never traps: a zero divisor (reported by a kiln.check) and -1 (INT_MIN / -1) divide by 1
// instead; -1 then gives 0 - x, wrapping as TensorFlow does, and 0 gives 0.
// CHECK-LABEL: func.func @int_bodies
func.func @int_bodies(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  // CHECK: arith.addi
  // CHECK: arith.muli
  // CHECK: arith.minsi
  // CHECK: arith.maxsi
  // CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32,
  // CHECK: %[[ISZERO:.*]] = arith.cmpi eq, %[[Y]], %[[ZERO:.*]] : i32
  // CHECK: %[[ISMINUSONE:.*]] = arith.cmpi eq, %[[Y]], %[[MINUSONE:.*]] : i32
  // CHECK: %[[BAD:.*]] = arith.ori %[[ISZERO]], %[[ISMINUSONE]]
  // CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %{{.*}}, %[[Y]]
  // CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[SAFE]]
  // CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[X]]
  // CHECK: %[[Q1:.*]] = arith.select %[[ISMINUSONE]], %[[NEG]], %[[Q]]
  // CHECK: arith.select %[[ISZERO]], %{{.*}}, %[[Q1]]
  %0 = "tf.AddV2"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "tf.Mul"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = "tf.Minimum"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = "tf.Relu"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  %4 = "tf.RealDiv"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Tests Div, TruncateDiv, TruncateMod and Mod: on floats x / y, trunc(x / y) and fmod; on
// integers the truncating quotient and remainder through the same guarded divisor, the
// remainder by -1 being 0.
// CHECK-LABEL: func.func @truncating
// CHECK: arith.divf
// CHECK: arith.divf
// CHECK-NEXT: math.trunc
// CHECK: arith.remf
// CHECK: arith.remf
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK: %[[R:.*]] = arith.remsi %{{.*}}, %[[SAFE]] : i64
// CHECK: %[[R1:.*]] = arith.select %{{.*}}, %[[ZERO:.*]], %[[R]] : i64
// CHECK: arith.select %{{.*}}, %[[ZERO]], %[[R1]] : i64
// CHECK: arith.remui
func.func @truncating(%x: tensor<4xf32>, %i: tensor<4xi64>, %u: tensor<4xui8>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xui8>) {
  %0 = "tf.Div"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.TruncateDiv"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.TruncateMod"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Mod"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "tf.Mod"(%i, %i) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %5 = "tf.TruncateMod"(%u, %u) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xui8>
}

// -----

// Tests that kiln.check keeps checking its operand once the operand's type is converted
// (unsigned to signless).
// CHECK-LABEL: func.func @check_types
// CHECK-SAME: %[[U:.*]]: tensor<4xi8>
// CHECK: kiln.check "nonzero" %[[U]], "m" {unsigned_values} : tensor<4xi8>
func.func @check_types(%u: tensor<4xui8>) -> tensor<4xui8> {
  kiln.check "nonzero" %u, "m" {unsigned_values} : tensor<4xui8>
  %0 = "tf.FloorDiv"(%u, %u) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Tests comparisons (NotEqual is unordered: true for NaN), SelectV2 and LogicalNot.
// CHECK-LABEL: func.func @logic
func.func @logic(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xf32>) {
  // CHECK: arith.cmpf une
  // CHECK: arith.xori
  // CHECK: arith.select
  %0 = "tf.NotEqual"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "tf.LogicalNot"(%0) : (tensor<4xi1>) -> tensor<4xi1>
  %2 = "tf.SelectV2"(%1, %x, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xi1>, tensor<4xf32>
}

// -----

// Tests that FloorMod on integers fixes the sign of the remainder to the divisor's and
// guards a zero divisor.
// CHECK-LABEL: func.func @floormod
func.func @floormod(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: arith.remsi
  // CHECK: arith.xori
  // CHECK: arith.addi
  // CHECK: arith.select
  %0 = "tf.FloorMod"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests the body each unary op computes, in order: Abs, Neg, Exp, Log, Sqrt, Rsqrt as
// 1 / sqrt, Square as x * x, Floor, Erf, Elu as x < 0 ? expm1(x) : x, and Softplus as
// TensorFlow computes it (x above the threshold log(eps) + 2 = 13.94..., exp(x) below its
// negation, log1p(exp(x)) between), and Erfc.
// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                                        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                                        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
                                        tensor<4xf32>) {
  // CHECK: math.absf %in : f32
  // CHECK: arith.negf %in : f32
  // CHECK: math.exp %in : f32
  // CHECK: math.log %in : f32
  // CHECK: math.sqrt %in : f32
  // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK: %[[ROOT:.*]] = math.sqrt %in : f32
  // CHECK: arith.divf %[[ONE]], %[[ROOT]] : f32
  // CHECK: arith.mulf %in, %in : f32
  // CHECK: math.floor %in : f32
  // CHECK: math.erf %in : f32
  // CHECK: %[[NEG:.*]] = arith.cmpf olt, %in, %{{.*}} : f32
  // CHECK: %[[EM1:.*]] = math.expm1 %in : f32
  // CHECK: arith.select %[[NEG]], %[[EM1]], %in : f32
  // CHECK: %[[HI:.*]] = arith.constant 13.9423847 : f32
  // CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %in, %[[HI]] : f32
  // CHECK: %[[LO:.*]] = arith.constant -13.9423847 : f32
  // CHECK: %[[BELOW:.*]] = arith.cmpf olt, %in, %[[LO]] : f32
  // CHECK: %[[E:.*]] = math.exp %in : f32
  // CHECK: %[[L:.*]] = math.log1p %[[E]] : f32
  // CHECK: %[[MID:.*]] = arith.select %[[BELOW]], %[[E]], %[[L]] : f32
  // CHECK: arith.select %[[ABOVE]], %in, %[[MID]] : f32
  // CHECK: math.erfc %in : f32
  %0 = "tf.Abs"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Log"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "tf.Sqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "tf.Rsqrt"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "tf.Square"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "tf.Floor"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "tf.Erf"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %9 = "tf.Elu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %10 = "tf.Softplus"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %11 = "tf.Erfc"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests the comparisons (ordered: false where either is NaN; signed for integers), the
// logical ops on i1, SquaredDifference as (x - y) squared, float Pow, and ZerosLike.
// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %a: tensor<4xi1>, %b: tensor<4xi1>,
                  %i: tensor<4xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  // CHECK: arith.cmpf olt, %in, %in_0 : f32
  // CHECK: arith.cmpf ole, %in, %in_0 : f32
  // CHECK: arith.cmpf ogt, %in, %in_0 : f32
  // CHECK: arith.cmpi sge, %in, %in_0 : i32
  // CHECK: arith.andi %in, %in_0 : i1
  // CHECK: arith.ori %in, %in_0 : i1
  // CHECK: %[[D:.*]] = arith.subf %in, %in_0 : f32
  // CHECK: arith.mulf %[[D]], %[[D]] : f32
  // CHECK: math.powf %in, %in_0 : f32
  // CHECK: %[[Z:.*]] = arith.constant 0 : i32
  // CHECK: linalg.yield %[[Z]] : i32
  %0 = "tf.Less"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "tf.LessEqual"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = "tf.Greater"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = "tf.GreaterEqual"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %4 = "tf.LogicalAnd"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %5 = "tf.LogicalOr"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = "tf.SquaredDifference"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = "tf.Pow"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %8 = "tf.ZerosLike"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
      tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Tests LeakyRelu (x > 0 ? x : x * alpha, as TensorFlow), LogSoftmax over the last axis
// (x - max - log(sum(exp(x - max)))), OnesLike, Select with a row condition (the rank-1
// condition picks rows) and StopGradient as a copy.
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @more
func.func @more(%x: tensor<2x3xf32>, %c: tensor<2xi1>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: %[[POS:.*]] = arith.cmpf ogt, %in, %{{.*}} : f32
  // CHECK: %[[ALPHA:.*]] = arith.constant 2.500000e-01 : f32
  // CHECK: %[[SCALED:.*]] = arith.mulf %in, %[[ALPHA]] : f32
  // CHECK: arith.select %[[POS]], %in, %[[SCALED]] : f32
  // CHECK: arith.maximumf %in, %out : f32
  // CHECK: %[[SHIFTED:.*]] = arith.subf %in, %in_{{.*}} : f32
  // CHECK: math.exp %[[SHIFTED]] : f32
  // CHECK: arith.addf %in, %out : f32
  // CHECK: linalg.generic {indexing_maps = [#[[ALL]], #[[ROW]], #[[ROW]], #[[ALL]]]
  // CHECK: %[[S:.*]] = arith.subf %in, %in_{{.*}} : f32
  // CHECK: %[[L:.*]] = math.log %in_{{.*}} : f32
  // CHECK: arith.subf %[[S]], %[[L]] : f32
  // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK: linalg.yield %[[ONE]] : f32
  // CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[ALL]], #[[ALL]], #[[ALL]]]
  // CHECK: arith.select %in, %in_{{.*}}, %in_{{.*}} : f32
  // CHECK: linalg.generic {indexing_maps = [#[[ALL]], #[[ALL]]]
  // CHECK-NEXT: ^bb0(%in: f32, %out: f32):
  // CHECK-NEXT: linalg.yield %in : f32
  %0 = "tf.LeakyRelu"(%x) {alpha = 0.25 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tf.LogSoftmax"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "tf.OnesLike"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = "tf.Select"(%c, %x, %2) : (tensor<2xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "tf.StopGradient"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Tests Sin and Cos (math.sin, math.cos) and Sign: on floats x > 0 ? 1 : x < 0 ? -1 : x
// (NaN stays NaN), on signed integers the same with 0, on unsigned ones x > 0 ? 1 : 0.
// CHECK-LABEL: func.func @trig_and_sign
// CHECK: math.sin %in : f32
// CHECK: math.cos %in : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %in, %[[ZERO]] : f32
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %in, %[[ZERO]] : f32
// CHECK: %[[M1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: %[[INNER:.*]] = arith.select %[[NEG]], %[[M1]], %in : f32
// CHECK: arith.select %[[POS]], %[[ONE]], %[[INNER]] : f32
// CHECK: %[[IPOS:.*]] = arith.cmpi sgt, %in, %{{.*}} : i32
// CHECK: %[[INEG:.*]] = arith.cmpi slt, %in, %{{.*}} : i32
// CHECK: %[[UPOS:.*]] = arith.cmpi ugt, %in, %{{.*}} : i8
// CHECK-NOT: arith.cmpi slt
// CHECK: linalg.yield
func.func @trig_and_sign(%x: tensor<4xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>) {
  %0 = "tf.Sin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Cos"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Sign"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Sign"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  %4 = "tf.Sign"(%u) : (tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>
}

// -----

// Tests the unary math of the wider set: one math op each for the trigonometric and
// hyperbolic functions, Expm1, Log1p and Ceil; Rint and Round as math.roundeven on floats
// (halves to even) and the integer itself for Round of an integer.
// CHECK-LABEL: func.func @unary_math
// CHECK: math.tan %in : f32
// CHECK: math.asin %in : f32
// CHECK: math.acos %in : f32
// CHECK: math.atan %in : f32
// CHECK: math.sinh %in : f32
// CHECK: math.cosh %in : f32
// CHECK: math.asinh %in : f32
// CHECK: math.acosh %in : f32
// CHECK: math.atanh %in : f32
// CHECK: math.expm1 %in : f32
// CHECK: math.log1p %in : f32
// CHECK: math.ceil %in : f32
// CHECK: math.roundeven %in : f32
// CHECK: math.roundeven %in : f32
// CHECK: ^bb0(%in: i32, %out: i32):
// CHECK-NEXT: linalg.yield %in : i32
func.func @unary_math(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = "tf.Tan"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Asin"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Acos"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.Atan"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "tf.Sinh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "tf.Cosh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "tf.Asinh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = "tf.Acosh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %8 = "tf.Atanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %9 = "tf.Expm1"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %10 = "tf.Log1p"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %11 = "tf.Ceil"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %12 = "tf.Rint"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %13 = "tf.Round"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %14 = "tf.Round"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Tests Reciprocal (1 / x), Softsign (x / (1 + |x|)), Selu (scale * alpha * expm1(x) below
// 0, scale * x above), and IsNan (unordered with itself), IsInf (|x| == inf) and IsFinite
// (|x| < inf, ordered: false for NaN).
// CHECK-LABEL: func.func @activations_and_predicates
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: arith.divf %[[ONE]], %in : f32
// CHECK: %[[ABS:.*]] = math.absf %in : f32
// CHECK: %[[DEN:.*]] = arith.addf %{{.*}}, %[[ABS]] : f32
// CHECK: arith.divf %in, %[[DEN]] : f32
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %in, %{{.*}} : f32
// CHECK: %[[SA:.*]] = arith.constant 1.75809932 : f32
// CHECK: %[[E:.*]] = math.expm1 %in : f32
// CHECK: %[[BELOW:.*]] = arith.mulf %[[SA]], %[[E]] : f32
// CHECK: %[[S:.*]] = arith.constant 1.05070102 : f32
// CHECK: %[[ABOVE:.*]] = arith.mulf %[[S]], %in : f32
// CHECK: arith.select %[[NEG]], %[[BELOW]], %[[ABOVE]] : f32
// CHECK: ^bb0(%in: f32, %out: i1):
// CHECK-NEXT: arith.cmpf uno, %in, %in : f32
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[A1:.*]] = math.absf %in : f32
// CHECK: arith.cmpf oeq, %[[A1]], %[[INF]] : f32
// CHECK: %[[A2:.*]] = math.absf %in : f32
// CHECK: arith.cmpf olt, %[[A2]], %{{.*}} : f32
func.func @activations_and_predicates(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = "tf.Reciprocal"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Softsign"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Selu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.IsNan"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %4 = "tf.IsInf"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  %5 = "tf.IsFinite"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Tests the bitwise ops: And, Or, Xor, Invert (xor with all ones), PopulationCount
// (math.ctpop, narrowed to uint8), and shifts whose amount is clamped to [0, bits - 1]
// (from below only for signed types), right shifts arithmetic for signed types only.
// CHECK-LABEL: func.func @bitwise
// CHECK: arith.andi %in, %in_{{.*}} : i32
// CHECK: arith.ori %in, %in_{{.*}} : i32
// CHECK: arith.xori %in, %in_{{.*}} : i32
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: arith.xori %in, %[[ONES]] : i32
// CHECK: %[[POP:.*]] = math.ctpop %in : i32
// CHECK: arith.trunci %[[POP]] : i32 to i8
// CHECK: %[[LO:.*]] = arith.maxsi %in_{{.*}}, %{{.*}} : i32
// CHECK: %[[C31:.*]] = arith.constant 31 : i32
// CHECK: %[[AMT:.*]] = arith.minui %[[LO]], %[[C31]] : i32
// CHECK: arith.shli %in, %[[AMT]] : i32
// CHECK: arith.shrsi
// CHECK: %[[C7:.*]] = arith.constant 7 : i8
// CHECK: %[[UAMT:.*]] = arith.minui %in_{{.*}}, %[[C7]] : i8
// CHECK: arith.shrui %in, %[[UAMT]] : i8
func.func @bitwise(%x: tensor<4xi32>, %y: tensor<4xi32>, %u: tensor<4xui8>, %v: tensor<4xui8>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xui8>) {
  %0 = "tf.BitwiseAnd"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = "tf.BitwiseOr"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = "tf.BitwiseXor"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = "tf.Invert"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  %4 = "tf.PopulationCount"(%x) : (tensor<4xi32>) -> tensor<4xui8>
  %5 = "tf.LeftShift"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %6 = "tf.RightShift"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %7 = "tf.RightShift"(%u, %v) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xui8>
}

// -----

// Tests the binary ops that are 0 where an operand is 0 (Xlogy, Xdivy where x is; DivNoNan,
// MulNoNan where y is), Atan2 (math.atan2 of TensorFlow's (y, x)), ClipByValue (min with the
// maximum, then max with the minimum) and ApproximateEqual (|x - y| < tolerance).
// CHECK-LABEL: func.func @binary_more
// CHECK: %[[LOG:.*]] = math.log %in_{{.*}} : f32
// CHECK: %[[P:.*]] = arith.mulf %in, %[[LOG]] : f32
// CHECK: %[[XZ:.*]] = arith.cmpf oeq, %in, %{{.*}} : f32
// CHECK: arith.select %[[XZ]], %{{.*}}, %[[P]] : f32
// CHECK: %[[Q:.*]] = arith.divf %in, %in_{{.*}} : f32
// CHECK: %[[YZ:.*]] = arith.cmpf oeq, %in_{{.*}}, %{{.*}} : f32
// CHECK: arith.select %[[YZ]], %{{.*}}, %[[Q]] : f32
// CHECK: math.atan2 %in, %in_{{.*}} : f32
// CHECK: %[[LOW:.*]] = arith.minimumf %in, %in_{{.*}} : f32
// CHECK: arith.maximumf %[[LOW]], %in_{{.*}} : f32
// CHECK: %[[D:.*]] = arith.subf %in, %in_{{.*}} : f32
// CHECK: %[[AD:.*]] = math.absf %[[D]] : f32
// CHECK: %[[TOL:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.cmpf olt, %[[AD]], %[[TOL]] : f32
func.func @binary_more(%x: tensor<4xf32>, %y: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %0 = "tf.Xlogy"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.DivNoNan"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "tf.Atan2"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.ClipByValue"(%x, %lo, %hi) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %4 = "tf.ApproximateEqual"(%x, %y) {tolerance = 0.5 : f32}
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Tests NextAfter on the bits: one step up or down of the magnitude's integer, from zero
// the smallest subnormal with y's sign, y itself where x == y, NaN where either is NaN.
// CHECK-LABEL: func.func @next_after
// CHECK: %[[BITS:.*]] = arith.bitcast %in : f32 to i32
// CHECK: arith.addi %[[BITS]], %{{.*}} : i32
// CHECK: arith.subi %[[BITS]], %{{.*}} : i32
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.cmpf oeq, %in, %in_{{.*}} : f32
// CHECK: arith.cmpf uno, %in, %in_{{.*}} : f32
func.func @next_after(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.NextAfter"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests Bucketize: per boundary, !(x < b) widened to i32 and added, so NaN counts every
// boundary; an integer input compares with ceil(b) (0.5 becomes 1).
// CHECK-LABEL: func.func @bucketize
// CHECK: %[[LT:.*]] = arith.cmpf olt, %in, %{{.*}} : f32
// CHECK: %[[GE:.*]] = arith.xori %[[LT]], %{{.*}} : i1
// CHECK: %[[ONE:.*]] = arith.extui %[[GE]] : i1 to i32
// CHECK: arith.addi %{{.*}}, %[[ONE]] : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: arith.cmpi slt, %in, %[[C1]] : i32
func.func @bucketize(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = "tf.Bucketize"(%x) {boundaries = [0.0 : f32, 0.5 : f32]} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "tf.Bucketize"(%i) {boundaries = [0.5 : f32]} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Tests the activations' gradients in TensorFlow's CPU kernels' forms: ReluGrad and
// Relu6Grad multiply the gradient by 1 or 0 (a NaN gradient stays NaN), integers too;
// SeluGrad selects between g * (y + scale * alpha) and g * scale; LeakyReluGrad scales the
// gradient where the feature is not positive; SigmoidGrad is (dy * y) * (1 - y); RsqrtGrad
// -0.5 * (dy * y) * (y * y); SoftplusGrad g / (exp(-x) + 1).
// CHECK-LABEL: func.func @activation_grads
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %in_0, %{{.*}} : f32
// CHECK: %[[ONE:.*]] = arith.select %[[POS]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %in, %[[ONE]] : f32
// CHECK: %[[ABOVE0:.*]] = arith.cmpi sgt, %in_0, %{{.*}} : i32
// CHECK: %[[BELOW6:.*]] = arith.cmpi slt, %in_0, %{{.*}} : i32
// CHECK: %[[IN:.*]] = arith.andi %[[ABOVE0]], %[[BELOW6]] : i1
// CHECK: %[[F:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : i32
// CHECK: arith.muli %in, %[[F]] : i32
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %in_0, %{{.*}} : f32
// CHECK: arith.constant 1.75809932 : f32
// CHECK: %[[BELOW:.*]] = arith.mulf %in, %{{.*}} : f32
// CHECK: arith.constant 1.05070102 : f32
// CHECK: %[[ABOVE:.*]] = arith.mulf %in, %{{.*}} : f32
// CHECK: arith.select %[[NEG]], %[[BELOW]], %[[ABOVE]] : f32
// CHECK: %[[LPOS:.*]] = arith.cmpf ogt, %in_0, %{{.*}} : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %in, %{{.*}} : f32
// CHECK: arith.select %[[LPOS]], %in, %[[SCALED]] : f32
// CHECK: %[[OM:.*]] = arith.subf %{{.*}}, %in : f32
// CHECK: %[[DYY:.*]] = arith.mulf %in_0, %in : f32
// CHECK: arith.mulf %[[DYY]], %[[OM]] : f32
// CHECK: %[[RDY:.*]] = arith.mulf %in_0, %in : f32
// CHECK: %[[HALF:.*]] = arith.mulf %{{.*}}, %[[RDY]] : f32
// CHECK: %[[YY:.*]] = arith.mulf %in, %in : f32
// CHECK: arith.mulf %[[HALF]], %[[YY]] : f32
// CHECK: %[[MX:.*]] = arith.negf %in_0 : f32
// CHECK: %[[E:.*]] = math.exp %[[MX]] : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[E]], %{{.*}} : f32
// CHECK: arith.divf %in, %[[DEN]] : f32
func.func @activation_grads(%g: tensor<4xf32>, %x: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = "tf.ReluGrad"(%g, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.Relu6Grad"(%i, %j) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = "tf.SeluGrad"(%g, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "tf.LeakyReluGrad"(%g, %x) {alpha = 0.25 : f32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = "tf.SigmoidGrad"(%x, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = "tf.RsqrtGrad"(%x, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = "tf.SoftplusGrad"(%g, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
