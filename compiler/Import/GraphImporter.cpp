//===- GraphImporter.cpp - GraphDef to tf dialect -----------------------------===//
//
// 0. Inline the calls of the function library (Functions.cpp), make TensorFlow 1
//    TensorArrays TensorLists (TensorArrays.cpp) and TensorFlow 1 control flow (Switch,
//    Merge, Enter, Exit, NextIteration) If and While nodes (Functionalize.cpp).
// 1. Index the nodes and parse their inputs (`name`, `name:port`, `^name`).
// 2. Choose the nodes the fetches need, walking inputs backwards and stopping at feeds
//    (the paper's partial execution), or take every node.
// 3. Order them topologically; a cycle is an error (TensorFlow 1 loops, NextIteration
//    back to Merge, were made While nodes before: Functionalize.cpp).
// 4. Report every unsupported op type at once.
// 5. Build one function: feeds are arguments, each node is a `tf.<op>` with its node name
//    as location, its attributes, and result types inferred by the op; fetches are results.
//    If, Case and While take their functions as regions, each imported by steps 0 to 5 as
//    a graph of its own (importBody).
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/GraphImporter.h"
#include "compiler/Import/Convert.h"
#include "compiler/Import/Functionalize.h"
#include "compiler/Import/Functions.h"
#include "compiler/Import/Import.h"
#include "compiler/Import/ProtoParse.h"
#include "dialects/Kiln/Model.h"
#include "dialects/TF/TFOps.h"

#include "graph.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include <queue>
#include <set>

using namespace mlir;

namespace kiln::import {

std::optional<TensorId> parseTensorId(StringRef text) {
  TensorId id;
  size_t colon = text.rfind(':');
  StringRef name = text;
  if (colon != StringRef::npos) {
    StringRef port = text.substr(colon + 1);
    // TensorFlow's ports are int32; a larger one would wrap to a negative index.
    uint64_t value;
    if (port.getAsInteger(10, value) || value > uint64_t(kMaxPort))
      return std::nullopt;
    id.port = static_cast<int>(value);
    name = text.substr(0, colon);
  }
  if (name.empty())
    return std::nullopt;
  id.node = name.str();
  return id;
}

namespace {

/// Data outputs of an imported op: its results other than control tokens.
unsigned numDataOutputs(Operation *op) {
  return llvm::count_if(op->getResultTypes(), [](Type t) { return !isa<tf::ControlType>(t); });
}

std::string describeOutputs(unsigned count) {
  if (count == 0)
    return "no data output";
  return std::to_string(count) + (count == 1 ? " output" : " outputs");
}

struct Input {
  std::string node;
  int port = 0;
  bool control = false;
};

struct Node {
  const tensorflow::NodeDef *def;
  std::vector<Input> inputs;
};

class GraphImporter {
public:
  GraphImporter(const tensorflow::GraphDef &graph, StringRef fileName, const ImportOptions &options,
                MLIRContext *ctx)
      : graph(graph), fileName(fileName.str()), options(options), ctx(ctx), builder(ctx) {}

  OwningOpRef<ModuleOp> run();

private:
  InFlightDiagnostic fileError() { return emitError(FileLineColLoc::get(ctx, fileName, 0, 0)); }
  Location nodeLoc(StringRef name) { return NameLoc::get(builder.getStringAttr(name)); }
  InFlightDiagnostic nodeError(const Node &node) {
    return emitError(nodeLoc(node.def->name()))
           << "node '" << node.def->name() << "' (" << node.def->op() << "): ";
  }

  LogicalResult indexNodes();
  LogicalResult resolveFeedsAndFetches();
  LogicalResult selectNeeded();
  LogicalResult orderTopologically();
  LogicalResult checkSupported();
  LogicalResult verifyImported(const Node &node, mlir::Operation *op);
  LogicalResult feedTypes(const FeedSpec &feed, Type &type);
  LogicalResult build(ModuleOp module);
  Operation *createOp(const Node &node, ArrayRef<Value> data, ArrayRef<Value> control);
  Operation *createControlFlow(const Node &node, ArrayRef<Value> data, ArrayRef<Value> control);
  LogicalResult importBody(const Node &node, StringRef key,
                           const tensorflow::NameAttrList &function, TypeRange inputs,
                           Region &region);
  LogicalResult importSubgraph(const tensorflow::GraphDef &sub, const std::string &call,
                               ImportOptions &subOptions, const std::string &function,
                               TypeRange inputs, Region &region);

public:
  /// The functions whose bodies are being imported around this graph (If and While
  /// regions), outermost first: a function that loops back into itself is an error.
  std::vector<std::string> enclosing;
  /// The loop and conditional bodies functionalizeControlFlow cut out of the graph.
  std::shared_ptr<const GraphBodies> bodies;
  /// The function library of the outermost graph, for the bodies imported inside it
  /// (which have none of their own); null: this graph's.
  const tensorflow::FunctionDefLibrary *library = nullptr;

private:
  bool isFed(const std::string &node, int port) const {
    return fedIndex.count(TensorId{node, port}.str()) != 0;
  }
  /// A control input on a fed node waits for the feed (TensorFlow rewrites it so).
  bool isFedAnyPort(const std::string &node) const {
    return llvm::any_of(options.feeds, [&](const FeedSpec &f) { return f.id.node == node; });
  }

  const tensorflow::GraphDef &graph;
  std::string fileName;
  ImportOptions options;
  MLIRContext *ctx;
  OpBuilder builder;

