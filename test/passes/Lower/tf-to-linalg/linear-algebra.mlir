// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-lower-tf-to-linalg %s | FileCheck %s

// The lowering patterns of passes/Lower/Patterns/LinearAlgebra.cpp.

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

// Tests BatchMatMulV2: a contraction whose batch maps broadcast ([2,1] with [3]) and whose
// adj_y reads y as (n, k).
// Loops are (batch0, batch1, m, k, n).
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[Z:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func.func @batch_matmul
func.func @batch_matmul(%x: tensor<2x1x3x4xf32>, %y: tensor<3x5x4xf32>) -> tensor<2x3x3x5xf32> {
  // CHECK: linalg.generic {indexing_maps = [#[[X]], #[[Y]], #[[Z]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
  %0 = "tf.BatchMatMulV2"(%x, %y) {adj_y = true} : (tensor<2x1x3x4xf32>, tensor<3x5x4xf32>) -> tensor<2x3x3x5xf32>
  return %0 : tensor<2x3x3x5xf32>
}

// -----

// Tests BatchMatMul (the V1 op) as a generic over (batch, m, k, n): C[b, m, n] +=
// A[b, m, k] * B[b, k, n], from zeros.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @batch_matmul_v1
func.func @batch_matmul_v1(%x: tensor<3x2x4xf32>, %y: tensor<3x4x5xf32>) -> tensor<3x2x5xf32> {
  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
  // CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%arg0, %arg1 : tensor<3x2x4xf32>, tensor<3x4x5xf32>) outs(%[[INIT]] : tensor<3x2x5xf32>)
  // CHECK: arith.mulf
  // CHECK: arith.addf
  %0 = "tf.BatchMatMul"(%x, %y) : (tensor<3x2x4xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
  return %0 : tensor<3x2x5xf32>
}
