//===- TFDialect.cpp - The tf dialect -----------------------------------------===//
#include "dialects/TF/TFDialect.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::tf;

#include "dialects/TF/TFOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/TF/TFOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TF/TFOpsAttrs.cpp.inc"

#include "dialects/TF/TFInterfaces.cpp.inc"

void TFDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/TF/TFOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/TF/TFOpsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/TF/TFOps.cpp.inc"
      >();
}

/// A folded value, which is a tensor's elements, as the tf.Const that holds it.
Operation *TFDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                          Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstOp::create(builder, loc, type, elements, TypeAttr::get(elements.getElementType()),
                         ValueRange{});
}

//===----------------------------------------------------------------------===//
// #tf.shape
//===----------------------------------------------------------------------===//

Attribute ShapeAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> dims;
  bool unranked = false;
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalStar())) {
    unranked = true;
  } else if (failed(parser.parseOptionalGreater())) {
    if (parser.parseDimensionList(dims, /*allowDynamic=*/true, /*withTrailingX=*/false))
      return {};
  } else {
    return ShapeAttr::get(parser.getContext(), dims, false);
  }
  if (parser.parseGreater())
    return {};
  return ShapeAttr::get(parser.getContext(), dims, unranked);
}

void ShapeAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (getUnranked()) {
    printer << "*";
  } else {
    llvm::interleave(
        getDims(), printer,
        [&](int64_t d) {
          if (ShapedType::isDynamic(d))
            printer << "?";
          else
            printer << d;
        },
        "x");
  }
  printer << ">";
}

TensorType ShapeAttr::toTensorType(Type elementType) const {
  if (getUnranked())
    return UnrankedTensorType::get(elementType);
  return RankedTensorType::get(getDims(), elementType);
}
