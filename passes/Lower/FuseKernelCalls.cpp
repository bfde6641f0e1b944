//===- FuseKernelCalls.cpp - a 1x1 convolution into the depthwise one it feeds ===//
#include "passes/Lower/Passes.h"
#include "passes/Lower/CallOperands.h"
#include "kiln/runtime/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace kiln::lower {
#define GEN_PASS_DEF_FUSEKERNELCALLSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using kiln::lower::addressedBuffer;
using kiln::lower::constantInt;
using namespace kiln::lower::matmul_operands;

namespace {

// Operand positions of kiln_kernel_depthwise_conv2d_f32 (kiln/kernels/depthwise.h).
enum Depthwise : unsigned {
  kDwInput = 0, kDwFilter, kDwOutput, kDwN, kDwH, kDwW, kDwC, kDwM, kDwKh, kDwKw, kDwOh,
  kDwOw, kDwSh, kDwSw, kDwDh, kDwDw, kDwPt, kDwPl, kDwFlags, kDwEpilogue, kDwArgs = 25
};

/// Whether every use of `buffer` (through reshapes) is an address that only `a` or `b`
/// passes, and collects those ops (the reshapes, pointers and casts) into `uses`.
bool onlyAddressOf(Value buffer, func::CallOp a, func::CallOp b,
                   SmallVectorImpl<Operation *> &uses) {
  for (Operation *user : buffer.getUsers()) {
    uses.push_back(user);
    if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user)) {
      if (!onlyAddressOf(user->getResult(0), a, b, uses))
        return false;
      continue;
    }
    auto ptr = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user);
    if (!ptr || !ptr->hasOneUse())
      return false;
    auto cast = dyn_cast<arith::IndexCastOp>(*ptr->getUsers().begin());
    if (!cast)
      return false;
    uses.push_back(cast);
    for (Operation *call : cast->getUsers())
      if (call != a.getOperation() && call != b.getOperation())
        return false;
  }
  return true;
}

struct FuseKernelCallsPass : kiln::lower::impl::FuseKernelCallsPassBase<FuseKernelCallsPass> {
  using FuseKernelCallsPassBase::FuseKernelCallsPassBase;

  // A module pass: it declares the fused kernel in the module.
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        rewrite(func);
  }

  /// The matrix-product call writing the buffer `mid` the depthwise call `dw` reads, if the
  /// two can become one call.
  func::CallOp producer(func::CallOp dw, Value &mid) {
    auto arg = [&](unsigned i) { return constantInt(dw.getOperand(i)); };
    auto m = arg(kDwM), kh = arg(kDwKh), kw = arg(kDwKw), dh = arg(kDwDh), dwl = arg(kDwDw),
         sw = arg(kDwSw), flags = arg(kDwFlags);
    // The shapes the fused kernel computes fast (as depthwiseFastPath in the runtime).
    if (!m || *m != 1 || !kh || !kw || *kh != *kw || (*kh != 3 && *kh != 5) || !dh ||
        *dh != 1 || !dwl || *dwl != 1 || !sw || (*sw != 1 && *sw != 2) || !flags ||
        !(*flags & KILN_DEPTHWISE_OVERWRITE))
      return func::CallOp();
    mid = addressedBuffer(dw.getOperand(kDwInput));
    auto midType = mid ? dyn_cast<MemRefType>(mid.getType()) : MemRefType();
    if (!mid || !mid.getDefiningOp<memref::AllocOp>() || !midType.hasStaticShape() ||
        midType.getNumElements() * 4 < minBytes)
      return func::CallOp();
    // The product is the last kernel call before `dw`; only ops without memory effects
    // (constants, addresses, views) and allocations come between.
    func::CallOp mm;
    for (Operation *op = dw->getPrevNode(); op && !mm; op = op->getPrevNode()) {
      if (auto call = dyn_cast<func::CallOp>(op))
        mm = call;
      else if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
        return func::CallOp();
    }
    if (!mm || (mm.getCallee() != KILN_KERNEL_MATMUL_F32 &&
                mm.getCallee() != KILN_KERNEL_MATMUL_EPILOGUE_F32) ||
        addressedBuffer(mm.getOperand(kMmC)) != mid)
      return func::CallOp();
    auto mmFlags = constantInt(mm.getOperand(kMmFlags));
    auto rows = constantInt(mm.getOperand(kMmM)), cols = constantInt(mm.getOperand(kMmN));
    auto n = arg(kDwN), h = arg(kDwH), w = arg(kDwW), c = arg(kDwC);
    if (!mmFlags || *mmFlags != KILN_MATMUL_OVERWRITE || !rows || !cols || !n || !h || !w ||
        !c || *rows != *n * *h * *w || *cols != *c)
      return func::CallOp();
    return mm;
  }

  void rewrite(func::FuncOp func) {
    SmallVector<func::CallOp> depthwise;
    func.walk([&](func::CallOp call) {
      if (call.getCallee() == KILN_KERNEL_DEPTHWISE_CONV2D_F32 &&
          call.getNumOperands() == kDwArgs)
        depthwise.push_back(call);
    });
    OpBuilder b(func.getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type(), f32 = b.getF32Type();
    for (func::CallOp dw : depthwise) {
      Value mid;
      func::CallOp mm = producer(dw, mid);
      if (!mm)
        continue;
      SmallVector<Operation *> uses;
      if (!onlyAddressOf(mid, mm, dw, uses))
        continue;
      SmallVector<Type> types(19, i64);
      types.push_back(i32);
      for (int e = 0; e < 2; ++e)
        types.append({i64, f32, i64, f32, f32, f32});
      kiln::lower::declareRuntimeFunction(func->getParentOfType<ModuleOp>(),
                                          KILN_KERNEL_POINTWISE_DEPTHWISE_F32, types);
      b.setInsertionPoint(dw);
      Location loc = dw.getLoc();
      auto f32Const = [&](float v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
      };
      OperandRange d = dw.getOperands();
      SmallVector<Value> args = {mm.getOperand(kMmA), mm.getOperand(kMmB), d[kDwFilter],
                                 d[kDwOutput]};
      // n, h, w, then the product's depth (the input channels), then c and the window.
      args.append({d[kDwN], d[kDwH], d[kDwW], mm.getOperand(kMmK)});
      for (unsigned i = kDwC; i < kDwFlags; ++i)
        if (i != kDwM)
          args.push_back(d[i]);
      int32_t flags = int32_t(*constantInt(d[kDwFlags])) & KILN_DEPTHWISE_EPILOGUE;
      args.push_back(arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, flags)));
      if (mm.getCallee() == KILN_KERNEL_MATMUL_EPILOGUE_F32) {
        llvm::append_range(args, mm.getOperands().drop_front(kMmEpilogue));
      } else { // no epilogue: scale 1, bias 0, no bounds
        float inf = std::numeric_limits<float>::infinity();
        args.append({arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 0)),
                     f32Const(1.0f),
                     arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 0)),
                     f32Const(0.0f), f32Const(-inf), f32Const(inf)});
      }
      llvm::append_range(args, d.drop_front(kDwEpilogue));
      func::CallOp::create(b, loc, KILN_KERNEL_POINTWISE_DEPTHWISE_F32, TypeRange{}, args);
      mm.erase();
      dw.erase();
      for (Operation *op : llvm::reverse(uses))
        op->erase();
      mid.getDefiningOp()->erase();
      ++numFused;
    }
  }
};

} // namespace
