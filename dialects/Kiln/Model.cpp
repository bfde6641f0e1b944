//===- Model.cpp - kiln.model, kiln.entry, kiln.state -------------------------===//
#include "dialects/Kiln/Model.h"
#include "dialects/Kiln/ABI.h"
#include "dialects/Kiln/KilnDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace kiln::dialect;

namespace {

bool isCIdentifier(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

} // namespace

std::string kiln::dialect::toCIdentifier(StringRef text) {
  std::string out;
  for (char c : text)
    out.push_back(llvm::isAlnum(c) || c == '_' ? c : '_');
  if (out.empty() || llvm::isDigit(out[0]))
    out.insert(out.begin(), '_');
  return out;
}

ModelOp kiln::dialect::createSingleEntryModel(ModuleOp module, Location loc, StringRef name,
                                              FlatSymbolRefAttr function, ArrayRef<Attribute> feeds,
                                              ArrayRef<Attribute> fetches) {
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto model = ModelOp::create(b, loc, name, ArrayAttr(), ArrayAttr());
  b.setInsertionPointToStart(&model.getBody().emplaceBlock());
  EntryOp::create(b, loc, b.getStringAttr("run"), function, b.getArrayAttr(feeds),
                  b.getArrayAttr(fetches), b.getStrArrayAttr({}), b.getStrArrayAttr({}),
                  ArrayAttr());
  return model;
}

ModelOp kiln::dialect::getModel(ModuleOp module) {
  auto models = module.getOps<ModelOp>();
  return models.empty() ? ModelOp() : *models.begin();
}

bool kiln::dialect::updateParts(ModuleOp module, StringRef function,
                                function_ref<PartAttr(PartAttr)> update) {
  ModelOp model = getModel(module);
  if (!model)
    return false;
  bool found = false;
  for (auto entry : model.getBody().getOps<EntryOp>()) {
    if (!entry.getParts())
      continue;
    SmallVector<Attribute> parts;
    for (auto part : entry.getParts()->getAsRange<PartAttr>()) {
      bool runs = part.getFunction().getValue() == function;
      found |= runs;
      parts.push_back(runs ? update(part) : part);
    }
    entry.setPartsAttr(ArrayAttr::get(module.getContext(), parts));
  }
  return found;
}

PartAttr PartAttr::withScratch(int64_t offset, int64_t bytes, int64_t naive) const {
  return PartAttr::get(getContext(), getFunction(), getDevice(), getInputs(), getOutputs(), offset,
                       bytes, naive, getStatus());
}

PartAttr PartAttr::withStatus() const {
  return PartAttr::get(getContext(), getFunction(), getDevice(), getInputs(), getOutputs(),
                       getScratchOffset(), getScratchBytes(), getNaiveBytes(), true);
}

LogicalResult TensorAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef name,
                                 StringAttr alias, RankedTensorType type, int64_t shape) {
  if (name.empty())
    return emitError() << "a feed or fetch needs the tensor's name";
  if (shape < -1)
    return emitError() << "'" << name << "' names the fetch " << shape << " as its shape";
  if (type && !type.hasStaticShape())
    return emitError() << "'" << name << "' is frozen with the dynamic type " << type
                       << "; an entry point's tensors have static shapes";
  if (type && type.getRank() > abi::maxRank())
    return emitError() << "'" << name << "' has rank " << type.getRank()
                       << "; an entry point's tensors have at most " << abi::maxRank()
                       << " dimensions";
  return success();
}

LogicalResult ModelOp::verify() {
  if (!isCIdentifier(getName()))
    return emitOpError() << "is named '" << getName()
                         << "', which is not a C identifier (the prefix of its symbols)";
  // The first model of the module is the model; any other is an error.
  auto models = cast<ModuleOp>((*this)->getParentOp()).getOps<ModelOp>();
  if (*models.begin() != *this)
    return emitOpError() << "is the second kiln.model of the module";
  llvm::StringSet<> entries, states;
  for (Operation &op : getBody().front()) {
    if (auto entry = dyn_cast<EntryOp>(op)) {
      if (!isCIdentifier(entry.getName()))
        return entry.emitOpError()
               << "is named '" << entry.getName() << "', which is not a C identifier";
      // The C header's macros spell entry names in capitals.
      if (!entries.insert(entry.getName().upper()).second)
        return entry.emitOpError() << "is the second entry point named '" << entry.getName()
                                   << "' (names are compared ignoring case)";
    } else if (auto state = dyn_cast<StateOp>(op)) {
      if (!isCIdentifier(state.getName()))
        return state.emitOpError()
               << "is named '" << state.getName() << "', which is not a C identifier";
      if (!states.insert(state.getName()).second)
        return state.emitOpError() << "is the second state named '" << state.getName() << "'";
    } else {
      return op.emitOpError() << "is in a kiln.model, which holds only kiln.entry and "
                                 "kiln.state";
    }
  }
  if (entries.empty())
    return emitOpError() << "has no entry point";
  return success();
}

LogicalResult StateOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (!abi::dtypeOf(type.getElementType()))
    return emitOpError() << "'" << getName() << "' has unsupported element type "
                         << type.getElementType();
  if (type.getRank() > abi::maxRank())
    return emitOpError() << "'" << getName() << "' has rank " << type.getRank() << "; at most "
                         << abi::maxRank() << " is supported";
  return success();
}

StateOp ModelOp::lookupState(StringRef name) {
  for (auto state : getBody().getOps<StateOp>())
    if (state.getName() == name)
      return state;
  return StateOp();
}

