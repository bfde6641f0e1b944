//===- LowerNVGPU.cpp - nvgpu's ops as NVVM and LLVM ops, before outlining -----===//
#include "codegen/GPU/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_LOWERNVGPUPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

/// wgmma's rows a warpgroup computes per instruction (nvgpu's accumulator layout).
constexpr int64_t kWgmmaRows = 64;

bool isNVGPU(Type type) { return isa<nvgpu::NVGPUDialect>(type.getDialect()); }

/// The LLVM types of nvgpu's types, as upstream's convert-nvgpu-to-nvvm gives them.
void addNVGPUTypes(LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
  converter.addConversion([&converter, ctx](nvgpu::DeviceAsyncTokenType) -> Type {
    return converter.convertType(IntegerType::get(ctx, 32));
  });
  // A struct per 64 rows of the fragment, each of the thread's elements of those rows.
  converter.addConversion([&converter, ctx](nvgpu::WarpgroupAccumulatorType type) -> Type {
    VectorType fragment = type.getFragmented();
    Type element = fragment.getElementType();
    int64_t members = fragment.getDimSize(1) / (element.isF16() ? 4 : 2);
    auto rows = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(members, element));
    SmallVector<Type> body(fragment.getDimSize(0) / kWgmmaRows, rows);
    return converter.convertType(LLVM::LLVMStructType::getLiteral(ctx, body));
  });
  converter.addConversion([&converter, ctx](nvgpu::MBarrierTokenType) -> Type {
    return converter.convertType(IntegerType::get(ctx, 64));
  });
  converter.addConversion([&converter, ctx](nvgpu::WarpgroupMatrixDescriptorType) -> Type {
    return converter.convertType(IntegerType::get(ctx, 64));
  });
  converter.addConversion([&converter, ctx](nvgpu::MBarrierGroupType type) -> Type {
    return converter.convertType(nvgpu::getMBarrierMemrefType(ctx, type));
  });
  converter.addConversion(
      [ctx](nvgpu::TensorMapDescriptorType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
}

struct LowerNVGPUPass : kiln::codegen::gpu::impl::LowerNVGPUPassBase<LowerNVGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult found = module.walk([](Operation *op) {
      return isa<nvgpu::NVGPUDialect>(op->getDialect()) ? WalkResult::interrupt()
                                                        : WalkResult::advance();
    });
    if (!found.wasInterrupted())
      return;
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    addNVGPUTypes(converter);
    // Loops change only where they carry an nvgpu value (a product's accumulator): the
    // other kernels' loops (wmma fragments, indices) stay as they are.
    TypeConverter loops;
    loops.addConversion([&converter](Type type) -> std::optional<Type> {
      return isNVGPU(type) ? converter.convertType(type) : type;
    });
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                           vector::VectorDialect>();
    target.addIllegalDialect<nvgpu::NVGPUDialect>();
    scf::populateSCFStructuralTypeConversionsAndLegality(loops, patterns, target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    ++numLowered;
  }
};

} // namespace
