//===- InferShapes.cpp - propagate static shapes through the graph ------------===//
#include "passes/Graph/Passes.h"

#include "dialects/TF/Ops/Infer.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace kiln::graph {
#define GEN_PASS_DEF_INFERSHAPESPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// The more precise of two compatible types, or null if they are not compatible.
Type refine(Type current, Type inferred) {
  if (current == inferred)
    return current;
  auto cur = dyn_cast<TensorType>(current);
  auto inf = dyn_cast<TensorType>(inferred);
  if (!cur || !inf || cur.getElementType() != inf.getElementType())
    return {};
  if (!inf.hasRank())
    return cur;
  if (!cur.hasRank())
    return inf;
  if (cur.getRank() != inf.getRank())
    return {};
  SmallVector<int64_t> dims;
  for (auto [c, i] : llvm::zip(cur.getShape(), inf.getShape())) {
    if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(i) && c != i)
      return {};
    dims.push_back(ShapedType::isDynamic(c) ? i : c);
  }
  return RankedTensorType::get(dims, cur.getElementType());
}

/// Re-infers `op`'s result types and refines them; false (after an error) on a conflict.
bool inferOp(InferTypeOpInterface op) {
  SmallVector<Type> inferred;
  Operation *raw = op.getOperation();
  if (failed(op.inferReturnTypes(raw->getContext(), raw->getLoc(), raw->getOperands(),
                                 raw->getAttrDictionary(), raw->getPropertiesStorage(),
                                 raw->getRegions(), inferred)))
    return false;
  for (auto [res, type] : llvm::zip(raw->getResults(), inferred)) {
    Type refined = refine(res.getType(), type);
    if (!refined) {
      raw->emitOpError() << "result type " << res.getType() << " conflicts with the inferred type "
                         << type;
      return false;
    }
    res.setType(refined);
  }
  return true;
}

/// The arguments of a control-flow op's regions take the types of the inputs they stand
/// for, before the regions' ops are inferred.
bool refineRegionArguments(Operation *op, ValueRange inputs) {
  for (Region &region : op->getRegions()) {
    if (region.empty() || region.front().getNumArguments() != inputs.size())
      continue; // the verifier reports it
    for (auto [arg, input] : llvm::zip(region.front().getArguments(), inputs)) {
      Type refined = refine(arg.getType(), input.getType());
      if (!refined) {
        op->emitOpError() << "a region argument of type " << arg.getType()
                          << " conflicts with its input's type " << input.getType();
        return false;
      }
      arg.setType(refined);
    }
  }
  return true;
}

/// The most iterations a loop whose variables change shape is unrolled for, and the most
/// ops unrolling one loop may add.
constexpr int64_t kMaxUnrolledIterations = 4096;
constexpr int64_t kMaxUnrolledOps = int64_t(1) << 20;

std::optional<SmallVector<Value>> inferOperation(Operation &op, int64_t &budget);

/// Whether `value` is a constant, or the control token of a NoOp that waits for constants
/// alone: an ordering after it orders nothing.
bool constantOrOrderedAfterConstants(Value value) {
  if (value.getDefiningOp<kiln::tf::ConstOp>())
    return true;
  auto noOp = value.getDefiningOp<kiln::tf::NoOpOp>();
  return noOp && llvm::all_of(noOp->getOperands(),
                              [](Value v) { return v.getDefiningOp<kiln::tf::ConstOp>(); });
}

/// Whether `op` computes its results from constants alone: a tf op other than a constant
/// or a control-flow op whose data inputs tf.Const defines and whose control inputs, if any,
/// wait for constants only (a conditional's branch that was taken on a constant holds
/// Identity ops ordered after the constant predicate). Those control inputs are dropped,
/// so that its folder may run.
bool onConstants(Operation &op) {
  auto graphOp = dyn_cast<kiln::tf::GraphOpInterface>(op);
  if (!graphOp || isa<kiln::tf::ConstOp>(op) || op.getNumRegions() != 0 ||
      op.getNumOperands() == 0 ||
      !llvm::all_of(graphOp.getDataInputs(),
                    [](Value v) { return v.getDefiningOp<kiln::tf::ConstOp>(); }) ||
      !llvm::all_of(graphOp.getControlInputs(), constantOrOrderedAfterConstants))
    return false;
  graphOp.getControlInputsMutable().clear();
  return true;
}