LogicalResult EntryOp::verify() {
  auto model = (*this)->getParentOfType<ModelOp>();
  for (auto [list, what] : {std::pair(getState(), "reads"), std::pair(getUpdates(), "writes")}) {
    llvm::StringSet<> seen;
    for (Attribute name : list) {
      StringRef state = cast<StringAttr>(name).getValue();
      if (!model.lookupState(state))
        return emitOpError() << what << " the state '" << state << "', which the model lacks";
      if (!seen.insert(state).second)
        return emitOpError() << what << " the state '" << state << "' twice";
    }
  }
  for (auto fetch : getFetches().getAsRange<TensorAttr>())
    if (fetch.getShape() >= static_cast<int64_t>(getFetches().size()))
      return emitOpError() << "names fetch " << fetch.getShape() << " as the shape of '"
                           << fetch.getName() << "', past its " << getFetches().size()
                           << " fetches";
  if (!getParts())
    return success();
  if (getParts()->size() > 1 && (!getState().empty() || !getUpdates().empty()))
    return emitOpError() << "uses state, so it cannot run on several devices yet";
  int64_t feeds = getFeeds().size(), fetches = getFetches().size();
  llvm::SmallBitVector written(fetches);
  for (auto part : getParts()->getAsRange<PartAttr>()) {
    for (int64_t i : part.getInputs().asArrayRef())
      if (i < 0 || i >= feeds)
        return emitOpError() << "has a part reading feed " << i << " of " << feeds;
    for (int64_t i : part.getOutputs().asArrayRef()) {
      if (i < 0 || i >= fetches)
        return emitOpError() << "has a part writing fetch " << i << " of " << fetches;
      if (written.test(i))
        return emitOpError() << "has two parts writing fetch " << i << " ('"
                             << cast<TensorAttr>(getFetches()[i]).getName() << "')";
      written.set(i);
    }
  }
  if (!written.all())
    return emitOpError() << "has fetch " << written.find_first_unset() << ", which no part writes";
  return success();
}

LogicalResult EntryOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto lookup = [&](FlatSymbolRefAttr name) -> FunctionOpInterface {
    return dyn_cast_or_null<FunctionOpInterface>(
        symbols.lookupNearestSymbolFrom((*this)->getParentOfType<ModelOp>(), name));
  };
  if (getParts())
    for (auto part : getParts()->getAsRange<PartAttr>())
      if (!lookup(part.getFunction()))
        return emitOpError() << "has a part running '" << part.getFunction().getValue()
                             << "', which is not a function";
  if (!getFunctionAttr())
    return success();
  FunctionOpInterface function = lookup(getFunctionAttr());
  if (!function)
    return emitOpError() << "runs '" << *getFunction() << "', which is not a function";
  // On tensors (before bufferization), the function takes the feeds then the state and
  // returns the fetches; a frozen type is the argument's or the result's, but for the
  // signedness of integers, which the lowering drops (ui8 becomes i8).
  auto sameType = [](RankedTensorType frozen, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.getShape() != frozen.getShape())
      return false;
    Type a = frozen.getElementType(), b = tensor.getElementType();
    auto ia = dyn_cast<IntegerType>(a), ib = dyn_cast<IntegerType>(b);
    return a == b || (ia && ib && ia.getWidth() == ib.getWidth());
  };
  ArrayRef<Type> inputs = function.getArgumentTypes(), results = function.getResultTypes();
  auto onTensors = [](ArrayRef<Type> types) {
    return llvm::all_of(types, [](Type t) { return isa<TensorType>(t); });
  };
  if (!onTensors(inputs) || !onTensors(results))
    return success();
  size_t feeds = getFeeds().size(), states = getState().size();
  size_t fetches = getFetches().size(), updates = getUpdates().size();
  if (inputs.size() != feeds + states || results.size() != fetches + updates)
    return emitOpError() << "has " << feeds << " feeds, reads " << states << " state, has "
                         << fetches << " fetches and writes " << updates << " state, but '"
                         << *getFunction() << "' takes " << inputs.size()
                         << " arguments and returns " << results.size();
  auto model = (*this)->getParentOfType<ModelOp>();
  auto checkState = [&](ArrayAttr names, ArrayRef<Type> types, StringRef what) -> LogicalResult {
    for (auto [name, type] : llvm::zip(names.getAsRange<StringAttr>(), types)) {
      auto state = cast<RankedTensorType>(model.lookupState(name).getType());
      if (!sameType(state, type))
        return emitOpError() << "has the state '" << name.getValue() << "' of type " << state
                             << ", but '" << *getFunction() << "' " << what << " " << type;
    }
    return success();
  };
  if (failed(checkState(getState(), inputs.drop_front(feeds), "reads it as")) ||
      failed(checkState(getUpdates(), results.drop_front(fetches), "writes it as")))
    return failure();
  auto check = [&](ArrayAttr tensors, ArrayRef<Type> types, StringRef what) -> LogicalResult {
    for (auto [attr, type] : llvm::zip(tensors.getAsRange<TensorAttr>(), types))
      if (attr.getType() && !sameType(attr.getType(), type))
        return emitOpError() << "has the " << what << " '" << attr.getName() << "' of type "
                             << attr.getType() << ", but '" << *getFunction() << "' has " << type;
    return success();
  };
  return failure(failed(check(getFeeds(), inputs, "feed")) ||
                 failed(check(getFetches(), results, "fetch")));
}

bool kiln::dialect::isGpuDevice(StringRef device) {
  return device.contains("/device:GPU:") || device.contains("/device:gpu:");
}

bool kiln::dialect::isOnGpu(mlir::Operation *op) {
  for (; op != nullptr; op = op->getParentOp())
    if (auto device = op->getAttrOfType<mlir::StringAttr>(kDeviceAttrName))
      return isGpuDevice(device.getValue());
  return false;
}
