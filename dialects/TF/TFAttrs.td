//===- TFAttrs.td - tf dialect attributes ------------------------*- tablegen -*-===//

#ifndef KILN_TF_ATTRS_TD
#define KILN_TF_ATTRS_TD

include "dialects/TF/TFDialect.td"

def TF_ShapeAttr : AttrDef<TF_Dialect, "Shape"> {
  let mnemonic = "shape";
  let summary = "a TensorFlow TensorShapeProto: dimensions, -1 for unknown, or unknown rank";
  let description = [{
    `#tf.shape<4x?x3>` has three dimensions, the second unknown; `#tf.shape<>` is a scalar;
    `#tf.shape<*>` has unknown rank.
  }];
  let parameters = (ins OptionalArrayRefParameter<"int64_t">:$dims, "bool":$unranked);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Dimensions with ShapedType::kDynamic for unknown ones; only meaningful when ranked.
    bool hasRank() const { return !getUnranked(); }
    /// The tensor type of this shape with `elementType`.
    ::mlir::TensorType toTensorType(::mlir::Type elementType) const;
  }];
}

#endif // KILN_TF_ATTRS_TD
