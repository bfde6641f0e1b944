//===- ControlFlow.cpp - If and While -----------------------------------------===//
//
// The functional control flow ops carry their functions as regions, so their result types
// come from the regions (If) or the loop variables (While) rather than from an inference
// function of operands and attributes, and their verifiers check the regions against the
// inputs.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {
namespace {

/// Whether `a` and `b` are tensors of one element type whose shapes may agree.
bool compatible(Type a, Type b) {
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  return ta && tb && ta.getElementType() == tb.getElementType() &&
         succeeded(verifyCompatibleShape(ta, tb));
}

/// The type both branches' results fit: dimensions they disagree on become unknown, a
/// rank they disagree on an unknown rank.
Type join(TensorType a, TensorType b) {
  if (a == b)
    return a;
  if (!a.hasRank() || !b.hasRank() || a.getRank() != b.getRank())
    return UnrankedTensorType::get(a.getElementType());
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    dims.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(dims, a.getElementType());
}

/// The values a region yields, or null if it has no tf.Yield terminator (yet).
YieldOp yieldOf(Region &region) {
  if (region.empty() || region.front().empty())
    return nullptr;
  return dyn_cast<YieldOp>(region.front().back());
}

/// Checks that `region`'s block takes one argument per input, each compatible with it.
LogicalResult checkArguments(Operation *op, Region &region, StringRef name, OperandRange inputs) {
  if (region.empty())
    return op->emitOpError() << "has an empty " << name;
  Block &block = region.front();
  if (block.getNumArguments() != inputs.size())
    return op->emitOpError() << name << " takes " << block.getNumArguments() << " arguments for "
                             << inputs.size() << " inputs";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(block.getArgumentTypes(), inputs.getTypes())))
    if (!compatible(std::get<0>(pair), std::get<1>(pair)))
      return op->emitOpError() << name << " argument " << i << " of type "
                               << describeType(std::get<0>(pair)) << " does not match input " << i
                               << " of type " << describeType(std::get<1>(pair));
  if (!yieldOf(region))
    return op->emitOpError() << name << " does not end with tf.Yield";
  return success();
}

/// The results of branches `regions` (If's two, Case's N): their yields' types joined.
LogicalResult inferBranchResults(std::optional<Location> location, StringRef op,
                                 RegionRange regions, SmallVectorImpl<Type> &inferred) {
  SmallVector<YieldOp> yields;
  for (Region *region : regions) {
    YieldOp yield = yieldOf(*region);
    if (!yield)
      return emitOptionalError(location, op, " needs every branch to end in tf.Yield");
    yields.push_back(yield);
  }
  if (yields.empty())
    return emitOptionalError(location, op, " needs at least one branch");
  for (YieldOp yield : yields)
    if (yield.getNumOperands() != yields[0].getNumOperands())
      return emitOptionalError(location, "the branches of ", op, " return ",
                               yields[0].getNumOperands(), " and ", yield.getNumOperands(),
                               " results");
  for (unsigned i = 0; i < yields[0].getNumOperands(); ++i) {
    auto joined = dyn_cast<TensorType>(yields[0].getOperand(i).getType());
    for (YieldOp yield : yields) {
      auto type = dyn_cast<TensorType>(yield.getOperand(i).getType());
      if (!joined || !type || joined.getElementType() != type.getElementType())
        return emitOptionalError(location, "result ", i, " of ", op, " is ",
                                 describeType(yields[0].getOperand(i).getType()),
                                 " in one branch but ", describeType(yield.getOperand(i).getType()),
                                 " in another");
      joined = cast<TensorType>(join(joined, type));
    }
    inferred.push_back(joined);
  }
  return success();
}

/// Checks the branches of an If or Case against its inputs and results.
LogicalResult verifyBranches(Operation *op, MutableArrayRef<Region> regions, OperandRange inputs) {
  for (auto [i, region] : llvm::enumerate(regions)) {
    std::string name = "branch " + std::to_string(i);
    if (failed(checkArguments(op, region, name, inputs)))
      return failure();
    YieldOp yield = yieldOf(region);
    if (yield.getNumOperands() != op->getNumResults())
      return op->emitOpError() << name << " yields " << yield.getNumOperands() << " values for "
                               << op->getNumResults() << " results";
    for (auto [j, pair] : llvm::enumerate(llvm::zip(yield.getOperandTypes(), op->getResultTypes())))
      if (!compatible(std::get<0>(pair), std::get<1>(pair)))
        return op->emitOpError() << "result " << j << " of type " << describeType(std::get<1>(pair))
                                 << " does not match " << name << "'s "
                                 << describeType(std::get<0>(pair));
  }
  return success();
}

} // namespace

