//===- Place.cpp - device placement with the paper's cost model ----------------===//
//
// Section 3.2.1 of the TensorFlow paper: constraints first (a node's `device` attribute,
// possibly partial, and colocation groups from `_class = ["loc:@node"]`, joined with
// union-find), then a greedy simulation in topological order that puts each op on the
// feasible device where it would finish soonest, counting compute time from FLOPs and
// device speed and transfer time for inputs produced on another device.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace kiln::graph {
#define GEN_PASS_DEF_PLACEPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace kiln::graph {

std::optional<DeviceName> DeviceName::parse(StringRef text) {
  DeviceName d;
  if (text.empty())
    return d;
  if (!text.consume_front("/"))
    return std::nullopt;
  SmallVector<StringRef> parts;
  text.split(parts, '/');
  // TensorFlow's replicas, tasks and device ids are 32-bit (DeviceNameUtils).
  auto number = [](StringRef value, std::optional<int64_t> &field) {
    int64_t n;
    if (value.getAsInteger(10, n) || n < 0 || n > INT32_MAX)
      return false;
    field = n;
    return true;
  };
  for (StringRef part : parts) {
    auto [key, value] = part.split(':');
    if (key == "job" && !value.empty()) {
      d.job = value.str();
    } else if (key == "replica" || key == "task") {
      if (!number(value, key == "replica" ? d.replica : d.task))
        return std::nullopt;
    } else {
      // "device:TYPE:N", or the legacy "TYPE:N" ("cpu:0", "gpu:1"); N may be "*".
      StringRef type = key, id = value;
      if (key == "device")
        std::tie(type, id) = value.split(':');
      std::string upper = type.upper();
      if (upper != "CPU" && upper != "GPU")
        return std::nullopt;
      d.type = upper;
      if (!id.empty() && id != "*" && !number(id, d.id))
        return std::nullopt;
    }
  }
  return d;
}

std::string DeviceName::str() const {
  std::string s = "/job:" + (job ? *job : std::string("localhost"));
  s += "/replica:" + std::to_string(replica.value_or(0));
  s += "/task:" + std::to_string(task.value_or(0));
  s += "/device:" + (type ? *type : std::string("CPU")) + ":" + std::to_string(id.value_or(0));
  return s;
}

bool DeviceName::matches(const DeviceName &device) const {
  return (!job || job == device.job.value_or("localhost")) &&
         (!replica || replica == device.replica.value_or(0)) &&
         (!task || task == device.task.value_or(0)) && (!type || type == device.type) &&
         (!id || id == device.id.value_or(0));
}

int64_t tensorBytes(Type type) {
  auto s = dyn_cast<ShapedType>(type);
  if (!s || !s.hasStaticShape() || !s.getElementType().isIntOrFloat())
    return 0;
  return s.getNumElements() * static_cast<int64_t>((s.getElementTypeBitWidth() + 7) / 8);
}

std::string nodeName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return op->getName().getStringRef().str();
}

StringRef deviceOf(Operation *op) {
  auto d = op ? op->getAttrOfType<StringAttr>("device") : StringAttr();
  return d ? d.getValue() : StringRef();
}

bool isControlInput(OpOperand &use) {
  auto op = dyn_cast<kiln::tf::GraphOpInterface>(use.getOwner());
  return op && use.getOperandNumber() >= op.getDataInputs().size();
}

