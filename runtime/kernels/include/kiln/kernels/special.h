/*
 * kiln/kernels/special.h - special functions called by compiled models, element by
 * element.
 *
 * Generated code calls them for Lgamma, Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e,
 * Igamma, Igammac, IgammaGradA, RandomGammaGrad, Zeta, Polygamma and Betainc (float32 and
 * float64; float16 and bfloat16 through float32, as TensorFlow's kernels compute them).
 * They are Eigen's scalar implementations, which TensorFlow's CPU kernels use, so the
 * results match those kernels'. They keep no state and are thread-safe.
 */
#ifndef KILN_KERNELS_SPECIAL_H
#define KILN_KERNELS_SPECIAL_H

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_SPECIAL_DECLARE_UNARY(name)                                                           \
  float kiln_special_##name##_f32(float x);                                                        \
  double kiln_special_##name##_f64(double x);
#define KILN_SPECIAL_DECLARE_BINARY(name)                                                          \
  float kiln_special_##name##_f32(float x, float y);                                               \
  double kiln_special_##name##_f64(double x, double y);

KILN_SPECIAL_DECLARE_UNARY(lgamma)
KILN_SPECIAL_DECLARE_UNARY(digamma)
KILN_SPECIAL_DECLARE_UNARY(ndtri)
KILN_SPECIAL_DECLARE_UNARY(erfinv)
KILN_SPECIAL_DECLARE_UNARY(bessel_i0e)
KILN_SPECIAL_DECLARE_UNARY(bessel_i1e)
/* igamma(a, x), igammac(a, x), igamma_grad_a(a, x), random_gamma_grad(alpha, sample),
 * zeta(x, q), polygamma(n, x). */
KILN_SPECIAL_DECLARE_BINARY(igamma)
KILN_SPECIAL_DECLARE_BINARY(igammac)
KILN_SPECIAL_DECLARE_BINARY(igamma_grad_a)
KILN_SPECIAL_DECLARE_BINARY(random_gamma_grad)
KILN_SPECIAL_DECLARE_BINARY(zeta)
KILN_SPECIAL_DECLARE_BINARY(polygamma)
float kiln_special_betainc_f32(float a, float b, float x);
double kiln_special_betainc_f64(double a, double b, double x);

#undef KILN_SPECIAL_DECLARE_UNARY
#undef KILN_SPECIAL_DECLARE_BINARY

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_SPECIAL_H */
