//===- Functionalize.cpp - TF1 control flow to If and While --------------------===//
//
// TensorFlow 1 builds loops and conditionals out of dataflow primitives (the paper,
// section 4.4): a loop is a frame entered through Enter nodes, whose variables go round
// Merge -> Switch -> body -> NextIteration -> Merge while a LoopCond holds and leave
// through Exit nodes; a conditional routes each tensor it uses through a Switch on its
// predicate and joins the two branches' results with Merge nodes. Kiln compiles the
// functional form (tf.While, tf.If), so the importer first rewrites the primitives into
// it, as TensorFlow's functionalize_control_flow does for XLA:
//
// 1. Frames. Every node is given the frame it runs in: an Enter's outputs are in the
//    frame its frame_name names (a child of the frame of its input), an Exit's in the
//    parent of its own.
// 2. Loops, innermost first. The condition (what LoopCond reads, back to the Merges) and
//    the body (what the NextIterations read, back to the Switches' true outputs) are cut
//    out as functions; the loop's invariants (Enters with is_constant) become extra loop
//    variables the body passes through. A While node takes the frame's place and each
//    Exit becomes an Identity of its result.
// 3. Conditionals, innermost first, in the graph and in every body cut out in step 2.
//    Each tensor's branch set (predicate -> branch) comes from the Switches above it; the
//    Merges that join the same predicate's branches in the same outer branches become one
//    If node, whose inputs are the tensors the Switches route and the ones the branches
//    read from outside, and each Merge an Identity of its result.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Functionalize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <queue>
#include <set>

using namespace mlir;

namespace kiln::import {
namespace {

bool isEnter(StringRef op) { return op == "Enter" || op == "RefEnter"; }
bool isExit(StringRef op) { return op == "Exit" || op == "RefExit"; }
bool isMerge(StringRef op) { return op == "Merge" || op == "RefMerge"; }
bool isSwitch(StringRef op) { return op == "Switch" || op == "RefSwitch"; }
bool isNextIteration(StringRef op) { return op == "NextIteration" || op == "RefNextIteration"; }
bool isLoopCond(StringRef op) { return op == "LoopCond"; }
bool isV1ControlFlow(StringRef op) {
  return isEnter(op) || isExit(op) || isMerge(op) || isSwitch(op) || isNextIteration(op) ||
         isLoopCond(op);
}

/// An input of a node: output `port` of `node`, or its control output.
struct Ref {
  std::string node;
  int port = 0;
  bool control = false;

  std::string str() const {
    if (control)
      return "^" + node;
    return port == 0 ? node : node + ":" + std::to_string(port);
  }
  TensorId tensor() const { return TensorId{node, port}; }
};

/// A predicate's tensor -> the branch (0 false, 1 true) a value belongs to.
using Branches = std::map<std::string, int>;

class Functionalizer {
public:
  /// `functionNames`: the library's functions, which the bodies' names must not take.
  Functionalizer(tensorflow::GraphDef &graph, GraphBodies &bodies,
                 const llvm::StringSet<> &functionNames, StringRef fileName, MLIRContext *ctx)
      : graph(graph), bodies(bodies), functionNames(functionNames), fileName(fileName.str()),
        ctx(ctx) {}

  LogicalResult run(bool loops);

private:
  InFlightDiagnostic error(StringRef name) {
    return emitError(
        NameLoc::get(StringAttr::get(ctx, name), FileLineColLoc::get(ctx, fileName, 0, 0)));
  }
  InFlightDiagnostic nodeError(size_t i) {
    return error(nodes[i].name()) << "node '" << nodes[i].name() << "' (" << nodes[i].op() << "): ";
  }

  LogicalResult load();
  void store();
  void setInputs(size_t i, std::vector<Ref> refs);
  size_t add(tensorflow::NodeDef node, std::vector<Ref> refs);
  void becomeIdentity(size_t i, Ref of);
  std::string uniqueNodeName(std::string base);
  std::string uniqueFunctionName(const std::string &base);
  std::vector<std::vector<std::pair<size_t, size_t>>> consumers() const;
  std::optional<std::vector<size_t>> topologicalOrder() const;
  LogicalResult checkReferences(StringRef loopName);