  std::vector<Node> nodes;
  llvm::StringMap<size_t> byName;
  std::map<std::string, size_t> fedIndex; // "node:port" -> feed number
  std::vector<bool> needed;
  std::vector<size_t> order;
  bool explicitFeeds = false;
};

/// The tf op a functional control-flow node becomes ("tf.If" for If and StatelessIf), or
/// "" for any other op.
static StringRef controlFlowOp(StringRef op) {
  return llvm::StringSwitch<StringRef>(op)
      .Cases({"If", "StatelessIf"}, "tf.If")
      .Cases({"Case", "StatelessCase"}, "tf.Case")
      .Cases({"While", "StatelessWhile"}, "tf.While")
      .Default("");
}

/// TensorFlow's rule for node names (IsValidNodeName in its graph constructor, internal
/// ops allowed): a letter, digit, '.' or '_', then letters, digits and '-', '.', '/', '_';
/// '>' may start another such part. So a name never holds quotes, spaces or control bytes.
static bool isValidNodeName(StringRef name) {
  auto first = [](char c) { return llvm::isAlnum(c) || c == '.' || c == '_'; };
  auto rest = [](char c) {
    return llvm::isAlnum(c) || c == '-' || c == '.' || c == '/' || c == '_';
  };
  if (name.empty() || !first(name[0]))
    return false;
  for (size_t i = 1; i < name.size(); ++i) {
    if (name[i] == '>') {
      if (i + 1 >= name.size() || !(llvm::isAlnum(name[i + 1]) || name[i + 1] == '.'))
        return false;
      ++i;
      continue;
    }
    if (!rest(name[i]))
      return false;
  }
  return true;
}

LogicalResult GraphImporter::indexNodes() {
  nodes.reserve(graph.node_size());
  for (const auto &def : graph.node()) {
    if (def.name().empty())
      return fileError() << "a node of op '" << def.op() << "' has no name";
    if (!isValidNodeName(def.name()))
      return fileError() << "node name '" << def.name()
                         << "' is not a valid TensorFlow node name (letters, digits and '.', "
                            "'_', '-', '/', starting with a letter, digit, '.' or '_')";
    if (def.op().empty())
      return fileError() << "node '" << def.name() << "' has no op (its op field is empty)";
    if (!byName.try_emplace(def.name(), nodes.size()).second)
      return fileError() << "two nodes are named '" << def.name() << "'";
    nodes.push_back(Node{&def, {}});
  }
  for (Node &node : nodes) {
    bool sawControl = false;
    for (const std::string &raw : node.def->input()) {
      StringRef text = raw;
      Input in;
      in.control = text.consume_front("^");
      if (!in.control && sawControl)
        return nodeError(node) << "data input '" << raw
                               << "' follows a control input; control inputs (^name) come last";
      sawControl |= in.control;
      std::optional<TensorId> id = parseTensorId(text);
      if (!id)
        return nodeError(node) << "malformed input '" << raw
                               << "' (expected NAME, NAME:PORT with PORT from 0 to " << kMaxPort
                               << ", or ^NAME)";
      if (!byName.count(id->node))
        return nodeError(node) << "input '" << raw << "' names no node in the graph";
      in.node = id->node;
      in.port = in.control ? 0 : id->port;
      node.inputs.push_back(in);
    }
  }
  return success();
}

LogicalResult GraphImporter::resolveFeedsAndFetches() {
  for (const FeedSpec &feed : options.feeds)
    if (!byName.count(feed.id.node))
      return fileError() << "feed '" << feed.id.node << "' names no node in the graph";
  for (const FetchSpec &fetch : options.fetches)
    if (!byName.count(fetch.id.node))
      return fileError() << "fetch '" << fetch.id.node << "' names no node in the graph";

  if (options.fetches.empty() && !options.importAllWithoutFetches) {
    // Fetch the sinks: data outputs (port 0) of nodes nobody consumes.
    std::vector<bool> consumed(nodes.size(), false);
    for (const Node &node : nodes)
      for (const Input &in : node.inputs)
        consumed[byName.lookup(in.node)] = true;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!consumed[i] && nodes[i].def->op() != "NoOp")
        options.fetches.push_back(FetchSpec{TensorId{nodes[i].def->name(), 0}, "", ""});
    if (options.fetches.empty())
      return fileError() << "the graph has no outputs to fetch; give --fetch";
  }

