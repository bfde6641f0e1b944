/*
 * kiln/kernels/linalg.h - matrix factorizations and solvers called by compiled models.
 *
 * Generated code calls them for Cholesky, MatrixInverse, MatrixSolve,
 * MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd and TridiagonalSolve, float32 and
 * float64. Each works on `batch` matrices stored one after the other, row-major, and uses
 * the Eigen algorithm TensorFlow's CPU kernel uses (LLT, PartialPivLU, triangular solves,
 * HouseholderQR, SelfAdjointEigenSolver, BDCSVD), so the results, signs of vectors
 * included, are that kernel's; TridiagonalSolve is Kiln's own Thomas algorithm and
 * Gaussian elimination with partial pivoting, in TensorFlow's order of operations.
 *
 * Where TensorFlow's kernel reports an error (a singular matrix for MatrixInverse and
 * MatrixSolve, an eigensolver that does not converge) the kernel sets ok[i] to 0 for the
 * matrix i that failed and 1 for the others; generated code checks it. Where TensorFlow
 * writes NaNs instead (Cholesky of a matrix that is not positive definite, a singular
 * tridiagonal system, an SVD that does not converge), so do these. They keep no state and
 * are thread-safe.
 */
#ifndef KILN_KERNELS_LINALG_H
#define KILN_KERNELS_LINALG_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The flags (KILN_LINALG_*) are in kiln/runtime/abi.h. */

#define KILN_LINALG_DECLARE(T, S)                                                                  \
  /* l (n x n): the lower Cholesky factor of a's lower triangle, zeros above it. */                \
  void kiln_kernel_cholesky_##S(const T *a, T *l, int64_t batch, int64_t n);                       \
  void kiln_kernel_matrix_inverse_##S(const T *a, T *inverse, int32_t *ok, int64_t batch,          \
                                      int64_t n, int32_t flags);                                   \
  /* x (n x k) solves a x = rhs (n x k). */                                                        \
  void kiln_kernel_matrix_solve_##S(const T *a, const T *rhs, T *x, int32_t *ok, int64_t batch,    \
                                    int64_t n, int64_t k, int32_t flags);                          \
  void kiln_kernel_triangular_solve_##S(const T *a, const T *rhs, T *x, int64_t batch, int64_t n,  \
                                        int64_t k, int32_t flags);                                 \
  /* a (m x n) = q r; q m x p, r p x n, p = m with KILN_LINALG_FULL_MATRICES, else min(m, n). */   \
  void kiln_kernel_qr_##S(const T *a, T *q, T *r, int64_t batch, int64_t m, int64_t n,             \
                          int32_t flags);                                                          \
  /* The eigenvalues e (n, ascending) and eigenvectors v (n x n, one per column) of a's lower      \
   * triangle. */                                                                                  \
  void kiln_kernel_self_adjoint_eig_##S(const T *a, T *e, T *v, int32_t *ok, int64_t batch,        \
                                        int64_t n);                                                \
  void kiln_kernel_eigenvalues_##S(const T *a, T *e, int32_t *ok, int64_t batch, int64_t n);       \
  /* a (m x n) = u diag(s) v^T; s min(m, n) descending; u m x p, v n x q, p = m and q = n with     \
   * KILN_LINALG_FULL_MATRICES, else both min(m, n). */                                            \
  void kiln_kernel_svd_##S(const T *a, T *s, T *u, T *v, int64_t batch, int64_t m, int64_t n,      \
                           int32_t flags);                                                         \
  void kiln_kernel_singular_values_##S(const T *a, T *s, int64_t batch, int64_t m, int64_t n);     \
  /* x (m x k) solves t x = rhs, t tridiagonal: diagonals (3 x m) holds its superdiagonal          \
   * (the last element unused), diagonal and subdiagonal (the first unused). */                    \
  void kiln_kernel_tridiagonal_solve_##S(const T *diagonals, const T *rhs, T *x, int64_t batch,    \
                                         int64_t m, int64_t k, int32_t flags);

KILN_LINALG_DECLARE(float, f32)
KILN_LINALG_DECLARE(double, f64)

#undef KILN_LINALG_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_LINALG_H */
