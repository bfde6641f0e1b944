//===- FoldPads.cpp - zero padding becomes the convolution's own --------------===//
#include "passes/Graph/Passes.h"
#include "dialects/TF/Ops/Infer.h"
#include "dialects/TF/TFOps.h"

namespace kiln::graph {
#define GEN_PASS_DEF_FOLDPADSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// The 8 per-dimension (before, after) amounts a tf.Pad or a tf.PadV2 with a zero value
/// adds to a 4-D tensor, if they are constants, non-negative, and the op has no control
/// inputs (folding it would drop them).
std::optional<SmallVector<int64_t>> zeroPadding(Operation *op) {
  Value paddings;
  if (auto pad = dyn_cast<kiln::tf::PadOp>(op)) {
    if (!pad.getControlInputs().empty())
      return std::nullopt;
    paddings = pad.getPaddings();
  } else if (auto pad = dyn_cast<kiln::tf::PadV2Op>(op)) {
    if (!pad.getControlInputs().empty())
      return std::nullopt;
    paddings = pad.getPaddings();
    auto c = pad.getConstantValues().getDefiningOp<kiln::tf::ConstOp>();
    auto v = c ? dyn_cast<DenseFPElementsAttr>(c.getValueAttr()) : DenseFPElementsAttr();
    if (!v || v.getNumElements() != 1 || !(*v.value_begin<APFloat>()).isZero())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  auto amounts = kiln::tf::constantIntsOf(paddings);
  if (!amounts || amounts->size() != 8 || llvm::any_of(*amounts, [](int64_t p) { return p < 0; }))
    return std::nullopt;
  return amounts;
}

/// Whether `op` is a convolution whose window padding can take `pad` (in the input's
/// dimension order, which is the data format's): VALID or EXPLICIT padding, and `pad`
/// touches neither the batch nor the channel dimension.
bool takesPadding(Operation *op, ArrayRef<int64_t> pad) {
  if (!isa<kiln::tf::Conv2DOp, kiln::tf::DepthwiseConv2dNativeOp, kiln::tf::FusedConv2DOp>(op))
    return false;
  auto padding = op->getAttrOfType<StringAttr>("padding");
  if (!padding || (padding.getValue() != "VALID" && padding.getValue() != "EXPLICIT"))
    return false;
  auto format = op->getAttrOfType<StringAttr>("data_format");
  int64_t channel = format && format.getValue() == "NCHW" ? 1 : 3;
  return pad[0] == 0 && pad[1] == 0 && pad[2 * channel] == 0 && pad[2 * channel + 1] == 0;
}

struct FoldPadsPass : kiln::graph::impl::FoldPadsPassBase<FoldPadsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      auto pad = zeroPadding(&op);
      if (!pad)
        continue;
      Value padded = op.getResult(0), input = op.getOperand(0);
      for (OpOperand &use : llvm::make_early_inc_range(padded.getUses())) {
        Operation *conv = use.getOwner();
        if (use.getOperandNumber() != 0 || !takesPadding(conv, *pad))
          continue;
        SmallVector<int64_t> explicitPads(8, 0);
        if (conv->getAttrOfType<StringAttr>("padding").getValue() == "EXPLICIT")
          if (auto old = conv->getAttrOfType<ArrayAttr>("explicit_paddings");
              old && old.size() == 8)
            for (auto [i, a] : llvm::enumerate(old))
              explicitPads[i] = cast<IntegerAttr>(a).getInt();
        for (int i = 0; i < 8; ++i)
          explicitPads[i] += (*pad)[i];
        OpBuilder b(conv);
        conv->setAttr("padding", b.getStringAttr("EXPLICIT"));
        conv->setAttr("explicit_paddings", b.getI64ArrayAttr(explicitPads));
        use.set(input);
        ++numFolded;
      }
      if (padded.use_empty())
        op.erase();
    }
  }
};

} // namespace
