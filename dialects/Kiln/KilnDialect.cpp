//===- KilnDialect.cpp - The kiln dialect -------------------------------------===//
#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::dialect;

#include "dialects/Kiln/KilnOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Kiln/KilnAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/Kiln/KilnOps.cpp.inc"

void KilnDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Kiln/KilnAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Kiln/KilnOps.cpp.inc"
      >();
}

LogicalResult PartitionOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError() << "calls '" << getCallee() << "', which is not a function";
  FunctionType type = callee.getFunctionType();
  if (TypeRange(type.getInputs()) != TypeRange(getInputs().getTypes()) ||
      TypeRange(type.getResults()) != TypeRange(getOutputs().getTypes()))
    return emitOpError() << "has the type "
                         << FunctionType::get(getContext(), getInputs().getTypes(),
                                              getOutputs().getTypes())
                         << " but '" << getCallee() << "' has " << type;
  return success();
}

LogicalResult RecvOp::verify() {
  bool tensor = isa<RankedTensorType>(getDest().getType());
  if (tensor != bool(getResult()))
    return emitOpError() << (tensor ? "into a tensor needs a result"
                                    : "into a buffer has no result");
  if (getResult() && getResult().getType() != getDest().getType())
    return emitOpError() << "yields " << getResult().getType() << " into " << getDest().getType();
  return success();
}

LogicalResult CheckOp::verify() {
  StringRef kind = getKind();
  bool floats = kind == "not_nan" || kind == "not_inf";
  if (kind != "nonzero" && kind != "nonnegative" && kind != "in_range" && kind != "below" &&
      !floats)
    return emitOpError() << "has the kind '" << kind
                         << "'; expected nonzero, nonnegative, in_range, below, not_nan or "
                            "not_inf";
  auto shaped = cast<ShapedType>(getSubject().getType());
  if (floats != isa<FloatType>(shaped.getElementType()) ||
      (!floats && !shaped.getElementType().isIntOrIndex()))
    return emitOpError() << "checks " << shaped.getElementType() << " values; " << kind
                         << (floats ? " checks floats" : " checks integers");
  ArrayRef<int64_t> bounds = getBounds();
  if (kind != "in_range" && kind != "below")
    return bounds.empty() ? success() : emitOpError() << "has bounds but is not in_range or below";
  int64_t last = shaped.getRank() > 0 ? shaped.getDimSize(shaped.getRank() - 1) : 1;
  if (bounds.size() != 1 && int64_t(bounds.size()) != last)
    return emitOpError() << "has " << bounds.size()
                         << " bounds; expected 1 or one per position of the last dimension ("
                         << last << ")";
  return success();
}

SmallVector<int64_t, 6> AttentionOp::getSizes() {
  auto shape = [](Value v) { return cast<ShapedType>(v.getType()).getShape(); };
  auto q = shape(getQ()), k = shape(getK()), v = shape(getV());
  bool qs = getQSeqMajor(), ks = getKSeqMajor();
  return {q[0], q[qs ? 2 : 1], q[qs ? 1 : 2], k[ks ? 1 : 2], q[3], v[3]};
}

LogicalResult KernelOp::verify() {
  const KernelInfo *info = lookupKernel(getKernel());
  if (!info)
    return emitOpError() << "names the unknown kernel '" << getKernel() << "'";
  if (libraryInfo(info->library).onGpu)
    return emitOpError() << "names '" << info->name
                         << "', a GPU kernel; it takes tensors of host kernels only";
  if (llvm::any_of(info->params,
                   [](const KernelParam &p) { return p.kind == KernelParamKind::Epilogue; }))
    return emitOpError() << "names '" << info->name << "', which takes epilogues";
  if (getInputs().size() != info->inputs.size() || getInits().size() != info->outputs.size())
    return emitOpError() << "has " << getInputs().size() << " inputs and " << getInits().size()
                         << " inits; '" << info->name << "' reads " << info->inputs.size()
                         << " and writes " << info->outputs.size();
  if (!info->overwriteFlag.empty())
    return emitOpError() << "names '" << info->name
                         << "', which reads its outputs unless told not to";
  if (getResults().getTypes() != getInits().getTypes())
    return emitOpError() << "must have its inits' types as its results' types";
  auto check = [&](ValueRange values, ArrayRef<KernelOperand> specs) -> LogicalResult {
    for (auto [value, spec] : llvm::zip(values, specs)) {
      auto type = cast<RankedTensorType>(value.getType());
      if ((spec.rank >= 0 && type.getRank() != spec.rank) ||
          !isKernelElement(type.getElementType(), spec.element))
        return emitOpError() << "takes " << type << " as '" << spec.role << "'; '" << info->name
                             << "' takes a " << kernelElementName(spec.element) << "tensor"
                             << (spec.rank >= 0 ? " of rank " + std::to_string(spec.rank)
                                                : std::string());
    }
    return success();
  };
  return failure(failed(check(getInputs(), info->inputs)) ||
                 failed(check(getInits(), info->outputs)));
}

