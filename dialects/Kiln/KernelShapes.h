//===- KernelShapes.h - the shape relations of the kernel table's rows -*- C++ -*-===//
//
// Each function checks a kiln.kernel_call of one kernel family: the relations between its
// size parameters and its buffers' shapes, which the table's ranks cannot say. A row of
// KernelTable.cpp names its function; the op's verifier calls it after the generic checks.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_KILN_KERNELSHAPES_H
#define KILN_DIALECTS_KILN_KERNELSHAPES_H

#include "llvm/Support/LogicalResult.h"

namespace kiln::dialect {
class KernelCallOp;

namespace shapes {
/// c is m x n (or a view of it with n channels); a is m x k (k x m with transpose_a); b is
/// k x n (n x k with transpose_b) or, with packed_b, at least packedMatmulBSize floats.
llvm::LogicalResult matmul(KernelCallOp op);
/// The matmul shapes, and a residual of c's shape (m x n, or a view of it with n channels).
llvm::LogicalResult matmulResidual(KernelCallOp op);
/// a, b and c are batch (1 for a with broadcast_a, b with broadcast_b) matrices of the
/// matmul shapes, contiguous, the last two dimensions those of one matrix.
llvm::LogicalResult batchMatmul(KernelCallOp op);
/// q, k, v and out are batch x heads x seq x width (sq x d, sk x d, sk x dv, sq x dv), or
/// batch x seq x heads x width with their *_seq_major flags; a mask is 1 or batch x 1 or
/// heads x 1 or sq x sk, its strides those of its dense layout, 0 where it has size 1.
llvm::LogicalResult attention(KernelCallOp op);
/// input n x h x w x c, filter kh x kw x c x m, output n x oh x ow x c x m (or a view).
llvm::LogicalResult depthwise(KernelCallOp op);
/// input (n·h·w) x cin, weights cin x c, filter kh x kw x c x 1, output n x oh x ow x c x 1.
llvm::LogicalResult pointwiseDepthwise(KernelCallOp op);
/// input n x h x w x c, filter 3 x 3 x c x f, output n x oh x ow x f (halved by max_pool).
llvm::LogicalResult conv2d3x3(KernelCallOp op);
/// The same with a kh x kw filter.
llvm::LogicalResult conv2dDirect(KernelCallOp op);
llvm::LogicalResult gpuConv2d(KernelCallOp op);
llvm::LogicalResult gpuConv2dResidual(KernelCallOp op);
/// A GPU product by cuBLASLt with its epilogue (kiln_mgpu_matmul_epilogue_f32), and with a
/// residual (kiln_mgpu_matmul_residual_f32): matmul's shapes, and an epilogue cuBLASLt
/// applies in the call.
llvm::LogicalResult gpuMatmulEpilogue(KernelCallOp op);
llvm::LogicalResult gpuMatmulResidual(KernelCallOp op);
llvm::LogicalResult conv2dGemm(KernelCallOp op);
/// The linear-algebra kernels (kiln/kernels/linalg.h): each buffer holds `batch` matrices
/// (vectors, or an i32 for `ok`) of the sizes the kernel's parameters give.
llvm::LogicalResult linalg(KernelCallOp op);
/// input n x h x w x c, output n x oh x ow x c.
llvm::LogicalResult maxPool(KernelCallOp op);
} // namespace shapes

} // namespace kiln::dialect

#endif // KILN_DIALECTS_KILN_KERNELSHAPES_H