/// Floating-point operations of `op`, estimated from its shapes.
double estimateFlops(Operation *op) {
  auto elements = [](Type t) -> double {
    auto s = dyn_cast<ShapedType>(t);
    return s && s.hasStaticShape() ? static_cast<double>(s.getNumElements()) : 1.0;
  };
  double out = 0;
  for (Type t : op->getResultTypes())
    out += elements(t);
  auto operandShape = [&](unsigned i) -> ArrayRef<int64_t> {
    auto s = dyn_cast<ShapedType>(op->getOperand(i).getType());
    return s && s.hasStaticShape() ? s.getShape() : ArrayRef<int64_t>{};
  };
  if (isa<tf::MatMulOp, tf::FusedMatMulOp, tf::BatchMatMulOp, tf::BatchMatMulV2Op>(op)) {
    auto a = operandShape(0);
    bool transposed = false;
    if (auto attr = op->getAttrOfType<BoolAttr>("transpose_a"))
      transposed = attr.getValue();
    if (auto attr = op->getAttrOfType<BoolAttr>("adj_x"))
      transposed = attr.getValue();
    int64_t k = a.size() >= 2 ? (transposed ? a[a.size() - 2] : a.back()) : 1;
    return 2.0 * out * static_cast<double>(k);
  }
  if (isa<tf::Conv2DOp, tf::FusedConv2DOp, tf::Conv2DBackpropInputOp>(op)) {
    auto f = operandShape(1);
    double window = f.size() == 4 ? static_cast<double>(f[0] * f[1] * f[2]) : 1.0;
    return 2.0 *
           (isa<tf::Conv2DBackpropInputOp>(op) ? elements(op->getOperand(2).getType()) : out) *
           window;
  }
  if (isa<tf::DepthwiseConv2dNativeOp>(op)) {
    auto f = operandShape(1);
    return 2.0 * out * (f.size() == 4 ? static_cast<double>(f[0] * f[1]) : 1.0);
  }
  // Elementwise, data movement and reductions: about one operation per element read.
  double in = 0;
  for (Value v : op->getOperands())
    in += elements(v.getType());
  return std::max(in, out);
}

} // namespace kiln::graph

namespace {

using kiln::graph::DeviceName;

/// What the cost model knows of a device kind (section 3.2.1's "device speeds").
struct DeviceKind {
  double flopsPerSecond; // sustained f32
  double launchSeconds;  // fixed cost per op
};

DeviceKind kindOf(const DeviceName &d) {
  if (d.type == "GPU")
    return {20e12, 5e-6};
  return {50e9, 2e-7};
}

/// Seconds to move `bytes` from one device to another (none on the same device).
double transferSeconds(const DeviceName &from, const DeviceName &to, double bytes) {
  if (from.str() == to.str())
    return 0.0;
  bool host = from.type == "CPU" && to.type == "CPU";
  bool sameTask = from.job == to.job && from.replica == to.replica && from.task == to.task;
  double bandwidth = !sameTask ? 1.25e9 : host ? 10e9 : 16e9; // network, memcpy, PCIe
  double latency = !sameTask ? 50e-6 : host ? 1e-6 : 10e-6;
  return latency + bytes / bandwidth;
}

/// Device types that can run `op`: each needs a lowering. The CPU has them all; a GPU runs
/// the ops that lower to loop nests (kiln-gpu-kernels): stateless ones without regions, on
/// tensors of numbers and booleans, but not those lowered to one sequential loop (HostOnly).
bool hasLowering(Operation *op, const DeviceName &device) {
  if (device.type == "CPU")
    return true;
  if (device.type != "GPU" || op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
      op->hasTrait<kiln::tf::traits::HostOnly>())
    return false;
  auto numeric = [](Type t) {
    if (isa<kiln::tf::ControlType>(t)) // control edges order, carry nothing
      return true;
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getElementType().isIntOrFloat();
  };
  return llvm::all_of(op->getOperandTypes(), numeric) &&
         llvm::all_of(op->getResultTypes(), numeric);
}

using kiln::graph::nodeName;

struct PlacePass : kiln::graph::impl::PlacePassBase<PlacePass> {
  using PlacePassBase::PlacePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<DeviceName> available;
    for (const std::string &text : devices) {
      auto d = DeviceName::parse(text);
      if (!d || !d->type || !d->id) {
        func.emitError() << "'" << text
                         << "' is not a device name (/cpu:0, /device:GPU:1, or "
                            "/job:J/replica:R/task:T/device:TYPE:N)";
        return signalPassFailure();
      }
      if (!d->job)
        d->job = "localhost";
      d->replica = d->replica.value_or(0);
      d->task = d->task.value_or(0);
      available.push_back(*d);
    }
    if (available.empty())
      return;

    // Ops to place: tf ops other than constants (which go wherever their users are).
    SmallVector<Operation *> ops;
    llvm::StringMap<Operation *> byName;
    for (Operation &op : func.getBody().front()) {
      if (!isa<kiln::tf::TFDialect>(op.getDialect()))
        continue;
      ops.push_back(&op);
      byName[nodeName(&op)] = &op;
    }

