//===- PackWeights.cpp - constant matrix-product operands packed at compile time ===//
#include "passes/Lower/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace kiln::lower {
#define GEN_PASS_DEF_PACKWEIGHTSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using kiln::dialect::KernelCallOp;

namespace {

/// The constant global with an initial value that `buffer` reads, itself or through
/// reshapes; null if it reads anything else.
memref::GlobalOp constantGlobal(SymbolTable &symbols, Value buffer) {
  Value base = buffer;
  while (Operation *def = base.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      break;
    base = def->getOperand(0);
  }
  auto get = base.getDefiningOp<memref::GetGlobalOp>();
  auto global = get ? symbols.lookup<memref::GlobalOp>(get.getName()) : nullptr;
  return global && global.getConstant() && global.getInitialValue() ? global : nullptr;
}

struct PackWeightsPass : kiln::lower::impl::PackWeightsPassBase<PackWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // One packed copy per constant and layout, shared by every call that reads it.
    llvm::StringMap<memref::GlobalOp> packedOf;
    SmallVector<KernelCallOp> calls, winograd;
    module.walk([&](KernelCallOp call) {
      if (call.getKernel() == "matmul_f32" || call.getKernel() == "matmul_epilogue_f32" ||
          call.getKernel() == "matmul_residual_f32" || call.getKernel() == "conv2d_gemm_f32")
        calls.push_back(call);
      if (call.getKernel() == "conv2d_3x3_f32")
        winograd.push_back(call);
    });
    OpBuilder b(module.getContext());
    // A 3x3 convolution with a constant filter keeps its transform in a cache slot of its
    // own (one per filter), a mutable global the kernel fills on its first call.
    llvm::StringMap<memref::GlobalOp> cacheOf;
    for (KernelCallOp call : winograd) {
      memref::GlobalOp filter = constantGlobal(symbols, call.getInput("filter"));
      if (!filter)
        continue;
      memref::GlobalOp &cache = cacheOf[filter.getSymName()];
      if (!cache) {
        auto type = MemRefType::get({1}, b.getI64Type());
        b.setInsertionPoint(filter);
        cache = memref::GlobalOp::create(
            b, filter.getLoc(), (filter.getSymName() + "_winograd").str(),
            b.getStringAttr("private"), type,
            DenseElementsAttr::get(RankedTensorType::get({1}, b.getI64Type()), int64_t(0)),
            /*constant=*/false, b.getI64IntegerAttr(8));
        symbols.insert(cache);
      }
      b.setInsertionPoint(call);
      Value slot =
          memref::GetGlobalOp::create(b, call.getLoc(), cache.getType(), cache.getSymName());
      // The slot goes after the filter, before the epilogue's buffers, which move up one.
      SmallVector<Value> inputs(call.getInputs());
      inputs.insert(inputs.begin() + 2, slot);
      NamedAttrList params(call.getParams());
      if (auto epilogue = params.get("epilogue"))
        params.set("epilogue", cast<kiln::dialect::EpilogueAttr>(epilogue).withInputsShifted(1));
      KernelCallOp::create(b, call.getLoc(), b.getStringAttr("conv2d_3x3_cached_f32"), inputs,
                           call.getOutputs(), params.getDictionary(b.getContext()));
      call.erase();
      ++numCached;
    }
    for (KernelCallOp call : calls) {
      // A product's B (k x n), or a convolution's filter viewed as (kh*kw*c) x f.
      bool conv = call.getKernel() == "conv2d_gemm_f32";
      StringRef role = conv ? "filter" : "b", flag = conv ? "packed_filter" : "packed_b";
      int64_t n = call.getInt(conv ? "f" : "n");
      int64_t k =
          conv ? call.getInt("kh") * call.getInt("kw") * call.getInt("c") : call.getInt("k");
      // B itself or a reshape of it comes from a constant global.
      Value buffer = call.getInput(role);
      memref::GlobalOp global = call.hasFlag(flag) ? nullptr : constantGlobal(symbols, buffer);
      auto values =
          global ? dyn_cast<DenseFPElementsAttr>(*global.getInitialValue()) : DenseFPElementsAttr();
      if (!values || !values.getElementType().isF32() || values.getNumElements() != k * n)
        continue;
      bool transposed = !conv && call.hasFlag("transpose_b");
      std::string name = (global.getSymName() + (transposed ? "_packed_t" : "_packed")).str();
      memref::GlobalOp &packed = packedOf[name];
      if (!packed) {
        int64_t size = kiln::dialect::packedMatmulBSize(k, n);
        std::vector<float> data(size, 0.0f);
        auto it = values.value_begin<float>();
        for (int64_t i = 0; i < k * n; ++i, ++it) {
          int64_t row = transposed ? i % k : i / n, col = transposed ? i / k : i % n;
          data[kiln::dialect::packedMatmulBIndex(row, col, k, n)] = *it;
        }
        auto type = MemRefType::get({size}, b.getF32Type());
        auto init = DenseElementsAttr::get(RankedTensorType::get({size}, b.getF32Type()),
                                           ArrayRef<float>(data));
        b.setInsertionPoint(global);
        packed = memref::GlobalOp::create(b, global.getLoc(), name, b.getStringAttr("private"),
                                          type, init, /*constant=*/true, b.getI64IntegerAttr(64));
        symbols.insert(packed);
      }
      b.setInsertionPoint(call);
      Value packedBuffer =
          memref::GetGlobalOp::create(b, call.getLoc(), packed.getType(), packed.getSymName());
      int bIndex = call.getInfo().inputIndex(role);
      call.getInputsMutable()[bIndex].set(packedBuffer);
      NamedAttrList params(call.getParams());
      params.erase("transpose_b");
      params.set(flag, b.getUnitAttr());
      call.setParamsAttr(params.getDictionary(b.getContext()));
      // The unpacked operand's views and global read, if nothing else uses them.
      for (Operation *def = buffer.getDefiningOp(); def && def->use_empty();) {
        Operation *next = def->getNumOperands() == 1 ? def->getOperand(0).getDefiningOp() : nullptr;
        def->erase();
        def = next;
      }
      ++numPacked;
    }
    // Constants no longer read: the symbols still referenced, found in one walk (asking
    // for each global walked the module once per global, 3.9 s on NASNetMobile's 1,000).
    llvm::DenseSet<StringAttr> used;
    if (auto uses = SymbolTable::getSymbolUses(&module.getBodyRegion()))
      for (const SymbolTable::SymbolUse &use : *uses)
        used.insert(use.getSymbolRef().getRootReference());
    for (auto global : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() && global.isPrivate() && !used.contains(global.getSymNameAttr()))
        global.erase();
  }
};

} // namespace
