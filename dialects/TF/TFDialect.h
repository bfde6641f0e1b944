//===- TFDialect.h - The tf dialect ----------------------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_TF_TFDIALECT_H
#define KILN_DIALECTS_TF_TFDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/TF/TFOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/TF/TFOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TF/TFOpsAttrs.h.inc"

#endif // KILN_DIALECTS_TF_TFDIALECT_H
