//===- ResolveLists.cpp - give every TensorList its dense type ----------------===//
//
// A TensorList of N elements of shape S is the tensor [N, S...]. A list reserved with an
// unknown element shape learns it only from what the program does with it, often inside a
// loop: an item set into it, the shape it is read or stacked as. The values that are one
// list (through SetItem, Stack, Identity, loop variables, branch inputs and results) form
// one class (through ScatterIntoExistingList too); everything any member says about N and
// S (a Gather's result too) is merged, and each member takes
// the merged type. kiln-graph-infer-shapes then carries it on.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "llvm/ADT/EquivalenceClasses.h"

namespace kiln::graph {
#define GEN_PASS_DEF_RESOLVELISTSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
namespace tf = kiln::tf;

namespace {

/// What is known of one list: its length and its elements' shape, each possibly unknown.
struct Knowledge {
  int64_t length = ShapedType::kDynamic;
  std::optional<SmallVector<int64_t>> element;
  Operation *where = nullptr; // an op that gave the element's rank, for errors

  /// Adds one fact; fails (after an error at `op`) when it contradicts another.
  LogicalResult addLength(int64_t n, Operation *op) {
    if (ShapedType::isDynamic(n))
      return success();
    if (!ShapedType::isDynamic(length) && length != n)
      return op->emitError() << "this TensorList has " << n << " elements here but " << length
                             << " elsewhere";
    length = n;
    return success();
  }
  LogicalResult addElement(ArrayRef<int64_t> dims, Operation *op) {
    if (!element) {
      element = SmallVector<int64_t>(dims);
      where = op;
      return success();
    }
    if (element->size() != dims.size())
      return op->emitError() << "this TensorList's elements have rank " << dims.size()
                             << " here but " << element->size() << " elsewhere";
    for (auto [known, d] : llvm::zip(*element, dims)) {
      if (ShapedType::isDynamic(d))
        continue;
      if (!ShapedType::isDynamic(known) && known != d)
        return op->emitError() << "this TensorList's elements are " << tf::describeDims(dims)
                               << " here but " << tf::describeDims(*element) << " elsewhere";
      known = d;
    }
    return success();
  }
  /// A member's own type.
  LogicalResult addType(Type type, Operation *op) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || ranked.getRank() == 0)
      return success();
    if (failed(addLength(ranked.getDimSize(0), op)))
      return failure();
    return addElement(ranked.getShape().drop_front(), op);
  }
};

/// The list a list op makes or takes: Reserve's result, every other op's first operand.
Value listOf(Operation *op) {
  return isa<tf::TensorListReserveOp>(op) ? op->getResult(0) : op->getOperand(0);
}

