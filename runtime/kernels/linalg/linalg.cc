// Matrix factorizations and solvers for Cholesky, MatrixInverse, MatrixSolve,
// MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd and TridiagonalSolve
// (kiln/kernels/linalg.h): Eigen's decompositions, the ones TensorFlow's CPU kernels call,
// on row-major maps of each matrix of the batch, so the results are those kernels'.
#include "kiln/kernels/linalg.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T> using Map = Eigen::Map<Matrix<T>>;
template <typename T> using ConstMap = Eigen::Map<const Matrix<T>>;
template <typename T> using Vector = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;

template <typename T> constexpr T nan() { return std::numeric_limits<T>::quiet_NaN(); }

template <typename T> void cholesky(const T *a, T *l, int64_t batch, int64_t n) {
  for (int64_t i = 0; i < batch; ++i) {
    ConstMap<T> in(a + i * n * n, n, n);
    Map<T> out(l + i * n * n, n, n);
    if (n == 0)
      continue;
    // LLT reads the lower triangle only.
    Eigen::LLT<Matrix<T>> llt(in);
    if (llt.info() == Eigen::Success) {
      out = llt.matrixL();
    } else {
      // TensorFlow fills the lower triangle with NaNs (its upper is left as it was).
      out.setZero();
      out.template triangularView<Eigen::Lower>().fill(nan<T>());
    }
  }
}

/// PartialPivLU of a (or its transpose), and whether no pivot is exactly 0: TensorFlow's
/// test for MatrixInverse and MatrixSolve.
template <typename T>
bool factorLu(Eigen::PartialPivLU<Matrix<T>> &lu, const ConstMap<T> &a, bool adjoint) {
  if (adjoint)
    lu.compute(a.adjoint());
  else
    lu.compute(a);
  return lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0);
}

template <typename T>
void matrixInverse(const T *a, T *inverse, int32_t *ok, int64_t batch, int64_t n, int32_t flags) {
  for (int64_t i = 0; i < batch; ++i) {
    ok[i] = 1;
    if (n == 0)
      continue;
    ConstMap<T> in(a + i * n * n, n, n);
    Map<T> out(inverse + i * n * n, n, n);
    Eigen::PartialPivLU<Matrix<T>> lu(n);
    if (!factorLu(lu, in, flags & KILN_LINALG_ADJOINT)) {
      ok[i] = 0;
      out.fill(nan<T>());
      continue;
    }
    out.noalias() = lu.inverse();
  }
}

template <typename T>
void matrixSolve(const T *a, const T *rhs, T *x, int32_t *ok, int64_t batch, int64_t n, int64_t k,
                 int32_t flags) {
  for (int64_t i = 0; i < batch; ++i) {
    ok[i] = 1;
    if (n == 0 || k == 0)
      continue;
    ConstMap<T> in(a + i * n * n, n, n);
    ConstMap<T> b(rhs + i * n * k, n, k);
    Map<T> out(x + i * n * k, n, k);
    Eigen::PartialPivLU<Matrix<T>> lu(n);
    if (!factorLu(lu, in, flags & KILN_LINALG_ADJOINT)) {
      ok[i] = 0;
      out.fill(nan<T>());
      continue;
    }
    out = lu.solve(b);
  }
}

template <typename T>
void triangularSolve(const T *a, const T *rhs, T *x, int64_t batch, int64_t n, int64_t k,
                     int32_t flags) {
  bool adjoint = flags & KILN_LINALG_ADJOINT;
  for (int64_t i = 0; i < batch; ++i) {
    if (n == 0 || k == 0)
      continue;
    ConstMap<T> in(a + i * n * n, n, n);
    ConstMap<T> b(rhs + i * n * k, n, k);
    Map<T> out(x + i * n * k, n, k);
    if (flags & KILN_LINALG_LOWER) {
      auto triangle = in.template triangularView<Eigen::Lower>();
      if (adjoint)
        out.noalias() = triangle.adjoint().solve(b);
      else
        out.noalias() = triangle.solve(b);
    } else {
      auto triangle = in.template triangularView<Eigen::Upper>();
      if (adjoint)
        out.noalias() = triangle.adjoint().solve(b);
      else
        out.noalias() = triangle.solve(b);
    }
  }
}

template <typename T>
void qr(const T *a, T *q, T *r, int64_t batch, int64_t m, int64_t n, int32_t flags) {
  int64_t p = std::min(m, n);
  bool full = flags & KILN_LINALG_FULL_MATRICES;
  int64_t qCols = full ? m : p, rRows = full ? m : p;
  for (int64_t i = 0; i < batch; ++i) {
    ConstMap<T> in(a + i * m * n, m, n);
    Map<T> qOut(q + i * m * qCols, m, qCols);
    Map<T> rOut(r + i * rRows * n, rRows, n);
    Eigen::HouseholderQR<Matrix<T>> factors(in);
    if (full) {
      qOut = factors.householderQ();
      rOut = factors.matrixQR().template triangularView<Eigen::Upper>();
    } else {
      Matrix<T> identity = Matrix<T>::Identity(m, p);
      qOut = factors.householderQ() * identity;
      rOut = factors.matrixQR().block(0, 0, p, n).template triangularView<Eigen::Upper>();
    }
  }
}