LogicalResult AttentionOp::verify() {
  for (Value v : {getQ(), getK(), getV(), getMask(), getInit(), getResult()}) {
    if (!v)
      continue;
    auto type = cast<ShapedType>(v.getType());
    if (type.getRank() != 4 || !type.getElementType().isF32())
      return emitOpError() << "takes f32 tensors of rank 4; " << type << " is not one";
  }
  SmallVector<int64_t, 6> n = getSizes();
  int64_t batch = n[0], heads = n[1], sq = n[2], sk = n[3], d = n[4], dv = n[5];
  auto expect = [&](StringRef role, Value v, bool seqMajor, int64_t seq,
                    int64_t width) -> LogicalResult {
    SmallVector<int64_t> want = {batch, seqMajor ? seq : heads, seqMajor ? heads : seq, width};
    if (cast<ShapedType>(v.getType()).getShape() == ArrayRef<int64_t>(want))
      return success();
    InFlightDiagnostic diag = emitOpError() << "expects its " << role << " to be ";
    llvm::interleave(want, diag, "x");
    return diag << " (from q's shape and its layout flags), but it is " << v.getType();
  };
  if (failed(expect("k", getK(), getKSeqMajor(), sk, d)) ||
      failed(expect("v", getV(), getVSeqMajor(), sk, dv)) ||
      failed(expect("result", getResult(), getOutSeqMajor(), sq, dv)))
    return failure();
  if (Value mask = getMask()) {
    ArrayRef<int64_t> shape = cast<ShapedType>(mask.getType()).getShape();
    int64_t full[] = {batch, heads, sq, sk};
    for (int i = 0; i < 4; ++i)
      if (shape[i] != full[i] && (shape[i] != 1 || i == 3))
        return emitOpError() << "expects a mask that broadcasts to " << batch << "x" << heads << "x"
                             << sq << "x" << sk << " (its last dimension " << sk << "), but it is "
                             << mask.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Bufferization: send and check read their tensor's buffer; recv writes its
// destination's buffer, which becomes its result.
//===----------------------------------------------------------------------===//

namespace {
using namespace mlir::bufferization;

/// kiln.send and kiln.check only read their first operand: they bufferize to a read of
/// that operand's buffer, in place.
template <typename OpT>
struct ReadsFirstOperand : BufferizableOpInterface::ExternalModel<ReadsFirstOperand<OpT>, OpT> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &, const AnalysisState &) const {
    return {};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options, BufferizationState &state) const {
    FailureOr<Value> buffer = getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(buffer))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(0, *buffer); });
    return success();
  }
};

struct RecvBufferization : BufferizableOpInterface::ExternalModel<RecvBufferization, RecvOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return false;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &, const AnalysisState &) const {
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options, BufferizationState &state) const {
    auto recv = cast<RecvOp>(op);
    FailureOr<Value> buffer = getBuffer(rewriter, recv.getDest(), options, state);
    if (failed(buffer))
      return failure();
    RecvOp::create(rewriter, op->getLoc(), Type(), recv.getTensorNameAttr(), *buffer);
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};
/// `buffer` if a kernel can take it (static and contiguous), else a new contiguous buffer
/// of its type (a copy of it when `copyIn`).
Value contiguousBuffer(RewriterBase &rewriter, Location loc, Value buffer, bool copyIn) {
  auto type = cast<MemRefType>(buffer.getType());
  if (isKernelBuffer(type, -1, KernelElement::Any))
    return buffer;
  Value copy = memref::AllocOp::create(rewriter, loc,
                                       MemRefType::get(type.getShape(), type.getElementType()));
  if (copyIn)
    memref::CopyOp::create(rewriter, loc, buffer, copy);
  return copy;
}

