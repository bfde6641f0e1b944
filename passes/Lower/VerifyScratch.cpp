//===- VerifyScratch.cpp - no two live buffers share scratch memory -----------===//
#include "passes/Lower/Lifetimes.h"
#include "passes/Lower/Passes.h"

#include "mlir/IR/Matchers.h"

namespace kiln::lower {
#define GEN_PASS_DEF_VERIFYSCRATCHPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct VerifyScratchPass : kiln::lower::impl::VerifyScratchPassBase<VerifyScratchPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(verify(func)))
        signalPassFailure();
  }

  LogicalResult verify(func::FuncOp func) {
    // The arena kiln-lower-assign-scratch appends: a trailing memref<Nxi8>.
    if (func.isExternal() || func.getNumArguments() == 0)
      return success();
    Value arena = func.getArguments().back();
    auto arenaType = dyn_cast<MemRefType>(arena.getType());
    if (!arenaType || arenaType.getRank() != 1 || !arenaType.hasStaticShape() ||
        !arenaType.getElementType().isInteger(8))
      return success();
    int64_t arenaBytes = arenaType.getNumElements();
    struct Slot {
      memref::ViewOp view;
      int64_t begin, end;
    };
    SmallVector<Slot> slots;
    SmallVector<Value> buffers;
    bool ok = true;
    func.walk([&](memref::ViewOp view) {
      if (view.getSource() != arena)
        return;
      APInt offset;
      if (!matchPattern(view.getByteShift(), m_ConstantInt(&offset))) {
        view.emitError() << "scratch view at a non-constant offset";
        ok = false;
        return;
      }
      int64_t bytes = kiln::lower::bufferBytes(view.getType());
      int64_t begin = offset.getSExtValue();
      if (begin < 0 || begin + bytes > arenaBytes) {
        view.emitError() << "scratch view [" << begin << ", " << begin + bytes
                         << ") reaches outside the " << arenaBytes << "-byte arena";
        ok = false;
      }
      slots.push_back({view, begin, begin + bytes});
      buffers.push_back(view.getResult());
    });
    SmallVector<kiln::lower::Lifetime> lifetimes = kiln::lower::computeLifetimes(func, buffers);
    for (size_t i = 0; i < slots.size(); ++i) {
      for (size_t j = i + 1; j < slots.size(); ++j) {
        if (!lifetimes[i].overlaps(lifetimes[j]) || slots[i].end <= slots[j].begin ||
            slots[j].end <= slots[i].begin)
          continue;
        InFlightDiagnostic d = slots[i].view.emitError()
                               << "scratch bytes [" << slots[i].begin << ", " << slots[i].end
                               << ") overlap [" << slots[j].begin << ", " << slots[j].end
                               << ") of another buffer live at the same time";
        d.attachNote(slots[j].view.getLoc()) << "the other buffer";
        ok = false;
      }
    }
    return success(ok);
  }
};

} // namespace