/// Whether `op` is a Minimum or Maximum with a constant operand and no control inputs,
/// which may fold while its other operand is unknown (an integer clamp: MinimumOp::fold).
bool isClampOfConstant(Operation &op) {
  auto graphOp = dyn_cast<kiln::tf::GraphOpInterface>(op);
  return isa<kiln::tf::MinimumOp, kiln::tf::MaximumOp>(op) && graphOp &&
         graphOp.getControlInputs().empty() && llvm::any_of(graphOp.getDataInputs(), [](Value v) {
           return v.getDefiningOp<kiln::tf::ConstOp>();
         });
}

/// Infers the ops of `block` in order, regions before the op that holds them. An op of
/// constants is evaluated (its folder) as soon as its types are known, as grappler's
/// shape folding does, so that the shape arithmetic Keras writes (Shape, StridedSlice,
/// Cast, Pack, ConcatV2, Range ...) leaves constants its users' inference reads in the
/// same walk.
bool inferBlock(Block &block, int64_t &budget) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    SmallVector<Value> results(op.getResults());
    std::optional<SmallVector<Value>> values = inferOperation(op, budget);
    if (!values)
      return false;
    // (A loop unrolled or a conditional inlined is gone.)
    if (llvm::equal(*values, results) &&
        (isa<kiln::tf::ShapeOp, kiln::tf::SizeOp, kiln::tf::RankOp, kiln::tf::ShapeNOp>(op) ||
         isClampOfConstant(op) || onConstants(op)))
      (void)kiln::graph::foldConstantOp(&op);
  }
  return true;
}

/// Copies `region`'s ops before `b`'s insertion point, its arguments taking `args`, and
/// infers and folds each copy: the values it yields, or none after an error.
std::optional<SmallVector<Value>> inlineRegion(Region &region, ValueRange args, OpBuilder &b,
                                               int64_t &budget) {
  IRMapping map;
  map.map(region.front().getArguments(), args);
  for (Operation &op : region.front().without_terminator()) {
    Operation *copy = b.clone(op, map);
    --budget;
    // The copy's types were inferred for the loop's first values; they are inferred anew.
    copy->walk([](Operation *inner) {
      auto unranked = [](Value v) {
        if (auto tensor = dyn_cast<TensorType>(v.getType()))
          v.setType(UnrankedTensorType::get(tensor.getElementType()));
      };
      if (isa<InferTypeOpInterface>(inner))
        llvm::for_each(inner->getResults(), unranked);
      for (Region &region : inner->getRegions())
        for (Block &block : region)
          llvm::for_each(block.getArguments(), unranked);
    });
    std::optional<SmallVector<Value>> values = inferOperation(*copy, budget);
    if (!values)
      return std::nullopt;
    if (values->size() == copy->getNumResults() && llvm::equal(*values, copy->getResults())) {
      (void)onConstants(*copy); // its control inputs on constants go
      if (std::optional<SmallVector<Value>> folded = kiln::graph::foldConstantOp(copy))
        values = folded;
    }
    map.map(op.getResults(), *values);
  }
  SmallVector<Value> yielded;
  for (Value v : region.front().getTerminator()->getOperands())
    yielded.push_back(map.lookupOrDefault(v));
  return yielded;
}

/// Whether `value` is a constant TensorFlow reads as true (a nonzero scalar, a tensor
/// with elements), if it is a constant.
std::optional<bool> constantTruth(Value value) {
  auto c = value.getDefiningOp<kiln::tf::ConstOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValueAttr()) : DenseElementsAttr();
  if (!dense)
    return std::nullopt;
  if (dense.getType().getRank() != 0)
    return dense.getNumElements() > 0;
  Type element = dense.getElementType();
  if (element.isInteger(1))
    return dense.getSplatValue<bool>();
  if (isa<IntegerType>(element))
    return !dense.getSplatValue<APInt>().isZero();
  if (isa<FloatType>(element))
    return !dense.getSplatValue<APFloat>().isZero();
  return std::nullopt;
}

