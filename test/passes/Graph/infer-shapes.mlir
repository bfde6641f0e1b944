// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-graph-infer-shapes %s | FileCheck %s

// Tests that static argument shapes flow through the graph and into the function type.
// CHECK-LABEL: func.func @flow
// CHECK-SAME: -> tensor<4x10xf32>
func.func @flow(%x: tensor<4x784xf32>, %w: tensor<784x10xf32>, %b: tensor<10xf32>) -> tensor<?x10xf32> {
  // CHECK: "tf.MatMul"{{.*}} -> tensor<4x10xf32>
  // CHECK: "tf.BiasAdd"{{.*}} -> tensor<4x10xf32>
  // CHECK: "tf.Softmax"{{.*}} -> tensor<4x10xf32>
  // CHECK: return {{.*}} : tensor<4x10xf32>
  %0 = "tf.MatMul"(%x, %w) : (tensor<4x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
  %1 = "tf.BiasAdd"(%0, %b) : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %2 = "tf.Softmax"(%1) : (tensor<?x10xf32>) -> tensor<?x10xf32>
  return %2 : tensor<?x10xf32>
}

// -----

// Tests that unranked results become ranked, with broadcasting and Reshape's -1.
// CHECK-LABEL: func.func @broadcast_reshape
func.func @broadcast_reshape(%x: tensor<4x1xf32>, %y: tensor<3xf32>) -> tensor<*xf32> {
  // CHECK: "tf.Add"{{.*}} -> tensor<4x3xf32>
  // CHECK: "tf.Reshape"{{.*}} -> tensor<2x6xf32>
  %s = "tf.Const"() {value = dense<[2, -1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Add"(%x, %y) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<*xf32>
  %1 = "tf.Reshape"(%0, %s) : (tensor<*xf32>, tensor<2xi32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Tests that a mismatch that only becomes visible with static shapes is reported at the node.
func.func @mismatch(%a: tensor<4x3xf32>, %b: tensor<5x2xf32>) -> tensor<?x?xf32> {
  %0 = "tf.Identity"(%a) : (tensor<4x3xf32>) -> tensor<?x?xf32>
  // expected-error @+1 {{inner dimensions differ}}
  %1 = "tf.MatMul"(%0, %b) : (tensor<?x?xf32>, tensor<5x2xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Tests that shapes flow into the regions of If and While (their arguments take their
// inputs' shapes), through the ops there, and out: If's results from its branches, While's
// from its loop variables.
// CHECK-LABEL: func.func @control_flow
// CHECK-SAME: -> (tensor<3xf32>, tensor<3xf32>)
func.func @control_flow(%c: tensor<i1>, %x: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %u = "tf.Identity"(%x) : (tensor<3xf32>) -> tensor<*xf32>
  // CHECK: "tf.If"
  // CHECK: ^bb0(%{{.*}}: tensor<3xf32>):
  // CHECK: "tf.Neg"{{.*}} -> tensor<3xf32>
  // CHECK: -> tensor<3xf32>
  %0 = "tf.If"(%c, %u) ({
  ^bb0(%v: tensor<*xf32>):
    %n = "tf.Neg"(%v) : (tensor<*xf32>) -> tensor<*xf32>
    "tf.Yield"(%n) : (tensor<*xf32>) -> ()
  }, {
  ^bb0(%v: tensor<*xf32>):
    "tf.Yield"(%v) : (tensor<*xf32>) -> ()
  }) {Tin = [f32]} : (tensor<i1>, tensor<*xf32>) -> tensor<*xf32>
  // CHECK: "tf.While"
  // CHECK: ^bb0(%{{.*}}: tensor<3xf32>):
  // CHECK: "tf.Tanh"{{.*}} -> tensor<3xf32>
  // CHECK: -> tensor<3xf32>
  %1 = "tf.While"(%u) ({
  ^bb0(%v: tensor<*xf32>):
    %t = "tf.Const"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    "tf.Yield"(%t) : (tensor<i1>) -> ()
  }, {
  ^bb0(%v: tensor<*xf32>):
    %t = "tf.Tanh"(%v) : (tensor<*xf32>) -> tensor<*xf32>
    "tf.Yield"(%t) : (tensor<*xf32>) -> ()
  }) {T = [f32]} : (tensor<*xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// Tests that a loop whose body doubles a variable is unrolled when its counter and
// condition fold to constants (0, 1, 2 < 3): three concatenations, no loop left, and the
// results' shapes from the last iteration.
// CHECK-LABEL: func.func @unrolled
// CHECK-NOT: "tf.While"
// CHECK-COUNT-3: "tf.ConcatV2"
// CHECK-NOT: "tf.While"
// CHECK: return {{.*}} : tensor<i32>, tensor<16xf32>
func.func @unrolled(%x: tensor<2xf32>) -> (tensor<*xi32>, tensor<*xf32>) {
  %zero = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "tf.While"(%zero, %x) ({
  ^bb0(%i: tensor<i32>, %v: tensor<2xf32>):
    %n = "tf.Const"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
    %c = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %v: tensor<2xf32>):
    %one = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %j = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %axis = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %w = "tf.ConcatV2"(%v, %v, %axis) {N = 2 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<i32>) -> tensor<4xf32>
    "tf.Yield"(%j, %w) : (tensor<i32>, tensor<4xf32>) -> ()
  }) {T = [i32, f32]} : (tensor<i32>, tensor<2xf32>) -> (tensor<*xi32>, tensor<*xf32>)
  return %0#0, %0#1 : tensor<*xi32>, tensor<*xf32>
}

// -----

// Tests that a loop that changes a variable's shape and whose condition is not a constant
// is an error naming the variable.
func.func @grows_unknown(%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<*xf32> {
  %zero = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+1 {{loop variable 1 is float32 [2] before the loop but the body makes it float32 [4], and its condition is not known at compile time, so it cannot be unrolled: Kiln compiles loops whose variables keep their dtypes and shapes, or that it can unroll}}
  %0:3 = "tf.While"(%zero, %x, %n) ({
  ^bb0(%i: tensor<i32>, %v: tensor<2xf32>, %m: tensor<i32>):
    %c = "tf.Less"(%i, %m) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %v: tensor<2xf32>, %m: tensor<i32>):
    %axis = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %w = "tf.ConcatV2"(%v, %v, %axis) {N = 2 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<i32>) -> tensor<4xf32>
    "tf.Yield"(%i, %w, %m) : (tensor<i32>, tensor<4xf32>, tensor<i32>) -> ()
  }) {T = [i32, f32, i32]} : (tensor<i32>, tensor<2xf32>, tensor<i32>) -> (tensor<*xi32>, tensor<*xf32>, tensor<*xi32>)
  return %0#1 : tensor<*xf32>
}

// -----

// Tests that unrolling stops, with an error, after 4096 iterations (a variable growing
// by one element each time round, for 100000 rounds).
func.func @grows_too_long(%x: tensor<2xf32>) -> tensor<*xf32> {
  %zero = "tf.Const"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  // expected-error @+1 {{loop variable 1 is float32 [2] before the loop but the body makes it float32 [3], and it runs more than 4096 iterations, too many to unroll}}
  %0:2 = "tf.While"(%zero, %x) ({
  ^bb0(%i: tensor<i32>, %v: tensor<2xf32>):
    %n = "tf.Const"() {value = dense<100000> : tensor<i32>} : () -> tensor<i32>
    %c = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tf.Yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %v: tensor<2xf32>):
    %one = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %j = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %p = "tf.Const"() {value = dense<[[0, 1]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
    %w = "tf.Pad"(%v, %p) : (tensor<2xf32>, tensor<1x2xi32>) -> tensor<3xf32>
    "tf.Yield"(%j, %w) : (tensor<i32>, tensor<3xf32>) -> ()
  }) {T = [i32, f32]} : (tensor<i32>, tensor<2xf32>) -> (tensor<*xi32>, tensor<*xf32>)
  return %0#1 : tensor<*xf32>
}

// -----

// Tests that ops of constants are evaluated as their types become known, so that shape
// arithmetic (here Keras's Softmax over axis 1: a permutation from Range, Sub, Pack and
// ConcatV2, one range empty) is a constant by the time its user is inferred.
// CHECK-LABEL: func.func @shape_arithmetic
// CHECK-SAME: -> tensor<2x6x4xf32>
// CHECK: %[[PERM:.*]] = "tf.Const"() {{.*}}value = dense<[0, 2, 1]> : tensor<3xi32>
// CHECK: "tf.Transpose"(%arg0, %[[PERM]]) {{.*}} -> tensor<2x6x4xf32>
// CHECK-NOT: tf.ConcatV2
func.func @shape_arithmetic(%x: tensor<2x4x6xf32>) -> tensor<?x?x?xf32> {
  %zero = "tf.Const"() {dtype = i32, value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %one = "tf.Const"() {dtype = i32, value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %two = "tf.Const"() {dtype = i32, value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %three = "tf.Const"() {dtype = i32, value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %last = "tf.Const"() {dtype = i32, value = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %head = "tf.Range"(%zero, %one, %one) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %n = "tf.Sub"(%three, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %mid = "tf.Pack"(%n) {N = 1 : i64, axis = 0 : i64} : (tensor<i32>) -> tensor<1xi32>
  %tail = "tf.Range"(%two, %n, %one) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %perm = "tf.ConcatV2"(%head, %mid, %tail, %last, %zero) {N = 4 : i64}
      : (tensor<?xi32>, tensor<1xi32>, tensor<?xi32>, tensor<1xi32>, tensor<i32>) -> tensor<?xi32>
  %y = "tf.Transpose"(%x, %perm) : (tensor<2x4x6xf32>, tensor<?xi32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

// Tests that a conditional on a constant is the branch it takes, and that control inputs
// that only wait for constants (a NoOp of the predicate, as a TensorFlow 2 branch holds)
// do not keep an op of constants from being evaluated: the Fill's shape becomes known.
// CHECK-LABEL: func.func @constant_conditional
// CHECK-SAME: -> tensor<2x3xf32>
// CHECK-NOT: tf.If
// CHECK: "tf.Fill"({{.*}}) -> tensor<2x3xf32>
func.func @constant_conditional(%x: tensor<f32>) -> tensor<*xf32> {
  %p = "tf.Const"() {dtype = i1, value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %dims = "tf.Const"() {dtype = i32, value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
  %r = "tf.If"(%p, %p, %dims, %x) ({
  ^bb0(%c: tensor<i1>, %d: tensor<2xi32>, %v: tensor<f32>):
    %ctl = "tf.NoOp"(%c) : (tensor<i1>) -> !tf.control
    %d2 = "tf.Identity"(%d, %ctl) : (tensor<2xi32>, !tf.control) -> tensor<*xi32>
    %f = "tf.Fill"(%d2, %v) : (tensor<*xi32>, tensor<f32>) -> tensor<*xf32>
    "tf.Yield"(%f) : (tensor<*xf32>) -> ()
  }, {
  ^bb0(%c: tensor<i1>, %d: tensor<2xi32>, %v: tensor<f32>):
    %f = "tf.Fill"(%d, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<*xf32>
    "tf.Yield"(%f) : (tensor<*xf32>) -> ()
  }) {Tin = [i1, i32, f32]} : (tensor<i1>, tensor<i1>, tensor<2xi32>, tensor<f32>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// Tests that the shape arithmetic of gradients folds once shapes are known: ShapeN of the
// arguments, BroadcastGradientArgs of [4, 1, 3] and [5, 1] (x summed over dimension 1,
// y over 0 and 2), BroadcastArgs and ConcatOffset of the shapes.
// CHECK-LABEL: func.func @gradient_shapes
// CHECK-DAG: %[[R0:.*]] = "tf.Const"() {dtype = i32, value = dense<1> : tensor<1xi32>}
// CHECK-DAG: %[[R1:.*]] = "tf.Const"() {dtype = i32, value = dense<[0, 2]> : tensor<2xi32>}
// CHECK-DAG: %[[B:.*]] = "tf.Const"() {dtype = i32, value = dense<[4, 5, 3]> : tensor<3xi32>}
// CHECK-DAG: %[[O:.*]] = "tf.Const"() {dtype = i32, value = dense<[0, 1, 0]> : tensor<3xi32>}
// CHECK: return %[[R0]], %[[R1]], %[[B]], %[[O]]
func.func @gradient_shapes(%x: tensor<4x1x3xf32>, %y: tensor<5x1xf32>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<3xi32>) {
  %s:2 = "tf.ShapeN"(%x, %y) {N = 2 : i64} : (tensor<4x1x3xf32>, tensor<5x1xf32>) -> (tensor<?xi32>, tensor<?xi32>)
  %r:2 = "tf.BroadcastGradientArgs"(%s#0, %s#1) : (tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  %b = "tf.BroadcastArgs"(%s#0, %s#1) : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  %axis = "tf.Const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %o:2 = "tf.ConcatOffset"(%axis, %s#0, %s#0) {N = 2 : i64} : (tensor<i32>, tensor<?xi32>, tensor<?xi32>) -> (tensor<3xi32>, tensor<3xi32>)
  return %r#0, %r#1, %b, %o#1 : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<3xi32>
}

// -----

// Tests that an integer clamp whose bounds leave one value folds while its operand is
// unknown: Minimum(6, Maximum(6, x)) is 6, as Keras's CategoryEncoding computes its depth,
// so that the DenseBincount after it has a static shape; Minimum(4, Maximum(6, x)) is 4;
// Minimum(8, Maximum(6, x)) stays.
// CHECK-LABEL: func.func @clamps
// CHECK: %[[SIX:.*]] = "tf.Const"() {dtype = i32, value = dense<6> : tensor<i32>}
// CHECK: "tf.DenseBincount"(%arg1, %[[SIX]], %{{.*}}) {{.*}} -> tensor<2x6xf32>
// CHECK: %[[FOUR:.*]] = "tf.Const"() {dtype = i32, value = dense<4> : tensor<i32>}
// CHECK: %[[KEPT:.*]] = "tf.Minimum"
// CHECK: return %{{.*}}, %[[FOUR]], %[[KEPT]]
func.func @clamps(%x: tensor<i32>, %ids: tensor<2x4xi32>) -> (tensor<2x?xf32>, tensor<i32>, tensor<i32>) {
  %four = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %six = "tf.Const"() {value = dense<6> : tensor<i32>} : () -> tensor<i32>
  %eight = "tf.Const"() {value = dense<8> : tensor<i32>} : () -> tensor<i32>
  %w = "tf.Const"() {value = dense<> : tensor<0xf32>} : () -> tensor<0xf32>
  %max = "tf.Maximum"(%six, %x) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %depth = "tf.Minimum"(%six, %max) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %counts = "tf.DenseBincount"(%ids, %depth, %w) : (tensor<2x4xi32>, tensor<i32>, tensor<0xf32>) -> tensor<2x?xf32>
  %lower = "tf.Minimum"(%four, %max) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %kept = "tf.Minimum"(%eight, %max) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %counts, %lower, %kept : tensor<2x?xf32>, tensor<i32>, tensor<i32>
}
