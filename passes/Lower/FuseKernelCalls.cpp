//===- FuseKernelCalls.cpp - a 1x1 convolution into the depthwise one it feeds ===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::lower {
#define GEN_PASS_DEF_FUSEKERNELCALLSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using kiln::dialect::EpilogueAttr;
using kiln::dialect::KernelCallOp;

namespace {

/// The buffer `v` views through reshapes.
Value viewedBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether every use of `buffer` (through reshapes) is by `a` or `b`, and collects the
/// reshapes into `views`.
bool onlyUsedBy(Value buffer, Operation *a, Operation *b, SmallVectorImpl<Operation *> &views) {
  for (Operation *user : buffer.getUsers()) {
    if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user)) {
      views.push_back(user);
      if (!onlyUsedBy(user->getResult(0), a, b, views))
        return false;
    } else if (user != a && user != b) {
      return false;
    }
  }
  return true;
}

struct FuseKernelCallsPass : kiln::lower::impl::FuseKernelCallsPassBase<FuseKernelCallsPass> {
  using FuseKernelCallsPassBase::FuseKernelCallsPassBase;

  void runOnOperation() override {
    SmallVector<KernelCallOp> depthwise;
    getOperation().walk([&](KernelCallOp call) {
      if (call.getKernel() == "depthwise_conv2d_f32")
        depthwise.push_back(call);
    });
    for (KernelCallOp dw : depthwise)
      fuse(dw);
  }

  /// The matrix-product call writing the buffer `mid` the depthwise call `dw` reads, if the
  /// two can become one call.
  KernelCallOp producer(KernelCallOp dw, Value &mid) {
    auto p = [&](StringRef name) { return dw.getInt(name); };
    // The shapes the fused kernel computes fast (as depthwiseFastPath in the runtime).
    ArrayRef<int64_t> dilations = dw.getPair("dilations"), strides = dw.getPair("strides");
    if (p("m") != 1 || p("kh") != p("kw") || (p("kh") != 3 && p("kh") != 5) || dilations[0] != 1 ||
        dilations[1] != 1 || (strides[1] != 1 && strides[1] != 2) || !dw.hasFlag("overwrite"))
      return KernelCallOp();
    mid = viewedBuffer(dw.getInput("input"));
    auto midType = cast<MemRefType>(mid.getType());
    if (!mid.getDefiningOp<memref::AllocOp>() || midType.getNumElements() * 4 < minBytes)
      return KernelCallOp();
    // The product is the last kernel call before `dw`; only ops without memory effects
    // (constants, views) and allocations come between.
    KernelCallOp mm;
    for (Operation *op = dw->getPrevNode(); op && !mm; op = op->getPrevNode()) {
      if (auto call = dyn_cast<KernelCallOp>(op))
        mm = call;
      else if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
        return KernelCallOp();
    }
    if (!mm || (mm.getKernel() != "matmul_f32" && mm.getKernel() != "matmul_epilogue_f32") ||
        viewedBuffer(mm.getOutput("c")) != mid)
      return KernelCallOp();
    // Exactly an overwriting product: no transposes, B not packed.
    for (StringRef flag : {"transpose_a", "transpose_b", "packed_b"})
      if (mm.hasFlag(flag))
        return KernelCallOp();
    if (!mm.hasFlag("overwrite") || mm.getInt("m") != p("n") * p("h") * p("w") ||
        mm.getInt("n") != p("c"))
      return KernelCallOp();
    // The fused kernel multiplies one image row at a time, reading all of B for each: B
    // must stay in cache between rows.
    if (mm.getInt("k") * mm.getInt("n") * 4 > maxWeightBytes)
      return KernelCallOp();
    return mm;
  }

  void fuse(KernelCallOp dw) {
    Value mid;
    KernelCallOp mm = producer(dw, mid);
    SmallVector<Operation *> views;
    if (!mm || !onlyUsedBy(mid, mm, dw, views))
      return;
    OpBuilder b(dw);
    // The product's inputs, the depthwise filter, then both epilogues' buffers.
    SmallVector<Value> inputs = {mm.getInput("a"), mm.getInput("b"), dw.getInput("filter")};
    NamedAttrList params;
    for (StringRef name : {"n", "h", "w", "c", "kh", "kw", "oh", "ow"})
      params.set(name, dw.getParams().get(name));
    params.set("cin", mm.getParams().get("k"));
    for (StringRef name : {"strides", "dilations", "pad"})
      params.set(name, dw.getParams().get(name));
    auto moveEpilogue = [&](KernelCallOp call, StringRef from, StringRef to) {
      EpilogueAttr e = call.getEpilogue(from);
      if (!e)
        return;
      int64_t offset =
          static_cast<int64_t>(inputs.size()) - static_cast<int64_t>(call.getInfo().inputs.size());
      llvm::append_range(inputs, call.getInputs().drop_front(call.getInfo().inputs.size()));
      params.set(to, e.withInputsShifted(offset));
    };
    moveEpilogue(mm, "epilogue", "pointwise_epilogue");
    moveEpilogue(dw, "epilogue", "epilogue");
    // The depthwise output, as the fused kernel's rank-5 output (n, oh, ow, c, 1).
    KernelCallOp::create(b, dw.getLoc(), b.getStringAttr("pointwise_depthwise_f32"), inputs,
                         ValueRange{dw.getOutput("output")}, params.getDictionary(b.getContext()));
    mm.erase();
    dw.erase();
    for (Operation *view : llvm::reverse(views))
      view->erase();
    mid.getDefiningOp()->erase();
    ++numFused;
  }
};

} // namespace