template <typename T>
void selfAdjointEig(const T *a, T *e, T *v, int32_t *ok, int64_t batch, int64_t n) {
  for (int64_t i = 0; i < batch; ++i) {
    ok[i] = 1;
    if (n == 0)
      continue;
    ConstMap<T> in(a + i * n * n, n, n);
    Eigen::SelfAdjointEigenSolver<Matrix<T>> solver(in, v ? Eigen::ComputeEigenvectors
                                                          : Eigen::EigenvaluesOnly);
    if (solver.info() != Eigen::Success) {
      ok[i] = 0;
      continue;
    }
    Vector<T>(e + i * n, n) = solver.eigenvalues();
    if (v)
      Map<T>(v + i * n * n, n, n) = solver.eigenvectors();
  }
}

template <typename T>
void svd(const T *a, T *s, T *u, T *v, int64_t batch, int64_t m, int64_t n, int32_t flags) {
  int64_t p = std::min(m, n);
  bool full = flags & KILN_LINALG_FULL_MATRICES;
  int64_t uCols = full ? m : p, vCols = full ? n : p;
  unsigned options = 0;
  if (u)
    options = full ? Eigen::ComputeFullU | Eigen::ComputeFullV
                   : Eigen::ComputeThinU | Eigen::ComputeThinV;
  for (int64_t i = 0; i < batch; ++i) {
    Vector<T> sOut(s + i * p, p);
    if (m == 0 || n == 0) {
      // TensorFlow: the factor of the dimension that is not empty is the identity.
      if (u) {
        Map<T>(u + i * m * uCols, m, uCols).setIdentity();
        Map<T>(v + i * n * vCols, n, vCols).setIdentity();
      }
      continue;
    }
    ConstMap<T> in(a + i * m * n, m, n);
    Eigen::BDCSVD<Matrix<T>> factors(in, options);
    if (factors.info() != Eigen::Success) {
      sOut.fill(nan<T>());
      if (u) {
        Map<T>(u + i * m * uCols, m, uCols).fill(nan<T>());
        Map<T>(v + i * n * vCols, n, vCols).fill(nan<T>());
      }
      continue;
    }
    sOut = factors.singularValues();
    if (u) {
      Map<T>(u + i * m * uCols, m, uCols) = factors.matrixU();
      Map<T>(v + i * n * vCols, n, vCols) = factors.matrixV();
    }
  }
}

/// Gaussian elimination with row interchanges (LAPACK's xGTSV, as TensorFlow orders it):
/// u holds U's diagonal and two superdiagonals; x starts as the right-hand sides.
template <typename T>
bool tridiagonalPivoting(const T *super, const T *diag, const T *sub, const T *rhs, T *x, int64_t m,
                         int64_t k, T *u) {
  auto U = [&](int64_t i, int j) -> T & { return u[i * 3 + j]; };
  auto row = [&](T *base, int64_t i) {
    return Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(base + i * k, k);
  };
  auto rhsRow = [&](int64_t i) {
    return Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(rhs + i * k, k);
  };
  U(0, 0) = diag[0];
  U(0, 1) = super[0];
  row(x, 0) = rhsRow(0);
  for (int64_t i = 0; i < m - 1; ++i) {
    if (std::abs(U(i, 0)) >= std::abs(sub[i + 1])) {
      if (U(i, 0) == T(0))
        return false;
      T factor = sub[i + 1] / U(i, 0);
      U(i + 1, 0) = diag[i + 1] - factor * U(i, 1);
      row(x, i + 1) = rhsRow(i + 1) - factor * row(x, i);
      if (i != m - 2) {
        U(i + 1, 1) = super[i + 1];
        U(i, 2) = 0;
      }
    } else {
      T factor = U(i, 0) / sub[i + 1];
      U(i, 0) = sub[i + 1];
      U(i + 1, 0) = U(i, 1) - factor * diag[i + 1];
      U(i, 1) = diag[i + 1];
      row(x, i + 1) = row(x, i) - factor * rhsRow(i + 1);
      row(x, i) = rhsRow(i + 1);
      if (i != m - 2) {
        U(i, 2) = super[i + 1];
        U(i + 1, 1) = -factor * super[i + 1];
      }
    }
  }
  if (U(m - 1, 0) == T(0))
    return false;
  row(x, m - 1) /= U(m - 1, 0);
  row(x, m - 2) = (row(x, m - 2) - U(m - 2, 1) * row(x, m - 1)) / U(m - 2, 0);
  for (int64_t i = m - 3; i >= 0; --i)
    row(x, i) = (row(x, i) - U(i, 1) * row(x, i + 1) - U(i, 2) * row(x, i + 2)) / U(i, 0);
  return true;
}

