//===- Variables.cpp - a SavedModel's variables as constants -------------------===//
//
// TensorFlow's loader (LoadSavedModel, which TensorFlow Serving runs) restores a
// SavedModel's variables by running the SaverDef's restore op with the checkpoint's path
// fed: RestoreV2 reads each key and an Assign (TensorFlow 1's VariableV2) or an
// AssignVariableOp (resource variables, TensorFlow 2's restore function) stores it. Kiln
// compiles for inference, so it follows the same assignments on the graph instead of
// running them, and puts each value where the variable was, as a constant.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Variables.h"
#include "compiler/Import/Convert.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/TensorBundle.h"
#include "dialects/TF/Ops/Infer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>
#include <set>

using namespace mlir;

namespace kiln::import {
namespace {

using tensorflow::NodeDef;

bool isVariable(StringRef op) {
  return op == "VariableV2" || op == "Variable" || op == "VarHandleOp";
}

/// `node`'s `dtype` attribute (a variable's type, a read's), 0 (DT_INVALID) when absent.
int dtypeAttr(const NodeDef &node) {
  auto it = node.attr().find("dtype");
  return it == node.attr().end() ? 0 : int(it->second.type());
}

/// Ops that pass a tensor (or a resource handle) through unchanged.
bool isPassThrough(StringRef op) {
  return op == "Identity" || op == "IdentityN" || op == "Snapshot";
}

/// Ops that change a variable; Kiln's variables are constants, so a signature must not.
bool writesVariable(StringRef op) {
  for (StringRef prefix : {"Assign", "Scatter", "Apply", "ResourceApply", "ResourceScatter",
                           "ResourceSparse", "SparseApply", "CountUpTo", "DestroyResourceOp",
                           "ResourceStridedSliceAssign", "StridedSliceAssign"})
    if (op.starts_with(prefix))
      return true;
  return false;
}

/// A node's output.
struct Ref {
  NodeDef *node = nullptr;
  int port = 0;
};

class Freezer {
public:
  Freezer(tensorflow::GraphDef &graph, StringRef fileName, StringRef what, MLIRContext *ctx)
      : graph(graph), fileName(fileName.str()), what(what.str()), ctx(ctx) {
    for (NodeDef &node : *graph.mutable_node())
      byName[node.name()] = &node;
  }

  LogicalResult run(StringRef restoreOp, StringRef prefix, ArrayRef<std::string> roots,
                    ArrayRef<std::string> stops);

private:
  InFlightDiagnostic error() {
    return emitError(FileLineColLoc::get(ctx, fileName, 0, 0)) << what << ": ";
  }
  /// The output an input names ("node", "node:port"), or none for a control input or a
  /// name that is not in the graph (the importer reports those).
  Ref source(StringRef input) const {
    if (input.starts_with("^"))
      return {};
    std::optional<TensorId> id = parseTensorId(input);
    if (!id)
      return {};
    auto it = byName.find(id->node);
    return it == byName.end() ? Ref{} : Ref{it->second, id->port};
  }
  /// The output behind `ref`, through nodes that pass their inputs through.
  Ref resolve(Ref ref) const {
    for (int steps = 0; ref.node && isPassThrough(ref.node->op()) && steps < 1 << 20; ++steps) {
      int input = ref.node->op() == "IdentityN" ? ref.port : 0;
      if (input >= ref.node->input_size())
        return {};
      ref = source(ref.node->input(input));
    }
    return ref;
  }
  Ref resolveInput(const NodeDef &node, int i) const {
    return i < node.input_size() ? resolve(source(node.input(i))) : Ref{};
  }
  std::optional<std::string> stringElement(Ref ref);
  LogicalResult findRestored(StringRef restoreOp);
  /// The nodes `roots` need, through data and control inputs, not past `stops`.
  std::vector<NodeDef *> needed(ArrayRef<std::string> roots, ArrayRef<std::string> stops);
  LogicalResult checkUses(const std::vector<NodeDef *> &nodes);
  LogicalResult freeze(NodeDef &variable, StringRef prefix);

