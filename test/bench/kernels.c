/* Each of Kiln's kernels on shapes that top the zoo models' profiles, as a fraction of this
 * core's peak (compute-bound kernels) or of its memory bandwidth (the depthwise convolution
 * and max pool, which read and write each element a few times):
 *
 *   cc -O2 -march=native -I runtime/include -I runtime/kernels/include \
 *      test/bench/kernels.c -L build/lib -lkiln_kernels -lkiln_runtime -lm -pthread -lstdc++ \
 *      -o /tmp/kernels
 *   /tmp/kernels [R [THREADS]]   (default 20 1)
 *
 * Prints one row per kernel and shape: the median of R calls, GFLOP/s (multiply-adds count
 * two; Winograd's 3x3 convolution is credited with the direct method's count, so it can pass
 * 100%), the share of the peak (12 independent FMA chains in the widest vectors the compiler
 * targets, measured by this program between kernels, times THREADS), and GB/s of the
 * operands read and written once against a large memcpy's (measured likewise). Operands are
 * allocated once per shape and reused, so they are in cache as far as their size allows:
 * the figures are a kernel's speed, not a model's. Noise on a shared machine shows as
 * differences between repeated runs; docs/performance-log.md lists figures with their date
 * and commit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kiln/kernels/conv2d.h"
#include "kiln/kernels/depthwise.h"
#include "kiln/kernels/matmul.h"
#include "kiln/kernels/pool.h"
#include "kiln/runtime/parallel.h"

#include "fma_vec.h"

static int runs = 20;

/* Median seconds of `runs` calls of fn(ctx). */
static double median_time(void (*fn)(void *), void *ctx) {
  double *t = malloc(sizeof(double) * runs);
  fn(ctx); /* warm-up: packs, workspaces, page faults */
  for (int r = 0; r < runs; r++) {
    double start = now();
    fn(ctx);
    t[r] = now() - start;
  }
  qsort(t, runs, sizeof(double), compare_doubles);
  double m = t[runs / 2];
  free(t);
  return m;
}

/* ---- references: FMA peak of one core, memcpy bandwidth ---------------------------- */

static volatile float sink;

static void fma_chains(void *ctx) {
  long iterations = *(long *)ctx;
  /* Different starting values: equal chains would be folded into one by the compiler. */
  vec a0 = SET1(1.0f), a1 = SET1(1.1f), a2 = SET1(1.2f), a3 = SET1(1.3f), a4 = SET1(1.4f),
      a5 = SET1(1.5f), a6 = SET1(1.6f), a7 = SET1(1.7f), a8 = SET1(1.8f), a9 = SET1(1.9f),
      a10 = SET1(2.0f), a11 = SET1(2.1f), x = SET1(0.999999f), y = SET1(1e-7f);
  for (long i = 0; i < iterations; i++) {
    a0 = FMA(a0, x, y);
    a1 = FMA(a1, x, y);
    a2 = FMA(a2, x, y);
    a3 = FMA(a3, x, y);
    a4 = FMA(a4, x, y);
    a5 = FMA(a5, x, y);
    a6 = FMA(a6, x, y);
    a7 = FMA(a7, x, y);
    a8 = FMA(a8, x, y);
    a9 = FMA(a9, x, y);
    a10 = FMA(a10, x, y);
    a11 = FMA(a11, x, y);
  }
  vec s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  float lanes[LANES];
  memcpy(lanes, &s, sizeof(lanes));
  sink = lanes[0];
}

static double peak_gflops(void) {
  long iterations = 2000000; /* 12 * LANES * 2 flops each */
  return 24.0 * LANES * (double)iterations / median_time(fma_chains, &iterations) / 1e9;
}

typedef struct {
  char *src, *dst;
  size_t bytes;
} Copy;

static void copy_once(void *ctx) {
  Copy *c = ctx;
  memcpy(c->dst, c->src, c->bytes);
}

static double memcpy_gbs(void) {
  Copy c = {malloc(256 << 20), malloc(256 << 20), 256 << 20};
  memset(c.src, 1, c.bytes);
  memset(c.dst, 0, c.bytes);
  double s = median_time(copy_once, &c);
  free(c.src);
  free(c.dst);
  return 2.0 * (double)c.bytes / s / 1e9; /* read and written */
}

/* ---- the kernels --------------------------------------------------------------------- */

typedef struct {
  const char *kernel, *model, *shape;
  char kind; /* 'g' GEMM (m n k, B packed), 's' the same with a bias and Swish as its epilogue,
                'w' Winograd 3x3, 'c' direct conv, 'd' depthwise, 'p' max pool */
  long n, h, w, c, f, kh, kw, stride, m_rows, n_cols, k_depth;
  float *a, *b, *out;
} Case;

static long conv_out(long size, long stride) { /* SAME padding */
  return (size + stride - 1) / stride;
}