LogicalResult IfOp::inferReturnTypes(MLIRContext *, std::optional<Location> location, ValueRange,
                                     DictionaryAttr, OpaqueProperties, RegionRange regions,
                                     SmallVectorImpl<Type> &inferred) {
  if (regions.size() != 2)
    return emitOptionalError(location, "tf.If needs two branches");
  return inferBranchResults(location, "If", regions, inferred);
}

LogicalResult IfOp::verify() {
  if (!isa<TensorType>(getCond().getType()))
    return emitOpError() << "cond must be a tensor";
  return verifyBranches(*this, getOperation()->getRegions(), getInputs());
}

LogicalResult CaseOp::inferReturnTypes(MLIRContext *, std::optional<Location> location, ValueRange,
                                       DictionaryAttr, OpaqueProperties, RegionRange regions,
                                       SmallVectorImpl<Type> &inferred) {
  return inferBranchResults(location, "Case", regions, inferred);
}

LogicalResult CaseOp::verify() {
  auto index = dyn_cast<RankedTensorType>(getBranchIndex().getType());
  if (!index || index.getRank() != 0 || !index.getElementType().isInteger(32))
    return emitOpError() << "branch_index must be an int32 scalar, not "
                         << describeType(getBranchIndex().getType());
  if (getBranches().empty())
    return emitOpError() << "needs at least one branch";
  return verifyBranches(*this, getOperation()->getRegions(), getInputs());
}

LogicalResult WhileOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                                        ValueRange operands, DictionaryAttr attributes,
                                        OpaqueProperties, RegionRange regions,
                                        SmallVectorImpl<Type> &inferred) {
  auto types = attributes ? dyn_cast_or_null<ArrayAttr>(attributes.get("T")) : ArrayAttr();
  if (!types || types.size() > operands.size())
    return emitOptionalError(location, "tf.While needs one loop variable per type in T");
  // A variable the body changes the shape of (until kiln-graph-infer-shapes unrolls the
  // loop) has the dimensions both agree on.
  YieldOp body = regions.size() == 2 ? yieldOf(*regions[1]) : nullptr;
  for (auto [i, input] : llvm::enumerate(operands.take_front(types.size()))) {
    auto tensor = dyn_cast<TensorType>(input.getType());
    if (!tensor)
      return emitOptionalError(location, "the loop variables of While must be tensors");
    auto after = body && i < body.getNumOperands()
                     ? dyn_cast<TensorType>(body.getOperand(i).getType())
                     : TensorType();
    bool sameElement = after && after.getElementType() == tensor.getElementType();
    inferred.push_back(sameElement ? join(tensor, after) : tensor);
  }
  return success();
}

LogicalResult WhileOp::verify() {
  if (failed(checkArguments(*this, getCond(), "cond", getInputs())) ||
      failed(checkArguments(*this, getBody(), "body", getInputs())))
    return failure();
  YieldOp condYield = yieldOf(getCond());
  if (condYield.getNumOperands() != 1 || !isa<TensorType>(condYield.getOperand(0).getType()))
    return emitOpError() << "cond must yield one tensor, not " << condYield.getNumOperands()
                         << " values";
  YieldOp bodyYield = yieldOf(getBody());
  if (bodyYield.getNumOperands() != getNumInputs())
    return emitOpError() << "body yields " << bodyYield.getNumOperands() << " values for "
                         << getNumInputs() << " loop variables";
  // A body that changes a variable's shape is the graph pipeline's to unroll or reject
  // (kiln-graph-infer-shapes); its dtype it must keep.
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInputs().getTypes(), bodyYield.getOperandTypes()))) {
    auto [before, after] = pair;
    if (getElementTypeOrSelf(before) != getElementTypeOrSelf(after) || !isa<TensorType>(after))
      return emitOpError() << "loop variable " << i << " is " << describeType(before)
                           << " before the loop but the body makes it " << describeType(after)
                           << ": Kiln compiles loops whose variables keep their dtypes";
  }
  return success();
}

} // namespace kiln::tf