/// kiln.kernel reads its inputs and writes its inits' buffers, which become its results,
/// through the kernel; views go through contiguous copies.
struct KernelBufferization : BufferizableOpInterface::ExternalModel<KernelBufferization, KernelOp> {
  static bool isInit(Operation *op, OpOperand &operand) {
    return cast<KernelOp>(op).getInits().getBeginOperandIndex() <= operand.getOperandNumber();
  }
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand, const AnalysisState &) const {
    return !isInit(op, operand);
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand, const AnalysisState &) const {
    return isInit(op, operand);
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (!isInit(op, operand))
      return {};
    unsigned index =
        operand.getOperandNumber() - cast<KernelOp>(op).getInits().getBeginOperandIndex();
    return {{op->getResult(index), BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options, BufferizationState &state) const {
    auto kernel = cast<KernelOp>(op);
    Location loc = op->getLoc();
    SmallVector<Value> inputs, dests, outputs;
    for (Value v : kernel.getInputs()) {
      FailureOr<Value> buffer = getBuffer(rewriter, v, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(contiguousBuffer(rewriter, loc, *buffer, true));
    }
    for (Value v : kernel.getInits()) {
      FailureOr<Value> buffer = getBuffer(rewriter, v, options, state);
      if (failed(buffer))
        return failure();
      dests.push_back(*buffer);
      outputs.push_back(contiguousBuffer(rewriter, loc, *buffer, false));
    }
    KernelCallOp::create(rewriter, loc, kernel.getKernelAttr(), inputs, outputs,
                         kernel.getParams());
    for (auto [out, dest] : llvm::zip(outputs, dests))
      if (out != dest)
        memref::CopyOp::create(rewriter, loc, out, dest);
    replaceOpWithBufferizedValues(rewriter, op, dests);
    return success();
  }
};

/// kiln.attention reads q, k and v and writes its destination's buffer, which becomes its
/// result, through the kernel; buffers the kernel cannot take (strided views) go through
/// contiguous copies.
struct AttentionBufferization
    : BufferizableOpInterface::ExternalModel<AttentionBufferization, AttentionOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand, const AnalysisState &) const {
    return &operand != &cast<AttentionOp>(op).getInitMutable();
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand, const AnalysisState &) const {
    return &operand == &cast<AttentionOp>(op).getInitMutable();
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (&operand != &cast<AttentionOp>(op).getInitMutable())
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options, BufferizationState &state) const {
    auto attention = cast<AttentionOp>(op);
    Location loc = op->getLoc();
    auto contiguous = [&](Value buffer, bool copyIn) {
      return contiguousBuffer(rewriter, loc, buffer, copyIn);
    };
    SmallVector<Value> inputs;
    for (Value v : {attention.getQ(), attention.getK(), attention.getV(), attention.getMask()}) {
      if (!v)
        continue;
      FailureOr<Value> buffer = getBuffer(rewriter, v, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(contiguous(*buffer, true));
    }
    FailureOr<Value> dest = getBuffer(rewriter, attention.getInit(), options, state);
    if (failed(dest))
      return failure();
    Value out = contiguous(*dest, false);
    SmallVector<int64_t, 6> n = attention.getSizes();
    static constexpr StringLiteral sizes[] = {"batch", "heads", "sq", "sk", "d", "dv"};
    NamedAttrList params;
    for (auto [name, value] : llvm::zip(sizes, n))
      params.set(name, rewriter.getI64IntegerAttr(value));
    params.set("scale", attention.getScaleAttr());
    if (Value mask = attention.getMask()) {
      // Dense strides, 0 where the mask broadcasts (size 1).
      ArrayRef<int64_t> shape = cast<ShapedType>(mask.getType()).getShape();
      static constexpr StringLiteral strides[] = {"mask_batch_stride", "mask_head_stride",
                                                  "mask_row_stride"};
      int64_t dense = shape[3];
      for (int i = 2; i >= 0; --i) {
        params.set(strides[i], rewriter.getI64IntegerAttr(shape[i] == 1 ? 0 : dense));
        dense *= shape[i];
      }
    }
    const std::pair<StringLiteral, bool> flags[] = {{"q_seq_major", attention.getQSeqMajor()},
                                                    {"k_seq_major", attention.getKSeqMajor()},
                                                    {"v_seq_major", attention.getVSeqMajor()},
                                                    {"out_seq_major", attention.getOutSeqMajor()}};
    for (const auto &[name, present] : flags)
      if (present)
        params.set(name, rewriter.getUnitAttr());
    StringRef kernel = attention.getMask() ? "attention_masked_f32" : "attention_f32";
    KernelCallOp::create(rewriter, loc, rewriter.getStringAttr(kernel), inputs, ValueRange{out},
                         params.getDictionary(rewriter.getContext()));
    if (out != *dest)
      memref::CopyOp::create(rewriter, loc, out, *dest);
    replaceOpWithBufferizedValues(rewriter, op, *dest);
    return success();
  }
};
} // namespace

void kiln::dialect::registerBufferizableOpInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, KilnDialect *) {
    SendOp::attachInterface<ReadsFirstOperand<SendOp>>(*ctx);
    RecvOp::attachInterface<RecvBufferization>(*ctx);
    CheckOp::attachInterface<ReadsFirstOperand<CheckOp>>(*ctx);
    AttentionOp::attachInterface<AttentionBufferization>(*ctx);
    KernelOp::attachInterface<KernelBufferization>(*ctx);
  });
}
