//===- Strategies.h - the ways kiln-gpu-kernels makes a kernel -------*- C++ -*-===//
//
// One file per strategy, each a predicate that only inspects an op (fits...) and a rewrite
// that replaces it (build...), which may assume that the predicate held: selectStrategy
// (KernelStrategy.h) asks the predicates in its order of preference, and the pass calls
// the chosen strategy's rewrite with the insertion point anywhere. The kernel's
// description is at each rewrite's definition.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_STRATEGIES_STRATEGIES_H
#define KILN_CODEGEN_GPU_STRATEGIES_STRATEGIES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::codegen::gpu {

//===----------------------------------------------------------------------------===//
// WarpgroupProduct.cpp
//===----------------------------------------------------------------------------===//

/// Whether `op` is a plain f16 product of at least 128 x 128 outputs and 64 deep, no
/// batch, whose operands the tensor memory accelerator can read (its depth loop need not
/// be last yet: filledReduction asks before parallelFirst). For sm_90a only: the callers
/// check `warpgroup-mma`.
bool fitsWarpgroupProduct(mlir::linalg::GenericOp op);

/// Replaces `op` (fitsWarpgroupProduct) with a Hopper kernel (TMA and wgmma), its sums
/// starting from `initValue` where that is set, else from what the output holds.
void buildWarpgroupProduct(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                           mlir::Value initValue, bool vectorise);

//===----------------------------------------------------------------------------===//
// TensorCoreProduct.cpp
//===----------------------------------------------------------------------------===//

/// Whether `op` is a plain product (plainProductType) of f16, or of f32 with `allowTf32`,
/// its operands and output of that type, of at least 16 in each size (matchProduct).
bool fitsTensorCoreProduct(mlir::linalg::GenericOp op, bool allowTf32);

/// Replaces `op` (fitsTensorCoreProduct) with a kernel on the tensor cores (wmma).
void buildTensorCoreProduct(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op, bool vectorise);

//===----------------------------------------------------------------------------===//
// TiledProduct.cpp
//===----------------------------------------------------------------------------===//

/// Whether `op` is a matrix product of any body, at least 16 in each size (matchProduct).
bool fitsTiledProduct(mlir::linalg::GenericOp op);

/// Replaces `op` (fitsTiledProduct) with a kernel of output tiles through workgroup memory.
void buildTiledProduct(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op, bool vectorise);

//===----------------------------------------------------------------------------===//
// BlockReduction.cpp
//===----------------------------------------------------------------------------===//

/// Whether `op` is a float sum, product, maximum or minimum into one f32 output, static,
/// along its operands' innermost dimension, at least 32 long, of at most INT32_MAX
/// outputs (a thread per output element suits the others).
bool fitsBlockReduction(mlir::linalg::GenericOp op);

/// Replaces `op` (fitsBlockReduction) with a kernel of a block per output element.
void buildBlockReduction(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op);

//===----------------------------------------------------------------------------===//
// Elementwise.cpp
//===----------------------------------------------------------------------------===//

/// Whether `op` is an elementwise generic of static sizes whose innermost loop is a
/// multiple of kVector (4) long and whose operands that vary along it can be read and
/// written as vectors of kVector elements.
bool fitsVectorisedElementwise(mlir::linalg::GenericOp op);

/// Replaces `op` (fitsVectorisedElementwise) with an scf.parallel of one iteration per
/// kVector elements, which mapParallel makes the kernel.
mlir::scf::ParallelOp buildVectorisedElementwise(mlir::IRRewriter &rewriter,
                                                 mlir::linalg::GenericOp op);

//===----------------------------------------------------------------------------===//
// RegisterReduction.cpp
//===----------------------------------------------------------------------------===//

/// Whether `op` is a reduction with parallel dimensions (first: parallelFirst), one
/// output and static sizes.
bool fitsRegisterReduction(mlir::linalg::GenericOp op);

/// Replaces `op` (fitsRegisterReduction) with an scf.parallel of one iteration per output
/// element, its reductions carried in a register, starting from `initValue` where that is
/// set; mapParallel makes the loop the kernel.
mlir::scf::ParallelOp buildRegisterReduction(mlir::IRRewriter &rewriter, mlir::linalg::GenericOp op,
                                             mlir::Value initValue);

} // namespace kiln::codegen::gpu

#endif // KILN_CODEGEN_GPU_STRATEGIES_STRATEGIES_H
