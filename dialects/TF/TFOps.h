//===- TFOps.h - tf dialect operations -------------------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_TF_TFOPS_H
#define KILN_DIALECTS_TF_TFOPS_H

#include "dialects/TF/TFDialect.h"
#include "dialects/TF/Ops/Infer.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/TF/TFInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialects/TF/TFOps.h.inc"

namespace kiln::tf {

/// Creates the tf op that `state` names (a registered op; `state` holds its operands and
/// attributes) with the result types its inference function gives. Returns null, after
/// the inference function has reported why at `state.location`, when the operands or
/// attributes are invalid.
mlir::Operation *createInferred(mlir::OpBuilder &builder, mlir::OperationState &state);

} // namespace kiln::tf

#endif // KILN_DIALECTS_TF_TFOPS_H
