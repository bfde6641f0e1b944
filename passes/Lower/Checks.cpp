//===- Checks.cpp - kiln.check ops become loops that record a failure ---------===//
#include "passes/Lower/Passes.h"

#include "dialects/Kiln/ABI.h"
#include "dialects/Kiln/Model.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::lower {
#define GEN_PASS_DEF_CHECKSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
namespace abi = kiln::dialect::abi;
using kiln::dialect::CheckOp;

namespace {

/// Whether `x` (the checked element, an integer, or a float for not_nan and not_inf) meets
/// `check`'s condition; `last` is its index along the last dimension (for bounds per
/// position), or null.
Value meets(OpBuilder &b, Location loc, CheckOp check, Value x, Value last) {
  auto constant = [&](Type t, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v)).getResult();
  };
  Type t = x.getType();
  StringRef kind = check.getKind();
  if (kind == "not_nan")
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
  if (kind == "not_inf") {
    const llvm::fltSemantics &semantics = cast<FloatType>(t).getFloatSemantics();
    Value above = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, APFloat::getInf(semantics)));
    Value below = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(t, APFloat::getInf(semantics, /*Negative=*/true)));
    Value notAbove = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, above);
    Value notBelow = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, below);
    return arith::AndIOp::create(b, loc, notAbove, notBelow);
  }
  bool isUnsigned = check.getUnsignedValues();
  if (kind == "nonzero")
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, constant(t, 0));
  if (kind == "nonnegative")
    return isUnsigned ? constant(b.getI1Type(), 1)
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, x, constant(t, 0))
                            .getResult();
  // in_range and below: compared in 64 bits, where every bound fits.
  Type i64 = b.getI64Type();
  Value wide = x;
  if (t.getIntOrFloatBitWidth() < 64)
    wide = isUnsigned ? arith::ExtUIOp::create(b, loc, i64, x).getResult()
                      : arith::ExtSIOp::create(b, loc, i64, x).getResult();
  ArrayRef<int64_t> bounds = check.getBounds();
  Value bound = constant(i64, bounds[0]);
  for (size_t k = 1; k < bounds.size(); ++k) {
    Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, last,
                                       arith::ConstantIndexOp::create(b, loc, k));
    bound = arith::SelectOp::create(b, loc, here, constant(i64, bounds[k]), bound);
  }
  // Unsigned: one comparison; signed: 0 <= x < bound, which is the unsigned x < bound
  // (below: x < bound, signed).
  bool signedBelow = kind == "below" && !isUnsigned;
  return arith::CmpIOp::create(
      b, loc, signedBelow ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult, wide, bound);
}