  // Loops.
  LogicalResult assignFrames();
  LogicalResult functionalizeLoop(int frame);
  /// The nodes of `frame` that `roots` need, walking back to `stops` (node -> the name of
  /// the argument it stands for, and the port it must be read at).
  LogicalResult collect(int frame, const std::vector<Ref> &roots,
                        const std::map<size_t, std::pair<std::string, int>> &stops, StringRef part,
                        const std::string &loopName, std::vector<size_t> &found);
  void makeBody(const std::string &name, const std::vector<size_t> &members,
                const std::vector<std::string> &args,
                const std::map<std::string, std::string> &rename, const std::vector<Ref> &results);
  LogicalResult functionalizeBody(const std::string &name);

  // Conditionals.
  LogicalResult functionalizeConditionals();
  std::string predicateOf(size_t sw) const;
  Branches branchesOf(const Ref &ref) const;

  tensorflow::GraphDef &graph;
  GraphBodies &bodies;
  const llvm::StringSet<> &functionNames;
  std::string fileName;
  MLIRContext *ctx;

  std::vector<tensorflow::NodeDef> nodes;
  std::vector<std::vector<Ref>> inputs;
  std::vector<bool> alive;
  llvm::StringMap<size_t> byName;

  struct Frame {
    std::string name;
    int parent;
    int depth;
  };
  std::vector<Frame> frames;
  std::vector<int> frameOf;

  std::vector<Branches> branches; // per node, for conditionals
};

LogicalResult Functionalizer::load() {
  for (tensorflow::NodeDef &node : *graph.mutable_node()) {
    if (!byName.try_emplace(node.name(), nodes.size()).second)
      return error(node.name()) << "two nodes are named '" << node.name() << "'";
    nodes.push_back(std::move(node));
  }
  graph.clear_node();
  alive.assign(nodes.size(), true);
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::vector<Ref> refs;
    for (const std::string &raw : nodes[i].input()) {
      StringRef text = raw;
      Ref ref;
      ref.control = text.consume_front("^");
      if (!ref.control && !refs.empty() && refs.back().control)
        return nodeError(i) << "data input '" << raw
                            << "' follows a control input; control inputs (^name) come last";
      std::optional<TensorId> id = parseTensorId(text);
      if (!id || !byName.count(id->node))
        return nodeError(i) << "input '" << raw << "' names no tensor of the graph";
      ref.node = id->node;
      ref.port = ref.control ? 0 : id->port;
      refs.push_back(std::move(ref));
    }
    inputs.push_back(std::move(refs));
    // The primitives' inputs, checked once so that the rest may index them.
    StringRef op = nodes[i].op();
    if (!isV1ControlFlow(op))
      continue;
    size_t data = llvm::count_if(inputs[i], [](const Ref &r) { return !r.control; });
    size_t expected = isSwitch(op) ? 2 : isMerge(op) ? data : 1;
    if (data != expected || data == 0)
      return nodeError(i) << "has " << data << " data inputs; " << op << " takes "
                          << (isSwitch(op)  ? "2"
                              : isMerge(op) ? "at least 1"
                                            : "1");
    if (isEnter(op)) {
      auto it = nodes[i].attr().find("frame_name");
      if (it == nodes[i].attr().end() || it->second.s().empty())
        return nodeError(i) << "has no frame_name";
    }
  }
  return success();
}

void Functionalizer::store() {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i])
      *graph.add_node() = std::move(nodes[i]);
}

void Functionalizer::setInputs(size_t i, std::vector<Ref> refs) {
  nodes[i].clear_input();
  for (const Ref &r : refs)
    nodes[i].add_input(r.str());
  inputs[i] = std::move(refs);
}

/// Adds `node`, reading `refs`.
size_t Functionalizer::add(tensorflow::NodeDef node, std::vector<Ref> refs) {
  size_t i = nodes.size();
  byName[node.name()] = i;
  nodes.push_back(std::move(node));
  inputs.emplace_back();
  alive.push_back(true);
  frameOf.push_back(0);
  branches.emplace_back();
  setInputs(i, std::move(refs));
  return i;
}

/// Node `i` (an Exit or a Merge) becomes an Identity of `of`, keeping its name and T.
void Functionalizer::becomeIdentity(size_t i, Ref of) {
  tensorflow::NodeDef &node = nodes[i];
  node.set_op("Identity");
  for (auto it = node.mutable_attr()->begin(); it != node.mutable_attr()->end();)
    it = it->first == "T" ? std::next(it) : node.mutable_attr()->erase(it);
  setInputs(i, {std::move(of)});
}