  explicitFeeds = !options.feeds.empty();
  if (options.feeds.empty() && options.feedPlaceholders) {
    // Every Placeholder is fed with its declared shape; unneeded ones are dropped later.
    for (const Node &node : nodes)
      if (node.def->op() == "Placeholder")
        options.feeds.push_back(FeedSpec{TensorId{node.def->name(), 0}, {}, {}, "", ""});
  }
  for (size_t i = 0; i < options.feeds.size(); ++i)
    if (!fedIndex.emplace(options.feeds[i].id.str(), i).second)
      return fileError() << "tensor '" << options.feeds[i].id.str() << "' is fed twice";
  return success();
}

LogicalResult GraphImporter::selectNeeded() {
  needed.assign(nodes.size(), false);
  if (options.fetches.empty()) {
    needed.assign(nodes.size(), true);
    return success();
  }
  std::vector<size_t> worklist;
  for (const FetchSpec &fetch : options.fetches)
    if (!isFed(fetch.id.node, fetch.id.port))
      worklist.push_back(byName.lookup(fetch.id.node));
  while (!worklist.empty()) {
    size_t i = worklist.back();
    worklist.pop_back();
    if (needed[i])
      continue;
    needed[i] = true;
    for (const Input &in : nodes[i].inputs)
      if (!(in.control ? isFedAnyPort(in.node) : isFed(in.node, in.port)))
        worklist.push_back(byName.lookup(in.node));
  }
  // Feeds that nothing needs are dropped unless fetched directly; with explicit feeds the
  // signature stays as the user asked.
  return success();
}

LogicalResult GraphImporter::orderTopologically() {
  std::vector<int> pending(nodes.size(), 0);
  std::vector<std::vector<size_t>> consumers(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i])
      continue;
    for (const Input &in : nodes[i].inputs) {
      if (in.control ? isFedAnyPort(in.node) : isFed(in.node, in.port))
        continue;
      size_t producer = byName.lookup(in.node);
      ++pending[i];
      consumers[producer].push_back(i);
    }
  }
  // Ready nodes in graph order, so that the output follows the file.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (needed[i] && pending[i] == 0)
      ready.push(i);
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t c : consumers[i])
      if (--pending[c] == 0)
        ready.push(c);
  }
  size_t neededCount = std::count(needed.begin(), needed.end(), true);
  if (order.size() == neededCount)
    return success();

  // Nodes still pending are on a cycle or downstream of one; peel off the downstream ones
  // (those no other pending node consumes) until only cycles are left.
  std::vector<bool> onCycle(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i)
    onCycle[i] = needed[i] && pending[i] > 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (onCycle[i] && llvm::none_of(consumers[i], [&](size_t c) { return onCycle[c]; })) {
        onCycle[i] = false;
        changed = true;
      }
    }
  }
  std::vector<std::string> cycle;
  bool loop = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!onCycle[i])
      continue;
    cycle.push_back("'" + nodes[i].def->name() + "'");
    loop |= nodes[i].def->op() == "NextIteration";
  }
  auto diag = fileError() << "the graph has a cycle through " << cycle.size()
                          << (cycle.size() == 1 ? " node: " : " nodes: ")
                          << llvm::join(cycle, ", ");
  if (loop)
    diag << " (a NextIteration loop that is not a TensorFlow loop: no Enter starts it)";
  return diag;
}

LogicalResult GraphImporter::checkSupported() {
  llvm::MapVector<StringRef, std::vector<std::string>> unsupported;
  for (size_t i : order) {
    const tensorflow::NodeDef &def = *nodes[i].def;
    std::string name = "tf." + def.op();
    // A graph node is an op with the graph interface (tf.Yield, a region's terminator,
    // is not one), or one of the control-flow ops built from functions.
    std::optional<RegisteredOperationName> info = RegisteredOperationName::lookup(name, ctx);
    bool nodeOp = info && info->hasInterface<tf::GraphOpInterface>();
    if (controlFlowOp(def.op()).empty() && !nodeOp)
      unsupported[def.op()].push_back("'" + def.name() + "'");
  }
  if (unsupported.empty())
    return success();
  size_t count = 0;
  for (auto &entry : unsupported)
    count += entry.second.size();
  auto diag = fileError() << count << " node" << (count == 1 ? "" : "s")
                          << " with unsupported ops: ";
  bool first = true;
  for (auto &[op, names] : unsupported) {
    if (!first)
      diag << "; ";
    first = false;
    diag << op << " (" << (names.size() == 1 ? "node " : "nodes ") << llvm::join(names, ", ")
         << ")";
  }
  return diag;
}

LogicalResult GraphImporter::feedTypes(const FeedSpec &feed, Type &type) {
  const Node &node = nodes[byName.lookup(feed.id.node)];
  const auto &attrs = node.def->attr();
  Type element = feed.elementType;
  Type nodeElement;
  for (const char *key : {"dtype", "T"}) {
    auto it = attrs.find(key);
    if (it != attrs.end() && it->second.value_case() == tensorflow::AttrValue::kType) {
      nodeElement = convertDataType(it->second.type(), ctx);
      break;
    }
  }
  if (!element)
    element = nodeElement;
  if (!element)
    return fileError() << "feed '" << feed.id.str() << "': give its dtype; node '" << feed.id.node
                       << "' (" << node.def->op() << ") does not declare one";
  if (nodeElement && nodeElement != element && feed.id.port == 0)
    return fileError() << "feed '" << feed.id.str() << "' has dtype " << dataTypeName(element)
                       << " but node '" << feed.id.node << "' (" << node.def->op() << ") produces "
                       << dataTypeName(nodeElement);

  std::optional<SmallVector<int64_t>> declared;
  if (auto it = attrs.find("shape");
      it != attrs.end() && it->second.value_case() == tensorflow::AttrValue::kShape) {
    std::string error = checkShape(it->second.shape());
    if (!error.empty())
      return nodeError(node) << "attribute 'shape': " << error;
    declared = convertShape(it->second.shape());
  } else if (auto it = attrs.find("value");
             it != attrs.end() && it->second.value_case() == tensorflow::AttrValue::kTensor)
    declared = convertShape(it->second.tensor().tensor_shape());

  std::optional<SmallVector<int64_t>> dims = feed.shape ? feed.shape : declared;
  if (feed.shape && declared) {
    auto a = RankedTensorType::get(*feed.shape, element);
    auto b = RankedTensorType::get(*declared, element);
    if (failed(verifyCompatibleShape(a, b)))
      return fileError() << "feed '" << feed.id.str() << "' has shape " << a << " but node '"
                         << feed.id.node << "' declares " << b;
  }
  if (dims)
    type = RankedTensorType::get(*dims, element);
  else
    type = UnrankedTensorType::get(element);
  return success();
}

/// The deepest nesting of If and While bodies the importer follows.
static constexpr size_t kMaxBodyDepth = 64;