static long pad_before(long size, long k, long stride) {
  long out = conv_out(size, stride);
  long total = (out - 1) * stride + k - size;
  return total > 0 ? total / 2 : 0;
}

static void run_case(void *ctx) {
  Case *k = ctx;
  long oh = conv_out(k->h, k->stride), ow = conv_out(k->w, k->stride);
  switch (k->kind) {
  case 'g':
    kiln_kernel_matmul_f32((uintptr_t)k->a, (uintptr_t)k->b, (uintptr_t)k->out, k->m_rows,
                           k->n_cols, k->k_depth, KILN_MATMUL_OVERWRITE | KILN_MATMUL_PACKED_B);
    break;
  case 's': /* the bias: the output's first row, any n floats (the values do not matter) */
    kiln_kernel_matmul_epilogue_f32((uintptr_t)k->a, (uintptr_t)k->b, (uintptr_t)k->out, k->m_rows,
                                    k->n_cols, k->k_depth,
                                    KILN_MATMUL_OVERWRITE | KILN_MATMUL_PACKED_B, 0, 1.0f,
                                    (uintptr_t)k->a, 0.0f, -1e30f, 1e30f, KILN_ACTIVATION_SWISH);
    break;
  case 'w':
    kiln_kernel_conv2d_3x3_f32((uintptr_t)k->a, (uintptr_t)k->b, (uintptr_t)k->out, k->n, k->h,
                               k->w, k->c, k->f, k->h, k->w, 1, 1, KILN_CONV2D_OVERWRITE, 0, 1.0f,
                               0, 0.0f, -1e30f, 1e30f, KILN_ACTIVATION_NONE);
    break;
  case 'c':
    kiln_kernel_conv2d_direct_f32((uintptr_t)k->a, (uintptr_t)k->b, (uintptr_t)k->out, k->n, k->h,
                                  k->w, k->c, k->f, k->kh, k->kw, oh, ow, k->stride, k->stride, 1,
                                  1, pad_before(k->h, k->kh, k->stride),
                                  pad_before(k->w, k->kw, k->stride), KILN_CONV2D_OVERWRITE, 0,
                                  1.0f, 0, 0.0f, -1e30f, 1e30f, KILN_ACTIVATION_NONE);
    break;
  case 'd':
    kiln_kernel_depthwise_conv2d_f32((uintptr_t)k->a, (uintptr_t)k->b, (uintptr_t)k->out, k->n,
                                     k->h, k->w, k->c, 1, k->kh, k->kw, oh, ow, k->stride,
                                     k->stride, 1, 1, pad_before(k->h, k->kh, k->stride),
                                     pad_before(k->w, k->kw, k->stride), KILN_DEPTHWISE_OVERWRITE,
                                     0, 1.0f, 0, 0.0f, -1e30f, 1e30f, KILN_ACTIVATION_NONE);
    break;
  case 'p':
    kiln_kernel_max_pool2d_f32(
        (uintptr_t)k->a, (uintptr_t)k->out, k->n, k->h, k->w, k->c, oh, ow, k->kh, k->kw, k->stride,
        k->stride, pad_before(k->h, k->kh, k->stride), pad_before(k->w, k->kw, k->stride));
    break;
  }
}

/* Allocates the operands, times the kernel, prints the row. */
static void measure(Case *k, double peak, double bandwidth) {
  long oh = conv_out(k->h, k->stride), ow = conv_out(k->w, k->stride);
  long in = 0, weights = 0, out = 0;
  double flops = 0;
  switch (k->kind) {
  case 'g':
  case 's':
    in = k->m_rows * k->k_depth;
    weights = k->k_depth * kiln_matmul_packed_b_width(k->n_cols);
    out = k->m_rows * k->n_cols;
    flops = 2.0 * k->m_rows * k->n_cols * k->k_depth;
    break;
  case 'w':
    oh = k->h;
    ow = k->w;
    /* fall through */
  case 'c':
    in = k->n * k->h * k->w * k->c;
    weights = k->kh * k->kw * k->c * k->f;
    out = k->n * oh * ow * k->f;
    flops = 2.0 * out * k->kh * k->kw * k->c;
    break;
  case 'd':
    in = k->n * k->h * k->w * k->c;
    weights = k->kh * k->kw * k->c;
    out = k->n * oh * ow * k->c;
    flops = 2.0 * out * k->kh * k->kw;
    break;
  case 'p':
    in = k->n * k->h * k->w * k->c;
    out = k->n * oh * ow * k->c;
    break;
  }
  k->a = random_floats(in);
  k->out = calloc((size_t)out, sizeof(float));
  if (k->kind == 'g' || k->kind == 's') {
    float *b = random_floats(k->k_depth * k->n_cols);
    k->b = malloc(sizeof(float) * (size_t)weights);
    kiln_kernel_matmul_pack_b_f32((uintptr_t)b, k->k_depth, k->n_cols, 0, (uintptr_t)k->b);
    free(b);
  } else if (weights) {
    k->b = random_floats(weights);
  }
  double s = median_time(run_case, k);
  double bytes = 4.0 * (double)(in + weights + out);
  printf("| %s | %s | %s | %.3f |", k->kernel, k->model, k->shape, s * 1e3);
  if (flops > 0)
    printf(" %.1f | %.0f%% |", flops / s / 1e9, 100.0 * flops / s / 1e9 / peak);
  else
    printf(" - | - |");
  printf(" %.1f | %.0f%% |\n", bytes / s / 1e9, 100.0 * bytes / s / 1e9 / bandwidth);
  fflush(stdout);
  free(k->a);
  free(k->b);
  free(k->out);
  k->b = NULL;
}

