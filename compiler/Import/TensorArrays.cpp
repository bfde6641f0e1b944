//===- TensorArrays.cpp - TF1 TensorArrays as TensorLists ----------------------===//
//
// A TensorFlow 1 TensorArray is a resource: TensorArrayV3 makes a handle and a "flow"
// scalar, and every write returns a new flow that the next op on the array takes, which
// orders them (and carries them round a loop as a loop variable, while the handle enters
// the loop as a constant). TensorFlow 2 implements the same API on TensorLists, the flow
// being the list itself; Kiln does the same here, on the GraphDef, before control flow is
// made functional: TensorArrayV3 becomes a TensorListReserve whose list is the flow, each
// op on the array a TensorList op on the flow it takes, and the handle, then unused, goes
// with the Enters and Identities that carried it. The flow's carriers (Enter, Merge,
// Switch, NextIteration, Exit, Identity) hold a list from then on, so their T is variant.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/Functionalize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <set>

using namespace mlir;

namespace kiln::import {

bool isTensorArrayOp(StringRef op) { return op.starts_with("TensorArray") && op.ends_with("V3"); }

namespace {

/// Ops a handle or a flow passes through unchanged.
bool isCarrier(StringRef op) {
  return llvm::is_contained({"Enter", "RefEnter", "Exit", "RefExit", "Identity", "Switch",
                             "RefSwitch", "Merge", "RefMerge", "NextIteration", "RefNextIteration"},
                            op);
}

/// What a node input names: a tensor, or for a control input (`^name`) the node, port -1;
/// none if it is malformed (the importer reports it).
std::optional<TensorId> inputOf(StringRef input) {
  bool control = input.consume_front("^");
  std::optional<TensorId> id = parseTensorId(input);
  if (id && control)
    id->port = -1;
  return id;
}

/// How an op on a TensorArray becomes a TensorList op: its data inputs (the handle first,
/// the flow last), the list op and which of the inputs it takes in order, the attribute
/// holding the element type, whether the list op needs an element shape input (from the
/// `element_shape` attribute, or unknown) and whether its result is the array's new flow.
struct ArrayOp {
  const char *op;
  size_t inputs;
  const char *listOp;
  std::vector<size_t> takes;
  const char *dtype;
  bool elementShape;
  bool flow;
};

const ArrayOp *arrayOp(StringRef op) {
  static const ArrayOp ops[] = {
      {"TensorArrayWriteV3", 4, "TensorListSetItem", {3, 1, 2}, "T", false, true},
      {"TensorArrayScatterV3", 4, "TensorListScatterIntoExistingList", {3, 2, 1}, "T", false, true},
      {"TensorArrayReadV3", 3, "TensorListGetItem", {2, 1}, "dtype", true, false},
      {"TensorArrayGatherV3", 3, "TensorListGather", {2, 1}, "dtype", true, false},
      {"TensorArraySizeV3", 2, "TensorListLength", {1}, nullptr, false, false},
      {"TensorArrayCloseV3", 1, "NoOp", {}, nullptr, false, false},
  };
  for (const ArrayOp &entry : ops)
    if (op == entry.op)
      return &entry;
  return nullptr;
}

class Rewriter {
public:
  Rewriter(tensorflow::GraphDef &graph, StringRef fileName, MLIRContext *ctx)
      : graph(graph), fileName(fileName.str()), ctx(ctx) {}
  LogicalResult run();

private:
  InFlightDiagnostic nodeError(const tensorflow::NodeDef &node) {
    return emitError(NameLoc::get(StringAttr::get(ctx, node.name()),
                                  FileLineColLoc::get(ctx, fileName, 0, 0)))
           << "node '" << node.name() << "' (" << node.op() << "): ";
  }
  /// A Const node of the element shape `attr` (an unknown rank a scalar -1, unknown
  /// dimensions -1), named `name`, waiting for the node of `anchor` so that it runs in the
  /// same loop frame.
  std::string elementShapeConst(const std::string &name, const tensorflow::AttrValue *attr,
                                const std::string &anchor);

