//===- TFOps.cpp - tf dialect operations --------------------------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::tf;

#define GET_OP_CLASSES
#include "dialects/TF/TFOps.cpp.inc"

Operation *kiln::tf::createInferred(OpBuilder &builder, OperationState &state) {
  MLIRContext *ctx = builder.getContext();
  auto name = RegisteredOperationName::lookup(state.name.getStringRef(), ctx);
  auto *infer = name ? name->getInterface<InferTypeOpInterface>() : nullptr;
  SmallVector<Type> types;
  if (!infer ||
      failed(infer->inferReturnTypes(ctx, state.location, state.operands,
                                     state.attributes.getDictionary(ctx), nullptr, {}, types)))
    return nullptr;
  state.addTypes(types);
  return builder.create(state);
}

Value kiln::tf::createTF(OpBuilder &builder, Location loc, StringRef name, ValueRange operands,
                         ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, ("tf." + name).str());
  state.addOperands(operands);
  state.addAttributes(attrs);
  Operation *op = createInferred(builder, state);
  return op ? op->getResult(0) : Value();
}