    // Colocation groups.
    llvm::EquivalenceClasses<Operation *> groups;
    for (Operation *op : ops) {
      groups.insert(op);
      auto cls = op->getAttrOfType<ArrayAttr>("_class");
      if (!cls)
        continue;
      for (Attribute a : cls) {
        auto s = dyn_cast<StringAttr>(a);
        if (!s || !s.getValue().starts_with("loc:@"))
          continue;
        if (Operation *other = byName.lookup(s.getValue().drop_front(5)))
          groups.unionSets(op, other);
      }
    }

    // Each op's own constraint.
    DenseMap<Operation *, DeviceName> wanted;
    bool ok = true;
    for (Operation *op : ops) {
      auto attr = op->getAttrOfType<StringAttr>("device");
      if (!attr || attr.empty())
        continue;
      if (auto want = DeviceName::parse(attr.getValue())) {
        wanted[op] = *want;
        continue;
      }
      op->emitError() << "node '" << nodeName(op) << "' has device '" << attr.getValue()
                      << "', which is not a device name";
      ok = false;
    }
    if (!ok)
      return signalPassFailure();

    // Feasible devices of each group: those every member's constraint and lowering allow,
    // among the devices listed (the host's CPU, added below for soft placement, only for
    // groups none of them can run).
    DenseMap<Operation *, SmallVector<unsigned>> feasible; // by group leader
    const unsigned listed = available.size();
    for (auto it = groups.begin(); it != groups.end(); ++it) {
      if (!(*it)->isLeader())
        continue;
      Operation *leader = (*it)->getData();
      SmallVector<Operation *> members(groups.member_begin(**it), groups.member_end());
      llvm::sort(members, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      SmallVector<unsigned> allowed;
      for (unsigned d = 0; d < listed; ++d) {
        bool fits = true;
        for (Operation *op : members) {
          if (auto it = wanted.find(op); it != wanted.end())
            fits &= it->second.matches(available[d]);
          fits &= hasLowering(op, available[d]);
        }
        if (fits)
          allowed.push_back(d);
      }
      // Soft placement, as TensorFlow's: what no device offered can run, and no node of
      // the group pins, runs on the host's CPU (CPU:0 of the first device's task), which
      // every program has; the partitioning then hands its tensors over.
      bool pinned = llvm::any_of(members, [&](Operation *op) { return wanted.count(op); });
      if (allowed.empty() && !pinned) {
        DeviceName host = available.front();
        host.type = "CPU";
        host.id = 0;
        auto it =
            llvm::find_if(available, [&](const DeviceName &d) { return d.str() == host.str(); });
        if (it == available.end()) {
          available.push_back(host);
          it = available.end() - 1;
        }
        allowed.push_back(unsigned(it - available.begin()));
        numSoftPlaced += members.size();
      }
      if (allowed.empty()) {
        InFlightDiagnostic diag = leader->emitError();
        diag << "no device in --devices can run ";
        if (members.size() > 1)
          diag << "the colocated nodes";
        else
          diag << "node";
        for (Operation *op : members) {
          diag << " '" << nodeName(op) << "'";
          if (auto attr = op->getAttrOfType<StringAttr>("device"); attr && !attr.empty())
            diag << " (device '" << attr.getValue() << "')";
        }
        diag << "; devices:";
        for (unsigned d = 0; d < listed; ++d)
          diag << " " << available[d].str();
        if (llvm::any_of(available, [](const DeviceName &d) { return d.type == "GPU"; }))
          diag << " (a GPU runs stateless ops on numeric tensors only, so far)";
        ok = false;
      }
      feasible[leader] = allowed;
    }
    if (!ok)
      return signalPassFailure();

    // The greedy simulation: ops in program (topological) order, each on the feasible
    // device where it would finish first. A group is placed with its first member.
    SmallVector<double> deviceFree(available.size(), 0.0);
    DenseMap<Operation *, unsigned> placed;
    DenseMap<Operation *, double> finish;
    DenseMap<Operation *, unsigned> groupDevice;
    // Constants cost nothing and go where their first user is (below); so do Identity
    // ops of them (a frozen variable's read, kept for its control edges): placed on their
    // own, such a free op would go to the CPU and its GPU user would receive the weights
    // on every call (ResNet50's five largest, 45 MB a call).
    // The bytes `v` takes across devices: with kiln-graph-partition's compress-transfers,
    // an f32 tensor moves as 16 bits a value.
    auto bytesToMove = [&](Value v) {
      double bytes = static_cast<double>(kiln::graph::tensorBytes(v.getType()));
      return compressTransfers && getElementTypeOrSelf(v.getType()).isF32() ? bytes / 2 : bytes;
    };
    llvm::SetVector<Operation *> constants;
    auto followsUsers = [&](Operation *op) {
      if (op->hasAttr("device") || op->hasAttr("_class"))
        return false;
      if (isa<kiln::tf::ConstOp>(op))
        return true;
      Operation *def = isa<kiln::tf::IdentityOp>(op) && op->getNumOperands() == 1
                           ? op->getOperand(0).getDefiningOp()
                           : nullptr;
      return def && constants.contains(def);
    };
    for (Operation *op : ops) {
      if (followsUsers(op)) {
        constants.insert(op);
        continue;
      }
      Operation *leader = groups.getLeaderValue(op);
      SmallVector<unsigned> choices = feasible[leader];
      if (auto it = groupDevice.find(leader); it != groupDevice.end())
        choices = {it->second};
      double compute = kiln::graph::estimateFlops(op);
      // Control inputs cross devices without data (kiln-graph-partition drops them).
      auto graphOp = dyn_cast<kiln::tf::GraphOpInterface>(op);
      ValueRange dataInputs =
          graphOp ? ValueRange(graphOp.getDataInputs()) : ValueRange(op->getOperands());
      // Where the op's data is (its largest placed input's device): an op placed
      // elsewhere is charged for sending its results back there too, as its consumers
      // will likely be there; without it, a cheap op would go to an idle device whenever
      // the busy one's queue is long and its result would cross back (Inception's
      // branches on the CPU beside the GPU).
      std::optional<unsigned> home;
      double homeBytes = -1.0, outBytes = 0.0;
      for (Value v : dataInputs)
        if (Operation *def = v.getDefiningOp(); def && placed.count(def)) {
          double bytes = static_cast<double>(kiln::graph::tensorBytes(v.getType()));
          if (bytes > homeBytes)
            homeBytes = bytes, home = placed[def];
        }
      for (Value r : op->getResults())
        outBytes += bytesToMove(r);
      double best = std::numeric_limits<double>::infinity(), bestEnd = best;
      unsigned bestDevice = choices.front();
      for (unsigned d : choices) {
        double start = deviceFree[d];
        for (Value v : dataInputs) {
          Operation *def = v.getDefiningOp();
          if (!def || !placed.count(def))
            continue;
          double ready =
              finish[def] + transferSeconds(available[placed[def]], available[d], bytesToMove(v));
          start = std::max(start, ready);
        }
        DeviceKind k = kindOf(available[d]);
        double end = start + k.launchSeconds + compute / k.flopsPerSecond;
        double score =
            end +
            (home && *home != d ? transferSeconds(available[d], available[*home], outBytes) : 0.0);
        if (score < best) {
          best = score;
          bestEnd = end;
          bestDevice = d;
        }
      }
      placed[op] = bestDevice;
      finish[op] = bestEnd;
      deviceFree[bestDevice] = bestEnd;
      groupDevice.try_emplace(leader, bestDevice);
      op->setAttr("device", StringAttr::get(op->getContext(), available[bestDevice].str()));
    }
    // Users first (an Identity before the constant it reads); one that takes it as a
    // control input only (a NoOp's) is the last choice.
    for (Operation *op : llvm::reverse(constants)) {
      unsigned device = feasible[groups.getLeaderValue(op)].front();
      bool chosen = false;
      for (bool control : {false, true})
        for (OpOperand &use : op->getUses())
          if (auto it = placed.find(use.getOwner());
              !chosen && it != placed.end() && kiln::graph::isControlInput(use) == control) {
            device = it->second;
            chosen = true;
          }
      placed[op] = device;
      op->setAttr("device", StringAttr::get(op->getContext(), available[device].str()));
    }
    // A loop or conditional runs whole where it is placed: the ops of its regions take its
    // device (whatever theirs said).
    for (Operation &op : func.getBody().front()) {
      auto device = op.getAttrOfType<StringAttr>("device");
      if (!device || op.getNumRegions() == 0)
        continue;
      op.walk([&](Operation *inner) {
        if (inner != &op && isa<kiln::tf::TFDialect>(inner->getDialect()) &&
            !isa<kiln::tf::YieldOp>(inner))
          inner->setAttr("device", device);
      });
    }
  }
};

} // namespace
