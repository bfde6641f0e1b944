//===- PackWeights.cpp - constant matrix-product operands packed at compile time ===//
#include "passes/Lower/Passes.h"
#include "passes/Lower/CallOperands.h"
#include "kiln/runtime/abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"

namespace kiln::lower {
#define GEN_PASS_DEF_PACKWEIGHTSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using kiln::lower::addressedBuffer;
using kiln::lower::constantInt;
using namespace kiln::lower::matmul_operands;

namespace {

struct PackWeightsPass : kiln::lower::impl::PackWeightsPassBase<PackWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // One packed copy per constant and layout, shared by every call that reads it.
    llvm::StringMap<memref::GlobalOp> packedOf;
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == KILN_KERNEL_MATMUL_F32 ||
          call.getCallee() == KILN_KERNEL_MATMUL_EPILOGUE_F32)
        calls.push_back(call);
    });
    OpBuilder b(module.getContext());
    for (func::CallOp call : calls) {
      auto flags = constantInt(call.getOperand(kMmFlags));
      auto n = constantInt(call.getOperand(kMmN)), k = constantInt(call.getOperand(kMmK));
      Value buffer = addressedBuffer(call.getOperand(kMmB));
      auto get = buffer ? buffer.getDefiningOp<memref::GetGlobalOp>() : memref::GetGlobalOp();
      if (!flags || (*flags & KILN_MATMUL_PACKED_B) || !n || !k || !get)
        continue;
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      auto values = global && global.getConstant() && global.getInitialValue()
                        ? dyn_cast<DenseFPElementsAttr>(*global.getInitialValue())
                        : DenseFPElementsAttr();
      if (!values || !values.getElementType().isF32() || values.getNumElements() != *k * *n)
        continue;
      bool transposed = *flags & KILN_MATMUL_TRANSPOSE_B;
      std::string name = (global.getSymName() + (transposed ? "_packed_t" : "_packed")).str();
      memref::GlobalOp &packed = packedOf[name];
      if (!packed) {
        int64_t width = kiln_matmul_packed_b_width(*n);
        std::vector<float> data(*k * width, 0.0f);
        auto it = values.value_begin<float>();
        for (int64_t i = 0; i < *k * *n; ++i, ++it) {
          int64_t row = transposed ? i % *k : i / *n, col = transposed ? i / *k : i % *n;
          data[kiln_matmul_packed_b_index(row, col, *k, *n)] = *it;
        }
        auto type = MemRefType::get({*k * width}, b.getF32Type());
        auto init = DenseElementsAttr::get(RankedTensorType::get({*k * width}, b.getF32Type()),
                                           ArrayRef<float>(data));
        b.setInsertionPoint(global);
        packed = memref::GlobalOp::create(b, global.getLoc(), name, b.getStringAttr("private"),
                                          type, init, /*constant=*/true,
                                          b.getI64IntegerAttr(64));
        symbols.insert(packed);
      }
      b.setInsertionPoint(call);
      Location loc = call.getLoc();
      Value packedBuffer = memref::GetGlobalOp::create(b, loc, packed.getType(),
                                                       packed.getSymName());
      Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, packedBuffer);
      Value oldAddress = call.getOperand(kMmB), oldFlags = call.getOperand(kMmFlags);
      call.setOperand(kMmB, arith::IndexCastOp::create(b, loc, b.getI64Type(), pointer));
      int32_t newFlags = (int32_t(*flags) | KILN_MATMUL_PACKED_B) & ~KILN_MATMUL_TRANSPOSE_B;
      call.setOperand(kMmFlags, arith::ConstantOp::create(
                                    b, loc, b.getIntegerAttr(b.getI32Type(), newFlags)));
      // The unpacked operand's address chain, if nothing else uses it.
      for (Value v : {oldFlags, oldAddress}) {
        while (v && v.use_empty()) {
          Operation *def = v.getDefiningOp();
          if (!def || !isMemoryEffectFree(def))
            break;
          Value next = def->getNumOperands() == 1 ? def->getOperand(0) : Value();
          def->erase();
          v = next;
        }
      }
      ++numPacked;
    }
    // Constants no longer read.
    for (auto global : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() && global.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
  }
};

} // namespace