/// A loop whose body changes a variable's shape runs as the sequence of its iterations
/// when its condition is a compile-time constant each time round (a counter from a
/// constant to a constant, as tf.while_loop growing a tensor by concatenation): the
/// values it leaves, or none after an error that says which variable changes.
std::optional<SmallVector<Value>> unrollLoop(kiln::tf::WhileOp loop, unsigned variable,
                                             int64_t &budget) {
  Type before = loop.getInputs()[variable].getType();
  Type after = loop.getBody().front().getTerminator()->getOperand(variable).getType();
  auto fail = [&](const Twine &why) {
    loop->emitError() << "loop variable " << variable << " is " << kiln::tf::describeType(before)
                      << " before the loop but the body makes it " << kiln::tf::describeType(after)
                      << ", and " << why
                      << ": Kiln compiles loops whose variables keep their dtypes and shapes, "
                         "or that it can unroll";
    return std::nullopt;
  };
  OpBuilder b(loop);
  SmallVector<Value> values(loop.getInputs());
  for (int64_t n = 0;; ++n) {
    if (n > kMaxUnrolledIterations)
      return fail("it runs more than " + Twine(kMaxUnrolledIterations) +
                  " iterations, too many to unroll");
    std::optional<SmallVector<Value>> cond = inlineRegion(loop.getCond(), values, b, budget);
    if (!cond)
      return std::nullopt;
    std::optional<bool> holds = constantTruth(cond->front());
    if (!holds)
      return fail(n == 0
                      ? Twine("its condition is not known at compile time, so it cannot be "
                              "unrolled")
                      : "its condition is not known at compile time after " + Twine(n) +
                            (n == 1 ? " iteration" : " iterations") + ", so it cannot be unrolled");
    if (!*holds)
      break;
    std::optional<SmallVector<Value>> next = inlineRegion(loop.getBody(), values, b, budget);
    if (!next)
      return std::nullopt;
    if (budget < 0)
      return fail("unrolling it would add more than " + Twine(kMaxUnrolledOps) + " ops");
    values = *next;
  }
  loop->replaceAllUsesWith(values);
  loop->erase();
  return values;
}

/// Infers `op` (its regions first): the values its results became (its own, or the
/// unrolled iterations' of a loop that changes shapes), or none after an error.
std::optional<SmallVector<Value>> inferOperation(Operation &op, int64_t &budget) {
  auto ifOp = dyn_cast<kiln::tf::IfOp>(op);
  if (ifOp && ifOp.getControlInputs().empty())
    if (std::optional<bool> holds = constantTruth(ifOp.getCond())) {
      // A conditional on a constant is the branch it takes (Keras's resizing with
      // pad_to_aspect_ratio tests sizes that static shapes decide).
      OpBuilder b(ifOp);
      std::optional<SmallVector<Value>> values = inlineRegion(
          *holds ? ifOp.getThenBranch() : ifOp.getElseBranch(), ifOp.getInputs(), b, budget);
      if (!values)
        return std::nullopt;
      ifOp->replaceAllUsesWith(*values);
      ifOp->erase();
      return values;
    }
  if (ifOp && !refineRegionArguments(ifOp, ifOp.getInputs()))
    return std::nullopt;
  if (auto caseOp = dyn_cast<kiln::tf::CaseOp>(op);
      caseOp && !refineRegionArguments(caseOp, caseOp.getInputs()))
    return std::nullopt;
  auto whileOp = dyn_cast<kiln::tf::WhileOp>(op);
  if (whileOp && !refineRegionArguments(whileOp, whileOp.getInputs()))
    return std::nullopt;
  for (Region &region : op.getRegions())
    for (Block &inner : region)
      if (!inferBlock(inner, budget))
        return std::nullopt;
  if (whileOp) {
    Operation *yield = whileOp.getBody().front().getTerminator();
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip(whileOp.getInputs().getTypes(), yield->getOperandTypes())))
      if (!refine(std::get<0>(pair), std::get<1>(pair)))
        return unrollLoop(whileOp, i, budget);
  }
  if (auto infer = dyn_cast<InferTypeOpInterface>(op); infer && !inferOp(infer))
    return std::nullopt;
  return SmallVector<Value>(op.getResults());
}

struct InferShapesPass : kiln::graph::impl::InferShapesPassBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    int64_t budget = kMaxUnrolledOps;
    if (!inferBlock(func.getBody().front(), budget))
      return signalPassFailure();
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    func.setType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), ret.getOperandTypes()));
  }
};

} // namespace