struct ResolveListsPass : kiln::graph::impl::ResolveListsPassBase<ResolveListsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    llvm::EquivalenceClasses<Value> classes;
    SmallVector<Operation *> listOps;
    auto join = [&](Value a, Value b) { classes.unionSets(a, b); };
    func.walk([&](Operation *op) {
      if (isa<tf::TensorListReserveOp, tf::TensorListFromTensorOp, tf::TensorListGetItemOp,
              tf::TensorListSetItemOp, tf::TensorListStackOp, tf::TensorListLengthOp,
              tf::TensorListElementShapeOp, tf::TensorListGatherOp,
              tf::TensorListScatterIntoExistingListOp>(op)) {
        listOps.push_back(op);
        classes.insert(listOf(op));
      }
      if (auto set = dyn_cast<tf::TensorListSetItemOp>(op))
        join(set.getInputHandle(), set.getOutputHandle());
      else if (auto scatter = dyn_cast<tf::TensorListScatterIntoExistingListOp>(op))
        join(scatter.getInputHandle(), scatter.getOutputHandle());
      else if (auto stack = dyn_cast<tf::TensorListStackOp>(op))
        join(stack.getInputHandle(), stack.getTensor());
      else if (auto from = dyn_cast<tf::TensorListFromTensorOp>(op))
        join(from.getTensor(), from.getOutputHandle());
      else if (auto id = dyn_cast<tf::IdentityOp>(op))
        join(id.getInput(), id.getOutput());
      else if (auto idn = dyn_cast<tf::IdentityNOp>(op))
        for (auto [in, out] : llvm::zip(idn.getValues(), idn.getResults()))
          join(in, out);
      else if (auto loop = dyn_cast<tf::WhileOp>(op))
        joinRegions(op, loop.getInputs(), /*loopCarried=*/true, join);
      else if (auto branch = dyn_cast<tf::IfOp>(op))
        joinRegions(op, branch.getInputs(), false, join);
      else if (auto branch = dyn_cast<tf::CaseOp>(op))
        joinRegions(op, branch.getInputs(), false, join);
    });
    if (listOps.empty())
      return;

    // What each class knows, from its list ops and its members' types.
    DenseMap<Value, Knowledge> known; // by the class's leader
    auto leader = [&](Value v) { return classes.getLeaderValue(v); };
    for (Operation *op : listOps) {
      Knowledge &k = known[leader(listOf(op))];
      LogicalResult ok = success();
      if (auto reserve = dyn_cast<tf::TensorListReserveOp>(op)) {
        if (auto n = tf::constantIntsOf(reserve.getNumElements()); n && n->size() == 1)
          ok = k.addLength((*n)[0], op);
        if (auto e = tf::listElementShape(reserve.getElementShape()); succeeded(ok) && e)
          ok = k.addElement(*e, op);
      } else if (auto get = dyn_cast<tf::TensorListGetItemOp>(op)) {
        if (auto e = tf::listElementShape(get.getElementShape()))
          ok = k.addElement(*e, op);
      } else if (auto set = dyn_cast<tf::TensorListSetItemOp>(op)) {
        if (auto item = dyn_cast<RankedTensorType>(set.getItem().getType()))
          ok = k.addElement(item.getShape(), op);
      } else if (auto gather = dyn_cast<tf::TensorListGatherOp>(op)) {
        if (auto e = tf::listElementShape(gather.getElementShape()))
          ok = k.addElement(*e, op);
        auto indices = dyn_cast<RankedTensorType>(gather.getIndices().getType());
        auto values = dyn_cast<RankedTensorType>(gather.getValues().getType());
        if (succeeded(ok) && indices && values && values.getRank() >= indices.getRank())
          ok = k.addElement(values.getShape().drop_front(indices.getRank()), op);
      } else if (auto scatter = dyn_cast<tf::TensorListScatterIntoExistingListOp>(op)) {
        if (auto rows = dyn_cast<RankedTensorType>(scatter.getTensor().getType());
            rows && rows.getRank() > 0)
          ok = k.addElement(rows.getShape().drop_front(), op);
      } else if (auto stack = dyn_cast<tf::TensorListStackOp>(op)) {
        if (auto e = tf::listElementShape(stack.getElementShape()))
          ok = k.addElement(*e, op);
        int64_t n = stack.getNumElementsAttr() ? stack.getNumElementsAttr().getInt() : -1;
        if (succeeded(ok) && n >= 0)
          ok = k.addLength(n, op);
      }
      if (failed(ok))
        return signalPassFailure();
    }
    // Members' own types (a list made from a tensor knows it all).
    for (auto it = classes.begin(); it != classes.end(); ++it) {
      if (!(*it)->isLeader())
        continue;
      Value lead = (*it)->getData();
      auto found = known.find(lead);
      if (found == known.end())
        continue;
      for (auto member = classes.member_begin(**it); member != classes.member_end(); ++member) {
        Value v = *member;
        Operation *at = v.getDefiningOp() ? v.getDefiningOp() : v.getParentBlock()->getParentOp();
        if (failed(found->second.addType(v.getType(), at)))
          return signalPassFailure();
      }
    }
    // Every member takes the merged type; a list whose length or element shape stays
    // unknown is reported where it is made.
    for (auto &[lead, k] : known) {
      bool complete = !ShapedType::isDynamic(k.length) && k.element &&
                      llvm::none_of(*k.element, ShapedType::isDynamic);
      auto element = cast<TensorType>(lead.getType()).getElementType();
      if (!complete) {
        Operation *maker = nullptr;
        for (auto member = classes.findLeader(lead); member != classes.member_end(); ++member)
          if (auto def = (*member).getDefiningOp<tf::TensorListReserveOp>())
            maker = def;
        if (!maker)
          continue; // a list of unknown shape from outside: shape inference reports it
        maker->emitError() << "the "
                           << (ShapedType::isDynamic(k.length) ? "length" : "element shape")
                           << " of this TensorList is not known at compile time: nothing "
                              "that makes, sets, reads or stacks it gives "
                           << (ShapedType::isDynamic(k.length) ? "a constant length"
                                                               : "a static element shape")
                           << (k.element ? " (elements " + tf::describeDims(*k.element) + ")"
                                         : std::string());
        return signalPassFailure();
      }
      SmallVector<int64_t> dims{k.length};
      dims.append(k.element->begin(), k.element->end());
      auto type = RankedTensorType::get(dims, element);
      for (auto member = classes.findLeader(lead); member != classes.member_end(); ++member) {
        Value v = *member;
        if (auto t = dyn_cast<TensorType>(v.getType()); t && t.getElementType() == element)
          v.setType(type);
      }
      ++numResolved;
    }
    // A list the function returns changed the function's result type.
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    func.setType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), ret.getOperandTypes()));
  }

  /// Joins a control-flow op's inputs with its regions' arguments, and its results with
  /// what the regions yield (for a loop, the body's yields are the next arguments too).
  template <typename Join>
  static void joinRegions(Operation *op, OperandRange inputs, bool loopCarried, Join join) {
    for (Region &region : op->getRegions()) {
      if (region.empty())
        continue;
      Block &block = region.front();
      for (auto [input, arg] : llvm::zip(inputs, block.getArguments()))
        join(input, arg);
      auto yield = dyn_cast<tf::YieldOp>(block.back());
      if (!yield)
        continue;
      bool isCond = loopCarried && &region == &op->getRegion(0);
      if (isCond)
        continue;
      for (auto [value, result] : llvm::zip(yield.getValues(), op->getResults()))
        join(value, result);
      if (loopCarried)
        for (auto [value, input] : llvm::zip(yield.getValues(), inputs))
          join(value, input);
    }
    if (loopCarried)
      for (auto [input, result] : llvm::zip(inputs, op->getResults()))
        join(input, result);
  }
};

} // namespace