/// `base` made a valid node name no node has yet.
std::string Functionalizer::uniqueNodeName(std::string base) {
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  if (base.empty())
    base = "control_flow";
  std::string name = base;
  for (int k = 1; byName.count(name); ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

std::string Functionalizer::uniqueFunctionName(const std::string &base) {
  std::string name = base;
  for (int k = 1; functionNames.contains(name) || bodies.count(name); ++k)
    name = base + "_" + std::to_string(k);
  return name;
}

std::vector<std::vector<std::pair<size_t, size_t>>> Functionalizer::consumers() const {
  std::vector<std::vector<std::pair<size_t, size_t>>> result(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i])
      for (auto [k, ref] : llvm::enumerate(inputs[i]))
        result[byName.lookup(ref.node)].push_back({i, k});
  return result;
}

/// The live nodes, producers first; none if they are on a cycle.
std::optional<std::vector<size_t>> Functionalizer::topologicalOrder() const {
  std::vector<size_t> pending(nodes.size(), 0), order;
  auto users = consumers();
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i])
      pending[i] = inputs[i].size();
  std::queue<size_t> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i] && pending[i] == 0)
      ready.push(i);
  while (!ready.empty()) {
    size_t i = ready.front();
    ready.pop();
    order.push_back(i);
    for (auto [user, k] : users[i])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (order.size() != size_t(llvm::count(alive, true)))
    return std::nullopt;
  return order;
}

/// Every live node's inputs are live nodes, once loop `loopName` is a While.
LogicalResult Functionalizer::checkReferences(StringRef loopName) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!alive[i])
      continue;
    for (const Ref &ref : inputs[i])
      if (!alive[byName.lookup(ref.node)])
        return nodeError(i) << "reads '" << ref.str() << "' from inside loop '" << loopName
                            << "', which only its Exit nodes may leave";
  }
  return success();
}

//===----------------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------------===//

LogicalResult Functionalizer::assignFrames() {
  frames = {Frame{"", -1, 0}};
  frameOf.assign(nodes.size(), -1);
  llvm::StringMap<int> byFrameName;
  auto users = consumers();
  std::queue<size_t> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (inputs[i].empty()) {
      frameOf[i] = 0;
      ready.push(i);
    }
  while (!ready.empty()) {
    size_t u = ready.front();
    ready.pop();
    for (auto [v, k] : users[u]) {
      // An Exit's outputs are in its frame's parent, and an Enter's (even one reading an
      // Exit, as a loop that follows another does) in a child of its input's frame.
      int frame = frameOf[u];
      if (isExit(nodes[u].op())) {
        if (frames[frame].parent < 0)
          return nodeError(u) << "leaves a loop frame it is not in (no Enter leads to it)";
        frame = frames[frame].parent;
      }
      if (isEnter(nodes[v].op())) {
        const std::string &name = nodes[v].attr().at("frame_name").s();
        auto [it, inserted] = byFrameName.try_emplace(name, int(frames.size()));
        if (inserted)
          frames.push_back(Frame{name, frame, frames[frame].depth + 1});
        else if (frames[it->second].parent != frame)
          return nodeError(v) << "enters frame '" << name << "' from frame '" << frames[frame].name
                              << "', but other Enters enter it from '"
                              << frames[frames[it->second].parent].name << "'";
        frame = it->second;
      }
      if (frameOf[v] < 0) {
        frameOf[v] = frame;
        ready.push(v);
      } else if (frameOf[v] != frame) {
        auto where = [&](int f) {
          return f == 0 ? std::string("outside any loop")
                        : "in loop frame '" + frames[f].name + "'";
        };
        return nodeError(v) << "reads '" << inputs[v][k].str() << "' " << where(frame)
                            << " and other inputs " << where(frameOf[v])
                            << "; a loop's tensors enter it through Enter and leave through Exit";
      }
    }
  }
  // Nodes on a cycle that no Enter starts are left to the importer's cycle check.
  for (int &f : frameOf)
    f = std::max(f, 0);
  return success();
}

