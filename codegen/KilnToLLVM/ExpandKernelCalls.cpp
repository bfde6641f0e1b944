//===- ExpandKernelCalls.cpp - kiln.kernel_call to the C call ------------------===//
#include "codegen/KilnToLLVM/Passes.h"

#include "dialects/Kiln/ABI.h"

#include <limits>

namespace kiln::codegen {
#define GEN_PASS_DEF_EXPANDKERNELCALLSPASS
#include "codegen/KilnToLLVM/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::dialect;

namespace {

/// The C argument types of a kernel, from its row.
SmallVector<Type> argumentTypes(const KernelInfo &info, MLIRContext *context) {
  Type i64 = IntegerType::get(context, 64), i32 = IntegerType::get(context, 32),
       f32 = Float32Type::get(context);
  SmallVector<Type> types;
  for (const KernelArg &arg : info.args) {
    switch (arg.kind) {
    case KernelArgKind::Address:
    case KernelArgKind::ByteSize:
      types.push_back(i64);
      break;
    case KernelArgKind::Param:
      switch (info.findParam(arg.ref)->kind) {
      case KernelParamKind::I32:
        types.push_back(i32);
        break;
      case KernelParamKind::I64Pair:
        types.append({i64, i64});
        break;
      case KernelParamKind::F32:
        types.push_back(f32);
        break;
      default:
        types.push_back(i64);
      }
      break;
    case KernelArgKind::Flags:
      types.push_back(i32);
      break;
    case KernelArgKind::Epilogue:
      types.append({i64, f32, i64, f32, f32, f32, i32});
      break;
    }
  }
  return types;
}

struct ExpandKernelCallsPass
    : kiln::codegen::impl::ExpandKernelCallsPassBase<ExpandKernelCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelCallOp> calls;
    module.walk([&](KernelCallOp op) { calls.push_back(op); });
    OpBuilder b(module.getContext());
    for (KernelCallOp op : calls) {
      const KernelInfo &info = op.getInfo();
      if (!module.lookupSymbol<func::FuncOp>(info.symbol)) {
        b.setInsertionPointToStart(module.getBody());
        func::FuncOp::create(b, module.getLoc(), info.symbol,
                             b.getFunctionType(argumentTypes(info, b.getContext()), {}))
            .setPrivate();
      }
      b.setInsertionPoint(op);
      func::CallOp::create(b, op.getLoc(), info.symbol, TypeRange{}, arguments(b, op, info));
      op.erase();
      ++numCalls;
    }
  }

  SmallVector<Value> arguments(OpBuilder &b, KernelCallOp op, const KernelInfo &info) {
    Location loc = op.getLoc();
    Type i64 = b.getI64Type();
    auto int64 = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, v));
    };
    auto f32 = [&](float v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    // A buffer's first element: the aligned pointer, plus the offset of a view with a
    // strided layout (a list's element at a run-time index, say).
    auto address = [&](Value v) -> Value {
      Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
      auto type = cast<MemRefType>(v.getType());
      if (!type.getLayout().isIdentity()) {
        Value offset = memref::ExtractStridedMetadataOp::create(b, loc, v).getOffset();
        Value bytes =
            arith::ConstantIndexOp::create(b, loc, (type.getElementTypeBitWidth() + 7) / 8);
        p = arith::AddIOp::create(b, loc, p, arith::MulIOp::create(b, loc, offset, bytes));
      }
      return arith::IndexCastOp::create(b, loc, i64, p);
    };
    SmallVector<Value> args;
    for (const KernelArg &arg : info.args) {
      switch (arg.kind) {
      case KernelArgKind::Address:
        args.push_back(address(op.getBuffer(arg.ref)));
        break;
      case KernelArgKind::ByteSize: {
        auto type = cast<MemRefType>(op.getBuffer(arg.ref).getType());
        args.push_back(int64(type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8)));
        break;
      }
      case KernelArgKind::Param: {
        const KernelParam &param = *info.findParam(arg.ref);
        if (param.kind == KernelParamKind::I64Pair) {
          for (int64_t v : op.getPair(param.name))
            args.push_back(int64(v));
        } else if (param.kind == KernelParamKind::F32) {
          args.push_back(f32(op.getF32(param.name)));
        } else if (param.kind == KernelParamKind::I32) {
          args.push_back(arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(b.getI32Type(), op.getInt(param.name))));
        } else {
          args.push_back(int64(op.getInt(param.name)));
        }
        break;
      }
      case KernelArgKind::Flags: {
        uint32_t flags = 0;
        for (const KernelParam &param : info.params)
          if (param.bit && op.getParams().get(param.name))
            flags |= param.bit;
        args.push_back(arith::ConstantOp::create(
            b, loc, b.getIntegerAttr(b.getI32Type(), static_cast<int32_t>(flags))));
        break;
      }
      case KernelArgKind::Epilogue: {
        EpilogueAttr e = op.getEpilogue(arg.ref);
        if (!e)
          e = EpilogueAttr::getIdentity(b.getContext());
        auto input = [&](int64_t i) { return i < 0 ? int64(0) : address(op.getInputs()[i]); };
        Value scale = input(e.getScaleInput());
        Value scaleValue = f32(e.getScaleValue());
        Value bias = input(e.getBiasInput());
        int32_t activation = abi::epilogueActivation(e.getSwish());
        args.append({scale, scaleValue, bias, f32(e.getBiasValue()), f32(e.getLoValue()),
                     f32(e.getHiValue()),
                     arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(activation))});
        break;
      }
      }
    }
    return args;
  }
};

} // namespace
