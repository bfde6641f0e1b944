//===- Functions.cpp - inlining a GraphDef's function library -----------------===//
//
// TensorFlow 2 graphs call functions of their library: Keras layers compiled with XLA, or
// any nested tf.function, leave PartitionedCall / StatefulPartitionedCall nodes, and TF1's
// Defun leaves nodes whose op is the function's name. The importer reads plain graphs, so
// each call is replaced here, on the GraphDef, by a copy of the function's body, as
// TensorFlow's own inliner does before its graph passes.
//
// A body names its tensors differently from a graph: an argument by its name
// (`x`, or `x:i` for the i-th tensor of a list argument) and a node's output by the
// node, the output argument of its op and the index within it (`conv:output:0`,
// `bn:batch_mean:0`). The op's output arguments come from the tf dialect
// (GraphOpInterface::getOutputArgNames), or from the signature of a called function.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Functions.h"
#include "dialects/TF/TFDialect.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

using namespace mlir;

namespace kiln::import {
namespace {

using AttrMap = google::protobuf::Map<std::string, tensorflow::AttrValue>;

bool isCallOp(StringRef op) { return op == "PartitionedCall" || op == "StatefulPartitionedCall"; }

/// Attribute `name` of a call of `signature` with attributes `attrs`, or its default.
const tensorflow::AttrValue *findAttr(const AttrMap &attrs, const tensorflow::OpDef &signature,
                                      StringRef name) {
  auto it = attrs.find(name.str());
  if (it != attrs.end())
    return &it->second;
  for (const auto &def : signature.attr())
    if (def.name() == name && def.has_default_value())
      return &def.default_value();
  return nullptr;
}

/// Type `i` of the list(type) attribute `name` of `node` (a PartitionedCall's Tin or
/// Tout), or 0 (DT_INVALID).
int listType(const tensorflow::NodeDef &node, StringRef name, int64_t i) {
  auto it = node.attr().find(name.str());
  if (it == node.attr().end() || it->second.value_case() != tensorflow::AttrValue::kList ||
      i >= it->second.list().type_size())
    return 0;
  return it->second.list().type(int(i));
}

class Inliner {
public:
  Inliner(tensorflow::GraphDef &graph, const tensorflow::FunctionDefLibrary &library,
          StringRef fileName, MLIRContext *ctx)
      : graph(graph), library(library), fileName(fileName.str()), ctx(ctx) {}

  LogicalResult run();

private:
  /// What one call needs while its body is copied.
  struct Call {
    std::string name, op, device; // the call node's
    const tensorflow::FunctionDef *function;
    const AttrMap *attrs;              // the instantiation's attributes
    std::vector<std::string> controls; // the call's control inputs, "^name"
    std::string prefix;                // "CALL/" (or "CALL/_inlined_K/" on a name clash)
    llvm::StringMap<std::vector<std::string>> args; // argument -> its tensors' nodes
    llvm::StringMap<const tensorflow::NodeDef *> body;
  };

  InFlightDiagnostic nodeError(StringRef name, StringRef op) {
    return emitError(
               NameLoc::get(StringAttr::get(ctx, name), FileLineColLoc::get(ctx, fileName, 0, 0)))
           << "node '" << name << "' (" << op << "): ";
  }
  InFlightDiagnostic callError(const Call &call) {
    return nodeError(call.name, call.op)
           << "function '" << call.function->signature().name() << "': ";
  }

  const tensorflow::AttrValue *attr(const Call &call, StringRef name) const;
  std::optional<int64_t> argCount(const Call &call, const tensorflow::OpDef::ArgDef &arg,
                                  const AttrMap &attrs, const tensorflow::OpDef &signature);
  int argType(const Call &call, const tensorflow::OpDef::ArgDef &arg, int64_t element) const;
  std::optional<int> outputPort(const Call &call, const tensorflow::NodeDef &node, StringRef arg,
                                int64_t index);
  std::optional<std::string> resolve(const Call &call, StringRef ref, StringRef where);
  LogicalResult inlineCall(int index, const tensorflow::FunctionDef &function,
                           const AttrMap &attrs);
  const tensorflow::FunctionDef *callee(const tensorflow::NodeDef &node) const;
  int64_t expandedSize(const tensorflow::FunctionDef &function);

