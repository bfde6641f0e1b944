//===- GraphDefFuzz.cpp - GraphDefs through import, graph passes and lowering --===//
//
// One input is a GraphDef, binary (kiln-fuzz-graphdef) or text (kiln-fuzz-graphdef-text,
// built with KILN_FUZZ_TEXT). It is imported with its sinks as fetches and its
// Placeholders as feeds, then run through the graph pipeline (shape inference, constant
// folding, CSE, pruning, scheduling, checks) and, when that succeeds, the lowering
// pipeline (tf to linalg, fusion, bufferization, kernel calls, scratch assignment). Every
// stage must succeed or report an error: a crash, a sanitizer report, a failure without a
// message or IR that does not verify is a finding.
//
// The binary target mutates inputs as GraphDefs (LLVMFuzzerCustomMutator): through
// protobuf reflection it changes any field of any message to values that matter (ports,
// dimensions and integers at the edges of their types, dtypes, op names Kiln knows, names
// of other nodes), adds, removes and copies repeated elements, and rewires nodes, so that
// mutated graphs still parse and reach shape inference and lowering rather than stopping
// at the protobuf parser. Inputs that do not parse are mutated as bytes.
//
//===----------------------------------------------------------------------------===//
#include "FuzzChecks.h"

#include "compiler/Import/Import.h"
#include "compiler/Init/InitAll.h"
#include "compiler/Pipelines/Pipelines.h"
#include "passes/Lower/Passes.h"

#include "graph.pb.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

