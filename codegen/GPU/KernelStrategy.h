//===- KernelStrategy.h - the kernel kiln-gpu-kernels makes of an op -*- C++ -*-===//
//
// kiln-gpu-kernels makes one kernel of each linalg op in one of a few ways, each with a
// file of its own under Strategies/. selectStrategy is the one place that chooses between
// them; the pass's `print-strategies` option reports each choice as a remark on the op.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_KERNELSTRATEGY_H
#define KILN_CODEGEN_GPU_KERNELSTRATEGY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace kiln::codegen::gpu {

/// The ways of making a kernel of a linalg op, in selectStrategy's order of preference.
enum class KernelStrategy {
  WarpgroupProduct,      ///< Hopper's TMA and wgmma (buildWarpgroupProduct)
  TensorCoreProduct,     ///< wmma (buildTensorCoreProduct)
  TiledProduct,          ///< tiles through workgroup memory (buildTiledProduct)
  BlockReduction,        ///< a block per output element (buildBlockReduction)
  VectorisedElementwise, ///< 4 elements a thread (buildVectorisedElementwise)
  RegisterReduction,     ///< a thread per output element (buildRegisterReduction)
  ParallelLoops,         ///< linalg's parallel loops, a thread per iteration (the pass's own)
};

/// `strategy`'s name in the pass's remarks: `tiled-product`, `block-reduction` ...
llvm::StringRef strategyName(KernelStrategy strategy);

/// The options of kiln-gpu-kernels that the choice depends on, each the one of that name.
struct StrategyOptions {
  bool warpgroupMma;
  bool tensorCores;
  bool allowTf32;
  bool reassociate;
  bool vectorise;
};

/// A strategy and the reason it was chosen (a phrase of static storage).
struct StrategyChoice {
  KernelStrategy strategy;
  llvm::StringRef reason;
};

/// The strategy for `op`, its parallel dimensions first (parallelFirst): the first in
/// KernelStrategy's order whose conditions `op` meets. `hasInitValue` says that a fill
/// before `op` was folded into it as its output's starting value (filledReduction).
/// Inspects `op` only.
StrategyChoice selectStrategy(mlir::linalg::LinalgOp op, const StrategyOptions &options,
                              bool hasInitValue);

} // namespace kiln::codegen::gpu

#endif // KILN_CODEGEN_GPU_KERNELSTRATEGY_H