LogicalResult Functionalizer::collect(int frame, const std::vector<Ref> &roots,
                                      const std::map<size_t, std::pair<std::string, int>> &stops,
                                      StringRef part, const std::string &loopName,
                                      std::vector<size_t> &found) {
  std::vector<bool> seen(nodes.size(), false);
  std::vector<Ref> work(roots);
  while (!work.empty()) {
    Ref ref = work.back();
    work.pop_back();
    size_t i = byName.lookup(ref.node);
    if (auto stop = stops.find(i); stop != stops.end()) {
      if (!ref.control && ref.port != stop->second.second)
        return error(ref.node) << "loop '" << loopName << "': its " << part << " reads '"
                               << ref.str() << "', which a loop's " << part
                               << " does not see (it may read output " << stop->second.second
                               << ")";
      continue;
    }
    if (seen[i])
      continue;
    seen[i] = true;
    StringRef op = nodes[i].op();
    if (frameOf[i] != frame)
      return nodeError(i) << "loop '" << loopName << "': its " << part
                          << " reads this node of another frame without an Enter";
    if (isEnter(op) || isExit(op) || isNextIteration(op) || isLoopCond(op) ||
        (isSwitch(op) && isLoopCond(nodes[byName.lookup(inputs[i][1].node)].op())))
      return nodeError(i) << "loop '" << loopName << "': its " << part
                          << " reads this node of the loop's own machinery";
    found.push_back(i);
    for (const Ref &in : inputs[i])
      work.push_back(in);
  }
  std::sort(found.begin(), found.end());
  return success();
}

/// Adds a body to `bodies`: copies of `members` whose inputs in `rename` (tensor or
/// control input -> argument name) read the argument Placeholders instead (control
/// inputs on them dropped), and `results` read likewise.
void Functionalizer::makeBody(const std::string &name, const std::vector<size_t> &members,
                              const std::vector<std::string> &args,
                              const std::map<std::string, std::string> &rename,
                              const std::vector<Ref> &results) {
  GraphBody body;
  *body.graph.mutable_versions() = graph.versions();
  for (const std::string &arg : args) {
    tensorflow::NodeDef &node = *body.graph.add_node();
    node.set_name(arg);
    node.set_op("Placeholder");
  }
  body.args = args;
  auto map = [&](const Ref &ref) -> std::optional<Ref> {
    auto it = rename.find(ref.control ? "^" + ref.node : ref.tensor().str());
    if (it == rename.end())
      return ref;
    if (ref.control)
      return std::nullopt;
    return Ref{it->second, 0, false};
  };
  for (size_t i : members) {
    tensorflow::NodeDef &node = *body.graph.add_node();
    node = nodes[i];
    node.clear_input();
    for (const Ref &ref : inputs[i])
      if (std::optional<Ref> mapped = map(ref))
        node.add_input(mapped->str());
  }
  for (const Ref &ref : results)
    body.results.push_back(map(ref)->tensor());
  bodies[name] = std::move(body);
}

/// Makes the conditionals of body `name` functional in turn.
LogicalResult Functionalizer::functionalizeBody(const std::string &name) {
  return Functionalizer(bodies[name].graph, bodies, functionNames, fileName, ctx)
      .run(/*loops=*/false);
}