/// Imports `function` (attribute `key` of a control-flow node, or its branch `key`) as
/// `region`'s one block: its arguments `inputs`, its results yielded. The body is imported
/// as a graph of its own: a direct call of the function on Placeholders, inlined as any
/// call is, with the call's outputs fetched; its nodes are named `NODE/KEY/...`.
LogicalResult GraphImporter::importBody(const Node &node, StringRef key,
                                        const tensorflow::NameAttrList &function, TypeRange inputs,
                                        Region &region) {
  const tensorflow::NodeDef &def = *node.def;
  if (llvm::is_contained(enclosing, function.name()))
    return nodeError(node) << "its " << key << " '" << function.name() << "' runs inside itself ("
                           << llvm::join(enclosing, " -> ") << " -> " << function.name()
                           << "): recursion is not supported";
  if (enclosing.size() >= kMaxBodyDepth)
    return nodeError(node) << "control flow nests more than " << kMaxBodyDepth << " deep";
  std::string call = def.name() + "/" + key.str();
  ImportOptions subOptions;
  subOptions.importAllWithoutFetches = false;
  subOptions.feedPlaceholders = false;
  auto feed = [&](const std::string &name, Type type) {
    FeedSpec spec;
    spec.id = TensorId{name, 0};
    auto tensor = cast<TensorType>(type);
    spec.elementType = tensor.getElementType();
    if (tensor.hasRank())
      spec.shape = SmallVector<int64_t>(tensor.getShape());
    subOptions.feeds.push_back(std::move(spec));
  };

  // A body cut out of TF1 control flow is a graph already, its nodes keeping their names.
  if (bodies) {
    if (auto it = bodies->find(function.name()); it != bodies->end()) {
      const GraphBody &body = it->second;
      if (body.args.size() != inputs.size())
        return nodeError(node) << "its " << key << " takes " << body.args.size()
                               << " arguments but the node passes " << inputs.size();
      for (auto [arg, type] : llvm::zip(body.args, inputs))
        feed(arg, type);
      for (const TensorId &result : body.results)
        subOptions.fetches.push_back(FetchSpec{result, "", ""});
      return importSubgraph(body.graph, call, subOptions, function.name(), inputs, region);
    }
  }

  const tensorflow::FunctionDef *body = nullptr;
  const tensorflow::FunctionDefLibrary &functions = library ? *library : graph.library();
  for (const auto &f : functions.function())
    if (f.signature().name() == function.name())
      body = &f;
  if (!body)
    return nodeError(node) << "its " << key << " names function '" << function.name()
                           << "', which the graph's library does not define";
  tensorflow::GraphDef sub;
  *sub.mutable_versions() = graph.versions();
  tensorflow::NodeDef &caller = *sub.add_node();
  caller.set_name(call);
  caller.set_op(function.name());
  *caller.mutable_attr() = function.attr();
  caller.set_device(def.device());
  for (auto [i, type] : llvm::enumerate(inputs)) {
    tensorflow::NodeDef &arg = *sub.add_node();
    arg.set_name(call + "_input_" + std::to_string(i));
    arg.set_op("Placeholder");
    caller.add_input(arg.name());
    feed(arg.name(), type);
  }
  if (failed(inlineFunctionCalls(sub, fileName, ctx, &functions)))
    return failure();
  // The call is now an Identity, IdentityN or NoOp of the body's results.
  const tensorflow::NodeDef &results = sub.node(0);
  int count = 0;
  for (const std::string &input : results.input())
    count += !StringRef(input).starts_with("^");
  for (int i = 0; i < count; ++i)
    subOptions.fetches.push_back(FetchSpec{TensorId{call, i}, "", ""});
  return importSubgraph(sub, call, subOptions, function.name(), inputs, region);
}

/// Imports `sub` with `subOptions` (the body's arguments fed, its results fetched) into
/// `region`, its results yielded.
LogicalResult GraphImporter::importSubgraph(const tensorflow::GraphDef &sub,
                                            const std::string &call, ImportOptions &subOptions,
                                            const std::string &function, TypeRange inputs,
                                            Region &region) {
  GraphImporter importer(sub, fileName, subOptions, ctx);
  importer.enclosing = enclosing;
  importer.enclosing.push_back(function);
  importer.bodies = bodies;
  importer.library = library ? library : &graph.library();
  // A body that returns nothing yields nothing; the importer needs something to fetch.
  OwningOpRef<ModuleOp> module;
  if (!subOptions.fetches.empty()) {
    module = importer.run();
  } else {
    module = ModuleOp::create(nodeLoc(call));
    OpBuilder b(module->getBody(), module->getBody()->end());
    SmallVector<Type> types(inputs);
    auto empty = func::FuncOp::create(b, nodeLoc(call), "main", b.getFunctionType(types, {}));
    b.setInsertionPointToEnd(empty.addEntryBlock());
    func::ReturnOp::create(b, nodeLoc(call), ValueRange{});
  }
  if (!module)
    return failure();
  auto func = *module->getOps<func::FuncOp>().begin();
  region.takeBody(func.getBody());
  auto ret = cast<func::ReturnOp>(region.front().getTerminator());
  OpBuilder b(ret);
  tf::YieldOp::create(b, ret.getLoc(), ret.getOperands());
  ret.erase();
  return success();
}