int main(int argc, char **argv) {
  runs = argc > 1 ? atoi(argv[1]) : 20;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  if (runs < 1)
    runs = 1;
  kiln_parallel_set_threads(threads);
  Case cases[] = {
      /* kernel, model, shape, kind, n, h, w, c, f, kh, kw, stride, m, n, k */
      {"GEMM", "ResNet50 1x1 (conv2 block)", "3136 x 64 x 256", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 3136,
       64, 256},
      {"GEMM", "ResNet50 1x1 (conv4 block)", "196 x 1024 x 256", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 196,
       1024, 256},
      {"GEMM", "ResNet50 1x1 (conv5 block)", "49 x 2048 x 512", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 49,
       2048, 512},
      {"GEMM", "Xception 1x1 (middle flow)", "361 x 728 x 728", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 361,
       728, 728},
      {"GEMM", "BERT-base projection", "128 x 768 x 768", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 128, 768,
       768},
      {"GEMM", "BERT-base FFN", "128 x 3072 x 768", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 128, 3072, 768},
      {"GEMM", "MobileNetV2 1x1 (expand)", "3136 x 144 x 24", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 3136,
       144, 24},
      {"GEMM", "EfficientNetB0 1x1 (expand)", "12544 x 96 x 16", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 12544,
       96, 16},
      {"GEMM + bias, Swish", "EfficientNetB0 1x1 (expand)", "12544 x 96 x 16", 's', 0, 0, 0, 0, 0,
       0, 0, 1, 12544, 96, 16},
      {"GEMM", "EfficientNetB0 1x1 (expand)", "784 x 240 x 40", 'g', 0, 0, 0, 0, 0, 0, 0, 1, 784,
       240, 40},
      {"GEMM + bias, Swish", "EfficientNetB0 1x1 (expand)", "784 x 240 x 40", 's', 0, 0, 0, 0, 0, 0,
       0, 1, 784, 240, 40},
      {"Winograd 3x3", "ResNet50 (conv2 block)", "56x56x64 -> 64", 'w', 1, 56, 56, 64, 64, 3, 3, 1},
      {"Winograd 3x3", "ResNet50 (conv3 block)", "28x28x128 -> 128", 'w', 1, 28, 28, 128, 128, 3, 3,
       1},
      {"Winograd 3x3", "VGG16 (block 1)", "224x224x64 -> 64", 'w', 1, 224, 224, 64, 64, 3, 3, 1},
      {"direct conv", "ResNet50 stem 7x7/2", "224x224x3 -> 64", 'c', 1, 224, 224, 3, 64, 7, 7, 2},
      {"direct conv", "MobileNetV2 stem 3x3/2", "224x224x3 -> 32", 'c', 1, 224, 224, 3, 32, 3, 3,
       2},
      {"depthwise 3x3", "MobileNetV2", "56x56x144", 'd', 1, 56, 56, 144, 0, 3, 3, 1},
      {"depthwise 3x3/2", "MobileNetV2", "112x112x96", 'd', 1, 112, 112, 96, 0, 3, 3, 2},
      {"depthwise 7x7", "ConvNeXtTiny", "56x56x96", 'd', 1, 56, 56, 96, 0, 7, 7, 1},
      {"max pool 3x3/2", "ResNet50", "112x112x64", 'p', 1, 112, 112, 64, 0, 3, 3, 2},
  };
  double peak = 0, bandwidth = 0;
  printf("threads %d, %d runs per kernel\n\n", threads, runs);
  printf("| kernel | where | shape | ms | GFLOP/s | of peak | GB/s | of memcpy |\n");
  printf("|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    /* The references between kernels, so that a busy spell shows in them too. */
    if (i % 4 == 0) {
      double p = peak_gflops() * threads, b = memcpy_gbs();
      peak = p > peak ? p : peak;
      bandwidth = b > bandwidth ? b : bandwidth;
    }
    measure(&cases[i], peak, bandwidth);
  }
  printf("\npeak %.1f GFLOP/s (%d thread%s), memcpy %.1f GB/s (read + written)\n", peak, threads,
         threads == 1 ? "" : "s", bandwidth);
  return 0;
}
