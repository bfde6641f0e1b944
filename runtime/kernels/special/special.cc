// Special functions for the ops TensorFlow computes with Eigen's (Lgamma, Digamma, Erfinv,
// Ndtri, BesselI0e, BesselI1e, Igamma, Igammac, IgammaGradA, RandomGammaGrad, Zeta,
// Polygamma, Betainc): Eigen's scalar implementations (the Cephes algorithms) behind a C
// ABI, float and double, so that Kiln's results are TensorFlow's CPU kernels' own. Generated
// code calls them element by element (passes/Lower/Patterns/Special.cpp).
#include "kiln/kernels/special.h"

#include <cmath>
#include <unsupported/Eigen/SpecialFunctions>

namespace {

template <typename T> T erfinv(T x) {
  // TensorFlow's scalar_erfinv_op: ndtri((x + 1) / 2) / sqrt(2).
  const T half = T(0.5);
  return Eigen::numext::ndtri(half * x + half) * T(M_SQRT1_2);
}

} // namespace

#define KILN_SPECIAL_UNARY(name, expr)                                                             \
  extern "C" float kiln_special_##name##_f32(float x) { return expr; }                             \
  extern "C" double kiln_special_##name##_f64(double x) { return expr; }
#define KILN_SPECIAL_BINARY(name, expr)                                                            \
  extern "C" float kiln_special_##name##_f32(float x, float y) { return expr; }                    \
  extern "C" double kiln_special_##name##_f64(double x, double y) { return expr; }

KILN_SPECIAL_UNARY(lgamma, Eigen::numext::lgamma(x))
KILN_SPECIAL_UNARY(digamma, Eigen::numext::digamma(x))
KILN_SPECIAL_UNARY(ndtri, Eigen::numext::ndtri(x))
KILN_SPECIAL_UNARY(erfinv, erfinv(x))
KILN_SPECIAL_UNARY(bessel_i0e, Eigen::numext::bessel_i0e(x))
KILN_SPECIAL_UNARY(bessel_i1e, Eigen::numext::bessel_i1e(x))
KILN_SPECIAL_BINARY(igamma, Eigen::numext::igamma(x, y))
KILN_SPECIAL_BINARY(igammac, Eigen::numext::igammac(x, y))
KILN_SPECIAL_BINARY(igamma_grad_a, Eigen::numext::igamma_der_a(x, y))
KILN_SPECIAL_BINARY(random_gamma_grad, Eigen::numext::gamma_sample_der_alpha(x, y))
KILN_SPECIAL_BINARY(zeta, Eigen::numext::zeta(x, y))
KILN_SPECIAL_BINARY(polygamma, Eigen::numext::polygamma(x, y))

extern "C" float kiln_special_betainc_f32(float a, float b, float x) {
  return Eigen::numext::betainc(a, b, x);
}
extern "C" double kiln_special_betainc_f64(double a, double b, double x) {
  return Eigen::numext::betainc(a, b, x);
}