Operation *GraphImporter::createControlFlow(const Node &node, ArrayRef<Value> data,
                                            ArrayRef<Value> control) {
  const tensorflow::NodeDef &def = *node.def;
  StringRef opName = controlFlowOp(def.op());
  bool isWhile = opName == "tf.While";
  // If and Case take a condition or branch index first.
  bool isIf = !isWhile;
  if (isIf && data.empty()) {
    nodeError(node) << "has no " << (opName == "tf.If" ? "cond" : "branch_index") << " input";
    return nullptr;
  }
  ArrayRef<Value> inputs = isIf ? data.drop_front() : data;
  // The functions: If's then_branch and else_branch, While's cond and body, Case's branches.
  SmallVector<std::pair<std::string, const tensorflow::NameAttrList *>> functions;
  auto function = [&](StringRef key) {
    auto it = def.attr().find(key.str());
    bool ok = it != def.attr().end() && it->second.value_case() == tensorflow::AttrValue::kFunc;
    if (ok)
      functions.push_back({key.str(), &it->second.func()});
    else
      nodeError(node) << "has no function attribute '" << key << "'";
    return ok;
  };
  if (opName == "tf.Case") {
    auto it = def.attr().find("branches");
    if (it == def.attr().end() || it->second.value_case() != tensorflow::AttrValue::kList ||
        it->second.list().func_size() == 0) {
      nodeError(node) << "has no list of functions 'branches'";
      return nullptr;
    }
    for (auto [i, f] : llvm::enumerate(it->second.list().func()))
      functions.push_back({"branch" + std::to_string(i), &f});
  } else if (!(opName == "tf.If" ? function("then_branch") && function("else_branch")
                                 : function("cond") && function("body"))) {
    return nullptr;
  }
  SmallVector<Type> types;
  SmallVector<Attribute> elementTypes;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto tensor = dyn_cast<TensorType>(input.getType());
    if (!tensor) {
      nodeError(node) << "input " << i + isIf << " is not a tensor";
      return nullptr;
    }
    types.push_back(tensor);
    elementTypes.push_back(TypeAttr::get(tensor.getElementType()));
  }
  OperationState state(nodeLoc(def.name()), controlFlowOp(def.op()));
  state.addOperands(data);
  state.addOperands(control);
  state.addAttribute(isIf ? "Tin" : "T", builder.getArrayAttr(elementTypes));
  if (auto it = def.attr().find("parallel_iterations");
      isWhile && it != def.attr().end() && it->second.value_case() == tensorflow::AttrValue::kI)
    state.addAttribute("parallel_iterations", builder.getI64IntegerAttr(it->second.i()));
  if (!def.device().empty())
    state.addAttribute("device", builder.getStringAttr(def.device()));
  for (auto [key, f] : functions)
    if (failed(importBody(node, key, *f, types, *state.addRegion())))
      return nullptr;
  SmallVector<Type> results;
  // If and Case infer their results from the branches alike.
  auto infer = isIf ? &tf::CaseOp::inferReturnTypes : &tf::WhileOp::inferReturnTypes;
  if (failed(infer(ctx, nodeLoc(def.name()), state.operands, state.attributes.getDictionary(ctx),
                   nullptr, RegionRange(state.regions), results)))
    return nullptr;
  state.addTypes(results);
  Operation *op = builder.create(state);
  if (succeeded(verifyImported(node, op)))
    return op;
  op->erase();
  return nullptr;
}

Operation *GraphImporter::createOp(const Node &node, ArrayRef<Value> data,
                                   ArrayRef<Value> control) {
  const tensorflow::NodeDef &def = *node.def;
  if (!controlFlowOp(def.op()).empty())
    return createControlFlow(node, data, control);
  Location loc = nodeLoc(def.name());
  OperationState state(loc, "tf." + def.op());
  state.addOperands(data);
  state.addOperands(control);

  // Attributes in a stable (sorted) order; protobuf maps have none.
  std::vector<std::string> keys;
  for (const auto &entry : def.attr())
    keys.push_back(entry.first);
  std::sort(keys.begin(), keys.end());
  for (const std::string &key : keys) {
    std::string error;
    const tensorflow::AttrValue &value = def.attr().at(key);
    // A TensorList is a variant in TensorFlow and the dense tensor of its elements in
    // Kiln: an Identity's `T = variant` (a list passed through) is the data's type.
    if (key == "T" && (value.type() == tensorflow::DT_VARIANT ||
                       llvm::is_contained(value.list().type(), tensorflow::DT_VARIANT))) {
      SmallVector<Attribute> types;
      for (Value input : data)
        if (auto tensor = dyn_cast<TensorType>(input.getType()))
          types.push_back(TypeAttr::get(tensor.getElementType()));
      if (value.value_case() == tensorflow::AttrValue::kType && !types.empty())
        state.addAttribute(key, types.front());
      else if (value.value_case() == tensorflow::AttrValue::kList)
        state.addAttribute(key, builder.getArrayAttr(types));
      continue;
    }
    Attribute attr = convertAttr(value, ctx, error);
    if (!attr) {
      nodeError(node) << "attribute '" << key << "': " << error;
      return nullptr;
    }
    state.addAttribute(key, attr);
  }
  if (!def.device().empty()) {
    if (def.attr().count("device")) {
      nodeError(node) << "has an attribute named 'device', which Kiln keeps for the node's "
                         "device field";
      return nullptr;
    }
    state.addAttribute("device", builder.getStringAttr(def.device()));
  }

  Operation *op = tf::createInferred(builder, state);
  if (!op || succeeded(verifyImported(node, op)))
    return op;
  op->erase();
  return nullptr;
}

/// What TensorFlow calls the attribute kinds that ODS's constraints describe.
static StringRef tfAttributeKind(StringRef constraint) {
  return llvm::StringSwitch<StringRef>(constraint)
      .Case("bool attribute", "a bool (b: true or false)")
      .Case("64-bit signless integer attribute", "an integer (i: ...)")
      .Case("32-bit float attribute", "a float (f: ...)")
      .Case("string attribute", "a string (s: \"...\")")
      .Case("any type attribute", "a dtype (type: DT_...)")
      .Case("64-bit integer array attribute", "a list of integers (list { i: ... })")
      .Case("string array attribute", "a list of strings (list { s: ... })")
      .Case("type array attribute", "a list of dtypes (list { type: ... })")
      .Case("constant vector/tensor attribute", "a tensor (tensor { ... })")
      .Case("dictionary of named attribute values", "a dictionary")
      .StartsWith("a TensorFlow TensorShapeProto", "a shape (shape { dim ... })")
      .Default(constraint);
}

