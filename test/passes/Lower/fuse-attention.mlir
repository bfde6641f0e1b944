// RUN: kiln-opt --split-input-file --kiln-lower-fuse-attention %s | FileCheck %s

// Tests MultiHeadAttention's form: heads split from [batch, seq, heads, dim] by transposes,
// the scores scaled by a Mul, the result transposed back. The transposes are absorbed (the
// operands are read and the result written seq-major), and every op of the chain goes.
// CHECK-LABEL: func.func @keras
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x4x16xf32>, %[[K:.*]]: tensor<2x10x4x16xf32>, %[[V:.*]]: tensor<2x10x4x24xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8x4x24xf32>
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %[[K]], %[[V]] into %[[E]] {k_seq_major, out_seq_major, q_seq_major, scale = 2.500000e-01 : f32, v_seq_major}
// CHECK-SAME: -> tensor<2x8x4x24xf32>
// CHECK-NOT: tf.BatchMatMulV2
// CHECK-NOT: tf.Softmax
// CHECK-NOT: tf.Mul
// CHECK: return %[[O]]
func.func @keras(%q: tensor<2x8x4x16xf32>, %k: tensor<2x10x4x16xf32>, %v: tensor<2x10x4x24xf32>) -> tensor<2x8x4x24xf32> {
  %perm = "tf.Const"() {value = dense<[0, 2, 1, 3]> : tensor<4xi32>} : () -> tensor<4xi32>
  %qt = "tf.Transpose"(%q, %perm) : (tensor<2x8x4x16xf32>, tensor<4xi32>) -> tensor<2x4x8x16xf32>
  %kt = "tf.Transpose"(%k, %perm) : (tensor<2x10x4x16xf32>, tensor<4xi32>) -> tensor<2x4x10x16xf32>
  %vt = "tf.Transpose"(%v, %perm) : (tensor<2x10x4x24xf32>, tensor<4xi32>) -> tensor<2x4x10x24xf32>
  %s = "tf.BatchMatMulV2"(%qt, %kt) {adj_x = false, adj_y = true} : (tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>) -> tensor<2x4x8x10xf32>
  %c = "tf.Const"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %x = "tf.Mul"(%s, %c) : (tensor<2x4x8x10xf32>, tensor<f32>) -> tensor<2x4x8x10xf32>
  %p = "tf.Softmax"(%x) : (tensor<2x4x8x10xf32>) -> tensor<2x4x8x10xf32>
  %o = "tf.BatchMatMulV2"(%p, %vt) : (tensor<2x4x8x10xf32>, tensor<2x4x10x24xf32>) -> tensor<2x4x8x24xf32>
  %ot = "tf.Transpose"(%o, %perm) : (tensor<2x4x8x24xf32>, tensor<4xi32>) -> tensor<2x8x4x24xf32>
  return %ot : tensor<2x8x4x24xf32>
}

// -----

