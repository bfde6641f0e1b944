//===- Variables.cpp - a SavedModel's variables as constants -------------------===//
//
// TensorFlow's loader (LoadSavedModel, which TensorFlow Serving runs) restores a
// SavedModel's variables by running the SaverDef's restore op with the checkpoint's path
// fed: RestoreV2 reads each key and an Assign (TensorFlow 1's VariableV2) or an
// AssignVariableOp (resource variables, TensorFlow 2's restore function) stores it. Kiln
// compiles for inference, so it follows the same assignments on the graph instead of
// running them, and puts each value where the variable was, as a constant.
//
// TensorFlow 2's loader finds them through the object graphs instead: a function's
// captured input k is object bound_inputs[k] of the SavedObjectGraph, whose checkpoint key
// the checkpoint's own object graph gives (capturedVariableKeys). tf.saved_model.save of a
// Keras 3 model restores copies of its variables, not the handles its functions read, so
// only that path finds those. A variable passed into a While, If or Case as a resource
// becomes its value there too, in a copy of each function it reaches (as TensorFlow's
// convert_variables_to_constants_v2 does).
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Variables.h"
#include "compiler/Import/Convert.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/TensorBundle.h"
#include "dialects/TF/Ops/Infer.h"
#include "saved_model.pb.h"

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
                    ArrayRef<std::string> stops,
                    const std::map<std::string, std::string> &captured);

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
  /// A copy of function `name` whose inputs `args` (index -> the variable's dtype and
  /// shape) are the variables' values instead of resources: its name, or none after an
  /// error (naming `user`, the node that passes them).
  std::optional<std::string> valueFunction(StringRef name, const std::map<int, NodeDef *> &args,
                                           StringRef user, int depth);
  /// Rewrites the uses of resource `ref` ("arg" or "node:out:0") in `function`, which now
  /// carry `variable`'s value: ReadVariableOp an Identity, control flow and calls recursing.
  LogicalResult valueUses(tensorflow::FunctionDef &function, const std::string &ref,
                          NodeDef *variable, int depth);
  /// Rewrites control-flow node `node` (While, If, Case, their stateless forms and
  /// function calls), whose data inputs `inputs` (index -> variable) are variables now
  /// constants: their types, shapes and the functions they call.
  LogicalResult valueControlFlow(NodeDef &node, const std::map<int, NodeDef *> &inputs, int depth);

  tensorflow::GraphDef &graph;
  std::string fileName, what;
  MLIRContext *ctx;
  llvm::StringMap<NodeDef *> byName;
  std::map<std::string, std::string> keys;  // variable node -> checkpoint key
  std::map<std::string, std::string> other; // variable node -> the Assign Kiln cannot follow
  std::optional<TensorBundle> bundle;
  std::string restoreName;
  std::map<std::string, std::string> specialised; // function + args -> the copy's name
};

bool isControlFlow(StringRef op) {
  return op == "While" || op == "StatelessWhile" || op == "If" || op == "StatelessIf" ||
         op == "Case" || op == "StatelessCase" || op == "PartitionedCall" ||
         op == "StatefulPartitionedCall";
}

/// The number of leading inputs of a control-flow op that its functions do not receive (If's
/// condition, Case's branch index).
int controlInputsBefore(StringRef op) {
  return op == "If" || op == "StatelessIf" || op == "Case" || op == "StatelessCase" ? 1 : 0;
}

