/* MobileNetV2's (224x224, alpha 1) pointwise and depthwise convolutions, in order, through
 * Kiln's kernels with their Relu6 epilogues, each layer reading what the previous one wrote
 * (as in the compiled model, so activations and weights are in cache, or not, as there).
 * Prints each layer's median time over R runs of the sequence and the totals:
 *
 *   cc -O2 -I runtime/include -I runtime/kernels/include test/bench/mobilenet_layers.c \
 *      -L build/lib -lkiln_kernels -lkiln_runtime -lm -pthread -lstdc++ -o /tmp/mobilenet_layers
 *   /tmp/mobilenet_layers [R [THREADS]]   (default 50 1)
 *
 * The machine's noise shows as differences between repeated runs: compare two builds by
 * alternating them and taking each one's best. Weights are random; each layer has its own,
 * so they are in cache only as far as they would be in the model. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "kiln/kernels/depthwise.h"
#include "kiln/kernels/matmul.h"
#include "kiln/runtime/parallel.h"

/* 'p': pointwise, an m x k by k x n product; 'd': depthwise 3x3 on h x h x c, stride s. */
typedef struct {
  char kind;
  long m, k, n, h, c, s;
  float *weights, *bias;
} Layer;

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  if (runs < 1)
    runs = 1;
  kiln_parallel_set_threads(threads);
  /* The inverted residual blocks: expansion t, output channels c, repeats n, stride s. */
  static const int t[7] = {1, 6, 6, 6, 6, 6, 6}, cs[7] = {16, 24, 32, 64, 96, 160, 320},
                   ns[7] = {1, 2, 3, 4, 3, 3, 1}, ss[7] = {1, 2, 2, 2, 1, 2, 1};
  Layer layers[64];
  int count = 0;
  long hw = 112, cin = 32;
  for (int b = 0; b < 7; b++)
    for (int r = 0; r < ns[b]; r++) {
      long s = r == 0 ? ss[b] : 1, expanded = cin * t[b];
      if (t[b] != 1)
        layers[count++] = (Layer){'p', hw * hw, cin, expanded, 0, 0, 0, 0, 0};
      layers[count++] = (Layer){'d', 0, 0, 0, hw, expanded, s, 0, 0};
      hw /= s;
      layers[count++] = (Layer){'p', hw * hw, expanded, cs[b], 0, 0, 0, 0, 0};
      cin = cs[b];
    }
  layers[count++] = (Layer){'p', 49, 320, 1280, 0, 0, 0, 0, 0};
  for (int i = 0; i < count; i++) {
    Layer *l = &layers[i];
    l->weights = random_floats(l->kind == 'p' ? l->k * l->n : 9 * l->c);
    l->bias = random_floats(l->kind == 'p' ? l->n : l->c);
  }
  float *ping = random_floats(112 * 112 * 96), *pong = random_floats(112 * 112 * 96);
  double *times = malloc(sizeof(double) * (size_t)runs * (size_t)count);
  for (int r = -1; r < runs; r++) /* run -1 warms up */
    for (int i = 0; i < count; i++) {
      const Layer *l = &layers[i];
      float *in = i % 2 ? pong : ping, *out = i % 2 ? ping : pong;
      double t0 = now();
      if (l->kind == 'p')
        kiln_kernel_matmul_epilogue_f32((uintptr_t)in, (uintptr_t)l->weights, (uintptr_t)out, l->m,
                                        l->n, l->k, KILN_MATMUL_OVERWRITE, 0, 1.0f,
                                        (uintptr_t)l->bias, 0.0f, 0.0f, 6.0f, KILN_ACTIVATION_NONE);
      else {
        long o = l->h / l->s, pad = l->s == 1 ? 1 : 0; /* SAME: (0, 1) for stride 2 */
        kiln_kernel_depthwise_conv2d_f32(
            (uintptr_t)in, (uintptr_t)l->weights, (uintptr_t)out, 1, l->h, l->h, l->c, 1, 3, 3, o,
            o, l->s, l->s, 1, 1, pad, pad, KILN_DEPTHWISE_OVERWRITE | KILN_DEPTHWISE_EPILOGUE, 0,
            1.0f, (uintptr_t)l->bias, 0.0f, 0.0f, 6.0f, KILN_ACTIVATION_NONE);
      }
      if (r >= 0)
        times[(long)i * runs + r] = now() - t0;
    }
  double total = 0, pointwise = 0, depthwise = 0;
  for (int i = 0; i < count; i++) {
    const Layer *l = &layers[i];
    double *s = times + (long)i * runs;
    qsort(s, (size_t)runs, sizeof(double), compare_doubles);
    double ms = s[runs / 2] * 1e3;
    if (l->kind == 'p') {
      pointwise += ms;
      printf("%2d pointwise %5ld x %4ld x %4ld  %7.3f ms %6.1f GFLOP/s\n", i, l->m, l->k, l->n, ms,
             2.0 * l->m * l->k * l->n / ms / 1e6);
    } else {
      long o = l->h / l->s;
      depthwise += ms;
      printf("%2d depthwise %3ldx%3ldx%4ld s%ld    %7.3f ms %6.1f GFLOP/s\n", i, l->h, l->h, l->c,
             l->s, ms, 18.0 * o * o * l->c / ms / 1e6);
    }
    total += ms;
  }
  printf("total %.3f ms: pointwise %.3f ms, depthwise %.3f ms\n", total, pointwise, depthwise);
  return 0;
}
