//===- TFOps.cpp - tf dialect operations --------------------------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::tf;

#define GET_OP_CLASSES
#include "dialects/TF/TFOps.cpp.inc"
