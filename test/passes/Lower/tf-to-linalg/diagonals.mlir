// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Diagonals.cpp.

// Tests MatrixDiagPartV3 of diagonals -1 to 1 of a 3x5 matrix, LEFT_RIGHT: a gather over the
// [3, 3] result whose row j is diagonal d = 1 - j; superdiagonals (d >= 0) start at the
// left, the subdiagonal ends at the right (offset 3 - its length); the element reads
// input[p - min(d, 0), p + max(d, 0)] (clamped) where 0 <= p < the diagonal's length, and
// the padding elsewhere.
// CHECK-LABEL: func.func @diag_part
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<f32>) outs(%{{.*}} : tensor<3x3xf32>)
// CHECK: %[[HI:.*]] = arith.constant 1 : index
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: %[[D:.*]] = arith.subi %[[HI]], %[[J]] : index
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[LEFT:.*]] = arith.cmpi sge, %[[D]], %{{.*}} : index
// CHECK: arith.minsi
// CHECK: %[[LEN:.*]] = arith.minsi
// CHECK: %[[PAD:.*]] = arith.subi %{{.*}}, %[[LEN]] : index
// CHECK: %[[OFFSET:.*]] = arith.select %[[LEFT]], %{{.*}}, %[[PAD]] : index
// CHECK: %[[P:.*]] = arith.subi %[[I]], %[[OFFSET]] : index
// CHECK: %[[STARTED:.*]] = arith.cmpi sge, %[[P]]
// CHECK: %[[BEFORE:.*]] = arith.cmpi slt, %[[P]]
// CHECK: %[[VALID:.*]] = arith.andi %[[STARTED]], %[[BEFORE]] : i1
// CHECK: %[[V:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<3x5xf32>
// CHECK: arith.select %[[VALID]], %[[V]], %in : f32
func.func @diag_part(%x: tensor<3x5xf32>, %pad: tensor<f32>) -> tensor<3x3xf32> {
  %k = "tf.Const"() {value = dense<[-1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "tf.MatrixDiagPartV3"(%x, %k, %pad) {align = "LEFT_RIGHT"} : (tensor<3x5xf32>, tensor<2xi32>, tensor<f32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Tests MatrixSetDiag: a generic over the input, which is the element off the main
// diagonal; on it (d = col - row between 0 and 0), the diagonal's element at the row.
// CHECK-LABEL: func.func @set_diag
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x4x5xf32>) outs(%{{.*}} : tensor<2x4x5xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[D:.*]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK: %[[FROM:.*]] = arith.cmpi sge, %[[D]]
// CHECK: %[[TO:.*]] = arith.cmpi sle, %[[D]]
// CHECK: %[[ON:.*]] = arith.andi %[[FROM]], %[[TO]] : i1
// CHECK: %[[V:.*]] = tensor.extract %arg1[%[[B]], %{{.*}}] : tensor<2x4xf32>
// CHECK: arith.select %[[ON]], %[[V]], %in : f32
func.func @set_diag(%x: tensor<2x4x5xf32>, %d: tensor<2x4xf32>) -> tensor<2x4x5xf32> {
  %0 = "tf.MatrixSetDiag"(%x, %d) : (tensor<2x4x5xf32>, tensor<2x4xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

// Tests Diag: the [2, 3] input flattened to 6, MatrixDiag's gather into [6, 6] with zeros
// off the diagonal, then reshaped (through 36) to [2, 3, 2, 3].
// CHECK-LABEL: func.func @diag
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[ZERO]] : tensor<f32>) outs(%{{.*}} : tensor<6x6xf32>)
// CHECK: tensor.extract %[[FLAT]]
// CHECK: %[[ALL:.*]] = tensor.collapse_shape %[[M]] {{\[\[}}0, 1]] : tensor<6x6xf32> into tensor<36xf32>
// CHECK: tensor.expand_shape %[[ALL]] {{\[\[}}0, 1, 2, 3]] output_shape [2, 3, 2, 3]
func.func @diag(%x: tensor<2x3xf32>) -> tensor<2x3x2x3xf32> {
  %0 = "tf.Diag"(%x) : (tensor<2x3xf32>) -> tensor<2x3x2x3xf32>
  return %0 : tensor<2x3x2x3xf32>
}