  tensorflow::GraphDef &graph;
  const tensorflow::FunctionDefLibrary &library;
  std::string fileName;
  MLIRContext *ctx;
  llvm::StringMap<const tensorflow::FunctionDef *> functions;
  llvm::StringMap<int64_t> sizes; // expandedSize; -1 while it is being computed
  llvm::StringSet<> names;
  /// The functions each inlined node came from, innermost last (empty for the graph's).
  std::vector<std::vector<std::string>> stacks;
};

/// The function `node` calls, if it is a call of one the library defines.
const tensorflow::FunctionDef *Inliner::callee(const tensorflow::NodeDef &node) const {
  StringRef name = node.op();
  if (isCallOp(node.op())) {
    auto f = node.attr().find("f");
    if (f == node.attr().end() || f->second.value_case() != tensorflow::AttrValue::kFunc)
      return nullptr;
    name = f->second.func().name();
  }
  auto it = functions.find(name);
  return it == functions.end() ? nullptr : it->second;
}

/// The nodes a call of `function` adds to the graph once the calls in its body are inlined
/// too, past kMaxInlinedNodes counted as kMaxInlinedNodes + 1 (a function that calls another
/// twice, 40 levels deep, is found here before anything is copied). A recursive call counts
/// as nothing: inlineCall reports it.
int64_t Inliner::expandedSize(const tensorflow::FunctionDef &function) {
  auto [it, fresh] = sizes.try_emplace(function.signature().name(), -1);
  if (!fresh)
    return it->second < 0 ? 0 : it->second;
  int64_t size = function.signature().input_arg_size() + function.node_def_size();
  for (const auto &node : function.node_def())
    if (const tensorflow::FunctionDef *called = callee(node))
      size = std::min(size + expandedSize(*called), kMaxInlinedNodes + 1);
  sizes[function.signature().name()] = size;
  return size;
}

const tensorflow::AttrValue *Inliner::attr(const Call &call, StringRef name) const {
  return findAttr(*call.attrs, call.function->signature(), name);
}

/// How many tensors an argument stands for: one, `number_attr` of them, or as many as
/// the types of `type_list_attr`, with the attributes `attrs` of a call of `signature`.
std::optional<int64_t> Inliner::argCount(const Call &call, const tensorflow::OpDef::ArgDef &arg,
                                         const AttrMap &attrs, const tensorflow::OpDef &signature) {
  if (!arg.number_attr().empty()) {
    const tensorflow::AttrValue *n = findAttr(attrs, signature, arg.number_attr());
    if (!n || n->value_case() != tensorflow::AttrValue::kI || n->i() < 0) {
      callError(call) << "argument '" << arg.name() << "' of '" << signature.name()
                      << "' needs the integer attribute '" << arg.number_attr() << "'";
      return std::nullopt;
    }
    return n->i();
  }
  if (!arg.type_list_attr().empty()) {
    const tensorflow::AttrValue *types = findAttr(attrs, signature, arg.type_list_attr());
    if (!types || types->value_case() != tensorflow::AttrValue::kList) {
      callError(call) << "argument '" << arg.name() << "' of '" << signature.name()
                      << "' needs the type list attribute '" << arg.type_list_attr() << "'";
      return std::nullopt;
    }
    return types->list().type_size();
  }
  return 1;
}

/// The dtype of tensor `element` of argument `arg`, or 0 (DT_INVALID) when the call does
/// not say.
int Inliner::argType(const Call &call, const tensorflow::OpDef::ArgDef &arg,
                     int64_t element) const {
  if (arg.type() != 0)
    return arg.type();
  if (!arg.type_attr().empty())
    if (const tensorflow::AttrValue *t = attr(call, arg.type_attr());
        t && t->value_case() == tensorflow::AttrValue::kType)
      return t->type();
  if (!arg.type_list_attr().empty())
    if (const tensorflow::AttrValue *t = attr(call, arg.type_list_attr());
        t && t->value_case() == tensorflow::AttrValue::kList && element < t->list().type_size())
      return t->list().type(element);
  return 0;
}

/// The graph port of output `index` of output argument `arg` of body node `node`.
std::optional<int> Inliner::outputPort(const Call &call, const tensorflow::NodeDef &node,
                                       StringRef arg, int64_t index) {
  if (isCallOp(node.op()))
    return arg == "output" ? std::optional<int>(index) : std::nullopt;
  if (auto it = functions.find(node.op()); it != functions.end()) {
    const tensorflow::OpDef &signature = it->second->signature();
    int64_t port = 0;
    for (const auto &out : signature.output_arg()) {
      std::optional<int64_t> count = argCount(call, out, node.attr(), signature);
      if (!count)
        return std::nullopt;
      if (out.name() == arg)
        return index < *count ? std::optional<int>(port + index) : std::nullopt;
      port += *count;
    }
    return std::nullopt;
  }
  std::optional<RegisteredOperationName> info =
      RegisteredOperationName::lookup("tf." + node.op(), ctx);
  if (!info)
    return index; // an op Kiln does not know: the importer reports it
  auto *graphOp = info->getInterface<tf::GraphOpInterface>();
  if (!graphOp)
    return index;
  SmallVector<StringRef> outputs;
  graphOp->getOutputArgNames().split(outputs, ',', -1, false);
  // An op with one output argument (a list, perhaps): its name does not matter.
  if (outputs.size() <= 1)
    return index;
  for (auto [i, name] : llvm::enumerate(outputs))
    if (name == arg)
      return index == 0 ? std::optional<int>(i) : std::nullopt;
  return std::nullopt;
}

/// The graph's name for a body's reference `ref` (an input of a body node, or a result):
/// `arg`, `arg:i`, `node:out:i` or `^node`.
std::optional<std::string> Inliner::resolve(const Call &call, StringRef ref, StringRef where) {
  bool control = ref.consume_front("^");
  SmallVector<StringRef, 3> parts;
  ref.split(parts, ':');
  auto fail = [&](StringRef why) -> std::optional<std::string> {
    callError(call) << where << " '" << (control ? "^" : "") << ref << "', which " << why;
    return std::nullopt;
  };
  if (control) {
    if (call.body.count(ref))
      return "^" + call.prefix + ref.str();
    if (auto it = call.args.find(ref); it != call.args.end() && !it->second.empty())
      return "^" + it->second.front();
    return fail("names no node or argument of the function");
  }
  uint64_t index = 0;
  if (parts.size() > 1 && parts.back().getAsInteger(10, index))
    return fail("is not ARG, ARG:INDEX or NODE:OUTPUT:INDEX");
  if (parts.size() <= 2) {
    if (auto it = call.args.find(parts[0]); it != call.args.end()) {
      if (index >= it->second.size())
        return fail("is past the end of the argument");
      return it->second[index];
    }
    if (auto it = call.body.find(parts[0]); it != call.body.end())
      return call.prefix + parts[0].str() + ":" + std::to_string(index);
    return fail("names no argument or node of the function");
  }
  if (parts.size() != 3)
    return fail("is not ARG, ARG:INDEX or NODE:OUTPUT:INDEX");
  auto it = call.body.find(parts[0]);
  if (it == call.body.end())
    return fail("names no node of the function");
  std::optional<int> port = outputPort(call, *it->second, parts[1], int64_t(index));
  if (!port)
    return fail("names no output of the node's op (" + it->second->op() + ")");
  return call.prefix + parts[0].str() + ":" + std::to_string(*port);
}

LogicalResult Inliner::inlineCall(int index, const tensorflow::FunctionDef &function,
                                  const AttrMap &attrs) {
  const tensorflow::OpDef &signature = function.signature();
  std::vector<std::string> stack = stacks[index];
  const tensorflow::NodeDef &callNode = graph.node(index); // replaced at the end
  Call call;
  call.name = callNode.name();
  call.op = callNode.op();
  call.device = callNode.device();
  call.function = &function;
  call.attrs = &attrs;
  if (llvm::is_contained(stack, signature.name()))
    return callError(call) << "calls itself (through " << llvm::join(stack, " -> ")
                           << "); recursive functions cannot be inlined";
  stack.push_back(signature.name());

  // The call's data and control inputs.
  std::vector<std::string> data;
  for (const std::string &in : callNode.input())
    (StringRef(in).starts_with("^") ? call.controls : data).push_back(in);

  for (const auto &node : function.node_def())
    if (!call.body.try_emplace(node.name(), &node).second)
      return callError(call) << "two nodes of its body are named '" << node.name() << "'";
  for (const auto &arg : signature.input_arg())
    if (call.body.count(arg.name()))
      return callError(call) << "its argument '" << arg.name()
                             << "' has the name of a node of its body";

  // The number of inputs.
  int64_t expected = 0;
  std::vector<std::pair<const tensorflow::OpDef::ArgDef *, int64_t>> argCounts;
  for (const auto &arg : signature.input_arg()) {
    std::optional<int64_t> count = argCount(call, arg, attrs, signature);
    if (!count)
      return failure();
    argCounts.push_back({&arg, *count});
    expected += *count;
  }
  if (int64_t(data.size()) != expected)
    return callError(call) << "the call has " << data.size() << " data input"
                           << (data.size() == 1 ? "" : "s") << "; the function takes " << expected;
  if (graph.node_size() + expected + expandedSize(function) > kMaxInlinedNodes)
    return callError(call) << "inlining it would make the graph larger than " << kMaxInlinedNodes
                           << " nodes";

  // The name, after the prefix, of the node standing for tensor `e` of argument `arg`.
  auto argNode = [](const tensorflow::OpDef::ArgDef &arg, int64_t e) {
    bool list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    return list ? arg.name() + "_" + std::to_string(e) : arg.name();
  };
  // A prefix under which none of the copies' names is taken.
  call.prefix = call.name + "/";
  for (int k = 1;; ++k) {
    auto taken = [&](const std::string &name) { return names.contains(call.prefix + name); };
    bool clash = llvm::any_of(call.body, [&](const auto &e) { return taken(e.getKey().str()); });
    for (auto [arg, count] : argCounts)
      for (int64_t e = 0; e < count && !clash; ++e)
        clash = taken(argNode(*arg, e));
    if (!clash)
      break;
    call.prefix = call.name + "/_inlined_" + std::to_string(k) + "/";
  }

  std::vector<tensorflow::NodeDef> added;
  int64_t next = 0;
  for (auto [arg, count] : argCounts) {
    std::vector<std::string> &tensors = call.args[arg->name()];
    for (int64_t e = 0; e < count; ++e, ++next) {
      tensorflow::NodeDef node;
      node.set_name(call.prefix + argNode(*arg, e));
      node.set_op("Identity");
      node.set_device(call.device);
      node.add_input(data[next]);
      for (const std::string &c : call.controls)
        node.add_input(c);
      // A PartitionedCall's Tin gives the types the signature leaves to attributes.
      int dtype = argType(call, *arg, e);
      if (!dtype && isCallOp(call.op))
        dtype = listType(callNode, "Tin", next);
      if (dtype)
        (*node.mutable_attr())["T"].set_type(tensorflow::DataType(dtype));
      tensors.push_back(node.name());
      added.push_back(std::move(node));
    }
  }

  for (const auto &original : function.node_def()) {
    tensorflow::NodeDef node = original;
    node.set_name(call.prefix + original.name());
    node.clear_input();
    for (const std::string &in : original.input()) {
      // A list argument named whole stands for all its tensors.
      if (auto it = call.args.find(in); it != call.args.end() && it->second.size() != 1) {
        for (const std::string &tensor : it->second)
          node.add_input(tensor);
        continue;
      }
      std::optional<std::string> resolved =
          resolve(call, in, "node '" + original.name() + "' has input");
      if (!resolved)
        return failure();
      node.add_input(*resolved);
    }
    if (original.input().empty())
      for (const std::string &c : call.controls)
        node.add_input(c);
    if (node.device().empty())
      node.set_device(call.device);
    for (auto &[key, value] : *node.mutable_attr()) {
      // Colocation with a node of the body means with its copy.
      if (key == "_class" && value.value_case() == tensorflow::AttrValue::kList)
        for (std::string &entry : *value.mutable_list()->mutable_s())
          if (StringRef(entry).starts_with("loc:@") && call.body.count(entry.substr(5)))
            entry = "loc:@" + call.prefix + entry.substr(5);
      if (value.value_case() != tensorflow::AttrValue::kPlaceholder)
        continue;
      const tensorflow::AttrValue *given = attr(call, value.placeholder());
      if (!given)
        return callError(call) << "its node '" << original.name() << "' takes attribute '" << key
                               << "' from the call's '" << value.placeholder()
                               << "', which the call does not give";
      value = *given;
    }
    added.push_back(std::move(node));
  }

  // The call node becomes the function's results.
  std::vector<std::string> results;
  std::vector<int> types;
  for (const auto &out : signature.output_arg()) {
    std::optional<int64_t> count = argCount(call, out, attrs, signature);
    if (!count)
      return failure();
    auto ret = function.ret().find(out.name());
    if (ret == function.ret().end())
      return callError(call) << "its result '" << out.name() << "' has no ret entry";
    for (int64_t e = 0; e < *count; ++e) {
      std::string ref = ret->second;
      if (*count > 1) {
        // A list result names its first tensor; the others follow it.
        SmallVector<StringRef, 3> parts;
        StringRef(ret->second).split(parts, ':');
        uint64_t first = 0;
        if (parts.size() == 3 && !parts[2].getAsInteger(10, first))
          ref = (parts[0] + ":" + parts[1] + ":" + Twine(first + e)).str();
      }
      std::optional<std::string> resolved = resolve(call, ref, "result '" + out.name() + "' is");
      if (!resolved)
        return failure();
      int dtype = argType(call, out, e);
      if (!dtype && isCallOp(call.op))
        dtype = listType(callNode, "Tout", int64_t(results.size()));
      results.push_back(*resolved);
      types.push_back(dtype);
    }
  }

  tensorflow::NodeDef replacement;
  replacement.set_name(call.name);
  replacement.set_device(call.device);
  replacement.set_op(results.empty() ? "NoOp" : results.size() == 1 ? "Identity" : "IdentityN");
  for (const std::string &r : results)
    replacement.add_input(r);
  std::vector<std::string> controlRets;
  for (const auto &entry : function.control_ret())
    controlRets.push_back(entry.second);
  llvm::sort(controlRets); // protobuf maps have no order
  for (const std::string &node : controlRets) {
    if (!call.body.count(node))
      return callError(call) << "its control output names no node of its body ('" << node << "')";
    replacement.add_input("^" + call.prefix + node);
  }
  if (results.size() == 1 && types[0])
    (*replacement.mutable_attr())["T"].set_type(tensorflow::DataType(types[0]));
  if (results.size() > 1) {
    auto *list = (*replacement.mutable_attr())["T"].mutable_list();
    for (auto [i, dtype] : llvm::enumerate(types)) {
      if (!dtype)
        return callError(call) << "the type of its result " << i << " is not known";
      list->add_type(tensorflow::DataType(dtype));
    }
  }
  graph.mutable_node(index)->Swap(&replacement);
  for (tensorflow::NodeDef &node : added) {
    names.insert(node.name());
    *graph.add_node() = std::move(node);
    stacks.push_back(stack);
  }
  return success();
}

LogicalResult Inliner::run() {
  ctx->getOrLoadDialect<tf::TFDialect>(); // the ops' output arguments
  for (const auto &function : library.function()) {
    const std::string &name = function.signature().name();
    if (name.empty())
      return emitError(FileLineColLoc::get(ctx, fileName, 0, 0))
             << "a function of the graph's library has no name";
    if (!functions.try_emplace(name, &function).second)
      return emitError(FileLineColLoc::get(ctx, fileName, 0, 0))
             << "the graph's library defines function '" << name << "' twice";
  }
  for (const auto &node : graph.node())
    names.insert(node.name());
  stacks.assign(graph.node_size(), {});
  // Nodes added by inlining are visited in turn: calls within bodies are inlined too.
  for (int i = 0; i < graph.node_size(); ++i) {
    const tensorflow::NodeDef &node = graph.node(i);
    const tensorflow::FunctionDef *function = callee(node);
    bool call = isCallOp(node.op());
    if (!function && !call)
      continue;
    auto f = node.attr().find("f");
    if (!function &&
        (f == node.attr().end() || f->second.value_case() != tensorflow::AttrValue::kFunc))
      return nodeError(node.name(), node.op())
             << "has no function attribute 'f' naming the function it calls";
    if (!function)
      return nodeError(node.name(), node.op()) << "calls function '" << f->second.func().name()
                                               << "', which the graph's library does not define";
    // inlineCall replaces the node, which may hold the attributes: keep a copy.
    AttrMap copy = call ? f->second.func().attr() : node.attr();
    if (failed(inlineCall(i, *function, copy)))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult inlineFunctionCalls(tensorflow::GraphDef &graph, StringRef fileName,
                                  MLIRContext *context,
                                  const tensorflow::FunctionDefLibrary *library) {
  return Inliner(graph, library ? *library : graph.library(), fileName, context).run();
}

} // namespace kiln::import