  tensorflow::GraphDef &graph;
  std::string fileName, what;
  MLIRContext *ctx;
  llvm::StringMap<NodeDef *> byName;
  std::map<std::string, std::string> keys;  // variable node -> checkpoint key
  std::map<std::string, std::string> other; // variable node -> the Assign Kiln cannot follow
  std::optional<TensorBundle> bundle;
  std::string restoreName;
};

/// Element `ref.port` of the string constant behind input `ref` (RestoreV2's
/// tensor_names or shape_and_slices, indexed by the RestoreV2 output).
std::optional<std::string> Freezer::stringElement(Ref ref) {
  if (!ref.node || ref.node->op() != "Const")
    return std::nullopt;
  auto it = ref.node->attr().find("value");
  if (it == ref.node->attr().end() || !it->second.has_tensor())
    return std::nullopt;
  const tensorflow::TensorProto &tensor = it->second.tensor();
  if (tensor.dtype() != tensorflow::DT_STRING || tensor.string_val_size() == 0)
    return std::nullopt;
  int index = ref.port;
  if (index < tensor.string_val_size())
    return tensor.string_val(index);
  return tensor.string_val_size() == 1 ? std::optional<std::string>(tensor.string_val(0))
                                       : std::nullopt;
}

LogicalResult Freezer::findRestored(StringRef restoreOp) {
  if (restoreOp.empty())
    return success();
  std::optional<TensorId> id = parseTensorId(restoreOp.ltrim('^'));
  auto root = id ? byName.find(id->node) : byName.end();
  if (root == byName.end())
    return error() << "the SavedModel's restore op '" << restoreOp
                   << "' names no node in the graph";
  restoreName = root->second->name();
  for (NodeDef *node : needed({restoreName}, {})) {
    if (node->op() != "Assign" && node->op() != "AssignVariableOp")
      continue;
    Ref variable = resolveInput(*node, 0);
    if (!variable.node || !isVariable(variable.node->op()))
      continue;
    const std::string &name = variable.node->name();
    Ref value = resolveInput(*node, 1);
    std::optional<std::string> key, slice;
    if (value.node && value.node->op() == "RestoreV2" && value.node->input_size() >= 3) {
      key = stringElement(Ref{resolveInput(*value.node, 1).node, value.port});
      slice = stringElement(Ref{resolveInput(*value.node, 2).node, value.port});
    }
    if (!key || !slice) {
      other[name] = node->name();
      continue;
    }
    if (!slice->empty())
      return error() << "variable '" << name << "' is restored from a slice ('" << *slice
                     << "' of key '" << *key << "'): partitioned variables are not supported yet";
    auto [it, inserted] = keys.emplace(name, *key);
    if (!inserted && it->second != *key)
      return error() << "variable '" << name << "' is restored from two keys, '" << it->second
                     << "' and '" << *key << "'";
  }
  return success();
}

std::vector<NodeDef *> Freezer::needed(ArrayRef<std::string> roots, ArrayRef<std::string> stops) {
  std::set<std::string> stop(stops.begin(), stops.end());
  std::set<NodeDef *> seen;
  std::vector<NodeDef *> work, order;
  for (const std::string &name : roots)
    if (auto it = byName.find(name); it != byName.end() && seen.insert(it->second).second)
      work.push_back(it->second);
  while (!work.empty()) {
    NodeDef *node = work.back();
    work.pop_back();
    order.push_back(node);
    if (stop.count(node->name()))
      continue;
    for (const std::string &input : node->input()) {
      std::optional<TensorId> in = parseTensorId(StringRef(input).ltrim('^'));
      auto it = in ? byName.find(in->node) : byName.end();
      if (it != byName.end() && seen.insert(it->second).second)
        work.push_back(it->second);
    }
  }
  return order;
}

LogicalResult Freezer::checkUses(const std::vector<NodeDef *> &nodes) {
  for (NodeDef *node : nodes) {
    if (isVariable(node->op()) && !keys.count(node->name())) {
      InFlightDiagnostic diag = error() << "variable '" << node->name() << "' (" << node->op()
                                        << ") is read but ";
      if (restoreName.empty())
        return diag << "the SavedModel has no saver to restore it (its MetaGraph's saver_def "
                       "names no restore op)";
      if (auto it = other.find(node->name()); it != other.end())
        return diag << "'" << it->second
                    << "' restores it from something other than a RestoreV2 of the "
                       "checkpoint, which Kiln does not follow";
      return diag << "the restore op '" << restoreName << "' does not restore it";
    }
    for (int i = 0; i < node->input_size(); ++i) {
      Ref in = resolveInput(*node, i);
      if (!in.node || !isVariable(in.node->op()) || isPassThrough(node->op()))
        continue;
      bool resource = in.node->op() == "VarHandleOp";
      if (writesVariable(node->op()))
        return error() << "node '" << node->name() << "' (" << node->op() << ") writes variable '"
                       << in.node->name()
                       << "': Kiln compiles a SavedModel's variables as constants, so a "
                          "signature may read them but not change them";
      if (resource && node->op() != "ReadVariableOp" && node->op() != "ResourceGather")
        return error() << "node '" << node->name() << "' (" << node->op() << ") takes variable '"
                       << in.node->name()
                       << "' as a resource; Kiln reads resource variables through "
                          "ReadVariableOp and ResourceGather";
      // TensorFlow refuses a read whose dtype is not the variable's.
      if (int read = dtypeAttr(*node), declared = dtypeAttr(*in.node); resource && read != declared)
        return error() << "node '" << node->name() << "' (" << node->op() << ") reads variable '"
                       << in.node->name() << "' of " << dataTypeEnumName(declared) << " as "
                       << dataTypeEnumName(read) << ": its dtype must be the variable's";
    }
  }
  return success();
}

bool sameShape(const tensorflow::TensorShapeProto &declared, ArrayRef<int64_t> saved) {
  if (declared.unknown_rank())
    return true;
  if (declared.dim_size() != int(saved.size()))
    return false;
  for (int i = 0; i < declared.dim_size(); ++i)
    if (declared.dim(i).size() >= 0 && declared.dim(i).size() != saved[i])
      return false;
  return true;
}

LogicalResult Freezer::freeze(NodeDef &variable, StringRef prefix) {
  const std::string &key = keys.at(variable.name());
  if (!bundle) {
    llvm::Expected<TensorBundle> opened = TensorBundle::open(prefix);
    if (!opened)
      return error() << "cannot read the variables: " << llvm::toString(opened.takeError());
    if (llvm::Error corrupt = opened->checkAll())
      return error() << "cannot read the variables: " << llvm::toString(std::move(corrupt));
    bundle.emplace(std::move(*opened));
  }
  auto fail = [&]() {
    return error() << "variable '" << variable.name() << "' (checkpoint key '" << key << "'): ";
  };
  const TensorBundle::Entry *entry = bundle->find(key);
  if (!entry)
    return fail() << "the checkpoint " << prefix << ".index has no such key";
  if (entry->sliced)
    return fail() << "saved in slices (a partitioned variable), which Kiln does not read yet";
  const auto &attrs = variable.attr();
  int type = dtypeAttr(variable);
  if (type != entry->dtype)
    return fail() << "the checkpoint holds a " << dataTypeEnumName(entry->dtype)
                  << " tensor for a variable of " << dataTypeEnumName(type);
  if (auto shape = attrs.find("shape"); shape != attrs.end() && shape->second.has_shape() &&
                                        !sameShape(shape->second.shape(), entry->shape))
    return fail() << "the checkpoint's tensor has shape " << tf::describeDims(entry->shape)
                  << ", which the variable's declared shape does not allow";
  llvm::Expected<std::string> bytes = bundle->read(key);
  if (!bytes)
    return fail() << llvm::toString(bytes.takeError());

  tensorflow::TensorProto tensor;
  tensor.set_dtype(static_cast<tensorflow::DataType>(type));
  for (int64_t d : entry->shape)
    tensor.mutable_tensor_shape()->add_dim()->set_size(d);
  if (type == TensorBundle::kStringType) {
    llvm::Expected<std::vector<std::string>> strings =
        TensorBundle::decodeStrings(*bytes, entry->elements());
    if (!strings)
      return fail() << llvm::toString(strings.takeError());
    for (std::string &s : *strings)
      tensor.add_string_val(std::move(s));
  } else {
    tensor.set_tensor_content(std::move(*bytes));
  }
  std::string device = variable.device();
  std::string name = variable.name();
  variable.Clear();
  variable.set_name(name);
  variable.set_op("Const");
  variable.set_device(device);
  auto &newAttrs = *variable.mutable_attr();
  newAttrs["dtype"].set_type(static_cast<tensorflow::DataType>(type));
  *newAttrs["value"].mutable_tensor() = std::move(tensor);
  return success();
}

LogicalResult Freezer::run(StringRef restoreOp, StringRef prefix, ArrayRef<std::string> roots,
                           ArrayRef<std::string> stops) {
  std::vector<NodeDef *> nodes = needed(roots, stops);
  if (llvm::none_of(nodes, [](NodeDef *n) { return isVariable(n->op()); }))
    return success();
  if (failed(findRestored(restoreOp)) || failed(checkUses(nodes)))
    return failure();

  // Decide every rewrite before changing an op: resolving goes through op names.
  struct Rewrite {
    NodeDef *node;
    int input;
    int dtype;
  };
  std::vector<Rewrite> uses;
  for (NodeDef *node : nodes) {
    if (isVariable(node->op()))
      continue;
    for (int i = 0; i < node->input_size(); ++i) {
      Ref in = resolveInput(*node, i);
      if (in.node && in.node->op() == "VarHandleOp")
        uses.push_back({node, i, dtypeAttr(*in.node)});
    }
  }
  for (NodeDef *node : nodes)
    if (isVariable(node->op()) && failed(freeze(*node, prefix)))
      return failure();

  for (const Rewrite &use : uses) {
    NodeDef &node = *use.node;
    auto &attrs = *node.mutable_attr();
    auto type = static_cast<tensorflow::DataType>(use.dtype);
    if (node.op() == "ReadVariableOp") {
      // The value itself now: an Identity of the constant.
      node.set_op("Identity");
      attrs.erase("dtype");
      attrs["T"].set_type(type);
    } else if (node.op() == "ResourceGather") {
      // GatherV2 of the constant along axis batch_dims.
      int64_t batchDims = attrs.count("batch_dims") ? attrs.at("batch_dims").i() : 0;
      NodeDef *axis = graph.add_node();
      axis->set_name(node.name() + "/kiln_axis");
      axis->set_op("Const");
      axis->set_device(node.device());
      (*axis->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
      tensorflow::TensorProto &value = *(*axis->mutable_attr())["value"].mutable_tensor();
      value.set_dtype(tensorflow::DT_INT32);
      value.add_int_val(int32_t(batchDims));
      node.set_op("GatherV2");
      node.mutable_input()->Add(std::string(axis->name()));
      // Control inputs come last.
      for (int i = node.input_size() - 1; i > 0 && StringRef(node.input(i - 1)).starts_with("^");
           --i)
        node.mutable_input()->SwapElements(i, i - 1);
      attrs["Tparams"].set_type(type);
      attrs["Taxis"].set_type(tensorflow::DT_INT32);
      attrs.erase("dtype");
      attrs.erase("validate_indices");
    } else if (node.op() == "Identity" || node.op() == "Snapshot") {
      attrs["T"].set_type(type);
    } else if (node.op() == "IdentityN") {
      auto *list = attrs["T"].mutable_list();
      if (use.input < list->type_size())
        list->set_type(use.input, type);
    }
  }
  return success();
}

} // namespace

LogicalResult freezeVariables(tensorflow::GraphDef &graph, StringRef restoreOp,
                              StringRef bundlePrefix, ArrayRef<std::string> roots,
                              ArrayRef<std::string> stops, StringRef fileName, StringRef what,
                              MLIRContext *context) {
  return Freezer(graph, fileName, what, context).run(restoreOp, bundlePrefix, roots, stops);
}

} // namespace kiln::import
