// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/Scatter.cpp.

// Tests a segment reduction: the result filled with the identity (the lowest finite float
// for Max), then an scf.for over the ids that combines each data row into the row of its
// id when the id is in [0, num_segments), and leaves the result as it is otherwise.
// CHECK-LABEL: func.func @segment_max
// CHECK: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[LOWEST]] : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[IDS:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [5, 1]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %[[INIT]])
// CHECK: %[[ID:.*]] = tensor.extract %[[IDS]][%[[K]], %{{.*}}] : tensor<5x1xi32>
// CHECK: %[[I:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK: %[[LOW:.*]] = arith.cmpi sge, %[[I]]
// CHECK: %[[HIGH:.*]] = arith.cmpi slt, %[[I]]
// CHECK: %[[IN:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK: scf.if %[[IN]] -> (tensor<4x3xf32>)
// CHECK: %[[OLD:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
// CHECK: %[[ROW:.*]] = tensor.extract_slice %arg0[%[[K]], 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[OLD]], %[[ROW]]
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice %{{.*}} into %[[OUT]][%[[I]], 0] [1, 3] [1, 1]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[OUT]] : tensor<4x3xf32>
func.func @segment_max(%d: tensor<5x3xf32>, %ids: tensor<5xi32>) -> tensor<4x3xf32> {
  %n = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.UnsortedSegmentMax"(%d, %ids, %n) : (tensor<5x3xf32>, tensor<5xi32>, tensor<i32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests TensorScatterUpdate of elements by [2, 2] tuples: the scatter starts from the
// tensor itself, reads both entries of each tuple, and writes the update (no combination).
// CHECK-LABEL: func.func @tensor_scatter_update
// CHECK: scf.for %[[K:.*]] = %{{.*}} iter_args(%[[OUT:.*]] = %arg0)
// CHECK: tensor.extract %arg1[%[[K]], %{{.*}}] : tensor<2x2xi64>
// CHECK: tensor.extract %arg1[%[[K]], %{{.*}}] : tensor<2x2xi64>
// CHECK: scf.if
// CHECK: tensor.extract_slice %[[OUT]][%{{.*}}, %{{.*}}] [1, 1] [1, 1] : tensor<4x3xf32> to tensor<f32>
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %[[NEW:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[NEW]] : f32
func.func @tensor_scatter_update(%t: tensor<4x3xf32>, %i: tensor<2x2xi64>, %u: tensor<2xf32>) -> tensor<4x3xf32> {
  %0 = "tf.TensorScatterUpdate"(%t, %i, %u) : (tensor<4x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests DenseBincount of a matrix: flat indices row * size + value (-1 for a value of size
// or more), then a scatter that adds 1 into the flat result, reshaped to [rows, size].
// CHECK-LABEL: func.func @dense_bincount
// CHECK: linalg.generic
// CHECK: %[[INSIDE:.*]] = arith.cmpi slt, %in, %{{.*}} : i32
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[BASE:.*]] = arith.muli
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %in : i32
// CHECK: arith.select %[[INSIDE]], %[[AT]], %{{.*}} : i32
// CHECK: scf.for
// CHECK: arith.addf %in, %{{.*}} : f32
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
func.func @dense_bincount(%x: tensor<2x3xi32>, %w: tensor<0xf32>) -> tensor<2x4xf32> {
  %size = "tf.Const"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
  %0 = "tf.DenseBincount"(%x, %size, %w) : (tensor<2x3xi32>, tensor<i32>, tensor<0xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