/// The names of the functions a control-flow node calls, by attribute.
std::vector<std::pair<std::string, int>> calledFunctions(const NodeDef &node) {
  std::vector<std::pair<std::string, int>> result; // attribute, index in its list or -1
  StringRef op = node.op();
  if (op == "While" || op == "StatelessWhile")
    result = {{"cond", -1}, {"body", -1}};
  else if (op == "If" || op == "StatelessIf")
    result = {{"then_branch", -1}, {"else_branch", -1}};
  else if (op == "PartitionedCall" || op == "StatefulPartitionedCall")
    result = {{"f", -1}};
  else if (auto it = node.attr().find("branches"); it != node.attr().end())
    for (int i = 0; i < it->second.list().func_size(); ++i)
      result.push_back({"branches", i});
  return result;
}

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
      if (resource && node->op() != "ReadVariableOp" && node->op() != "ResourceGather" &&
          !isControlFlow(node->op()))
        return error() << "node '" << node->name() << "' (" << node->op() << ") takes variable '"
                       << in.node->name()
                       << "' as a resource; Kiln reads resource variables through "
                          "ReadVariableOp and ResourceGather, and passes them into While, "
                          "If, Case and function calls";
      if (isControlFlow(node->op()))
        continue;
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
                           ArrayRef<std::string> stops,
                           const std::map<std::string, std::string> &captured) {
  std::vector<NodeDef *> nodes = needed(roots, stops);
  if (llvm::none_of(nodes, [](NodeDef *n) { return isVariable(n->op()); }))
    return success();
  if (failed(findRestored(restoreOp)))
    return failure();
  // The object graph's keys are those TensorFlow 2's loader reads.
  for (const auto &[variable, key] : captured)
    keys[variable] = key;
  if (failed(checkUses(nodes)))
    return failure();

  // Decide every rewrite before changing an op: resolving goes through op names.
  struct Rewrite {
    NodeDef *node;
    int input;
    int dtype;
  };
  std::vector<Rewrite> uses;
  std::map<NodeDef *, std::map<int, NodeDef *>> controlFlow; // node -> input -> variable
  for (NodeDef *node : nodes) {
    if (isVariable(node->op()))
      continue;
    for (int i = 0; i < node->input_size(); ++i) {
      Ref in = resolveInput(*node, i);
      if (in.node && in.node->op() == "VarHandleOp") {
        if (isControlFlow(node->op()))
          controlFlow[node][i] = in.node;
        else
          uses.push_back({node, i, dtypeAttr(*in.node)});
      }
    }
  }
  for (auto &[node, inputs] : controlFlow)
    if (failed(valueControlFlow(*node, inputs, 0)))
      return failure();
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

/// What the copy of a function taking variables' values adds to its name.
constexpr const char *kValuesSuffix = "_kiln_values_";

/// How deep functions may nest control flow that passes a variable on.
constexpr int kMaxFunctionDepth = 64;

/// The declared shape of a variable node.
const tensorflow::TensorShapeProto *shapeAttr(const NodeDef &variable) {
  auto it = variable.attr().find("shape");
  return it != variable.attr().end() && it->second.has_shape() ? &it->second.shape() : nullptr;
}

LogicalResult Freezer::valueControlFlow(NodeDef &node, const std::map<int, NodeDef *> &inputs,
                                        int depth) {
  auto &attrs = *node.mutable_attr();
  int skip = controlInputsBefore(node.op());
  std::map<int, NodeDef *> args; // function argument -> variable
  for (const auto &[input, variable] : inputs) {
    if (input < skip)
      return error() << "node '" << node.name() << "' (" << node.op() << ") takes variable '"
                     << variable->name() << "' as its condition or branch index";
    args[input - skip] = variable;
  }
  bool isWhile = node.op() == "While" || node.op() == "StatelessWhile";
  StringRef typeList = isWhile ? "T" : "Tin";
  for (const auto &[arg, variable] : args) {
    auto type = static_cast<tensorflow::DataType>(dtypeAttr(*variable));
    if (auto it = attrs.find(typeList.str());
        it != attrs.end() && arg < it->second.list().type_size())
      it->second.mutable_list()->set_type(arg, type);
    if (!isWhile)
      continue;
    // A loop's variables are its outputs too: the value's type and shape.
    for (const char *name : {"output_shapes", "_output_shapes"})
      if (auto it = attrs.find(name); it != attrs.end() && arg < it->second.list().shape_size()) {
        if (const tensorflow::TensorShapeProto *shape = shapeAttr(*variable))
          *it->second.mutable_list()->mutable_shape(arg) = *shape;
        else
          it->second.mutable_list()->mutable_shape(arg)->set_unknown_rank(true);
      }
  }
  for (const auto &[attr, index] : calledFunctions(node)) {
    tensorflow::NameAttrList *function =
        index < 0 ? attrs[attr].mutable_func() : attrs[attr].mutable_list()->mutable_func(index);
    std::optional<std::string> copy = valueFunction(function->name(), args, node.name(), depth);
    if (!copy)
      return failure();
    function->set_name(*copy);
  }
  return success();
}

std::optional<std::string> Freezer::valueFunction(StringRef name,
                                                  const std::map<int, NodeDef *> &args,
                                                  StringRef user, int depth) {
  std::string key = name.str();
  for (const auto &[arg, variable] : args)
    key += "|" + std::to_string(arg) + "=" + variable->name();
  if (auto it = specialised.find(key); it != specialised.end())
    return it->second;
  if (depth > kMaxFunctionDepth) {
    (void)(error() << "node '" << user << "' passes variables through more than "
                   << kMaxFunctionDepth << " nested functions");
    return std::nullopt;
  }
  tensorflow::FunctionDefLibrary &library = *graph.mutable_library();
  const tensorflow::FunctionDef *original = nullptr;
  for (const tensorflow::FunctionDef &f : library.function())
    if (f.signature().name() == name)
      original = &f;
  if (!original) {
    (void)(error() << "node '" << user << "' calls function '" << name
                   << "', which the graph's library does not define");
    return std::nullopt;
  }
  tensorflow::FunctionDef copy = *original;
  std::string copyName = name.str() + kValuesSuffix + std::to_string(specialised.size());
  copy.mutable_signature()->set_name(copyName);
  specialised[key] = copyName;
  for (const auto &[arg, variable] : args) {
    if (arg >= copy.signature().input_arg_size()) {
      (void)(error() << "node '" << user << "' passes variable '" << variable->name()
                     << "' as argument " << arg << " of function '" << name << "', which has "
                     << copy.signature().input_arg_size());
      return std::nullopt;
    }
    auto type = static_cast<tensorflow::DataType>(dtypeAttr(*variable));
    tensorflow::OpDef::ArgDef &input = *copy.mutable_signature()->mutable_input_arg(arg);
    input.set_type(type);
    if (auto it = copy.mutable_arg_attr()->find(arg); it != copy.mutable_arg_attr()->end()) {
      it->second.mutable_attr()->erase("_output_shapes");
      it->second.mutable_attr()->erase("_input_shapes");
      it->second.mutable_attr()->erase("_handle_dtypes");
      it->second.mutable_attr()->erase("_handle_shapes");
    }
    if (failed(valueUses(copy, input.name(), variable, depth + 1)))
      return std::nullopt;
  }
  *library.add_function() = std::move(copy);
  return copyName;
}

/// The name of the function `function` copies, as the SavedModel names it.
StringRef userName(const tensorflow::FunctionDef &function) {
  return StringRef(function.signature().name()).split(kValuesSuffix).first;
}

LogicalResult Freezer::valueUses(tensorflow::FunctionDef &function, const std::string &ref,
                                 NodeDef *variable, int depth) {
  auto type = static_cast<tensorflow::DataType>(dtypeAttr(*variable));
  // An output that returns the resource (a loop passing it on) returns the value.
  for (auto &[output, value] : *function.mutable_ret())
    if (value == ref)
      for (tensorflow::OpDef::ArgDef &arg : *function.mutable_signature()->mutable_output_arg())
        if (arg.name() == output)
          arg.set_type(type);
  auto named = [&](const std::string &input) { return input == ref || input == ref + ":0"; };
  std::map<NodeDef *, std::map<int, NodeDef *>> controlFlow;
  for (NodeDef &node : *function.mutable_node_def()) {
    for (int i = 0; i < node.input_size(); ++i) {
      if (!named(node.input(i)))
        continue;
      auto &attrs = *node.mutable_attr();
      if (node.op() == "ReadVariableOp") {
        if (int read = dtypeAttr(node); read != type)
          return error() << "node '" << node.name() << "' (ReadVariableOp) in function '"
                         << userName(function) << "' reads variable '" << variable->name()
                         << "' of " << dataTypeEnumName(type) << " as " << dataTypeEnumName(read)
                         << ": its dtype must be the variable's";
        node.set_op("Identity");
        attrs.erase("dtype");
        attrs["T"].set_type(type);
        // FunctionDef names outputs by argument: ReadVariableOp's "value", Identity's "output".
        std::string from = node.name() + ":value:", to = node.name() + ":output:";
        for (NodeDef &other : *function.mutable_node_def())
          for (std::string &input : *other.mutable_input())
            if (StringRef(input).starts_with(from))
              input = to + input.substr(from.size());
        for (auto &[output, value] : *function.mutable_ret())
          if (StringRef(value).starts_with(from))
            value = to + value.substr(from.size());
      } else if (node.op() == "Identity") {
        attrs["T"].set_type(type);
        if (failed(valueUses(function, node.name() + ":output:0", variable, depth)))
          return failure();
      } else if (isControlFlow(node.op())) {
        controlFlow[&node][i] = variable;
      } else if (writesVariable(node.op())) {
        return error() << "node '" << node.name() << "' (" << node.op() << ") in function '"
                       << userName(function) << "' writes variable '" << variable->name()
                       << "': Kiln compiles a SavedModel's variables as constants, so a "
                          "signature may read them but not change them";
      } else {
        return error() << "node '" << node.name() << "' (" << node.op() << ") in function '"
                       << userName(function) << "' takes variable '" << variable->name()
                       << "' as a resource; Kiln reads resource variables through "
                          "ReadVariableOp, and passes them into While, If, Case and calls";
      }
    }
  }
  for (auto &[node, inputs] : controlFlow)
    if (failed(valueControlFlow(*node, inputs, depth)))
      return failure();
  return success();
}

} // namespace

