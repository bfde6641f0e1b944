//===- InsertChecks.cpp - check input values as TensorFlow's kernels do --------===//
#include "passes/Graph/Passes.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"

#include "kiln/runtime/abi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::graph {
#define GEN_PASS_DEF_INSERTCHECKSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// "node 'NAME' (OpType): ", the node name with unprintable bytes escaped.
std::string messagePrefix(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "node '";
  llvm::printEscapedString(kiln::graph::nodeName(op), os);
  os << "' (" << op->getName().getStringRef().drop_front(op->getDialect()->getNamespace().size() + 1)
     << "): ";
  return text;
}

/// Whether `v` meets `check`'s condition at row-major position `position`.
bool meets(const kiln::tf::RuntimeCheck &check, const APInt &v, bool isUnsigned,
           int64_t position, int64_t lastDim) {
  if (check.kind == "nonzero")
    return !v.isZero();
  if (check.kind == "nonnegative")
    return isUnsigned || !v.isNegative();
  int64_t bound = check.bounds.size() == 1 ? check.bounds[0]
                                           : check.bounds[position % std::max<int64_t>(lastDim, 1)];
  unsigned width = v.getBitWidth();
  if (isUnsigned)
    return v.getActiveBits() <= 63 && v.getZExtValue() < uint64_t(bound);
  return !v.isNegative() && (width <= 64 || v.getSignificantBits() <= 64) &&
         v.getSExtValue() < bound;
}

/// The message of a check that failed at compile time, as the runtime would format it.
std::string format(const std::string &message, RankedTensorType type, bool isUnsigned,
                   int64_t position, int64_t value) {
  kiln_check_info_t info{message.c_str(), static_cast<int32_t>(type.getRank()), isUnsigned,
                         type.getShape().data()};
  int64_t length = kiln_check_format(&info, position, value, nullptr, 0);
  std::string text(static_cast<size_t>(length) + 1, '\0');
  kiln_check_format(&info, position, value, text.data(), length + 1);
  text.resize(static_cast<size_t>(length));
  return text;
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
        if (!type || !type.hasStaticShape() || type.getRank() > KILN_MAX_RANK)
          continue; // not compiled anyway: lowering needs static shapes
        bool isUnsigned = type.getElementType().isUnsignedInteger();
        std::string message = messagePrefix(op) + check.message;
        if (auto c = check.subject.getDefiningOp<kiln::tf::ConstOp>()) {
          auto values = dyn_cast<DenseIntElementsAttr>(c.getValue());
          if (!values)
            continue;
          int64_t position = 0, last = type.getRank() ? type.getShape().back() : 1;
          for (const APInt &v : values.getValues<APInt>()) {
            if (!meets(check, v, isUnsigned, position, last)) {
              int64_t bits = isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue();
              op->emitError() << format(message, type, isUnsigned, position, bits);
              ok = false;
              break;
            }
            ++position;
          }
          continue;
        }
        if (constantsOnly)
          continue;
        OpBuilder b(op);
        auto created = kiln::dialect::CheckOp::create(
            b, op->getLoc(), check.kind, check.subject, check.bounds, message);
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
