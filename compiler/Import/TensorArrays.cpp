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
namespace {

} // namespace

bool isTensorArrayOp(StringRef op) {
  return op.starts_with("TensorArray") && op.ends_with("V3");
}

namespace {

/// Ops a handle or a flow passes through unchanged.
bool isCarrier(StringRef op) {
  return llvm::is_contained({"Enter", "RefEnter", "Exit", "RefExit", "Identity", "Switch",
                             "RefSwitch", "Merge", "RefMerge", "NextIteration",
                             "RefNextIteration"},
                            op);
}

/// "node" of a tensor name "node", "node:port" or "^node".
StringRef nodeOf(StringRef input) {
  input.consume_front("^");
  return input.take_front(input.rfind(':') == StringRef::npos ? input.size() : input.rfind(':'));
}

int portOf(StringRef input) {
  size_t colon = input.rfind(':');
  int port = 0;
  if (colon != StringRef::npos && input.substr(colon + 1).getAsInteger(10, port))
    port = -1;
  return port;
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

std::string Rewriter::elementShapeConst(const std::string &base,
                                        const tensorflow::AttrValue *attr,
                                        const std::string &anchor) {
  std::string name = base;
  for (int k = 1; names.contains(name); ++k)
    name = base + "_" + std::to_string(k);
  names.insert(name);
  tensorflow::NodeDef node;
  node.set_name(name);
  node.set_op("Const");
  node.add_input("^" + nodeOf(anchor).str());
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
  llvm::StringMap<int> byName;
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    byName[node.name()] = int(i);
    names.insert(node.name());
  }
  auto attr = [](const tensorflow::NodeDef &node, const char *key) {
    auto it = node.attr().find(key);
    return it == node.attr().end() ? nullptr : &it->second;
  };

  // The handles: port 0 of each TensorArrayV3, and what carries one on.
  std::set<std::string> handles; // node names whose output 0 is a handle
  for (const auto &node : graph.node())
    if (node.op() == "TensorArrayV3")
      handles.insert(node.name());
  if (handles.empty())
    return success();
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &node : graph.node())
      if (isCarrier(node.op()) && !handles.count(node.name()) && node.input_size() > 0 &&
          portOf(node.input(0)) == 0 && handles.count(nodeOf(node.input(0)).str()))
        changed = handles.insert(node.name()).second;
  }
  auto isHandle = [&](const std::string &input) {
    return !StringRef(input).starts_with("^") && portOf(input) == 0 &&
           handles.count(nodeOf(input).str());
  };

  std::set<std::string> flows; // nodes whose output 0 is now a list
  for (tensorflow::NodeDef &node : *graph.mutable_node()) {
    StringRef op = node.op();
    if (!isTensorArrayOp(op))
      continue;
    std::vector<std::string> data, controls;
    for (const std::string &in : node.input())
      (StringRef(in).starts_with("^") ? controls : data).push_back(in);
    auto expect = [&](size_t n) {
      if (data.size() == n)
        return true;
      nodeError(node) << "has " << data.size() << " data inputs; " << op << " takes " << n;
      return false;
    };
    auto handleFirst = [&]() {
      if (isHandle(data[0]))
        return true;
      nodeError(node) << "its input '" << data[0]
                      << "' is not a TensorArray's handle Kiln can follow";
      return false;
    };
    std::string dtypeKey = op == "TensorArrayWriteV3" || op == "TensorArrayScatterV3" ? "T"
                                                                                      : "dtype";
    const tensorflow::AttrValue *dtype = attr(node, dtypeKey.c_str());
    tensorflow::NodeDef rewritten;
    rewritten.set_name(node.name());
    rewritten.set_device(node.device());
    auto setDtype = [&]() {
      if (dtype)
        (*rewritten.mutable_attr())["element_dtype"] = *dtype;
    };
    std::vector<std::string> inputs;
    if (op == "TensorArrayV3") {
      if (!expect(1))
        return failure();
      if (const tensorflow::AttrValue *dynamic = attr(node, "dynamic_size"); dynamic && dynamic->b())
        return nodeError(node) << "a TensorArray with dynamic_size=True grows as it is written; "
                                  "Kiln compiles TensorArrays of a fixed size";
      rewritten.set_op("TensorListReserve");
      inputs = {elementShapeConst(node.name() + "/element_shape", attr(node, "element_shape"),
                                  data[0]),
                data[0]};
      setDtype();
      (*rewritten.mutable_attr())["shape_type"].set_type(tensorflow::DT_INT32);
      flows.insert(node.name());
    } else if (op == "TensorArrayWriteV3") {
      if (!expect(4) || !handleFirst())
        return failure();
      rewritten.set_op("TensorListSetItem");
      inputs = {data[3], data[1], data[2]};
      setDtype();
      flows.insert(node.name());
    } else if (op == "TensorArrayScatterV3") {
      if (!expect(4) || !handleFirst())
        return failure();
      rewritten.set_op("TensorListScatterIntoExistingList");
      inputs = {data[3], data[2], data[1]};
      setDtype();
      flows.insert(node.name());
    } else if (op == "TensorArrayReadV3") {
      if (!expect(3) || !handleFirst())
        return failure();
      rewritten.set_op("TensorListGetItem");
      inputs = {data[2], data[1],
                elementShapeConst(node.name() + "/element_shape", nullptr, data[2])};
      setDtype();
    } else if (op == "TensorArrayGatherV3") {
      if (!expect(3) || !handleFirst())
        return failure();
      rewritten.set_op("TensorListGather");
      inputs = {data[2], data[1],
                elementShapeConst(node.name() + "/element_shape", attr(node, "element_shape"),
                                  data[2])};
      setDtype();
    } else if (op == "TensorArraySizeV3") {
      if (!expect(2) || !handleFirst())
        return failure();
      rewritten.set_op("TensorListLength");
      inputs = {data[1]};
    } else if (op == "TensorArrayCloseV3") {
      if (!expect(1) || !handleFirst())
        return failure();
      rewritten.set_op("NoOp");
    } else {
      return nodeError(node) << "Kiln compiles TensorArrays through TensorArrayV3, "
                                "TensorArrayWriteV3, ReadV3, GatherV3, ScatterV3, SizeV3 and "
                                "CloseV3, not " << op;
    }
    for (const std::string &in : inputs)
      rewritten.add_input(in);
    for (const std::string &c : controls)
      rewritten.add_input(c);
    node = std::move(rewritten);
  }
  // The list of a TensorArrayV3 is its output 0 now, where its flow was output 1.
  for (tensorflow::NodeDef &node : *graph.mutable_node())
    for (std::string &in : *node.mutable_input())
      if (!StringRef(in).starts_with("^") && portOf(in) == 1 &&
          byName.count(nodeOf(in)) && graph.node(byName[nodeOf(in)]).op() == "TensorListReserve" &&
          handles.count(nodeOf(in).str()))
        in = nodeOf(in).str();

  // The handle's carriers go; nothing may read them but as control.
  for (const std::string &name : handles) {
    const tensorflow::NodeDef &carrier = graph.node(byName[name]);
    if (carrier.op() == "TensorListReserve")
      continue;
    for (const auto &node : graph.node())
      for (const std::string &in : node.input())
        if (!StringRef(in).starts_with("^") && nodeOf(in) == name)
          return nodeError(node) << "reads '" << in << "', a TensorArray's handle, "
                                 << "which Kiln compiles only as the array of TensorArray ops";
  }
  tensorflow::GraphDef kept;
  for (tensorflow::NodeDef &node : *graph.mutable_node()) {
    if (handles.count(node.name()) && node.op() != "TensorListReserve")
      continue;
    auto *inputs = node.mutable_input();
    inputs->erase(std::remove_if(inputs->begin(), inputs->end(),
                                 [&](const std::string &in) {
                                   StringRef n = nodeOf(in);
                                   return handles.count(n.str()) &&
                                          graph.node(byName[n]).op() != "TensorListReserve" &&
                                          StringRef(in).starts_with("^");
                                 }),
                  inputs->end());
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
        return !StringRef(in).starts_with("^") && flows.count(nodeOf(in).str());
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