FailureOr<std::map<std::string, std::string>>
capturedVariableKeys(const tensorflow::GraphDef &graph, const tensorflow::SavedObjectGraph &objects,
                     StringRef bundlePrefix, StringRef fileName, StringRef what,
                     MLIRContext *context) {
  std::map<std::string, std::string> keys;
  if (objects.nodes_size() == 0)
    return keys; // TensorFlow 1: the restore op says
  auto error = [&]() {
    return emitError(FileLineColLoc::get(context, fileName, 0, 0)) << what << ": ";
  };
  llvm::StringMap<const NodeDef *> byName;
  for (const NodeDef &node : graph.node())
    byName[node.name()] = &node;
  llvm::StringMap<int> inputCount;
  for (const tensorflow::FunctionDef &f : graph.library().function())
    inputCount[f.signature().name()] = f.signature().input_arg_size();

  // The variables the calls capture: call input (inputs - captures + k) is object
  // bound_inputs[k], which must be a variable, fed (through Identity nodes) by a VarHandleOp.
  std::map<std::string, int> variables; // VarHandleOp -> SavedObjectGraph node
  for (const NodeDef &node : graph.node()) {
    if (node.op() != "StatefulPartitionedCall" && node.op() != "PartitionedCall")
      continue;
    auto f = node.attr().find("f");
    if (f == node.attr().end())
      continue;
    const std::string &name = f->second.func().name();
    auto function = objects.concrete_functions().find(name);
    auto count = inputCount.find(name);
    if (function == objects.concrete_functions().end() || count == inputCount.end())
      continue;
    const auto &bound = function->second.bound_inputs();
    int first = count->second - bound.size();
    for (int k = 0; k < bound.size(); ++k) {
      int id = bound[k];
      if (id < 0 || id >= objects.nodes_size())
        return error() << "function '" << name << "' captures object " << id
                       << " of the object graph, which has " << objects.nodes_size();
      if (!objects.nodes(id).has_variable() || first + k < 0 || first + k >= node.input_size())
        continue;
      const NodeDef *source = nullptr;
      std::string input = node.input(first + k);
      for (int steps = 0; steps < 1 << 20; ++steps) {
        std::optional<TensorId> tensor = parseTensorId(input);
        auto it = tensor ? byName.find(tensor->node) : byName.end();
        source = it == byName.end() ? nullptr : it->second;
        if (!source || source->op() != "Identity" || source->input_size() == 0)
          break;
        input = source->input(0);
      }
      if (!source || source->op() != "VarHandleOp")
        continue;
      auto [it, inserted] = variables.emplace(source->name(), id);
      if (!inserted && it->second != id)
        return error() << "variable '" << source->name() << "' is captured as objects "
                       << it->second << " and " << id << " of the object graph";
    }
  }
  if (variables.empty())
    return keys;

  // The checkpoint's object graph, matched to the SavedObjectGraph from the root by the
  // children's names, as TensorFlow's C++ loader (bundle_v2.cc) matches them.
  llvm::Expected<TensorBundle> bundle = TensorBundle::open(bundlePrefix);
  if (!bundle)
    return error() << "cannot read the variables: " << llvm::toString(bundle.takeError());
  static constexpr const char *kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
  const TensorBundle::Entry *entry = bundle->find(kObjectGraphKey);
  if (!entry || entry->dtype != TensorBundle::kStringType || entry->elements() != 1)
    return error() << "the checkpoint " << bundlePrefix
                   << ".index has no object graph (a string under the key " << kObjectGraphKey
                   << ")";
  llvm::Expected<std::string> bytes = bundle->read(kObjectGraphKey);
  if (!bytes)
    return error() << "cannot read the variables: " << llvm::toString(bytes.takeError());
  llvm::Expected<std::vector<std::string>> strings = TensorBundle::decodeStrings(*bytes, 1);
  if (!strings)
    return error() << "cannot read the variables: " << llvm::toString(strings.takeError());
  tensorflow::TrackableObjectGraph trackable;
  if (!trackable.ParseFromString(strings->front()))
    return error() << "the checkpoint's object graph (key " << kObjectGraphKey
                   << ") is not a TrackableObjectGraph";
  std::map<int, int> toTrackable{{0, 0}};
  std::vector<std::pair<int, int>> work{{0, 0}};
  while (!work.empty() && trackable.nodes_size() > 0) {
    auto [saved, checkpointed] = work.back();
    work.pop_back();
    for (const auto &child : objects.nodes(saved).children()) {
      if (child.node_id() < 0 || child.node_id() >= objects.nodes_size() ||
          toTrackable.count(child.node_id()))
        continue;
      for (const auto &other : trackable.nodes(checkpointed).children()) {
        if (other.local_name() != child.local_name() || other.node_id() < 0 ||
            other.node_id() >= trackable.nodes_size())
          continue;
        toTrackable[child.node_id()] = other.node_id();
        work.push_back({child.node_id(), other.node_id()});
        break;
      }
    }
  }
  for (const auto &[variable, id] : variables) {
    auto match = toTrackable.find(id);
    if (match == toTrackable.end())
      return error() << "variable '" << variable << "' (object " << id
                     << " of the object graph) is not in the checkpoint's object graph";
    const auto &attributes = trackable.nodes(match->second).attributes();
    auto value =
        llvm::find_if(attributes, [](const auto &a) { return a.name() == "VARIABLE_VALUE"; });
    if (value == attributes.end())
      return error() << "variable '" << variable << "' (object " << id
                     << " of the object graph) has no value in the checkpoint";
    keys[variable] = value->checkpoint_key();
  }
  return keys;
}

LogicalResult freezeVariables(tensorflow::GraphDef &graph, StringRef restoreOp,
                              StringRef bundlePrefix, ArrayRef<std::string> roots,
                              ArrayRef<std::string> stops,
                              const std::map<std::string, std::string> &captured,
                              StringRef fileName, StringRef what, MLIRContext *context) {
  return Freezer(graph, fileName, what, context)
      .run(restoreOp, bundlePrefix, roots, stops, captured);
}

} // namespace kiln::import