void compileGraph(llvm::StringRef bytes) {
  mlir::MLIRContext context(kiln_fuzz::registry(), mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  kiln_fuzz::ErrorCounter counter(&context);
  kiln::import::ImportOptions options;
  options.importAllWithoutFetches = false;
#ifdef KILN_FUZZ_TEXT
  const char *file = "fuzz.pbtxt";
#else
  const char *file = "fuzz.pb";
#endif
  auto module = kiln::import::importGraphDefBuffer(bytes, file, options, &context);
  counter.expectReported(!module, "import");
  if (!module)
    return;
  kiln_fuzz::expectVerifies(*module, "the importer");
  // Each stage either succeeds or reports why; the next runs on what the last produced.
  auto run = [&](mlir::LogicalResult (*build)(mlir::OpPassManager &,
                                              const kiln::pipelines::PipelineOptions &),
                 const char *stage) {
    mlir::PassManager pm(&context);
    if (mlir::failed(build(pm, {})))
      std::abort();
    bool failed = mlir::failed(pm.run(*module));
    counter.expectReported(failed, stage);
    return !failed;
  };
  // The lowering pipeline's first pass, kiln-lower-freeze-interface, reports what cannot
  // be compiled for fixed shapes.
  if (!run(kiln::pipelines::buildGraphPipeline, "the graph pipeline") ||
      !run(kiln::pipelines::buildLowerPipeline, "the lowering pipeline"))
    return;
  run(kiln::pipelines::buildLLVMPipeline, "the LLVM dialect pipeline");
}

// ---- the structure-aware mutator ----------------------------------------------------------

namespace pb = google::protobuf;

/// Values at the edges that decide: ports and dimensions, int32 and int64 limits.
const int64_t kInterestingInts[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    4,
                                    16,
                                    -2,
                                    255,
                                    256,
                                    65535,
                                    2147483647,
                                    -2147483648LL,
                                    2147483648LL,
                                    4294967295LL,
                                    4294967296LL,
                                    std::numeric_limits<int64_t>::max(),
                                    std::numeric_limits<int64_t>::min()};
const double kInterestingFloats[] = {0.0,   -0.0,   1.0, -1.0,     0.5,       1e-45, 1e30,
                                     -1e30, 3.4e38, NAN, INFINITY, -INFINITY, 6.0,   1e-3};

class GraphMutator {
public:
  GraphMutator(tensorflow::GraphDef &graph, unsigned seed) : graph(graph), rng(seed) {
    collect(graph);
  }

  void mutate() {
    int steps = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < steps; ++i) {
      switch (rng() % 8) {
      case 0:
        changeOp();
        break;
      case 1:
        rewire();
        break;
      case 2:
        copyNode();
        break;
      case 3:
        removeNode();
        break;
      default:
        mutateField();
        break;
      }
    }
  }

private:
  template <typename T> const T &pick(const std::vector<T> &v) { return v[rng() % v.size()]; }

  /// Every message of the graph (for field mutations) and every string in it.
  void collect(pb::Message &m) {
    messages.push_back(&m);
    if (strings.size() > 4096)
      strings.erase(strings.begin(), strings.begin() + 2048);
    const pb::Reflection *r = m.GetReflection();
    std::vector<const pb::FieldDescriptor *> fields;
    r->ListFields(m, &fields);
    for (const pb::FieldDescriptor *f : fields) {
      if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
        if (f->is_repeated())
          for (int i = 0; i < r->FieldSize(m, f); ++i)
            strings.push_back(r->GetRepeatedString(m, f, i));
        else
          strings.push_back(r->GetString(m, f));
      }
      if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
        continue;
      if (f->is_repeated())
        for (int i = 0; i < r->FieldSize(m, f); ++i)
          collect(*r->MutableRepeatedMessage(&m, f, i));
      else
        collect(*r->MutableMessage(&m, f));
    }
  }

  tensorflow::NodeDef *randomNode() {
    return graph.node_size() ? graph.mutable_node(rng() % graph.node_size()) : nullptr;
  }

  void changeOp() {
    if (auto *node = randomNode())
      node->set_op(pick(opNames()));
  }

  /// An input of one node becomes another node's output (any port) or a control input.
  void rewire() {
    auto *node = randomNode();
    if (!node || graph.node_size() < 2)
      return;
    std::string source = graph.node(rng() % graph.node_size()).name();
    int64_t port =
        rng() % 4 == 0
            ? pick(std::vector<int64_t>(std::begin(kInterestingInts), std::end(kInterestingInts)))
            : int64_t(rng() % 3);
    std::string input = rng() % 6 == 0 ? "^" + source
                        : port == 0    ? source
                                       : source + ":" + std::to_string(port);
    if (node->input_size() && rng() % 2)
      node->set_input(rng() % node->input_size(), input);
    else
      node->add_input(input);
  }

  void copyNode() {
    auto *node = randomNode();
    if (!node)
      return;
    tensorflow::NodeDef copy = *node;
    copy.set_name(node->name() + "_" + std::to_string(rng() % 100));
    *graph.add_node() = copy;
  }

  void removeNode() {
    if (graph.node_size() < 2)
      return;
    int i = static_cast<int>(rng() % graph.node_size());
    graph.mutable_node()->SwapElements(i, graph.node_size() - 1);
    graph.mutable_node()->RemoveLast();
  }

  /// One field of one message, by reflection.
  void mutateField() {
    // The messages as they are now: an earlier step may have removed some.
    messages.clear();
    collect(graph);
    pb::Message &m = *pick(messages);
    const pb::Descriptor *d = m.GetDescriptor();
    if (d->field_count() == 0)
      return;
    const pb::FieldDescriptor *f = d->field(rng() % d->field_count());
    const pb::Reflection *r = m.GetReflection();
    if (f->is_map())
      return; // maps are repeated entry messages, mutated through those
    if (f->is_repeated()) {
      int n = r->FieldSize(m, f);
      switch (rng() % 4) {
      case 0:
        if (n)
          r->RemoveLast(&m, f);
        return;
      case 1:
        if (n > 1)
          r->SwapElements(&m, f, rng() % n, rng() % n);
        return;
      default:
        addElement(m, f, n);
        return;
      }
    }
    setValue(m, f, -1);
  }

  void addElement(pb::Message &m, const pb::FieldDescriptor *f, int n) {
    const pb::Reflection *r = m.GetReflection();
    switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: {
      pb::Message *added = r->AddMessage(&m, f);
      if (n && rng() % 2)
        added->CopyFrom(r->GetRepeatedMessage(m, f, rng() % n));
      return;
    }
    case pb::FieldDescriptor::CPPTYPE_STRING:
      r->AddString(&m, f, randomString());
      return;
    case pb::FieldDescriptor::CPPTYPE_INT32:
      r->AddInt32(&m, f, int32_t(randomInt()));
      return;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      r->AddInt64(&m, f, randomInt());
      return;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      r->AddUInt32(&m, f, uint32_t(randomInt()));
      return;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      r->AddUInt64(&m, f, uint64_t(randomInt()));
      return;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      r->AddFloat(&m, f, float(randomFloat()));
      return;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      r->AddDouble(&m, f, randomFloat());
      return;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      r->AddBool(&m, f, rng() % 2);
      return;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      r->AddEnumValue(&m, f, randomEnum(f));
      return;
    }
  }

  void setValue(pb::Message &m, const pb::FieldDescriptor *f, int) {
    const pb::Reflection *r = m.GetReflection();
    switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      if (rng() % 2)
        r->ClearField(&m, f);
      else
        r->MutableMessage(&m, f); // present and empty
      return;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      r->SetString(&m, f, randomString());
      return;
    case pb::FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(&m, f, int32_t(randomInt()));
      return;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(&m, f, randomInt());
      return;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(&m, f, uint32_t(randomInt()));
      return;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(&m, f, uint64_t(randomInt()));
      return;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(&m, f, float(randomFloat()));
      return;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(&m, f, randomFloat());
      return;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(&m, f, !r->GetBool(m, f));
      return;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(&m, f, randomEnum(f));
      return;
    }
  }

  int64_t randomInt() {
    switch (rng() % 3) {
    case 0:
      return kInterestingInts[rng() % std::size(kInterestingInts)];
    case 1:
      return int64_t(rng() % 9) - 2;
    default:
      return static_cast<int64_t>(rng());
    }
  }
  double randomFloat() { return kInterestingFloats[rng() % std::size(kInterestingFloats)]; }
  int randomEnum(const pb::FieldDescriptor *f) {
    const pb::EnumDescriptor *e = f->enum_type();
    return rng() % 8 ? e->value(rng() % e->value_count())->number() : int(rng() % 200);
  }
  std::string randomString() {
    if (!strings.empty() && rng() % 4)
      return pick(strings);
    if (rng() % 2)
      return pick(opNames());
    static const char *words[] = {"",         "x", "SAME",     "VALID", "NCHW", "NHWC",
                                  "EXPLICIT", "T", "\xff\x01", "a:b",   "^x"};
    return words[rng() % std::size(words)];
  }

  /// The tf ops Kiln knows, by TensorFlow name.
  static const std::vector<std::string> &opNames() {
    static const std::vector<std::string> names = [] {
      mlir::MLIRContext context(kiln_fuzz::registry());
      context.loadAllAvailableDialects();
      std::vector<std::string> out;
      for (mlir::RegisteredOperationName op : context.getRegisteredOperations())
        if (op.getStringRef().starts_with("tf."))
          out.push_back(op.getStringRef().drop_front(3).str());
      return out;
    }();
    return names;
  }

  tensorflow::GraphDef &graph;
  std::mt19937 rng;
  std::vector<pb::Message *> messages;
  std::vector<std::string> strings;
};

} // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

#ifndef KILN_FUZZ_TEXT
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  google::protobuf::LogSilencer silencer;
  tensorflow::GraphDef graph;
  if (!graph.ParseFromArray(data, static_cast<int>(size)) || seed % 16 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  GraphMutator(graph, seed).mutate();
  std::string out;
  if (!graph.SerializeToString(&out) || out.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  compileGraph(llvm::StringRef(reinterpret_cast<const char *>(data), size));
  return 0;
}