// Tests BERT's form in [batch, heads, seq, dim]: a division by sqrt(d) (a multiplication by
// its reciprocal), the scale constant first in a Mul does not matter, and a control edge
// from the weights (a NoOp reading them) is dropped rather than blocking the fusion.
// CHECK-LABEL: func.func @bert
// CHECK-NOT: tf.BatchMatMulV2
// CHECK: "tf.NoOp"() :
// CHECK: %[[O:.*]] = kiln.attention %arg0, %arg1, %arg2 into %{{.*}} {scale = 1.250000e-01 : f32}
// CHECK-SAME: : tensor<1x2x6x64xf32>, tensor<1x2x6x64xf32>, tensor<1x2x6x32xf32> -> tensor<1x2x6x32xf32>
// CHECK: return %[[O]]
func.func @bert(%q: tensor<1x2x6x64xf32>, %k: tensor<1x2x6x64xf32>, %v: tensor<1x2x6x32xf32>) -> tensor<1x2x6x32xf32> {
  %s = "tf.BatchMatMulV2"(%q, %k) {adj_y = true} : (tensor<1x2x6x64xf32>, tensor<1x2x6x64xf32>) -> tensor<1x2x6x6xf32>
  %c = "tf.Const"() {value = dense<8.0> : tensor<f32>} : () -> tensor<f32>
  %x = "tf.RealDiv"(%s, %c) : (tensor<1x2x6x6xf32>, tensor<f32>) -> tensor<1x2x6x6xf32>
  %p = "tf.Softmax"(%x) : (tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %ctl = "tf.NoOp"(%p) : (tensor<1x2x6x6xf32>) -> !tf.control
  %o = "tf.BatchMatMulV2"(%p, %v) : (tensor<1x2x6x6xf32>, tensor<1x2x6x32xf32>) -> tensor<1x2x6x32xf32>
  return %o : tensor<1x2x6x32xf32>
}

// -----

// Tests rank 3 operands (heads folded into the batch), the scale first in its Mul: a heads
// dimension of 1 is added around the op.
// CHECK-LABEL: func.func @rank3
// CHECK: %[[Q:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3]] output_shape [3, 1, 5, 8]
// CHECK: %[[O:.*]] = kiln.attention %[[Q]], %{{.*}}, %{{.*}} into %{{.*}} {scale = 2.000000e+00 : f32}
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2], [3]] : tensor<3x1x5x4xf32> into tensor<3x5x4xf32>
// CHECK: return %[[R]]
func.func @rank3(%q: tensor<3x5x8xf32>, %k: tensor<3x7x8xf32>, %v: tensor<3x7x4xf32>) -> tensor<3x5x4xf32> {
  %s = "tf.BatchMatMulV2"(%q, %k) {adj_y = true} : (tensor<3x5x8xf32>, tensor<3x7x8xf32>) -> tensor<3x5x7xf32>
  %c = "tf.Const"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %x = "tf.Mul"(%c, %s) : (tensor<f32>, tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %p = "tf.Softmax"(%x) : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32>
  %o = "tf.BatchMatMulV2"(%p, %v) : (tensor<3x5x7xf32>, tensor<3x7x4xf32>) -> tensor<3x5x4xf32>
  return %o : tensor<3x5x4xf32>
}

// -----

// Tests masks: BERT's [batch, 1, 1, sk] added after the division (the mask, a scaling itself,
// first in its AddV2), and a [batch, sq, sk] mask on rank 3 scores, placed as [batch, 1,
// sq, sk].
// CHECK-LABEL: func.func @masks
// CHECK: %[[O:.*]] = kiln.attention %arg0, %arg1, %arg2 mask %[[M:.*]] : tensor<2x1x1x6xf32> into %{{.*}} {scale = 1.250000e-01 : f32}
// CHECK: %[[M3:.*]] = tensor.expand_shape %arg4 {{\[\[}}0], [1, 2], [3]] output_shape [2, 1, 5, 6] : tensor<2x5x6xf32> into tensor<2x1x5x6xf32>
// CHECK: kiln.attention {{.*}} mask %[[M3]] : tensor<2x1x5x6xf32>
func.func @masks(%q: tensor<2x3x5x64xf32>, %k: tensor<2x3x6x64xf32>, %v: tensor<2x3x6x4xf32>,
                 %m: tensor<2x1x1x6xf32>, %m3: tensor<2x5x6xf32>, %q3: tensor<2x5x8xf32>,
                 %k3: tensor<2x6x8xf32>, %v3: tensor<2x6x4xf32>) -> (tensor<2x3x5x4xf32>, tensor<2x5x4xf32>) {
  %s = "tf.BatchMatMulV2"(%q, %k) {adj_y = true} : (tensor<2x3x5x64xf32>, tensor<2x3x6x64xf32>) -> tensor<2x3x5x6xf32>
  %c = "tf.Const"() {value = dense<8.0> : tensor<f32>} : () -> tensor<f32>
  %x = "tf.RealDiv"(%s, %c) : (tensor<2x3x5x6xf32>, tensor<f32>) -> tensor<2x3x5x6xf32>
  %big = "tf.Const"() {value = dense<-10000.0> : tensor<f32>} : () -> tensor<f32>
  %mm = "tf.Mul"(%m, %big) : (tensor<2x1x1x6xf32>, tensor<f32>) -> tensor<2x1x1x6xf32>
  %xm = "tf.AddV2"(%mm, %x) : (tensor<2x1x1x6xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x5x6xf32>
  %p = "tf.Softmax"(%xm) : (tensor<2x3x5x6xf32>) -> tensor<2x3x5x6xf32>
  %o = "tf.BatchMatMulV2"(%p, %v) : (tensor<2x3x5x6xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x5x4xf32>
  %s3 = "tf.BatchMatMulV2"(%q3, %k3) {adj_y = true} : (tensor<2x5x8xf32>, tensor<2x6x8xf32>) -> tensor<2x5x6xf32>
  %x3 = "tf.Add"(%s3, %m3) : (tensor<2x5x6xf32>, tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  %p3 = "tf.Softmax"(%x3) : (tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  %o3 = "tf.BatchMatMulV2"(%p3, %v3) : (tensor<2x5x6xf32>, tensor<2x6x4xf32>) -> tensor<2x5x4xf32>
  return %o, %o3 : tensor<2x3x5x4xf32>, tensor<2x5x4xf32>
}

// -----

// Tests what stays as it is: scores another op also reads, a mask that broadcasts along
// the keys, broadcast batch dimensions, and k not transposed.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: kiln.attention
// CHECK-COUNT-8: "tf.BatchMatMulV2"
// CHECK-NOT: kiln.attention
func.func @kept(%q: tensor<2x6x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x4xf32>,
                %m: tensor<2x6x1xf32>, %k1: tensor<1x6x8xf32>, %kt: tensor<2x8x6xf32>)
    -> (tensor<2x6x4xf32>, tensor<2x6x6xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>) {
  %s = "tf.BatchMatMulV2"(%q, %k) {adj_y = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>
  %p = "tf.Softmax"(%s) : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %o = "tf.BatchMatMulV2"(%p, %v) : (tensor<2x6x6xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %s2 = "tf.BatchMatMulV2"(%q, %k) {adj_y = true} : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>
  %x2 = "tf.AddV2"(%s2, %m) : (tensor<2x6x6xf32>, tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
  %p2 = "tf.Softmax"(%x2) : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %o2 = "tf.BatchMatMulV2"(%p2, %v) : (tensor<2x6x6xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %s3 = "tf.BatchMatMulV2"(%q, %k1) {adj_y = true} : (tensor<2x6x8xf32>, tensor<1x6x8xf32>) -> tensor<2x6x6xf32>
  %p3 = "tf.Softmax"(%s3) : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %o3 = "tf.BatchMatMulV2"(%p3, %v) : (tensor<2x6x6xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %s4 = "tf.BatchMatMulV2"(%q, %kt) : (tensor<2x6x8xf32>, tensor<2x8x6xf32>) -> tensor<2x6x6xf32>
  %p4 = "tf.Softmax"(%s4) : (tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %o4 = "tf.BatchMatMulV2"(%p4, %v) : (tensor<2x6x6xf32>, tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  return %o, %s, %o2, %o3, %o4 : tensor<2x6x4xf32>, tensor<2x6x6xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>
}