/// Verifies an op just built from `node`, so that a bad attribute is reported in
/// TensorFlow's terms ("attribute 'transpose_a' must be a bool (b: true or false), got an
/// integer (3)") rather than as ODS's "failed to satisfy constraint: bool attribute".
LogicalResult GraphImporter::verifyImported(const Node &node, Operation *op) {
  std::string message;
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      if (message.empty())
        message = d.str();
      return success();
    });
    if (succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
      return success();
  }
  StringRef text = message;
  // "'tf.MatMul' op ..." names the op the node already names.
  text.consume_front("'" + op->getName().getStringRef().str() + "' op ");
  std::string problem = text.str();
  StringRef name, constraint;
  if (text.consume_front("attribute '")) {
    std::tie(name, constraint) = text.split("' failed to satisfy constraint: ");
    if (!constraint.empty())
      return nodeError(node) << "attribute '" << name << "' must be " << tfAttributeKind(constraint)
                             << ", got " << tf::describeAttribute(op->getAttr(name));
  }
  return nodeError(node) << problem;
}

LogicalResult GraphImporter::build(ModuleOp module) {
  // Feeds that are needed (or fetched directly) become the arguments, in feed order.
  SmallVector<Type> argTypes;
  SmallVector<const FeedSpec *> args;
  for (const FeedSpec &feed : options.feeds) {
    bool used = options.fetches.empty();
    for (size_t i : order)
      for (const Input &in : nodes[i].inputs)
        used |= !in.control && in.node == feed.id.node && in.port == feed.id.port;
    for (const FetchSpec &fetch : options.fetches)
      used |= fetch.id.node == feed.id.node && fetch.id.port == feed.id.port;
    // Explicit feeds always stay in the signature; implicit Placeholder feeds only if used.
    if (!used && !explicitFeeds)
      continue;
    Type type;
    if (failed(feedTypes(feed, type)))
      return failure();
    argTypes.push_back(type);
    args.push_back(&feed);
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, FileLineColLoc::get(ctx, fileName, 0, 0),
                                   options.functionName, builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);

  std::map<std::pair<std::string, int>, Value> values;
  for (auto [i, feed] : llvm::enumerate(args))
    values[{feed->id.node, feed->id.port}] = body->getArgument(i);

  std::vector<Operation *> created(nodes.size(), nullptr);
  for (size_t i : order) {
    const Node &node = nodes[i];
    SmallVector<Value> data, control;
    for (const Input &in : node.inputs) {
      if (!in.control) {
        auto fed = values.find({in.node, in.port});
        if (fed != values.end()) {
          data.push_back(fed->second);
          continue;
        }
      } else if (isFedAnyPort(in.node)) {
        auto fed = llvm::find_if(values, [&](const auto &v) { return v.first.first == in.node; });
        if (fed != values.end()) {
          control.push_back(fed->second);
          continue;
        }
      }
      Operation *producer = created[byName.lookup(in.node)];
      if (!producer)
        return nodeError(node) << "input '" << in.node << "' is fed, but this node needs "
                               << (in.control ? "its completion" : "another of its outputs");
      if (producer->getNumResults() == 0)
        return nodeError(node) << "input '" << in.node << "' has no outputs";
      if (in.control) {
        control.push_back(producer->getResult(0));
        continue;
      }
      if (unsigned outputs = numDataOutputs(producer); in.port >= static_cast<int>(outputs))
        return nodeError(node) << "input '" << in.node << ":" << in.port << "' does not exist: '"
                               << in.node << "' (" << nodes[byName.lookup(in.node)].def->op()
                               << ") has " << describeOutputs(outputs);
      data.push_back(producer->getResult(in.port));
    }
    created[i] = createOp(node, data, control);
    if (!created[i])
      return failure();
    // The op's definition decides how many leading operands are data; the rest are taken
    // as control inputs, so a wrong count would silently change meaning.
    size_t expected = cast<tf::GraphOpInterface>(created[i]).getDataInputs().size();
    if (expected != data.size())
      return nodeError(node) << "expects " << expected << " data input"
                             << (expected == 1 ? "" : "s") << ", got " << data.size();
  }

  // A feed must name an output the node has: known when the node was imported anyway, or
  // when some node of the graph reads that output; port 0 always exists.
  for (const FeedSpec *feed : args) {
    const std::string &name = feed->id.node;
    size_t index = byName.lookup(name);
    if (Operation *op = created[index]) {
      if (unsigned outputs = numDataOutputs(op); feed->id.port >= static_cast<int>(outputs))
        return fileError() << "feed '" << feed->id.str() << "' does not exist: node '" << name
                           << "' (" << nodes[index].def->op() << ") has "
                           << describeOutputs(outputs);
      continue;
    }
    bool read = feed->id.port == 0 || llvm::any_of(nodes, [&](const Node &n) {
                  return llvm::any_of(n.inputs, [&](const Input &in) {
                    return !in.control && in.node == name && in.port == feed->id.port;
                  });
                });
    if (!read)
      return fileError() << "feed '" << feed->id.str() << "' does not exist: no node of the "
                         << "graph reads output " << feed->id.port << " of '" << name << "' ("
                         << nodes[index].def->op() << ")";
  }

  SmallVector<Value> results;
  for (const FetchSpec &fetch : options.fetches) {
    auto fed = values.find({fetch.id.node, fetch.id.port});
    if (fed != values.end()) {
      results.push_back(fed->second);
      continue;
    }
    Operation *producer = created[byName.lookup(fetch.id.node)];
    if (unsigned outputs = numDataOutputs(producer); fetch.id.port >= static_cast<int>(outputs))
      return fileError() << "fetch '" << fetch.id.str() << "' does not exist: node '"
                         << fetch.id.node << "' (" << nodes[byName.lookup(fetch.id.node)].def->op()
                         << ") has " << describeOutputs(outputs);
    results.push_back(producer->getResult(fetch.id.port));
  }
  func::ReturnOp::create(builder, func.getLoc(), results);
  func.setType(builder.getFunctionType(argTypes, TypeRange(ValueRange(results))));

  // The model's interface: one entry point, `run`, computing the fetches from the feeds,
  // named as in the graph (node:port) and the config (alias). The model's name is the
  // graph file's stem until the driver names it.
  auto tensor = [&](const std::string &name, const std::string &alias) -> Attribute {
    return dialect::TensorAttr::get(
        ctx, name, alias.empty() ? StringAttr() : builder.getStringAttr(alias), RankedTensorType());
  };
  SmallVector<Attribute> feeds, fetches;
  for (const FeedSpec *feed : args)
    feeds.push_back(tensor(feed->key.empty() ? feed->id.str() : feed->key, feed->alias));
  for (const FetchSpec &fetch : options.fetches)
    fetches.push_back(tensor(fetch.key.empty() ? fetch.id.str() : fetch.key, fetch.alias));
  dialect::createSingleEntryModel(module, func.getLoc(),
                                  dialect::toCIdentifier(llvm::sys::path::stem(fileName)),
                                  FlatSymbolRefAttr::get(func.getSymNameAttr()), feeds, fetches);
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  ctx->loadDialect<tf::TFDialect, func::FuncDialect, dialect::KilnDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(FileLineColLoc::get(ctx, fileName, 0, 0));
  if (failed(indexNodes()) || failed(resolveFeedsAndFetches()) || failed(selectNeeded()) ||
      failed(orderTopologically()) || failed(checkSupported()) || failed(build(*module)))
    return nullptr;
  if (graph.versions().producer() > 0)
    (*module)->setAttr("tf.versions.producer",
                       builder.getI32IntegerAttr(graph.versions().producer()));
  return module;
}

