// The linear-algebra kernels (kiln/kernels/linalg.h) checked by what their results must
// satisfy: a solution solves its system, factors multiply back to the matrix, vectors are
// orthonormal, and the failures TensorFlow reports (or fills with NaNs) are reported.
#include "kiln/kernels/linalg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

std::vector<double> randomMatrices(int64_t count, int64_t rows, int64_t cols, unsigned seed,
                                   double diagonal = 0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> out(count * rows * cols);
  for (double &x : out)
    x = dist(gen);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < std::min(rows, cols); ++i)
      out[(b * rows + i) * cols + i] += diagonal;
  return out;
}

/// c (m x n) = a (m x k) b (k x n), row-major; transposes when asked.
std::vector<double> product(const double *a, const double *b, int64_t m, int64_t k, int64_t n,
                            bool ta = false, bool tb = false) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        c[i * n + j] += (ta ? a[p * m + i] : a[i * k + p]) * (tb ? b[j * k + p] : b[p * n + j]);
  return c;
}

void expectNear(const std::vector<double> &a, const double *b, double tol = 1e-10) {
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}

TEST(Linalg, SolveAndInverseSolveTheirSystems) {
  const int64_t batch = 3, n = 4, k = 2;
  std::vector<double> a = randomMatrices(batch, n, n, 1, 3.0), rhs = randomMatrices(batch, n, k, 2);
  std::vector<double> x(batch * n * k), inverse(batch * n * n), xt(batch * n * k);
  std::vector<int32_t> ok(batch, -1);
  kiln_kernel_matrix_solve_f64(a.data(), rhs.data(), x.data(), ok.data(), batch, n, k, 0);
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(ok[b], 1);
    expectNear(product(&a[b * n * n], &x[b * n * k], n, n, k), &rhs[b * n * k]);
  }
  // The adjoint form solves a^T x = rhs.
  kiln_kernel_matrix_solve_f64(a.data(), rhs.data(), xt.data(), ok.data(), batch, n, k,
                               KILN_LINALG_ADJOINT);
  for (int64_t b = 0; b < batch; ++b)
    expectNear(product(&a[b * n * n], &xt[b * n * k], n, n, k, /*ta=*/true), &rhs[b * n * k]);
  kiln_kernel_matrix_inverse_f64(a.data(), inverse.data(), ok.data(), batch, n, 0);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> identity = product(&a[b * n * n], &inverse[b * n * n], n, n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        EXPECT_NEAR(identity[i * n + j], i == j ? 1.0 : 0.0, 1e-10);
  }
}

TEST(Linalg, SingularMatricesAreReported) {
  // The second matrix has two equal rows: a zero pivot, as TensorFlow's check sees it.
  std::vector<float> a = {2, 1, 1, 3, 1, 2, 1, 2}, out(8), rhs = {1, 1, 1, 1}, x(4);
  std::vector<int32_t> ok(2, -1);
  kiln_kernel_matrix_inverse_f32(a.data(), out.data(), ok.data(), 2, 2, 0);
  EXPECT_EQ(ok[0], 1);
  EXPECT_EQ(ok[1], 0);
  kiln_kernel_matrix_solve_f32(a.data(), rhs.data(), x.data(), ok.data(), 2, 2, 1, 0);
  EXPECT_EQ(ok[0], 1);
  EXPECT_EQ(ok[1], 0);
  EXPECT_TRUE(std::isnan(x[2]) && std::isnan(x[3]));
}

TEST(Linalg, CholeskyFactorsAndFailsWithNaNs) {
  const int64_t n = 3;
  std::vector<double> m = randomMatrices(1, n, n, 3);
  std::vector<double> spd = product(m.data(), m.data(), n, n, n, false, true);
  for (int64_t i = 0; i < n; ++i)
    spd[i * n + i] += 1.0;
  std::vector<double> l(n * n);
  kiln_kernel_cholesky_f64(spd.data(), l.data(), 1, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      EXPECT_EQ(l[i * n + j], 0.0);
  expectNear(product(l.data(), l.data(), n, n, n, false, true), spd.data());
  std::vector<double> indefinite = {1, 2, 2, 1}, bad(4);
  kiln_kernel_cholesky_f64(indefinite.data(), bad.data(), 1, 2);
  EXPECT_TRUE(std::isnan(bad[0]) && std::isnan(bad[2]) && std::isnan(bad[3]));
}

TEST(Linalg, QrAndSvdMultiplyBack) {
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}}) {
    int64_t p = std::min(m, n);
    std::vector<double> a = randomMatrices(2, m, n, 4);
    for (bool full : {false, true}) {
      int64_t cols = full ? m : p;
      std::vector<double> q(2 * m * cols), r(2 * cols * n);
      kiln_kernel_qr_f64(a.data(), q.data(), r.data(), 2, m, n,
                         full ? KILN_LINALG_FULL_MATRICES : 0);
      for (int64_t b = 0; b < 2; ++b) {
        expectNear(product(&q[b * m * cols], &r[b * cols * n], m, cols, n), &a[b * m * n]);
        std::vector<double> qtq = product(&q[b * m * cols], &q[b * m * cols], cols, m, cols, true);
        for (int64_t i = 0; i < cols; ++i)
          EXPECT_NEAR(qtq[i * cols + i], 1.0, 1e-10);
      }
    }
    std::vector<double> s(2 * p), u(2 * m * p), v(2 * n * p), values(2 * p);
    kiln_kernel_svd_f64(a.data(), s.data(), u.data(), v.data(), 2, m, n, 0);
    kiln_kernel_singular_values_f64(a.data(), values.data(), 2, m, n);
    expectNear(s, values.data());
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<double> us(u.begin() + b * m * p, u.begin() + (b + 1) * m * p);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < p; ++j)
          us[i * p + j] *= s[b * p + j];
      expectNear(product(us.data(), &v[b * n * p], m, p, n, false, true), &a[b * m * n]);
      for (int64_t j = 1; j < p; ++j)
        EXPECT_GE(s[b * p + j - 1], s[b * p + j]);
    }
  }
}