/// The Thomas algorithm (no interchanges); u holds U's superdiagonal.
template <typename T>
bool tridiagonalThomas(const T *super, const T *diag, const T *sub, const T *rhs, T *x, int64_t m,
                       int64_t k, T *u) {
  auto row = [&](int64_t i) {
    return Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(x + i * k, k);
  };
  auto rhsRow = [&](int64_t i) {
    return Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(rhs + i * k, k);
  };
  if (diag[0] == T(0))
    return false;
  u[0] = super[0] / diag[0];
  row(0) = rhsRow(0) / diag[0];
  for (int64_t i = 1; i < m; ++i) {
    T denominator = diag[i] - sub[i] * u[i - 1];
    if (denominator == T(0))
      return false;
    u[i] = super[i] / denominator;
    row(i) = (rhsRow(i) - sub[i] * row(i - 1)) / denominator;
  }
  for (int64_t i = m - 2; i >= 0; --i)
    row(i) -= u[i] * row(i + 1);
  return true;
}

template <typename T>
void tridiagonalSolve(const T *diagonals, const T *rhs, T *x, int64_t batch, int64_t m, int64_t k,
                      int32_t flags) {
  if (m == 0)
    return;
  Eigen::Matrix<T, Eigen::Dynamic, 1> scratch(3 * m);
  for (int64_t i = 0; i < batch; ++i) {
    const T *super = diagonals + i * 3 * m, *diag = super + m, *sub = diag + m;
    const T *b = rhs + i * m * k;
    T *out = x + i * m * k;
    bool solved;
    if (m == 1) {
      solved = diag[0] != T(0);
      if (solved)
        for (int64_t j = 0; j < k; ++j)
          out[j] = b[j] / diag[0];
    } else if (flags & KILN_LINALG_PARTIAL_PIVOTING) {
      solved = tridiagonalPivoting(super, diag, sub, b, out, m, k, scratch.data());
    } else {
      solved = tridiagonalThomas(super, diag, sub, b, out, m, k, scratch.data());
    }
    if (!solved)
      std::fill(out, out + m * k, nan<T>());
  }
}

} // namespace

#define KILN_LINALG_DEFINE(T, S)                                                                   \
  extern "C" void kiln_kernel_cholesky_##S(const T *a, T *l, int64_t batch, int64_t n) {           \
    cholesky(a, l, batch, n);                                                                      \
  }                                                                                                \
  extern "C" void kiln_kernel_matrix_inverse_##S(const T *a, T *inverse, int32_t *ok,              \
                                                 int64_t batch, int64_t n, int32_t flags) {        \
    matrixInverse(a, inverse, ok, batch, n, flags);                                                \
  }                                                                                                \
  extern "C" void kiln_kernel_matrix_solve_##S(const T *a, const T *rhs, T *x, int32_t *ok,        \
                                               int64_t batch, int64_t n, int64_t k,                \
                                               int32_t flags) {                                    \
    matrixSolve(a, rhs, x, ok, batch, n, k, flags);                                                \
  }                                                                                                \
  extern "C" void kiln_kernel_triangular_solve_##S(const T *a, const T *rhs, T *x, int64_t batch,  \
                                                   int64_t n, int64_t k, int32_t flags) {          \
    triangularSolve(a, rhs, x, batch, n, k, flags);                                                \
  }                                                                                                \
  extern "C" void kiln_kernel_qr_##S(const T *a, T *q, T *r, int64_t batch, int64_t m, int64_t n,  \
                                     int32_t flags) {                                              \
    qr(a, q, r, batch, m, n, flags);                                                               \
  }                                                                                                \
  extern "C" void kiln_kernel_self_adjoint_eig_##S(const T *a, T *e, T *v, int32_t *ok,            \
                                                   int64_t batch, int64_t n) {                     \
    selfAdjointEig(a, e, v, ok, batch, n);                                                         \
  }                                                                                                \
  extern "C" void kiln_kernel_eigenvalues_##S(const T *a, T *e, int32_t *ok, int64_t batch,        \
                                              int64_t n) {                                         \
    selfAdjointEig<T>(a, e, nullptr, ok, batch, n);                                                \
  }                                                                                                \
  extern "C" void kiln_kernel_svd_##S(const T *a, T *s, T *u, T *v, int64_t batch, int64_t m,      \
                                      int64_t n, int32_t flags) {                                  \
    svd(a, s, u, v, batch, m, n, flags);                                                           \
  }                                                                                                \
  extern "C" void kiln_kernel_singular_values_##S(const T *a, T *s, int64_t batch, int64_t m,      \
                                                  int64_t n) {                                     \
    svd<T>(a, s, nullptr, nullptr, batch, m, n, 0);                                                \
  }                                                                                                \
  extern "C" void kiln_kernel_tridiagonal_solve_##S(const T *diagonals, const T *rhs, T *x,        \
                                                    int64_t batch, int64_t m, int64_t k,           \
                                                    int32_t flags) {                               \
    tridiagonalSolve(diagonals, rhs, x, batch, m, k, flags);                                       \
  }

KILN_LINALG_DEFINE(float, f32)
KILN_LINALG_DEFINE(double, f64)