/// Collects protobuf text-format errors as "file:line:col: message".
class TextErrors : public google::protobuf::io::ErrorCollector {
public:
  TextErrors() = default;
  void AddError(int line, int column, const std::string &message) override {
    if (text.empty())
      text = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " +
             message;
  }
  std::string text;
};

/// Whether bytes that are not a valid binary message were meant as text: they start with
/// a field name or a comment and hold no control characters but whitespace. A binary
/// message's tags and lengths are such characters (NodeDef's op is tag 0x12), so a corrupt
/// binary file whose first byte happens to be a letter is still reported as binary.
bool looksLikeText(StringRef bytes) {
  StringRef head = bytes.ltrim();
  if (head.empty() || !(std::isalpha(static_cast<unsigned char>(head[0])) || head[0] == '#'))
    return false;
  return llvm::all_of(bytes, [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 ? u != 0x7f : (u >= '\t' && u <= '\r');
  });
}

} // namespace

std::unique_ptr<llvm::MemoryBuffer> readInputFile(StringRef path, StringRef what,
                                                  MLIRContext *ctx) {
  auto fail = [&](const Twine &problem) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0)) << "cannot read " << what << ": " << problem;
    return nullptr;
  };
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return fail(ec.message());
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return fail("it is a directory");
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return fail("it is not a regular file");
  constexpr uint64_t kMaxBytes = uint64_t(INT32_MAX);
  if (status.getSize() > kMaxBytes)
    return fail(Twine(status.getSize()) + " bytes is more than protobuf's limit of " +
                Twine(kMaxBytes) + " bytes");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return fail(buffer.getError().message());
  return std::move(*buffer);
}

/// Parses a text or binary protobuf message; reports failure through `ctx`.
LogicalResult parseProto(StringRef bytes, StringRef fileName, bool text, StringRef what,
                         google::protobuf::Message &message, MLIRContext *ctx, bool partialSchema) {
  Location loc = FileLineColLoc::get(ctx, fileName, 0, 0);
  // Protobuf logs some problems (invalid UTF-8 ...) to stderr; Kiln reports them itself.
  google::protobuf::LogSilencer silencer;
  if (!text) {
    if (message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return success();
    if (!looksLikeText(bytes))
      return emitError(loc) << "not a valid binary " << what << " (truncated or corrupt protobuf)";
    message.Clear();
  }
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(partialSchema);
  TextErrors errors;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(bytes.str(), &message))
    return success();
  return emitError(loc) << "not a valid text " << what << ": " << errors.text;
}

static bool hasTextExtension(StringRef path) {
  StringRef ext = llvm::sys::path::extension(path);
  return ext == ".pbtxt" || ext == ".pbtext" || ext == ".txt" || ext == ".prototxt";
}

OwningOpRef<ModuleOp> importGraphDefBuffer(StringRef bytes, StringRef fileName,
                                           const ImportOptions &options, MLIRContext *ctx) {
  tensorflow::GraphDef graph;
  // A SavedModel's saved_model.pb parses as a GraphDef with no nodes, or not at all: the
  // parser's errors wait until it is clear the file is not one.
  SmallVector<Diagnostic> held;
  LogicalResult parsed = success();
  {
    ScopedDiagnosticHandler hold(ctx, [&](Diagnostic &d) {
      held.push_back(std::move(d));
      return success();
    });
    parsed = parseProto(bytes, fileName, hasTextExtension(fileName), "GraphDef", graph, ctx);
  }
  if ((failed(parsed) || graph.node_size() == 0) && looksLikeSavedModel(bytes)) {
    emitError(FileLineColLoc::get(ctx, fileName, 0, 0))
        << "this is a SavedModel (" << llvm::sys::path::filename(fileName)
        << "), not a GraphDef: give its directory";
    return nullptr;
  }
  for (Diagnostic &diag : held)
    ctx->getDiagEngine().emit(std::move(diag));
  if (failed(parsed))
    return nullptr;
  if (failed(inlineFunctionCalls(graph, fileName, ctx)))
    return nullptr;
  return importInlinedGraph(graph, fileName, options, ctx);
}

