// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

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

// Tests MatMul with transposes: one contraction over (m, k, n), n innermost, whose maps read
// A as (k, m) and B as (n, k).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul_tt
func.func @matmul_tt(%a: tensor<3x4xf32>, %b: tensor<5x3xf32>) -> tensor<4x5xf32> {
  // CHECK: %[[Z:.*]] = linalg.fill
  // CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
  // CHECK-SAME: outs(%[[Z]] : tensor<4x5xf32>)
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %0 = "tf.MatMul"(%a, %b) {transpose_a = true, transpose_b = true} : (tensor<3x4xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Tests that NCHW BiasAdd reads the bias along dimension 1.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @bias_nchw
func.func @bias_nchw(%x: tensor<1x3x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  // CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS]], #{{.*}}]
  %0 = "tf.BiasAdd"(%x, %b) {data_format = "NCHW"} : (tensor<1x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
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

// Tests that Reshape becomes collapse + expand, Const an arith.constant, Identity nothing.
// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  // CHECK: %[[F:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  // CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  // CHECK: return %[[R]]
  %s = "tf.Const"() {value = dense<[3, 4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.Identity"(%x) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %1 = "tf.Reshape"(%0, %s) : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
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

// Tests that control dependencies and the NoOps that carry them disappear.
// CHECK-LABEL: func.func @control
func.func @control(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: tf.
  // CHECK: linalg.generic
  // CHECK-NOT: tf.
  %n = "tf.NoOp"(%x) : (tensor<4xf32>) -> !tf.control
  %0 = "tf.Relu"(%x, %n) : (tensor<4xf32>, !tf.control) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an unfed Placeholder is reported at its node.
func.func @unfed() -> tensor<4xf32> {
  // expected-error @+1 {{Placeholder is needed by a fetch but is not fed}}
  %0 = "tf.Placeholder"() {dtype = f32, shape = #tf.shape<4>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a dynamic shape left after shape inference is reported at its node.
func.func @dynamic(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{its output has the shape float32 [?], not fully known}}
  %0 = "tf.Identity"(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a feed without a static shape is reported as the cause, by its tensor name.
// expected-error @+1 {{input 'x:0' has the shape float32 [?]; give it a static shape}}
func.func @dynamic_feed(%x: tensor<?xf32> {kiln.name = "x:0"}) -> tensor<?xf32> {
  %0 = "tf.Relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
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

// Tests that _Send and _Recv become the kiln dialect's send and recv (into an empty tensor of
// the received shape), keeping the tensor name.
// CHECK-LABEL: func.func @send_recv
func.func @send_recv(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: tf._
  // CHECK: %[[S:.*]] = linalg.generic
  // CHECK: kiln.send %[[S]] as "a:0;/cpu:1" : tensor<4xf32>
  // CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
  // CHECK: %[[R:.*]] = kiln.recv "a:0;/cpu:1" into %[[E]] : tensor<4xf32> -> tensor<4xf32>
  // CHECK: return %[[R]]
  %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "tf._Send"(%0) {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1"} : (tensor<4xf32>) -> ()
  %1 = "tf._Recv"() {recv_device = "/cpu:1", send_device = "/cpu:0", tensor_name = "a:0;/cpu:1", tensor_type = f32} : () -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Tests that a Range left to run time (too large to fold) is start + T(i) * delta per
// element, multiplied and added in the element type, and on integers in integer arithmetic.
// CHECK-LABEL: func.func @range
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[X:.*]] = arith.sitofp %[[I64]] : i64 to f32
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[M]] : f32
// CHECK: linalg.generic
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.muli
// CHECK: arith.addi
func.func @range(%s: tensor<f32>, %d: tensor<f32>, %si: tensor<i64>, %di: tensor<i64>)
    -> (tensor<2000000xf32>, tensor<2000000xi64>) {
  %l = "tf.Const"() {value = dense<3.0e6> : tensor<f32>} : () -> tensor<f32>
  %0 = "tf.Range"(%s, %l, %d) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2000000xf32>
  %li = "tf.Const"() {value = dense<3000000> : tensor<i64>} : () -> tensor<i64>
  %1 = "tf.Range"(%si, %li, %di) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2000000xi64>
  return %0, %1 : tensor<2000000xf32>, tensor<2000000xi64>
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
