/*
 * kiln/kernels/matmul.h - matrix product kernels called by compiled models.
 *
 * Generated code calls these for large f32 matrix products (kiln-lower-kernel-calls);
 * their symbol names are in kiln/runtime/abi.h. They pack operands in the calling
 * thread's workspace (kiln_parallel_workspace), keep no other state, and are thread-safe.
 */
#ifndef KILN_KERNELS_MATMUL_H
#define KILN_KERNELS_MATMUL_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags: KILN_MATMUL_TRANSPOSE_A, KILN_MATMUL_TRANSPOSE_B, KILN_MATMUL_OVERWRITE and
 * KILN_MATMUL_PACKED_B (abi.h). With KILN_MATMUL_PACKED_B, b is op(b) in the packed layout
 * of abi.h (kiln-lower-pack-weights writes constant weights so): nothing is packed per
 * call, and the result is the same, bit for bit, as with b unpacked. */
/*
 * c[m x n] += op(a) * op(b), all dense row-major, where op(a) is m x k and op(b) k x n;
 * with KILN_MATMUL_OVERWRITE, c = op(a) * op(b) and c's contents are not read. The work is
 * split over the calling thread's budget (kiln/runtime/parallel.h); the result is the
 * same, bit for bit, for every budget and on every x86-64 CPU the library runs on.
 * The pointers are passed as addresses (uintptr_t) because generated code holds them as
 * integers.
 */
void kiln_kernel_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                            int32_t flags);

/*
 * The same product followed by an epilogue on each element of column j of c:
 *     c = act(min(max(c * scale(j) + bias(j), lo), hi))
 * where scale(j) is scale[j] (an address of n floats), or scale_value when scale is 0, and
 * bias(j) likewise; the multiplication is skipped for a scale of exactly 1 and the addition
 * for a bias of exactly 0, and a NaN stays NaN. act is the identity for `activation`
 * KILN_ACTIVATION_NONE and x / (1 + exp(-x)) for KILN_ACTIVATION_SWISH (exp to a few ulp).
 * This is a bias, a batch normalisation in inference and a Relu, Relu6 or Swish applied
 * while c is in registers, instead of another pass over memory (kiln-lower-kernel-calls
 * fuses them).
 */
void kiln_kernel_matmul_epilogue_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                     int64_t k, int32_t flags, uintptr_t scale, float scale_value,
                                     uintptr_t bias, float bias_value, float lo, float hi,
                                     int32_t activation);

/*
 * The same product and epilogue with a residual connection's addition:
 *     c = act(min(max(c * scale(j) + bias(j) + residual, lo), hi))
 * where residual is the element of `residual` (an address of m x n floats, rows n apart)
 * at c's position. `residual` is either c itself (the residual is read before the sum is
 * stored over it) or does not overlap c. This is a block's last batch normalisation, the
 * addition of its shortcut and the Relu after it (ResNet's), in one pass.
 */
void kiln_kernel_matmul_residual_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                     int64_t k, int32_t flags, uintptr_t scale, float scale_value,
                                     uintptr_t bias, float bias_value, float lo, float hi,
                                     int32_t activation, uintptr_t residual);

/*
 * `batch` products of the same shape, c[i] = op(a[i]) op(b[i]) (or c[i] += it without
 * KILN_MATMUL_OVERWRITE), each operand a dense array of its matrices one after the other
 * (m x n floats apart for c), except that a with KILN_MATMUL_BROADCAST_A, and b with
 * KILN_MATMUL_BROADCAST_B, is one matrix every product reads. KILN_MATMUL_PACKED_B is not
 * accepted. Batches of at least as many products as threads run one product per work item;
 * smaller ones run each product across the threads. Each c[i] is the same, bit for bit, as
 * kiln_kernel_matmul_f32 of its operands, for every thread budget.
 */
void kiln_kernel_batch_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch, int64_t m,
                                  int64_t n, int64_t k, int32_t flags);

/*
 * Writes op(b) (b k x n, or n x k with KILN_MATMUL_TRANSPOSE_B in `flags`) into `out` in the
 * packed layout KILN_MATMUL_PACKED_B reads: k * kiln_matmul_packed_b_width(n) floats.
 */
void kiln_kernel_matmul_pack_b_f32(uintptr_t b, int64_t k, int64_t n, int32_t flags, uintptr_t out);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_MATMUL_H */