/// Keeps only the nodes of `graph` that `options`' fetches need (walking data and control
/// inputs back, stopping at fed tensors), in their order; nothing changes without fetches
/// or when a fetch or feed names no node (the importer reports it). So a training graph's
/// gradient loops do not stand in the way of its inference part.
static void keepNeeded(tensorflow::GraphDef &graph, const ImportOptions &options) {
  llvm::StringMap<int> byName;
  for (auto [i, node] : llvm::enumerate(graph.node()))
    byName[node.name()] = int(i);
  std::set<std::string> fed, fedNodes;
  for (const FeedSpec &feed : options.feeds) {
    if (!byName.count(feed.id.node))
      return;
    fed.insert(feed.id.str());
    fedNodes.insert(feed.id.node);
  }
  std::vector<int> work;
  for (const FetchSpec &fetch : options.fetches) {
    if (!byName.count(fetch.id.node))
      return;
    work.push_back(byName.lookup(fetch.id.node));
  }
  if (work.empty())
    return;
  std::vector<bool> needed(graph.node_size(), false);
  std::set<int> fedOnly;
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    if (needed[i])
      continue;
    needed[i] = true;
    for (const std::string &raw : graph.node(i).input()) {
      StringRef text = raw;
      bool control = text.consume_front("^");
      std::optional<TensorId> id = parseTensorId(text);
      if (!id || !byName.count(id->node))
        continue; // the importer reports it
      if (control ? fedNodes.count(id->node) : fed.count(id->str())) {
        fedOnly.insert(byName.lookup(id->node));
        continue;
      }
      work.push_back(byName.lookup(id->node));
    }
  }
  // A fed node stays (the importer reads its attributes), with only the inputs kept.
  tensorflow::GraphDef kept;
  for (auto [i, node] : llvm::enumerate(*graph.mutable_node())) {
    if (!needed[i] && !fedOnly.count(int(i)))
      continue;
    if (!needed[i]) {
      auto *inputs = node.mutable_input();
      inputs->erase(std::remove_if(inputs->begin(), inputs->end(),
                                   [&](const std::string &raw) {
                                     StringRef text = raw;
                                     text.consume_front("^");
                                     std::optional<TensorId> id = parseTensorId(text);
                                     return !id || !byName.count(id->node) ||
                                            !needed[byName.lookup(id->node)];
                                   }),
                    inputs->end());
    }
    *kept.add_node() = std::move(node);
  }
  graph.mutable_node()->Swap(kept.mutable_node());
}

OwningOpRef<ModuleOp> importInlinedGraph(const tensorflow::GraphDef &graph, StringRef fileName,
                                         const ImportOptions &options, MLIRContext *ctx) {
  bool arrays = llvm::any_of(
      graph.node(), [](const tensorflow::NodeDef &node) { return isTensorArrayOp(node.op()); });
  if (!arrays && !hasV1ControlFlow(graph))
    return GraphImporter(graph, fileName, options, ctx).run();
  tensorflow::GraphDef functional = graph;
  keepNeeded(functional, options);
  auto bodies = std::make_shared<GraphBodies>();
  if ((arrays && failed(rewriteTensorArrays(functional, fileName, ctx))) ||
      failed(functionalizeControlFlow(functional, *bodies, fileName, ctx)))
    return nullptr;
  GraphImporter importer(functional, fileName, options, ctx);
  importer.bodies = bodies;
  return importer.run();
}

OwningOpRef<ModuleOp> importGraphDefFile(StringRef path, const ImportOptions &options,
                                         MLIRContext *ctx) {
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, "the graph", ctx);
  if (!buffer)
    return nullptr;
  return importGraphDefBuffer(buffer->getBuffer(), path, options, ctx);
}

std::vector<std::string> supportedOps(MLIRContext *context) {
  // Rewritten before the check for supported ops: TensorFlow 1 control flow made
  // functional (Functionalize.cpp), calls inlined (Functions.cpp), TensorArrays made
  // TensorLists (TensorArrays.cpp), a SavedModel's variables made constants (Variables.cpp).
  static const char *const kRewritten[] = {"Enter",
                                           "Exit",
                                           "LoopCond",
                                           "Merge",
                                           "NextIteration",
                                           "RefEnter",
                                           "RefExit",
                                           "RefMerge",
                                           "RefNextIteration",
                                           "RefSwitch",
                                           "Switch",
                                           "PartitionedCall",
                                           "StatefulPartitionedCall",
                                           "TensorArrayCloseV3",
                                           "TensorArrayGatherV3",
                                           "TensorArrayReadV3",
                                           "TensorArrayScatterV3",
                                           "TensorArraySizeV3",
                                           "TensorArrayV3",
                                           "TensorArrayWriteV3",
                                           "ReadVariableOp",
                                           "ResourceGather",
                                           "VarHandleOp",
                                           "Variable",
                                           "VariableV2"};
  std::set<std::string> names(std::begin(kRewritten), std::end(kRewritten));
  for (StringRef op : {"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile"})
    if (!controlFlowOp(op).empty())
      names.insert(op.str());
  for (RegisteredOperationName info : context->getRegisteredOperations())
    if (info.getDialectNamespace() == "tf" && info.hasInterface<tf::GraphOpInterface>())
      names.insert(info.getStringRef().drop_front(3).str());
  return {names.begin(), names.end()};
}

} // namespace kiln::import