LogicalResult Functionalizer::functionalizeLoop(int frame) {
  std::vector<size_t> members;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i] && frameOf[i] == frame)
      members.push_back(i);
  const std::string &frameName = frames[frame].name;
  std::vector<size_t> conds;
  for (size_t i : members)
    if (isLoopCond(nodes[i].op()))
      conds.push_back(i);
  if (conds.size() != 1)
    return error(nodes[members.front()].name())
           << "loop frame '" << frameName << "' has " << conds.size()
           << " LoopCond nodes; a TensorFlow loop has one";
  size_t loopCond = conds.front();
  std::string loopName = nodes[loopCond].name();
  if (size_t slash = loopName.rfind('/'); slash != std::string::npos)
    loopName = loopName.substr(0, slash);
  else
    loopName += "_loop";
  loopName = uniqueNodeName(loopName);

  // The loop variables: Enter -> Merge <- NextIteration, Merge -> Switch on the LoopCond.
  struct Var {
    size_t enter, merge, next, sw;
    std::vector<size_t> exits;
  };
  std::vector<Var> vars;
  std::vector<size_t> invariants;
  auto users = consumers();
  std::set<size_t> varEnters;
  for (size_t m : members) {
    if (!isMerge(nodes[m].op()))
      continue;
    std::vector<size_t> data;
    for (const Ref &r : inputs[m])
      if (!r.control)
        data.push_back(byName.lookup(r.node));
    if (data.size() != 2)
      continue;
    if (isNextIteration(nodes[data[0]].op()))
      std::swap(data[0], data[1]);
    if (!isEnter(nodes[data[0]].op()) || !isNextIteration(nodes[data[1]].op()))
      continue; // a conditional's Merge inside the loop
    Var var{data[0], m, data[1], 0, {}};
    std::vector<size_t> switches;
    for (auto [u, k] : users[m])
      if (isSwitch(nodes[u].op()) && k == 0 && inputs[u][1].node == nodes[loopCond].name())
        switches.push_back(u);
    if (switches.size() != 1)
      return nodeError(m) << "loop '" << loopName << "': this loop variable's Merge feeds "
                          << switches.size() << " Switches on the loop condition '"
                          << nodes[loopCond].name() << "'; a TensorFlow loop has one";
    var.sw = switches.front();
    for (auto [u, k] : users[var.sw])
      if (isExit(nodes[u].op()))
        var.exits.push_back(u);
    if (!varEnters.insert(var.enter).second)
      return nodeError(var.enter) << "loop '" << loopName
                                  << "': this Enter starts two loop variables";
    vars.push_back(std::move(var));
  }
  for (size_t i : members) {
    if (!isEnter(nodes[i].op()) || varEnters.count(i))
      continue;
    auto it = nodes[i].attr().find("is_constant");
    if (it == nodes[i].attr().end() || !it->second.b())
      return nodeError(i) << "loop '" << loopName
                          << "': this Enter is neither a loop variable (into a Merge with a "
                             "NextIteration) nor a constant (is_constant)";
    invariants.push_back(i);
  }
  if (vars.empty())
    return nodeError(loopCond) << "loop '" << loopName << "' has no loop variables";
  llvm::sort(vars, [](const Var &a, const Var &b) { return a.enter < b.enter; });

  // The condition reads the Merges and the invariants; the body the Switches' true
  // outputs and the invariants.
  std::vector<std::string> condArgs, bodyArgs;
  std::map<std::string, std::string> condRename, bodyRename;
  std::map<size_t, std::pair<std::string, int>> condStops, bodyStops;
  for (const Var &v : vars) {
    condArgs.push_back(nodes[v.merge].name());
    condRename[nodes[v.merge].name() + ":0"] = nodes[v.merge].name();
    condRename["^" + nodes[v.merge].name()] = nodes[v.merge].name();
    condStops[v.merge] = {nodes[v.merge].name(), 0};
    bodyArgs.push_back(nodes[v.sw].name());
    bodyRename[nodes[v.sw].name() + ":1"] = nodes[v.sw].name();
    bodyRename["^" + nodes[v.sw].name()] = nodes[v.sw].name();
    bodyStops[v.sw] = {nodes[v.sw].name(), 1};
  }
  for (size_t e : invariants) {
    const std::string &name = nodes[e].name();
    for (auto *args : {&condArgs, &bodyArgs})
      args->push_back(name);
    for (auto *rename : {&condRename, &bodyRename}) {
      (*rename)[name + ":0"] = name;
      (*rename)["^" + name] = name;
    }
    condStops[e] = bodyStops[e] = {name, 0};
  }
  std::vector<Ref> condRoots{inputs[loopCond][0]}, bodyRoots;
  for (const Var &v : vars)
    bodyRoots.push_back(inputs[v.next][0]);
  std::vector<size_t> condNodes, bodyNodes;
  if (failed(collect(frame, condRoots, condStops, "condition", loopName, condNodes)) ||
      failed(collect(frame, bodyRoots, bodyStops, "body", loopName, bodyNodes)))
    return failure();
  std::vector<Ref> bodyResults = bodyRoots;
  for (size_t e : invariants)
    bodyResults.push_back(Ref{nodes[e].name(), 0, false});
  std::string condName = uniqueFunctionName(loopName + "/cond");
  makeBody(condName, condNodes, condArgs, condRename, condRoots);
  std::string bodyName = uniqueFunctionName(loopName + "/body");
  makeBody(bodyName, bodyNodes, bodyArgs, bodyRename, bodyResults);
  if (failed(functionalizeBody(condName)) || failed(functionalizeBody(bodyName)))
    return failure();

  // The While node in the enclosing frame, and the Exits reading it.
  tensorflow::NodeDef loop;
  loop.set_name(loopName);
  loop.set_op("While");
  loop.set_device(nodes[vars.front().enter].device());
  std::vector<Ref> loopInputs, controls;
  tensorflow::AttrValue types;
  auto enterInput = [&](size_t e) {
    for (const Ref &r : inputs[e]) {
      if (!r.control)
        loopInputs.push_back(r);
      else if (!llvm::any_of(controls, [&](const Ref &c) { return c.node == r.node; }))
        controls.push_back(r);
    }
    auto t = nodes[e].attr().find("T");
    types.mutable_list()->add_type(t == nodes[e].attr().end() ? tensorflow::DT_INVALID
                                                              : t->second.type());
  };
  for (const Var &v : vars)
    enterInput(v.enter);
  for (size_t e : invariants)
    enterInput(e);
  loopInputs.insert(loopInputs.end(), controls.begin(), controls.end());
  auto &attrs = *loop.mutable_attr();
  attrs["T"] = types;
  attrs["cond"].mutable_func()->set_name(condName);
  attrs["body"].mutable_func()->set_name(bodyName);
  if (auto it = nodes[vars.front().enter].attr().find("parallel_iterations");
      it != nodes[vars.front().enter].attr().end())
    attrs["parallel_iterations"] = it->second;
  int parent = frames[frame].parent;
  for (size_t i : members)
    alive[i] = false;
  frameOf[add(std::move(loop), std::move(loopInputs))] = parent;
  for (auto [k, v] : llvm::enumerate(vars)) {
    for (size_t e : v.exits) {
      becomeIdentity(e, Ref{loopName, int(k), false});
      alive[e] = true;
      frameOf[e] = parent;
    }
  }
  return checkReferences(loopName);
}