/// The check on a buffer: the condition anded over every element; if it fails, the first
/// failing element's position and value, recorded in `status` unless another check got
/// there first.
void lowerCheck(CheckOp check, int64_t number, Value status) {
  OpBuilder b(check);
  Location loc = check.getLoc();
  Value subject = check.getSubject();
  auto type = cast<MemRefType>(subject.getType());
  int64_t rank = type.getRank();
  Type i1 = b.getI1Type(), i64 = b.getI64Type();
  Value trueValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));

  // All elements: a reduction into one flag.
  Value all = memref::AllocaOp::create(b, loc, MemRefType::get({}, i1));
  memref::StoreOp::create(b, loc, trueValue, all, ValueRange{});
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, b.getContext())};
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::reduction);
  linalg::GenericOp::create(
      b, loc, ValueRange{subject}, ValueRange{all}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value last = rank > 0 ? linalg::IndexOp::create(nb, l, rank - 1).getResult() : Value();
        Value ok = meets(nb, l, check, args[0], last);
        linalg::YieldOp::create(nb, l, arith::AndIOp::create(nb, l, args[1], ok).getResult());
      });
  Value passed = memref::LoadOp::create(b, loc, all, ValueRange{});
  Value failed = arith::XOrIOp::create(b, loc, passed, trueValue);

  scf::IfOp::create(b, loc, failed, [&](OpBuilder &ib, Location l) {
    // The first failing element, in row-major order.
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(ib, l, v).getResult(); };
    auto coordinates = [&](OpBuilder &fb, Value flat) {
      SmallVector<Value> at(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        Value size = arith::ConstantIndexOp::create(fb, l, type.getDimSize(d));
        at[d] = arith::RemUIOp::create(fb, l, flat, size);
        flat = arith::DivUIOp::create(fb, l, flat, size);
      }
      return at;
    };
    Value none = arith::ConstantOp::create(ib, l, ib.getIntegerAttr(i64, -1));
    auto search = scf::ForOp::create(
        ib, l, index(0), index(type.getNumElements()), index(1), ValueRange{none},
        [&](OpBuilder &fb, Location fl, Value i, ValueRange found) {
          SmallVector<Value> at = coordinates(fb, i);
          Value x = memref::LoadOp::create(fb, fl, subject, at);
          Value ok = meets(fb, fl, check, x, rank > 0 ? at.back() : Value());
          Value first = arith::AndIOp::create(
              fb, fl,
              arith::CmpIOp::create(fb, fl, arith::CmpIPredicate::slt, found[0],
                                    arith::ConstantOp::create(fb, fl, fb.getIntegerAttr(i64, 0))),
              arith::XOrIOp::create(fb, fl, ok,
                                    arith::ConstantOp::create(fb, fl, fb.getBoolAttr(true))));
          Value position = arith::IndexCastOp::create(fb, fl, i64, i);
          scf::YieldOp::create(
              fb, fl, ValueRange{arith::SelectOp::create(fb, fl, first, position, found[0])});
        });
    Value position = search.getResult(0);
    Value x = memref::LoadOp::create(
        ib, l, subject,
        coordinates(ib, arith::IndexCastOp::create(ib, l, ib.getIndexType(), position)));
    Value value = x;
    if (isa<FloatType>(x.getType())) // its bits (messages of float checks show no value)
      value = arith::BitcastOp::create(ib, l,
                                       ib.getIntegerType(x.getType().getIntOrFloatBitWidth()), x);
    if (value.getType().getIntOrFloatBitWidth() < 64)
      value = check.getUnsignedValues() || isa<FloatType>(x.getType())
                  ? arith::ExtUIOp::create(ib, l, i64, value).getResult()
                  : arith::ExtSIOp::create(ib, l, i64, value).getResult();

    // Record it unless an earlier check of this function failed (the function runs on one
    // thread; each partition has a status of its own).
    Value zero = arith::ConstantOp::create(ib, l, ib.getIntegerAttr(i64, 0));
    Value recorded = memref::LoadOp::create(ib, l, status, ValueRange{index(0)});
    Value first = arith::CmpIOp::create(ib, l, arith::CmpIPredicate::eq, recorded, zero);
    scf::IfOp::create(ib, l, first, [&](OpBuilder &wb, Location wl) {
      Value mine = arith::ConstantOp::create(wb, wl, wb.getIntegerAttr(i64, number));
      memref::StoreOp::create(wb, wl, mine, status, ValueRange{index(0)});
      memref::StoreOp::create(wb, wl, position, status, ValueRange{index(1)});
      memref::StoreOp::create(wb, wl, value, status, ValueRange{index(2)});
      scf::YieldOp::create(wb, wl);
    });
    scf::YieldOp::create(ib, l);
  });
  check.erase();
}

struct ChecksPass : kiln::lower::impl::ChecksPassBase<ChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    kiln::dialect::ModelOp model = kiln::dialect::getModel(module);
    SmallVector<Attribute> table;
    bool ok = true;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<CheckOp> checks;
      func.walk([&](CheckOp check) { checks.push_back(check); });
      if (checks.empty())
        continue;
      // The entry point that runs the function gives it the status and reports failures
      // with the model's table of checks.
      if (!model ||
          !kiln::dialect::updateParts(module, func.getSymName(), [](kiln::dialect::PartAttr part) {
            return part.withStatus();
          })) {
        func.emitError() << "has checks, but no part of a kiln.model entry point runs it "
                            "to report them; run kiln-lower-partitions first";
        ok = false;
        continue;
      }
      for (CheckOp check : checks) {
        auto type = dyn_cast<MemRefType>(check.getSubject().getType());
        if (!type || !type.hasStaticShape() || type.getRank() > abi::maxRank()) {
          check.emitOpError() << "needs a buffer of static shape; run after bufferization";
          ok = false;
        }
      }
      if (!ok)
        continue;
      auto statusType = MemRefType::get({abi::checkStatusWords()}, IntegerType::get(ctx, 64));
      Block &entry = func.getBody().front();
      BlockArgument status = entry.addArgument(statusType, func.getLoc());
      SmallVector<Type> inputs(func.getArgumentTypes());
      inputs.push_back(statusType);
      func.setType(FunctionType::get(ctx, inputs, func.getResultTypes()));
      for (CheckOp check : checks) {
        auto type = cast<MemRefType>(check.getSubject().getType());
        table.push_back(kiln::dialect::CheckAttr::get(ctx, check.getMessageAttr(),
                                                      DenseI64ArrayAttr::get(ctx, type.getShape()),
                                                      check.getUnsignedValues()));
        lowerCheck(check, static_cast<int64_t>(table.size()), status);
      }
    }
    if (!ok)
      return signalPassFailure();
    if (!table.empty())
      model.setChecksAttr(ArrayAttr::get(ctx, table));
  }
};

} // namespace
