// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-lower-tf-to-linalg="runtime-checks=false" %s | FileCheck %s --check-prefix=UNCHECKED

// The lowering patterns of passes/Lower/Patterns/Factorizations.cpp.

// Tests Cholesky on a batch: one kernel over the two matrices, no status to check.
// CHECK-LABEL: func.func @cholesky
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x4xf32>
// CHECK: %[[L:.*]] = kiln.kernel "cholesky_f32" ins(%arg0 : tensor<2x4x4xf32>) outs(%[[E]] : tensor<2x4x4xf32>) params {batch = 2 : i64, n = 4 : i64} -> tensor<2x4x4xf32>
// CHECK-NOT: kiln.check
// CHECK: return %[[L]]
func.func @cholesky(%a: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = "tf.Cholesky"(%a) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// Tests MatrixInverse with adjoint on float64: the kernel's status, one i32 per matrix of
// the batch (2x3), checked unless runtime-checks=false.
// CHECK-LABEL: func.func @inverse
// CHECK: %[[R:.*]]:2 = kiln.kernel "matrix_inverse_f64" ins(%arg0 : tensor<2x3x2x2xf64>) outs(%{{.*}}, %{{.*}} : tensor<2x3x2x2xf64>, tensor<2x3xi32>) params {adjoint, batch = 6 : i64, n = 2 : i64} -> tensor<2x3x2x2xf64>, tensor<2x3xi32>
// CHECK: kiln.check "nonzero" %[[R]]#1, "node 'inv' (MatrixInverse): the matrix{index} is not invertible (a zero pivot)" : tensor<2x3xi32>
// CHECK: return %[[R]]#0
// UNCHECKED-LABEL: func.func @inverse
// UNCHECKED: kiln.kernel "matrix_inverse_f64"
// UNCHECKED-NOT: kiln.check
func.func @inverse(%a: tensor<2x3x2x2xf64>) -> tensor<2x3x2x2xf64> {
  %0 = "tf.MatrixInverse"(%a) {adjoint = true} : (tensor<2x3x2x2xf64>) -> tensor<2x3x2x2xf64> loc("inv")
  return %0 : tensor<2x3x2x2xf64>
}

// -----

// Tests MatrixSolve on float16: operands widened to float32 for the kernel, the solution
// narrowed back; one matrix, so a scalar status.
// CHECK-LABEL: func.func @solve_f16
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<3x3xf16>)
// CHECK: arith.extf
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<3x2xf16>)
// CHECK: %[[R:.*]]:2 = kiln.kernel "matrix_solve_f32" ins(%[[A]], %[[B]] : tensor<3x3xf32>, tensor<3x2xf32>) outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<i32>) params {batch = 1 : i64, k = 2 : i64, n = 3 : i64}
// CHECK: kiln.check "nonzero" %[[R]]#1
// CHECK: linalg.generic {{.*}} ins(%[[R]]#0 : tensor<3x2xf32>)
// CHECK: arith.truncf
func.func @solve_f16(%a: tensor<3x3xf16>, %b: tensor<3x2xf16>) -> tensor<3x2xf16> {
  %0 = "tf.MatrixSolve"(%a, %b) : (tensor<3x3xf16>, tensor<3x2xf16>) -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

// Tests MatrixTriangularSolve with one matrix for a batch of right-hand sides: the matrix
// is broadcast to the batch first.
// CHECK-LABEL: func.func @triangular
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<3x3xf32>) outs(%{{.*}} : tensor<4x3x3xf32>)
// CHECK: kiln.kernel "triangular_solve_f32" ins(%[[M]], %arg1 : tensor<4x3x3xf32>, tensor<4x3x2xf32>) outs(%{{.*}} : tensor<4x3x2xf32>) params {batch = 4 : i64, k = 2 : i64, lower, n = 3 : i64}
func.func @triangular(%a: tensor<3x3xf32>, %b: tensor<4x3x2xf32>) -> tensor<4x3x2xf32> {
  %0 = "tf.MatrixTriangularSolve"(%a, %b) : (tensor<3x3xf32>, tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// Tests Qr (full) and Svd (reduced, and without vectors: empty u and v).
// CHECK-LABEL: func.func @qr_svd
// CHECK: kiln.kernel "qr_f32" ins(%arg0 : tensor<5x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<5x5xf32>, tensor<5x3xf32>) params {batch = 1 : i64, full_matrices, m = 5 : i64, n = 3 : i64}
// CHECK: kiln.kernel "svd_f32" ins(%arg0 : tensor<5x3xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>) params {batch = 1 : i64, m = 5 : i64, n = 3 : i64}
// CHECK: %[[NONE:.*]] = tensor.empty() : tensor<0xf32>
// CHECK: kiln.kernel "singular_values_f32" ins(%arg0 : tensor<5x3xf32>) outs(%{{.*}} : tensor<3xf32>) params {batch = 1 : i64, m = 5 : i64, n = 3 : i64}
// CHECK: return {{.*}}, %[[NONE]] :
func.func @qr_svd(%a: tensor<5x3xf32>) -> (tensor<5x5xf32>, tensor<5x3xf32>, tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<0xf32>) {
  %q, %r = "tf.Qr"(%a) {full_matrices = true} : (tensor<5x3xf32>) -> (tensor<5x5xf32>, tensor<5x3xf32>)
  %s, %u, %v = "tf.Svd"(%a) : (tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>)
  %s2, %u2, %v2 = "tf.Svd"(%a) {compute_uv = false} : (tensor<5x3xf32>) -> (tensor<3xf32>, tensor<0xf32>, tensor<0xf32>)
  return %q, %r, %s, %u, %v, %s2, %u2 : tensor<5x5xf32>, tensor<5x3xf32>, tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<0xf32>
}

// -----

// Tests SelfAdjointEigV2 with and without eigenvectors, each status checked, and
// TridiagonalSolve with partial pivoting (the default).
// CHECK-LABEL: func.func @eig_tridiagonal
// CHECK: %[[E:.*]]:3 = kiln.kernel "self_adjoint_eig_f32" ins(%arg0 : tensor<2x4x4xf32>) outs({{.*}} : tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2xi32>) params {batch = 2 : i64, n = 4 : i64}
// CHECK: kiln.check "nonzero" %[[E]]#2, "the eigensolver did not converge for the matrix{index}"
// CHECK: %[[V:.*]]:2 = kiln.kernel "eigenvalues_f32" ins(%arg0 : tensor<2x4x4xf32>) outs({{.*}} : tensor<2x4xf32>, tensor<2xi32>)
// CHECK: kiln.check "nonzero" %[[V]]#1
// CHECK: kiln.kernel "tridiagonal_solve_f32" ins(%arg1, %arg2 : tensor<3x6xf32>, tensor<6x2xf32>) outs(%{{.*}} : tensor<6x2xf32>) params {batch = 1 : i64, k = 2 : i64, m = 6 : i64, partial_pivoting}
func.func @eig_tridiagonal(%a: tensor<2x4x4xf32>, %d: tensor<3x6xf32>, %b: tensor<6x2xf32>) -> (tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<6x2xf32>) {
  %e, %v = "tf.SelfAdjointEigV2"(%a) : (tensor<2x4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4x4xf32>)
  %e2, %none = "tf.SelfAdjointEigV2"(%a) {compute_v = false} : (tensor<2x4x4xf32>) -> (tensor<2x4xf32>, tensor<0xf32>)
  %x = "tf.TridiagonalSolve"(%d, %b) : (tensor<3x6xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  return %e, %v, %e2, %x : tensor<2x4xf32>, tensor<2x4x4xf32>, tensor<2x4xf32>, tensor<6x2xf32>
}