//===----------------------------------------------------------------------------===//
// Conditionals
//===----------------------------------------------------------------------------===//

/// The tensor Switch `sw` branches on, seen through Identities (a tf.cond's Switches read
/// `pred_id`, an Identity of the predicate).
std::string Functionalizer::predicateOf(size_t sw) const {
  Ref ref = inputs[sw][1];
  for (int depth = 0; depth < 1000; ++depth) {
    size_t i = byName.lookup(ref.node);
    if (ref.port != 0 || (nodes[i].op() != "Identity" && nodes[i].op() != "Snapshot") ||
        inputs[i].empty() || inputs[i][0].control)
      break;
    ref = inputs[i][0];
  }
  return ref.tensor().str();
}

Branches Functionalizer::branchesOf(const Ref &ref) const {
  size_t i = byName.lookup(ref.node);
  Branches result = branches[i];
  if (isSwitch(nodes[i].op()) && !ref.control)
    result[predicateOf(i)] = ref.port;
  return result;
}

LogicalResult Functionalizer::functionalizeConditionals() {
  branches.assign(nodes.size(), {});
  for (;;) {
    std::optional<std::vector<size_t>> order = topologicalOrder();
    if (!order)
      return success(); // a cycle: the importer reports it
    // Each node's branches; for a Merge, the predicate it joins and its inputs' branches.
    struct Join {
      std::string predicate;
      std::vector<int> branch; // per data input: 0, 1
    };
    std::map<size_t, Join> joins;
    for (size_t i : *order) {
      Branches &mine = branches[i];
      mine.clear();
      if (isMerge(nodes[i].op())) {
        std::vector<Branches> in;
        for (const Ref &r : inputs[i])
          if (!r.control)
            in.push_back(branchesOf(r));
        std::set<std::string> differing;
        for (const auto &entry : in.front())
          if (llvm::all_of(in, [&](const Branches &s) {
                auto it = s.find(entry.first);
                return it != s.end() && it->second == entry.second;
              }))
            mine.insert(entry);
        for (const Branches &s : in)
          for (auto &[key, b] : s)
            if (!mine.count(key))
              differing.insert(key);
        if (in.size() != 2 || differing.size() != 1)
          return nodeError(i) << "its " << in.size()
                              << " inputs are not the two branches of one conditional";
        Join join{*differing.begin(), {}};
        for (const Branches &s : in) {
          auto it = s.find(join.predicate);
          join.branch.push_back(it == s.end() ? -1 : it->second);
        }
        if (join.branch[0] == join.branch[1])
          return nodeError(i) << "both inputs come from the same branch of the conditional on '"
                              << join.predicate << "'";
        for (int k : {0, 1})
          if (join.branch[k] < 0)
            join.branch[k] = 1 - join.branch[1 - k];
        joins[i] = std::move(join);
        continue;
      }
      for (const Ref &r : inputs[i]) {
        for (auto &[key, b] : branchesOf(r)) {
          auto [it, inserted] = mine.try_emplace(key, b);
          if (!inserted && it->second != b)
            return nodeError(i) << "reads both branches of the conditional on '" << key
                                << "'; only a Merge may join them";
        }
      }
    }
    if (joins.empty())
      break;

    // The innermost conditional: the Merges of the most deeply nested branches, on one
    // predicate. Merges one of which waits for another become separate Ifs.
    size_t first = joins.begin()->first;
    for (auto &[m, join] : joins)
      if (branches[m].size() > branches[first].size())
        first = m;
    const std::string predicate = joins[first].predicate;
    const Branches outer = branches[first];
    std::vector<size_t> group;
    for (auto &[m, join] : joins)
      if (join.predicate == predicate && branches[m] == outer)
        group.push_back(m);
    std::set<size_t> inGroup(group.begin(), group.end());
    std::vector<size_t> ready;
    for (size_t m : group) {
      std::vector<bool> seen(nodes.size(), false);
      std::vector<size_t> work;
      for (const Ref &r : inputs[m])
        work.push_back(byName.lookup(r.node));
      bool waits = false;
      while (!work.empty() && !waits) {
        size_t i = work.back();
        work.pop_back();
        if (seen[i])
          continue;
        seen[i] = true;
        waits = inGroup.count(i) != 0;
        for (const Ref &r : inputs[i])
          work.push_back(byName.lookup(r.node));
      }
      if (!waits)
        ready.push_back(m);
    }
    auto users = consumers();
    for (size_t m : ready)
      for (auto [user, k] : users[m])
        if (!inputs[user][k].control && inputs[user][k].port != 0)
          return nodeError(user) << "reads '" << inputs[user][k].str()
                                 << "', a Merge's value_index, which Kiln does not support";

    // The branches: what the Merges' inputs need, back to the Switches on the predicate
    // (arguments) and to tensors from outside the branch (captured as arguments too).
    std::string base = nodes[ready.front()].name();
    if (size_t slash = base.rfind('/'); slash != std::string::npos)
      base = base.substr(0, slash);
    else
      base += "_cond";
    std::string ifName = uniqueNodeName(base);
    std::vector<Ref> ifInputs;              // the If's data inputs after the predicate
    std::vector<std::string> args;          // their Placeholders
    std::map<std::string, size_t> argIndex; // "switch:NODE" / "tensor:NODE:PORT" -> argument
    std::vector<Ref> controls;
    // Per branch (0 else, 1 then): its nodes, the Merges' inputs from it, and how it reads
    // the arguments.
    std::vector<size_t> members[2];
    std::vector<Ref> roots[2];
    std::map<std::string, std::string> rename[2];
    for (int b : {0, 1}) {
      for (size_t m : ready) {
        const Join &join = joins[m];
        size_t k = 0;
        for (const Ref &r : inputs[m]) {
          if (r.control)
            continue;
          if (join.branch[k++] == b)
            roots[b].push_back(r);
        }
      }
      std::vector<bool> seen(nodes.size(), false);
      std::vector<Ref> work(roots[b]);
      // The Placeholder for `outside`, named `name` (a node's own name when `own`).
      auto argument = [&](const std::string &key, const Ref &outside, const std::string &name,
                          bool own) {
        auto [it, inserted] = argIndex.try_emplace(key, args.size());
        if (inserted) {
          std::string unique = name;
          for (int k = 1; llvm::is_contained(args, unique) || (!own && byName.count(unique)); ++k)
            unique = name + "_" + std::to_string(k);
          args.push_back(unique);
          ifInputs.push_back(outside);
        }
        return args[it->second];
      };
      while (!work.empty()) {
        Ref ref = work.back();
        work.pop_back();
        size_t i = byName.lookup(ref.node);
        Branches mine = branchesOf(ref);
        auto it = mine.find(predicate);
        bool inside = it != mine.end() && it->second == b;
        if (isSwitch(nodes[i].op()) && predicateOf(i) == predicate) {
          if (ref.control)
            rename[b]["^" + ref.node] = "";
          else
            rename[b][ref.tensor().str()] =
                argument("switch:" + nodes[i].name(), inputs[i][0], nodes[i].name(), true);
          continue;
        }
        if (!inside) {
          if (ref.control) {
            if (!llvm::any_of(controls, [&](const Ref &c) { return c.node == ref.node; }))
              controls.push_back(ref);
            rename[b]["^" + ref.node] = "";
          } else {
            std::string name = ref.port == 0 ? ref.node : ref.node + "_" + std::to_string(ref.port);
            rename[b][ref.tensor().str()] =
                argument("tensor:" + ref.tensor().str(), ref, name, ref.port == 0);
          }
          continue;
        }
        if (seen[i])
          continue;
        seen[i] = true;
        members[b].push_back(i);
        for (const Ref &in : inputs[i])
          work.push_back(in);
      }
      std::sort(members[b].begin(), members[b].end());
    }
    // Both branches take every argument, in the If's order.
    std::string branchNames[2];
    for (int b : {0, 1}) {
      branchNames[b] = uniqueFunctionName(ifName + (b ? "/then" : "/else"));
      makeBody(branchNames[b], members[b], args, rename[b], roots[b]);
      if (failed(functionalizeBody(branchNames[b])))
        return failure();
    }

    tensorflow::NodeDef ifNode;
    ifNode.set_name(ifName);
    ifNode.set_op("If");
    ifNode.set_device(nodes[ready.front()].device());
    auto &attrs = *ifNode.mutable_attr();
    attrs["then_branch"].mutable_func()->set_name(branchNames[1]);
    attrs["else_branch"].mutable_func()->set_name(branchNames[0]);
    std::vector<Ref> refs;
    auto predicateRef = parseTensorId(predicate);
    refs.push_back(Ref{predicateRef->node, predicateRef->port, false});
    refs.insert(refs.end(), ifInputs.begin(), ifInputs.end());
    refs.insert(refs.end(), controls.begin(), controls.end());
    add(std::move(ifNode), std::move(refs));
    for (auto [k, m] : llvm::enumerate(ready))
      becomeIdentity(m, Ref{ifName, int(k), false});
    // What the branches held (the nodes on the predicate's either side and its Switches)
    // goes, unless something outside them still reads it; so do the branches' nodes
    // nothing reads, a tf.cond's unused pivot say.
    std::set<size_t> dead;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (alive[i] && (branches[i].count(predicate) ||
                       (isSwitch(nodes[i].op()) && predicateOf(i) == predicate)))
        dead.insert(i);
    std::vector<size_t> readers(nodes.size(), 0);
    for (size_t i = 0; i < nodes.size(); ++i)
      if (alive[i])
        for (const Ref &r : inputs[i])
          ++readers[byName.lookup(r.node)];
    std::vector<size_t> unread;
    for (size_t i : dead)
      if (readers[i] == 0)
        unread.push_back(i);
    while (!unread.empty()) {
      size_t i = unread.back();
      unread.pop_back();
      if (!alive[i])
        continue;
      alive[i] = false;
      for (const Ref &r : inputs[i]) {
        size_t producer = byName.lookup(r.node);
        if (--readers[producer] == 0 && dead.count(producer))
          unread.push_back(producer);
      }
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i] && isSwitch(nodes[i].op()))
      return nodeError(i) << "this Switch has no Merge joining its branches";
  return success();
}