TEST(Linalg, EigenvectorsDiagonalize) {
  const int64_t n = 4;
  std::vector<double> m = randomMatrices(1, n, n, 5), sym(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      sym[i * n + j] = m[i * n + j] + m[j * n + i];
  std::vector<double> e(n), v(n * n), values(n);
  int32_t ok = -1;
  kiln_kernel_self_adjoint_eig_f64(sym.data(), e.data(), v.data(), &ok, 1, n);
  EXPECT_EQ(ok, 1);
  std::vector<double> av = product(sym.data(), v.data(), n, n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      EXPECT_NEAR(av[i * n + j], v[i * n + j] * e[j], 1e-10);
  kiln_kernel_eigenvalues_f64(sym.data(), values.data(), &ok, 1, n);
  expectNear(e, values.data());
}

TEST(Linalg, TriangularAndTridiagonalSolves) {
  const int64_t n = 5, k = 2;
  std::vector<double> a = randomMatrices(1, n, n, 6, 3.0), rhs = randomMatrices(1, n, k, 7);
  for (int32_t flags :
       {0, KILN_LINALG_LOWER, KILN_LINALG_ADJOINT, KILN_LINALG_LOWER | KILN_LINALG_ADJOINT}) {
    std::vector<double> t = a, x(n * k);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if ((flags & KILN_LINALG_LOWER) ? j > i : j < i)
          t[i * n + j] = 0;
    kiln_kernel_triangular_solve_f64(a.data(), rhs.data(), x.data(), 1, n, k, flags);
    expectNear(product(t.data(), x.data(), n, n, k, flags & KILN_LINALG_ADJOINT), rhs.data());
  }
  // Tridiagonal: a small diagonal entry makes partial pivoting interchange rows.
  std::vector<double> diagonals = randomMatrices(1, 3, n, 8);
  for (int64_t i = 0; i < n; ++i)
    diagonals[n + i] += 3.0;
  diagonals[n] = 0.01;
  std::vector<double> dense(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    dense[i * n + i] = diagonals[n + i];
    if (i + 1 < n)
      dense[i * n + i + 1] = diagonals[i];
    if (i > 0)
      dense[i * n + i - 1] = diagonals[2 * n + i];
  }
  for (int32_t flags : {0, KILN_LINALG_PARTIAL_PIVOTING}) {
    std::vector<double> x(n * k);
    kiln_kernel_tridiagonal_solve_f64(diagonals.data(), rhs.data(), x.data(), 1, n, k, flags);
    expectNear(product(dense.data(), x.data(), n, n, k), rhs.data(), 1e-9);
  }
  // A zero first pivot: the Thomas algorithm fails (NaNs), pivoting goes around it.
  diagonals[n] = 0.0;
  std::vector<double> thomas(n * k), pivoted(n * k);
  kiln_kernel_tridiagonal_solve_f64(diagonals.data(), rhs.data(), thomas.data(), 1, n, k, 0);
  EXPECT_TRUE(std::isnan(thomas[0]));
  kiln_kernel_tridiagonal_solve_f64(diagonals.data(), rhs.data(), pivoted.data(), 1, n, k,
                                    KILN_LINALG_PARTIAL_PIVOTING);
  dense[0] = 0.0;
  expectNear(product(dense.data(), pivoted.data(), n, n, k), rhs.data(), 1e-9);
  // One unknown, and an empty batch.
  double one = 4.0, b1[2] = {2.0, -8.0}, x1[2];
  double diag1[3] = {0.0, one, 0.0};
  kiln_kernel_tridiagonal_solve_f64(diag1, b1, x1, 1, 1, 2, KILN_LINALG_PARTIAL_PIVOTING);
  EXPECT_EQ(x1[0], 0.5);
  EXPECT_EQ(x1[1], -2.0);
  kiln_kernel_tridiagonal_solve_f64(nullptr, nullptr, nullptr, 0, 3, 2, 0);
}

} // namespace
