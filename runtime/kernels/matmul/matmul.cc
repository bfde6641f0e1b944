// Matrix product kernels on Eigen's blocked, vectorised GEMM (single-threaded).
#include "kiln/kernels/matmul.h"

#include <Eigen/Core>

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned>;

} // namespace

extern "C" void kiln_kernel_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m,
                                       int64_t n, int64_t k, int32_t flags) {
  const float *pa = reinterpret_cast<const float *>(a);
  const float *pb = reinterpret_cast<const float *>(b);
  Map out(reinterpret_cast<float *>(c), m, n);
  bool ta = flags & KILN_MATMUL_TRANSPOSE_A, tb = flags & KILN_MATMUL_TRANSPOSE_B;
  if (!ta && !tb)
    out.noalias() += ConstMap(pa, m, k) * ConstMap(pb, k, n);
  else if (ta && !tb)
    out.noalias() += ConstMap(pa, k, m).transpose() * ConstMap(pb, k, n);
  else if (!ta && tb)
    out.noalias() += ConstMap(pa, m, k) * ConstMap(pb, n, k).transpose();
  else
    out.noalias() += ConstMap(pa, k, m).transpose() * ConstMap(pb, n, k).transpose();
}