LogicalResult Functionalizer::run(bool loops) {
  if (failed(load()))
    return failure();
  frameOf.assign(nodes.size(), 0);
  if (loops) {
    if (failed(assignFrames()))
      return failure();
    std::vector<int> order;
    for (int f = 1; f < int(frames.size()); ++f)
      order.push_back(f);
    llvm::stable_sort(order, [&](int a, int b) { return frames[a].depth > frames[b].depth; });
    for (int f : order)
      if (failed(functionalizeLoop(f)))
        return failure();
  }
  if (failed(functionalizeConditionals()))
    return failure();
  for (size_t i = 0; i < nodes.size(); ++i)
    if (alive[i] && isV1ControlFlow(nodes[i].op()) && !isSwitch(nodes[i].op()))
      return nodeError(i) << "is TensorFlow 1 control flow outside any loop or conditional "
                             "Kiln can make functional (a loop enters its frame through Enter "
                             "nodes and leaves through Exit nodes; a conditional's Switches "
                             "and Merges branch on one predicate)";
  store();
  return success();
}

} // namespace

bool hasV1ControlFlow(const tensorflow::GraphDef &graph) {
  return llvm::any_of(graph.node(),
                      [](const tensorflow::NodeDef &n) { return isV1ControlFlow(n.op()); });
}

LogicalResult functionalizeControlFlow(tensorflow::GraphDef &graph, GraphBodies &bodies,
                                       StringRef fileName, MLIRContext *context) {
  llvm::StringSet<> functionNames;
  for (const auto &f : graph.library().function())
    functionNames.insert(f.signature().name());
  return Functionalizer(graph, bodies, functionNames, fileName, context).run(/*loops=*/true);
}

} // namespace kiln::import
