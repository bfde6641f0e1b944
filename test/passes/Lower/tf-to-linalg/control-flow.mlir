// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// Tests that tf.If becomes scf.if on its condition's value, its branches moved over with
// their arguments replaced by the inputs and tf.Yield become scf.yield.
// CHECK-LABEL: func.func @if_bool
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[B:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: %[[R:.*]] = scf.if %[[B]] -> (tensor<4xf32>) {
// CHECK:   %[[N:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK:   arith.negf
// CHECK:   scf.yield %[[N]] : tensor<4xf32>
// CHECK: } else {
// CHECK:   scf.yield %[[X]] : tensor<4xf32>
// CHECK: }
// CHECK: return %[[R]]
func.func @if_bool(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.If"(%c, %x) ({
  ^bb0(%a: tensor<4xf32>):
    %n = "tf.Neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    "tf.Yield"(%n) : (tensor<4xf32>) -> ()
  }, {
  ^bb0(%a: tensor<4xf32>):
    "tf.Yield"(%a) : (tensor<4xf32>) -> ()
  }) {Tin = [f32]} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A float condition is true when nonzero; a non-scalar one when it has elements (here 3).
// CHECK-LABEL: func.func @if_truth
// CHECK: %[[F:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[NZ:.*]] = arith.cmpf une, %[[F]], %[[Z]] : f32
// CHECK: scf.if %[[NZ]]
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.if %[[TRUE]]
func.func @if_truth(%f: tensor<f32>, %v: tensor<3xi32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "tf.If"(%f, %x) ({
  ^bb0(%a: tensor<2xf32>):
    "tf.Yield"(%a) : (tensor<2xf32>) -> ()
  }, {
  ^bb0(%a: tensor<2xf32>):
    %n = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%n) : (tensor<2xf32>) -> ()
  }) {Tin = [f32]} : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "tf.If"(%v, %x) ({
  ^bb0(%a: tensor<2xf32>):
    "tf.Yield"(%a) : (tensor<2xf32>) -> ()
  }, {
  ^bb0(%a: tensor<2xf32>):
    %n = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%n) : (tensor<2xf32>) -> ()
  }) {Tin = [f32]} : (tensor<3xi32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests that tf.Case becomes scf.index_switch: cases 0 .. N-2, the last branch the default.
// CHECK-LABEL: func.func @case
// CHECK: %[[I:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: %[[IX:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK: scf.index_switch %[[IX]] -> tensor<2xf32>
// CHECK: case 0 {
// CHECK:   scf.yield
// CHECK: case 1 {
// CHECK:   arith.negf
// CHECK: default {
// CHECK:   math.tanh
func.func @case(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Case"(%i, %x) ({
  ^bb0(%a: tensor<2xf32>):
    "tf.Yield"(%a) : (tensor<2xf32>) -> ()
  }, {
  ^bb0(%a: tensor<2xf32>):
    %n = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%n) : (tensor<2xf32>) -> ()
  }, {
  ^bb0(%a: tensor<2xf32>):
    %t = "tf.Tanh"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    "tf.Yield"(%t) : (tensor<2xf32>) -> ()
  }) {Tin = [f32]} : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that tf.While becomes scf.while: the condition's region before, its tf.Yield an
// scf.condition passing the loop variables on; the body after, its tf.Yield an scf.yield.
// CHECK-LABEL: func.func @while
// CHECK-SAME: (%[[N:.*]]: tensor<i32>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]]:3 = scf.while (%[[I:.*]] = %{{.*}}, %[[M:.*]] = %[[N]], %[[V:.*]] = %[[X]]) : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<i32>, tensor<4xf32>) {
// CHECK:   %[[LT:.*]] = linalg.generic {{.*}} ins(%[[I]], %[[M]] : tensor<i32>, tensor<i32>)
// CHECK:   %[[B:.*]] = tensor.extract %[[LT]][] : tensor<i1>
// CHECK:   scf.condition(%[[B]]) %[[I]], %[[M]], %[[V]] : tensor<i32>, tensor<i32>, tensor<4xf32>
// CHECK: } do {
// CHECK: ^bb0(%{{.*}}: tensor<i32>, %[[M2:.*]]: tensor<i32>, %{{.*}}: tensor<4xf32>):
// CHECK:   scf.yield %{{.*}}, %[[M2]], %{{.*}} : tensor<i32>, tensor<i32>, tensor<4xf32>
// CHECK: }
// CHECK: return %[[R]]#2
func.func @while(%n: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0:3 = "tf.While"(%zero, %n, %x) ({
  ^bb0(%i: tensor<i32>, %m: tensor<i32>, %v: tensor<4xf32>):
    %c = "tf.Less"(%i, %m) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %m: tensor<i32>, %v: tensor<4xf32>):
    %one = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %i1 = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %v1 = "tf.Tanh"(%v) : (tensor<4xf32>) -> tensor<4xf32>
    "tf.Yield"(%i1, %m, %v1) : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> ()
  }) {T = [i32, i32, f32]} : (tensor<i32>, tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<i32>, tensor<4xf32>)
  return %0#2 : tensor<4xf32>
}