  tensorflow::GraphDef &graph;
  std::string fileName;
  MLIRContext *ctx;
  std::vector<tensorflow::NodeDef> added;
  llvm::StringSet<> names;
};

std::string Rewriter::elementShapeConst(const std::string &base, const tensorflow::AttrValue *attr,
                                        const std::string &anchor) {
  std::string name = base;
  for (int k = 1; names.contains(name); ++k)
    name = base + "_" + std::to_string(k);
  names.insert(name);
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  node.add_input("^" + inputOf(anchor)->node);
  (*node.mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  tensorflow::TensorProto &value = *(*node.mutable_attr())["value"].mutable_tensor();
  value.set_dtype(tensorflow::DT_INT32);
  const tensorflow::TensorShapeProto *shape =
      attr && attr->value_case() == tensorflow::AttrValue::kShape ? &attr->shape() : nullptr;
  if (!shape || shape->unknown_rank()) {
    value.add_int_val(-1);
  } else {
    value.mutable_tensor_shape()->add_dim()->set_size(shape->dim_size());
    for (const auto &dim : shape->dim())
      value.add_int_val(int32_t(std::max<int64_t>(dim.size(), -1)));
  }
  added.push_back(std::move(node));
  return name;
}

LogicalResult Rewriter::run() {
  for (const auto &node : graph.node())
    names.insert(node.name());
  auto attr = [](const tensorflow::NodeDef &node, const char *key) {
    auto it = node.attr().find(key);
    return it == node.attr().end() ? nullptr : &it->second;
  };

  // The handles: port 0 of each TensorArrayV3 (the arrays), and of the carriers that pass
  // one on.
  std::set<std::string> arrays, carriers;
  for (const auto &node : graph.node())
    if (node.op() == "TensorArrayV3")
      arrays.insert(node.name());
  if (arrays.empty())
    return success();
  auto isHandle = [&](const std::string &input) {
    std::optional<TensorId> id = inputOf(input);
    return id && id->port == 0 && (arrays.count(id->node) || carriers.count(id->node));
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &node : graph.node())
      if (isCarrier(node.op()) && node.input_size() > 0 && isHandle(node.input(0)))
        changed |= carriers.insert(node.name()).second;
  }

  std::set<std::string> flows; // nodes whose output 0 is now a list
  for (tensorflow::NodeDef &node : *graph.mutable_node()) {
    StringRef op = node.op();
    if (!isTensorArrayOp(op))
      continue;
    std::vector<std::string> data, controls;
    for (const std::string &in : node.input())
      (StringRef(in).starts_with("^") ? controls : data).push_back(in);
    const ArrayOp *rule = arrayOp(op);
    if (!rule && op != "TensorArrayV3")
      return nodeError(node) << "Kiln compiles TensorArrays through TensorArrayV3, "
                                "TensorArrayWriteV3, ReadV3, GatherV3, ScatterV3, SizeV3 and "
                                "CloseV3, not "
                             << op;
    size_t expected = rule ? rule->inputs : 1;
    if (data.size() != expected)
      return nodeError(node) << "has " << data.size() << " data inputs; " << op << " takes "
                             << expected;
    tensorflow::NodeDef rewritten;
    rewritten.set_name(node.name());
    rewritten.set_device(node.device());
    auto &attrs = *rewritten.mutable_attr();
    if (!rule) { // TensorArrayV3: a list of its size, whose flow (output 1) it is
      if (const tensorflow::AttrValue *dynamic = attr(node, "dynamic_size");
          dynamic && dynamic->b())
        return nodeError(node) << "a TensorArray with dynamic_size=True grows as it is written; "
                                  "Kiln compiles TensorArrays of a fixed size";
      rewritten.set_op("TensorListReserve");
      rewritten.add_input(
          elementShapeConst(node.name() + "/element_shape", attr(node, "element_shape"), data[0]));
      rewritten.add_input(data[0]);
      if (const tensorflow::AttrValue *dtype = attr(node, "dtype"))
        attrs["element_dtype"] = *dtype;
      attrs["shape_type"].set_type(tensorflow::DT_INT32);
      flows.insert(node.name());
    } else {
      if (!isHandle(data[0]))
        return nodeError(node) << "its input '" << data[0]
                               << "' is not a TensorArray's handle Kiln can follow";
      rewritten.set_op(rule->listOp);
      for (size_t i : rule->takes)
        rewritten.add_input(data[i]);
      if (rule->elementShape)
        rewritten.add_input(elementShapeConst(node.name() + "/element_shape",
                                              attr(node, "element_shape"), data.back()));
      if (const tensorflow::AttrValue *dtype = rule->dtype ? attr(node, rule->dtype) : nullptr)
        attrs["element_dtype"] = *dtype;
      if (rule->flow)
        flows.insert(node.name());
    }
    for (const std::string &c : controls)
      rewritten.add_input(c);
    node = std::move(rewritten);
  }

  // An array's list is its output 0 now, where its flow was output 1; its handle's
  // carriers go, and nothing may read them but as control.
  tensorflow::GraphDef kept;
  for (tensorflow::NodeDef &node : *graph.mutable_node()) {
    if (carriers.count(node.name()))
      continue;
    std::vector<std::string> inputs;
    for (const std::string &in : node.input()) {
      std::optional<TensorId> id = inputOf(in);
      if (id && arrays.count(id->node) && id->port == 1) {
        inputs.push_back(id->node);
        continue;
      }
      if (id && carriers.count(id->node)) {
        if (id->port >= 0)
          return nodeError(node) << "reads '" << in << "', a TensorArray's handle, "
                                 << "which Kiln compiles only as the array of TensorArray ops";
        continue;
      }
      inputs.push_back(in);
    }
    node.clear_input();
    for (std::string &in : inputs)
      node.add_input(std::move(in));
    *kept.add_node() = std::move(node);
  }
  for (tensorflow::NodeDef &node : added)
    *kept.add_node() = std::move(node);
  graph.mutable_node()->Swap(kept.mutable_node());

  // What carries a flow on carries a list.
  for (bool changed = true; changed;) {
    changed = false;
    for (tensorflow::NodeDef &node : *graph.mutable_node()) {
      if (!isCarrier(node.op()) || flows.count(node.name()))
        continue;
      bool carries = llvm::any_of(node.input(), [&](const std::string &in) {
        std::optional<TensorId> id = inputOf(in);
        return id && id->port >= 0 && flows.count(id->node);
      });
      if (!carries)
        continue;
      (*node.mutable_attr())["T"].set_type(tensorflow::DT_VARIANT);
      flows.insert(node.name());
      changed = true;
    }
  }
  return success();
}

} // namespace

LogicalResult rewriteTensorArrays(tensorflow::GraphDef &graph, StringRef fileName,
                                  MLIRContext *context) {
  return Rewriter(graph, fileName, context).run();
}

} // namespace kiln::import
