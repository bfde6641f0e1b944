//===- KernelStrategy.cpp - the kernel kiln-gpu-kernels makes of an op --------===//
#include "codegen/GPU/KernelStrategy.h"

#include "codegen/GPU/Strategies/Strategies.h"

using namespace mlir;

namespace kiln::codegen::gpu {

StringRef strategyName(KernelStrategy strategy) {
  switch (strategy) {
  case KernelStrategy::WarpgroupProduct:
    return "warpgroup-product";
  case KernelStrategy::TensorCoreProduct:
    return "tensor-core-product";
  case KernelStrategy::TiledProduct:
    return "tiled-product";
  case KernelStrategy::BlockReduction:
    return "block-reduction";
  case KernelStrategy::VectorisedElementwise:
    return "vectorised-elementwise";
  case KernelStrategy::RegisterReduction:
    return "register-reduction";
  case KernelStrategy::ParallelLoops:
    return "parallel-loops";
  }
  llvm_unreachable("unknown kernel strategy");
}

StrategyChoice selectStrategy(linalg::LinalgOp op, const StrategyOptions &options,
                              bool hasInitValue) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    return {KernelStrategy::ParallelLoops, "a named op, not a generic one"};
  if (options.warpgroupMma && fitsWarpgroupProduct(generic))
    return {KernelStrategy::WarpgroupProduct,
            "an f16 product of at least 128 x 128 x 64 whose operands TMA can read"};
  // The other products and the block reduction add to what the output holds, so an op
  // whose fill was folded into it (filledReduction) is left to the register reduction.
  if (!hasInitValue) {
    if (options.tensorCores && fitsTensorCoreProduct(generic, options.allowTf32))
      return {KernelStrategy::TensorCoreProduct,
              "a plain f16 product, or f32 with allow-tf32, of at least 16 in each size"};
    if (fitsTiledProduct(generic))
      return {KernelStrategy::TiledProduct,
              "a matrix product of at least 16 in each size, not for the tensor cores"};
    if (options.reassociate && fitsBlockReduction(generic))
      return {KernelStrategy::BlockReduction,
              "a float reduction along its operands' innermost dimension, at least 32 long"};
  }
  if (options.vectorise && fitsVectorisedElementwise(generic))
    return {KernelStrategy::VectorisedElementwise,
            "elementwise, its operands' rows multiples of 4 elements that start aligned"};
  if (fitsRegisterReduction(generic))
    return {KernelStrategy::RegisterReduction,
            hasInitValue ? "a reduction with parallel dimensions, from the fill folded into it"
                         : "a reduction with parallel dimensions and static sizes"};
  return {KernelStrategy::ParallelLoops, "none of the other strategies fits"};
}

} // namespace kiln::codegen::gpu
