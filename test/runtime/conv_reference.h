// A convolution problem with random data and the error of a kernel's result against the
// double-precision direct sum, shared by the convolution kernels' tests.
#ifndef KILN_TEST_RUNTIME_CONV_REFERENCE_H
#define KILN_TEST_RUNTIME_CONV_REFERENCE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kiln_test {

// x * sigmoid(x), in double.
inline double Swish(double x) { return x / (1.0 + std::exp(-x)); }

// NHWC input n x h x w x c, HWIO filter kh x kw x c x f, strides, dilations, pads.
struct ConvShape {
  int64_t n, h, w, c, f, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int64_t oh() const { return (h + pt + pb - (kh - 1) * dh - 1) / sh + 1; }
  int64_t ow() const { return (w + pl + pr - (kw - 1) * dw - 1) / sw + 1; }
};

struct ConvProblem {
  ConvShape s;
  std::vector<float> in, filter, out, bias; // out: what the kernel adds to, unless overwriting
  explicit ConvProblem(const ConvShape &shape)
      : s(shape), in(s.n * s.h * s.w * s.c), filter(s.kh * s.kw * s.c * s.f),
        out(s.n * s.oh() * s.ow() * s.f), bias(s.f) {
    std::mt19937 gen(static_cast<uint32_t>(s.c * 97 + s.h * 13 + s.f + s.pt + s.kh * 3 + s.sw));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : in)
      v = dist(gen);
    for (float &v : filter)
      v = dist(gen);
    for (float &v : out)
      v = dist(gen);
    for (float &v : bias)
      v = dist(gen);
  }
  // Max error of `got` against the convolution (plus the old output unless `overwrite`) in
  // double with the padding as zeros, then, with `epilogue`, min(max(2v + bias, 0), 6), or
  // with `swish` too, swish(min(max(2v + bias, -6), 6)) (kernels' KILN_ACTIVATION_SWISH);
  // relative to the sum of |products| of each output (the scale rounding errors grow with),
  // plus one with `swish`.
  double Error(const std::vector<float> &got, bool overwrite, bool epilogue = false,
               bool swish = false) const {
    double worst = 0;
    int64_t oh = s.oh(), ow = s.ow();
    for (int64_t b = 0; b < s.n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t j = 0; j < s.f; ++j) {
            int64_t at = ((b * oh + y) * ow + x) * s.f + j;
            double sum = overwrite ? 0.0 : out[at], magnitude = std::fabs(sum) + 1e-30;
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t k = 0; k < s.kw; ++k) {
                int64_t iy = y * s.sh + i * s.dh - s.pt, ix = x * s.sw + k * s.dw - s.pl;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                  continue;
                for (int64_t ch = 0; ch < s.c; ++ch) {
                  double p = double(in[((b * s.h + iy) * s.w + ix) * s.c + ch]) *
                             filter[((i * s.kw + k) * s.c + ch) * s.f + j];
                  sum += p;
                  magnitude += std::fabs(p);
                }
              }
            if (epilogue)
              sum = std::min(std::max(2.0 * sum + bias[j], swish ? -6.0 : 0.0), 6.0);
            if (epilogue && swish)
              sum = Swish(sum);
            // Swish's own rounding is a few ulp of its result, of order one here (a window
            // wholly in the padding sums nothing, but its result is swish(bias)).
            double scale = (epilogue ? 2 * magnitude : magnitude) + (swish ? 1.0 : 0.0);
            worst = std::max(worst, std::fabs(sum - got[at]) / scale);
          }
    return worst;
  }
};

// TensorFlow's 2x2, stride 2 VALID max pool of y (n x oh x ow x f): from the lowest float,
// each greater value in row-major window order replacing the maximum (NaNs passed over).
inline std::vector<float> MaxPool2x2(const std::vector<float> &y, int64_t n, int64_t oh, int64_t ow,
                                     int64_t f) {
  int64_t ph = oh / 2, pw = ow / 2;
  std::vector<float> out(n * ph * pw * f);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < ph; ++i)
      for (int64_t k = 0; k < pw; ++k)
        for (int64_t j = 0; j < f; ++j) {
          float m = -3.40282347e38f;
          for (int d = 0; d < 4; ++d) {
            float v = y[((b * oh + 2 * i + d / 2) * ow + 2 * k + d % 2) * f + j];
            if (v > m)
              m = v;
          }
          out[((b * ph + i) * pw + k) * f + j] = m;
        }
  return out;
}

} // namespace kiln_test

#endif // KILN_TEST_RUNTIME_CONV_REFERENCE_H
