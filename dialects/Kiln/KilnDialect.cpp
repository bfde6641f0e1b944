//===- KilnDialect.cpp - The kiln dialect -------------------------------------===//
#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
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
    return emitOpError() << "has the type " << FunctionType::get(getContext(),
                                                                 getInputs().getTypes(),
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
    return emitOpError() << "yields " << getResult().getType() << " into "
                         << getDest().getType();
  return success();
}

LogicalResult CheckOp::verify() {
  StringRef kind = getKind();
  if (kind != "nonzero" && kind != "nonnegative" && kind != "in_range")
    return emitOpError() << "has the kind '" << kind
                         << "'; expected nonzero, nonnegative or in_range";
  auto shaped = cast<ShapedType>(getSubject().getType());
  if (!shaped.getElementType().isIntOrIndex())
    return emitOpError() << "checks " << shaped.getElementType()
                         << " values; only integers are checked";
  ArrayRef<int64_t> bounds = getBounds();
  if (kind != "in_range")
    return bounds.empty() ? success() : emitOpError() << "has bounds but is not in_range";
  int64_t last = shaped.getRank() > 0 ? shaped.getDimSize(shaped.getRank() - 1) : 1;
  if (bounds.size() != 1 && int64_t(bounds.size()) != last)
    return emitOpError() << "has " << bounds.size()
                         << " bounds; expected 1 or one per position of the last dimension ("
                         << last << ")";
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
struct ReadsFirstOperand
    : BufferizableOpInterface::ExternalModel<ReadsFirstOperand<OpT>, OpT> {
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
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    FailureOr<Value> buffer = getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(buffer))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op->setOperand(0, *buffer); });
    return success();
  }
};

struct RecvBufferization
    : BufferizableOpInterface::ExternalModel<RecvBufferization, RecvOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return false;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &,
                                      const AnalysisState &) const {
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto recv = cast<RecvOp>(op);
    FailureOr<Value> buffer = getBuffer(rewriter, recv.getDest(), options, state);
    if (failed(buffer))
      return failure();
    RecvOp::create(rewriter, op->getLoc(), Type(), recv.getTensorNameAttr(), *buffer);
    replaceOpWithBufferizedValues(rewriter, op, *buffer);
    return success();
  }
};
} // namespace

void kiln::dialect::registerBufferizableOpInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, KilnDialect *) {
    SendOp::attachInterface<ReadsFirstOperand<SendOp>>(*ctx);
    RecvOp::attachInterface<RecvBufferization>(*ctx);
    CheckOp::attachInterface<ReadsFirstOperand<CheckOp>>(*ctx);
  });
}
