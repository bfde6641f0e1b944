//===- InsertChecks.cpp - check input values as TensorFlow's kernels do --------===//
#include "dialects/Kiln/ABI.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::graph {
#define GEN_PASS_DEF_INSERTCHECKSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
namespace abi = kiln::dialect::abi;

namespace {

/// "node 'NAME' (OpType): ", the node name with unprintable bytes escaped.
std::string messagePrefix(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "node '";
  llvm::printEscapedString(kiln::graph::nodeName(op), os);
  StringRef opName = op->getName().getStringRef();
  os << "' (" << opName.drop_front(op->getDialect()->getNamespace().size() + 1) << "): ";
  return text;
}

/// Whether `v` meets `check`'s condition at row-major position `position`.
bool meets(const kiln::tf::RuntimeCheck &check, const APInt &v, bool isUnsigned, int64_t position,
           int64_t lastDim) {
  if (check.kind == "nonzero")
    return !v.isZero();
  if (check.kind == "nonnegative")
    return isUnsigned || !v.isNegative();
  int64_t bound = check.bounds.size() == 1 ? check.bounds[0]
                                           : check.bounds[position % std::max<int64_t>(lastDim, 1)];
  unsigned width = v.getBitWidth();
  if (isUnsigned)
    return v.getActiveBits() <= 63 && v.getZExtValue() < uint64_t(bound);
  if (check.kind == "below")
    return v.isNegative() ||
           ((width <= 64 || v.getSignificantBits() <= 64) && v.getSExtValue() < bound);
  return !v.isNegative() && (width <= 64 || v.getSignificantBits() <= 64) &&
         v.getSExtValue() < bound;
}

struct InsertChecksPass : kiln::graph::impl::InsertChecksPassBase<InsertChecksPass> {
  using InsertChecksPassBase::InsertChecksPassBase;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](kiln::tf::RuntimeChecksInterface iface) {
      Operation *op = iface.getOperation();
      SmallVector<kiln::tf::RuntimeCheck> checks;
      iface.getRuntimeChecks(checks);
      for (const kiln::tf::RuntimeCheck &check : checks) {
        auto type = dyn_cast<RankedTensorType>(check.subject.getType());
        if (!type || !type.hasStaticShape() || type.getRank() > abi::maxRank())
          continue; // not compiled anyway: lowering needs static shapes
        bool isUnsigned = type.getElementType().isUnsignedInteger();
        std::string message = messagePrefix(op) + check.message;
        if (auto c = check.subject.getDefiningOp<kiln::tf::ConstOp>()) {
          if (auto floats = dyn_cast<DenseFPElementsAttr>(c.getValue())) {
            // not_nan and not_inf: the first element that fails.
            int64_t position = 0;
            for (const APFloat &v : floats.getValues<APFloat>()) {
              if (check.kind == "not_nan" ? v.isNaN() : v.isInfinity()) {
                op->emitError() << abi::formatCheckMessage(message, type.getShape(), false,
                                                           position, 0);
                ok = false;
                break;
              }
              ++position;
            }
            continue;
          }
          auto values = dyn_cast<DenseIntElementsAttr>(c.getValue());
          if (!values)
            continue;
          int64_t position = 0, last = type.getRank() ? type.getShape().back() : 1;
          for (const APInt &v : values.getValues<APInt>()) {
            if (!meets(check, v, isUnsigned, position, last)) {
              int64_t bits = isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue();
              op->emitError() << abi::formatCheckMessage(message, type.getShape(), isUnsigned,
                                                         position, bits);
              ok = false;
              break;
            }
            ++position;
          }
          continue;
        }
        // Run-time checks read the values on the host: a GPU's partition has none yet.
        auto device = op->getAttrOfType<StringAttr>("device");
        if (constantsOnly || (device && kiln::dialect::isGpuDevice(device.getValue())))
          continue;
        OpBuilder b(op);
        auto created = kiln::dialect::CheckOp::create(b, op->getLoc(), check.kind, check.subject,
                                                      check.bounds, message);
        if (isUnsigned)
          created.setUnsignedValues(true);
        ++numChecks;
      }
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
