//===- ModelABI.cpp - the entry point, model info and C header ----------------===//
#include "codegen/Target/ModelABI.h"
#include "dialects/Kiln/ABI.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/Kiln/Model.h"

#include "kiln/runtime/abi.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;

namespace kiln::codegen {

std::string sanitizeIdentifier(StringRef text) { return kiln::dialect::toCIdentifier(text); }

int dtypeOf(Type t) { return kiln::dialect::abi::dtypeOf(t); }

static const char *dtypeMacro(int dtype) {
  switch (dtype) {
  case KILN_DTYPE_F32:
    return "KILN_DTYPE_F32";
  case KILN_DTYPE_F64:
    return "KILN_DTYPE_F64";
  case KILN_DTYPE_F16:
    return "KILN_DTYPE_F16";
  case KILN_DTYPE_BF16:
    return "KILN_DTYPE_BF16";
  case KILN_DTYPE_I8:
    return "KILN_DTYPE_I8";
  case KILN_DTYPE_I16:
    return "KILN_DTYPE_I16";
  case KILN_DTYPE_I32:
    return "KILN_DTYPE_I32";
  case KILN_DTYPE_I64:
    return "KILN_DTYPE_I64";
  case KILN_DTYPE_U8:
    return "KILN_DTYPE_U8";
  case KILN_DTYPE_U16:
    return "KILN_DTYPE_U16";
  case KILN_DTYPE_U32:
    return "KILN_DTYPE_U32";
  case KILN_DTYPE_U64:
    return "KILN_DTYPE_U64";
  case KILN_DTYPE_BOOL:
    return "KILN_DTYPE_BOOL";
  default:
    return "KILN_DTYPE_INVALID";
  }
}

bool ModelInterface::isSingleRun() const {
  return entries.size() == 1 && entries.front().name == "run" && states.empty();
}

int64_t ModelInterface::scratchBytes() const {
  int64_t bytes = 0;
  for (const EntryInterface &entry : entries)
    bytes = std::max(bytes, entry.scratchBytes);
  return bytes;
}

static TensorSignature tensorSignature(StringRef name, StringAttr alias, RankedTensorType type) {
  TensorSignature t;
  t.name = name.str();
  if (alias)
    t.alias = alias.str();
  t.dtype = dtypeOf(type.getElementType());
  t.dims.assign(type.getShape().begin(), type.getShape().end());
  t.byteSize = type.getNumElements() * kiln_dtype_size(t.dtype);
  return t;
}

static int64_t alignScratch(int64_t bytes) {
  return static_cast<int64_t>(llvm::alignTo(bytes, KILN_SCRATCH_ALIGNMENT));
}

/// Per tensor of `count` (the entry's inputs or outputs, listed in each part's `member`),
/// the GPU of the parts that use it if all of them are one GPU's, else -1. A GPU part only
/// copies its arguments to or from its device arena (kiln-gpu-host), by address.
static std::vector<int32_t> gpusOf(ArrayRef<EntryPart> parts, size_t count,
                                   std::vector<int64_t> EntryPart::*member) {
  constexpr int32_t kUnused = -2, kHost = -1;
  std::vector<int32_t> gpus(count, kUnused);
  for (const EntryPart &part : parts)
    for (int64_t i : part.*member) {
      int32_t place = part.gpu ? part.gpuOrdinal : kHost;
      gpus[i] = gpus[i] == kUnused || gpus[i] == place ? place : kHost;
    }
  for (int32_t &gpu : gpus)
    gpu = std::max(gpu, kHost);
  return gpus;
}

FailureOr<ModelInterface> readModel(ModuleOp module) {
  kiln::dialect::ModelOp model = kiln::dialect::getModel(module);
  if (!model)
    return module.emitError() << "the module has no kiln.model to take the interface from";
  ModelInterface interface;
  interface.name = model.getName().str();
  // The state, one tensor after another in the state buffer.
  llvm::StringMap<int32_t> statePosition;
  for (auto state : model.getBody().getOps<kiln::dialect::StateOp>()) {
    StateInterface s;
    s.tensor =
        tensorSignature(state.getName(), StringAttr(), cast<RankedTensorType>(state.getType()));
    s.offset = interface.stateBytes;
    interface.stateBytes += alignScratch(s.tensor.byteSize);
    statePosition[state.getName()] = static_cast<int32_t>(interface.states.size());
    interface.states.push_back(std::move(s));
  }
  for (auto op : model.getBody().getOps<kiln::dialect::EntryOp>()) {
    EntryInterface entry;
    entry.name = op.getName().str();
    if (!op.getParts())
      return op.emitOpError() << "runs no parts; run kiln-lower-partitions";
    auto read = [&](ArrayAttr tensors, std::vector<TensorSignature> &out) -> LogicalResult {
      for (auto tensor : tensors.getAsRange<kiln::dialect::TensorAttr>()) {
        if (!tensor.getType())
          return op.emitOpError() << "has '" << tensor.getName()
                                  << "' without its type; run kiln-lower-freeze-interface";
        out.push_back(tensorSignature(tensor.getName(), tensor.getAlias(), tensor.getType()));
        out.back().shapeOutput = static_cast<int32_t>(tensor.getShape());
      }
      return success();
    };
    if (failed(read(op.getFeeds(), entry.inputs)) || failed(read(op.getFetches(), entry.outputs)))
      return failure();
    for (auto name : op.getState().getAsRange<StringAttr>())
      entry.reads.push_back(statePosition.lookup(name.getValue()));
    for (auto name : op.getUpdates().getAsRange<StringAttr>())
      entry.writes.push_back(statePosition.lookup(name.getValue()));
    for (auto attr : op.getParts()->getAsRange<kiln::dialect::PartAttr>()) {
      EntryPart part;
      part.implName = attr.getFunction().getValue().str();
      llvm::append_range(part.inputs, attr.getInputs().asArrayRef());
      llvm::append_range(part.outputs, attr.getOutputs().asArrayRef());
      part.scratchOffset = attr.getScratchOffset();
      part.scratchBytes = attr.getScratchBytes();
      part.statusArgument = attr.getStatus();
      StringRef device = attr.getDevice().getValue();
      part.gpu = kiln::dialect::isGpuDevice(device);
      if (part.gpu)
        (void)device.substr(device.rfind(':') + 1).getAsInteger(10, part.gpuOrdinal);
      entry.scratchBytes =
          std::max(entry.scratchBytes, part.scratchOffset + alignScratch(part.scratchBytes));
      entry.naiveScratchBytes += attr.getNaiveBytes();
      entry.parts.push_back(std::move(part));
    }
    if (entry.parts.empty())
      return op.emitOpError() << "has no parts";
    entry.inputGpus = gpusOf(entry.parts, entry.inputs.size(), &EntryPart::inputs);
    entry.outputGpus = gpusOf(entry.parts, entry.outputs.size(), &EntryPart::outputs);
    for (int32_t state : entry.writes) {
      entry.writeOffsets.push_back(entry.scratchBytes);
      entry.scratchBytes += alignScratch(interface.states[state].tensor.byteSize);
    }
    interface.entries.push_back(std::move(entry));
  }
  if (interface.entries.empty())
    return model.emitOpError() << "has no entry point";
  if (auto checks = model.getChecks())
    for (auto attr : checks->getAsRange<kiln::dialect::CheckAttr>()) {
      CheckInfo check;
      check.message = attr.getMessage().str();
      llvm::append_range(check.dims, attr.getDims().asArrayRef());
      check.isUnsigned = attr.getUnsignedValues();
      interface.checks.push_back(std::move(check));
    }
  if (auto keys = model.getRendezvousKeys())
    for (auto key : keys->getAsRange<StringAttr>())
      interface.rendezvousKeys.push_back(key.str());
  return interface;
}

namespace {

/// Builds the constant tables of NAME_info in an LLVM module.
class InfoBuilder {
public:
  InfoBuilder(llvm::Module &m, StringRef prefix)
      : m(m), ctx(m.getContext()), prefix(prefix.str()), ptr(llvm::PointerType::get(ctx, 0)),
        i32(llvm::Type::getInt32Ty(ctx)), i64(llvm::Type::getInt64Ty(ctx)) {
    tensorInfo = llvm::StructType::create(ctx, {ptr, ptr, i32, i32, ptr, i64, i32, i32},
                                          "kiln_tensor_info_t");
    stateInfo = llvm::StructType::create(ctx, {tensorInfo, i64}, "kiln_state_info_t");
    entryInfo = llvm::StructType::create(
        ctx, {ptr, i32, i32, ptr, ptr, i32, i32, ptr, ptr, i64, ptr}, "kiln_entry_info_t");
    buffersInfo = llvm::StructType::create(ctx, {ptr, ptr}, "kiln_entry_buffers_t");
    modelInfo = llvm::StructType::create(
        ctx, {i32, ptr, i32, i32, ptr, ptr, i64, i64, ptr, i32, i32, ptr, ptr, i64, i64, ptr},
        "kiln_model_info_t");
  }

  llvm::Constant *string(StringRef s) {
    auto *init = llvm::ConstantDataArray::getString(ctx, s, /*AddNull=*/true);
    return privateGlobal(init, "str");
  }

  llvm::Constant *tensor(const TensorSignature &t) {
    std::vector<uint64_t> dims(t.dims.begin(), t.dims.end());
    llvm::Constant *dimsPtr =
        dims.empty() ? static_cast<llvm::Constant *>(llvm::ConstantPointerNull::get(ptr))
                     : privateGlobal(llvm::ConstantDataArray::get(ctx, dims), "dims");
    return llvm::ConstantStruct::get(
        tensorInfo,
        {string(t.name), string(t.alias), llvm::ConstantInt::get(i32, t.dtype),
         llvm::ConstantInt::get(i32, t.dims.size()), dimsPtr,
         llvm::ConstantInt::get(i64, t.byteSize), llvm::ConstantInt::get(i32, t.shapeOutput >= 0),
         llvm::ConstantInt::get(i32, std::max(t.shapeOutput, 0))});
  }

  llvm::Constant *tensors(const std::vector<TensorSignature> &list, StringRef kind) {
    if (list.empty())
      return llvm::ConstantPointerNull::get(ptr);
    std::vector<llvm::Constant *> entries;
    for (const TensorSignature &t : list)
      entries.push_back(tensor(t));
    auto *arrayType = llvm::ArrayType::get(tensorInfo, entries.size());
    return privateGlobal(llvm::ConstantArray::get(arrayType, entries), kind);
  }

  /// NAME_info: the first entry point in ABI 1's fields (`first`, its 4-argument function,
  /// or null), then every entry point (`functions`, their 5-argument ones) and the state.
  llvm::GlobalVariable *model(const ModelInterface &model, llvm::Function *first,
                              ArrayRef<llvm::Function *> functions) {
    auto int32 = [&](int64_t v) { return llvm::ConstantInt::get(i32, v); };
    auto int64 = [&](int64_t v) { return llvm::ConstantInt::get(i64, v); };
    // (Positions, and GPU ordinals with -1 for the host, as int32_t.)
    auto positions = [&](ArrayRef<int32_t> list, StringRef what) -> llvm::Constant * {
      if (list.empty())
        return llvm::ConstantPointerNull::get(ptr);
      std::vector<uint32_t> values(list.begin(), list.end());
      return privateGlobal(llvm::ConstantDataArray::get(ctx, values), what);
    };
    std::vector<llvm::Constant *> entries;
    for (auto [entry, function] : llvm::zip(model.entries, functions))
      entries.push_back(llvm::ConstantStruct::get(
          entryInfo,
          {string(entry.name), int32(entry.inputs.size()), int32(entry.outputs.size()),
           tensors(entry.inputs, "inputs"), tensors(entry.outputs, "outputs"),
           int32(entry.reads.size()), int32(entry.writes.size()), positions(entry.reads, "reads"),
           positions(entry.writes, "writes"), int64(entry.scratchBytes), function}));
    std::vector<llvm::Constant *> buffers;
    for (const EntryInterface &entry : model.entries)
      buffers.push_back(
          llvm::ConstantStruct::get(buffersInfo, {positions(entry.inputGpus, "input_gpus"),
                                                  positions(entry.outputGpus, "output_gpus")}));
    std::vector<llvm::Constant *> states;
    for (const StateInterface &state : model.states)
      states.push_back(
          llvm::ConstantStruct::get(stateInfo, {tensor(state.tensor), int64(state.offset)}));
    auto table = [&](llvm::StructType *type, std::vector<llvm::Constant *> &list,
                     StringRef what) -> llvm::Constant * {
      if (list.empty())
        return llvm::ConstantPointerNull::get(ptr);
      return privateGlobal(llvm::ConstantArray::get(llvm::ArrayType::get(type, list.size()), list),
                           what);
    };
    const EntryInterface &front = model.entries.front();
    llvm::Constant *firstEntry =
        first ? static_cast<llvm::Constant *>(first) : llvm::ConstantPointerNull::get(ptr);
    auto *init = llvm::ConstantStruct::get(
        modelInfo, {int32(KILN_ABI_VERSION), string(model.name), int32(front.inputs.size()),
                    int32(front.outputs.size()), tensors(front.inputs, "inputs"),
                    tensors(front.outputs, "outputs"), int64(model.scratchBytes()),
                    int64(KILN_SCRATCH_ALIGNMENT), firstEntry, int32(model.entries.size()),
                    int32(model.states.size()), table(entryInfo, entries, "entries"),
                    table(stateInfo, states, "states"), int64(model.stateBytes),
                    int64(KILN_SCRATCH_ALIGNMENT), table(buffersInfo, buffers, "buffers")});
    return new llvm::GlobalVariable(m, modelInfo, /*isConstant=*/true,
                                    llvm::GlobalValue::ExternalLinkage, init, prefix + "_info");
  }

private:
  llvm::GlobalVariable *privateGlobal(llvm::Constant *init, StringRef what) {
    auto *g =
        new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::PrivateLinkage, init, prefix + "." + what);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return g;
  }

  llvm::Module &m;
  llvm::LLVMContext &ctx;
  std::string prefix;
  llvm::PointerType *ptr;
  llvm::IntegerType *i32, *i64;
  llvm::StructType *tensorInfo, *stateInfo, *entryInfo, *buffersInfo, *modelInfo;
};

} // namespace

/// The model's kiln_check_info_t table: {message, rank, is_unsigned, dims} per check.
static llvm::Constant *checkTable(llvm::Module &m, ArrayRef<CheckInfo> checks, StringRef prefix) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *entryType = llvm::StructType::get(ctx, {ptr, i32, i32, ptr});
  auto global = [&](llvm::Constant *init, StringRef what) {
    auto *g =
        new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::PrivateLinkage, init, prefix + "." + what);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return g;
  };
  std::vector<llvm::Constant *> entries;
  for (const CheckInfo &check : checks) {
    std::vector<uint64_t> dims(check.dims.begin(), check.dims.end());
    llvm::Constant *dimsPtr =
        dims.empty() ? static_cast<llvm::Constant *>(llvm::ConstantPointerNull::get(ptr))
                     : global(llvm::ConstantDataArray::get(ctx, dims), "check_dims");
    entries.push_back(llvm::ConstantStruct::get(
        entryType, {global(llvm::ConstantDataArray::getString(ctx, check.message), "check_message"),
                    llvm::ConstantInt::get(i32, dims.size()),
                    llvm::ConstantInt::get(i32, check.isUnsigned), dimsPtr}));
  }
  return global(llvm::ConstantArray::get(llvm::ArrayType::get(entryType, entries.size()), entries),
                "checks");
}

namespace {

/// Writes the entry points of a model into its LLVM module.
class EntryBuilder {
public:
  EntryBuilder(llvm::Module &m, const ModelInterface &model)
      : m(m), ctx(m.getContext()), model(model), ptr(llvm::PointerType::get(ctx, 0)),
        i32(llvm::Type::getInt32Ty(ctx)), i64(llvm::Type::getInt64Ty(ctx)),
        voidType(llvm::Type::getVoidTy(ctx)) {
    // The thread budget of kernels called by the model, and of its loops on the thread pool
    // (kiln-lower-parallel-loops), comes from the options (kiln/runtime/parallel.h); only
    // models that call kernels, run loops on the pool or run partitions depend on the
    // runtime for it.
    callsKernels = llvm::any_of(m.functions(), [](const llvm::Function &f) {
      return f.isDeclaration() && (kiln::dialect::symbolUsesThreadPool(f.getName()) ||
                                   f.getName() == "kiln_parallel_for");
    });
  }

  /// The function of `entry`, named `symbol`: (inputs, outputs, [state,] scratch,
  /// options), with the state argument when `withState`.
  llvm::Function *build(const EntryInterface &entry, const std::string &symbol, bool withState,
                        std::string &error);

  /// `symbol`, internal, with the other signature calling `target`: a 5-argument one that
  /// ignores the state, or a 4-argument one that passes none.
  llvm::Function *adapter(llvm::Function *target, const std::string &symbol, bool withState) {
    auto *type = withState ? stateEntryType() : entryType();
    auto *f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, symbol, m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
    std::vector<llvm::Value *> args;
    for (auto &arg : f->args())
      args.push_back(&arg);
    if (withState)
      args.erase(args.begin() + 2);
    else
      args.insert(args.begin() + 2, llvm::ConstantPointerNull::get(ptr));
    // A call, not a copy of the model's code: the adapter only reorders arguments.
    llvm::CallInst *call = b.CreateCall(target, args);
    call->addFnAttr(llvm::Attribute::NoInline);
    call->setTailCall();
    b.CreateRet(call);
    return f;
  }

  llvm::FunctionType *entryType() {
    return llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr}, false);
  }
  llvm::FunctionType *stateEntryType() {
    return llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr}, false);
  }

private:
  llvm::Constant *checkTable() {
    if (!checks)
      checks = codegen::checkTable(m, model.checks, model.name);
    return checks;
  }

  llvm::Module &m;
  llvm::LLVMContext &ctx;
  const ModelInterface &model;
  llvm::PointerType *ptr;
  llvm::IntegerType *i32, *i64;
  llvm::Type *voidType;
  bool callsKernels = false;
  llvm::Constant *checks = nullptr;
};

} // namespace

llvm::Function *EntryBuilder::build(const EntryInterface &entry, const std::string &symbol,
                                    bool withState, std::string &error) {
  ArrayRef<EntryPart> parts = entry.parts;
  std::string prefix = model.isSingleRun() ? model.name : model.name + "_" + entry.name;
  std::vector<llvm::Function *> impls;
  for (const EntryPart &part : parts) {
    llvm::Function *impl = m.getFunction(part.implName);
    if (!impl) {
      error = "the lowered module has no function '" + part.implName + "'";
      return nullptr;
    }
    size_t expected = part.inputs.size() + part.outputs.size() + entry.reads.size() +
                      entry.writes.size() + 1 + part.statusArgument;
    if (impl->arg_size() != expected) {
      error = "the lowered function '" + part.implName + "' takes " +
              std::to_string(impl->arg_size()) + " arguments; its signature needs " +
              std::to_string(expected);
      return nullptr;
    }
    impl->setName(parts.size() == 1 ? prefix + "_impl" : prefix + "_" + part.implName);
    impl->setLinkage(llvm::GlobalValue::InternalLinkage);
    impls.push_back(impl);
  }

  auto *run = llvm::Function::Create(withState ? stateEntryType() : entryType(),
                                     llvm::GlobalValue::ExternalLinkage, symbol, m);
  llvm::Value *inputs = run->getArg(0), *outputs = run->getArg(1);
  llvm::Value *state = withState ? run->getArg(2) : nullptr;
  llvm::Value *scratch = run->getArg(withState ? 3 : 2);
  llvm::Value *options = run->getArg(withState ? 4 : 3);
  inputs->setName("inputs");
  outputs->setName("outputs");
  if (state)
    state->setName("state");
  scratch->setName("scratch");
  options->setName("options");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", run));
  // The status each part's checks record a failure in (kiln/runtime/abi.h), zeroed for
  // this call: one per part, so that concurrent partitions never write the same one.
  llvm::Value *status = nullptr;
  const int64_t words = KILN_CHECK_STATUS_WORDS;
  auto partStatus = [&](size_t index) {
    return b.CreateConstInBoundsGEP1_64(i64, status, index * words);
  };
  if (!model.checks.empty()) {
    status = b.CreateAlloca(i64, b.getInt32(parts.size() * words), "status");
    for (size_t w = 0; w < parts.size() * words; ++w)
      b.CreateStore(b.getInt64(0), b.CreateConstInBoundsGEP1_64(i64, status, w));
  }
  auto stateAt = [&](int32_t index) {
    return b.CreateGEP(b.getInt8Ty(), state, b.getInt64(model.states[index].offset));
  };
  auto scratchAt = [&](int64_t offset) {
    return b.CreateGEP(b.getInt8Ty(), scratch, b.getInt64(offset));
  };
  // The arguments of part `p`, loaded from the entry's arrays: a whole function also reads
  // and writes the state (the writes go to scratch first).
  auto partArgs = [&](const EntryPart &part, size_t index) {
    std::vector<llvm::Value *> args;
    auto load = [&](llvm::Value *array, int64_t index) {
      args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, array, index)));
    };
    for (int64_t i : part.inputs)
      load(inputs, i);
    for (int32_t s : entry.reads)
      args.push_back(stateAt(s));
    for (int64_t i : part.outputs)
      load(outputs, i);
    for (int64_t offset : entry.writeOffsets)
      args.push_back(scratchAt(offset));
    args.push_back(scratchAt(part.scratchOffset));
    if (part.statusArgument)
      args.push_back(partStatus(index));
    return args;
  };
  ArrayRef<std::string> rendezvousKeys = model.rendezvousKeys;
  bool concurrent = parts.size() > 1 || !rendezvousKeys.empty();
  // A GPU partition holds the process's GPU lock for its whole call (kiln/runtime/mgpu.h),
  // waiting in its receives: a second one could wait for it for ever.
  if (llvm::count_if(parts, [](const EntryPart &p) { return p.gpu; }) > 1) {
    error = "more than one GPU partition in a model is not supported yet (place the GPU "
            "work on one GPU)";
    run->eraseFromParent();
    return nullptr;
  }
  llvm::Value *previous = nullptr;
  if (callsKernels || concurrent) {
    llvm::FunctionCallee enter =
        m.getOrInsertFunction("kiln_parallel_enter", llvm::FunctionType::get(i32, {ptr}, false));
    previous = b.CreateCall(enter, {options});
  }
  llvm::Value *code = llvm::ConstantInt::get(i32, KILN_STATUS_OK);
  // A GPU part's thread works on its device (kiln/runtime/mgpu.h keeps it per thread).
  auto setDevice = [&](llvm::IRBuilder<> &at, const EntryPart &part) {
    llvm::FunctionCallee set = m.getOrInsertFunction(
        "kiln_mgpu_set_device", llvm::FunctionType::get(voidType, {i32}, false));
    at.CreateCall(set, {at.getInt32(part.gpuOrdinal)});
  };
  if (!concurrent) {
    if (parts.front().gpu)
      setDevice(b, parts.front());
    b.CreateCall(impls.front(), partArgs(parts.front(), 0));
    if (parts.front().gpu) {
      // The GPU's first error, kept by the runtime (kiln/runtime/mgpu.h), is the status.
      llvm::FunctionCallee gpuStatus =
          m.getOrInsertFunction("kiln_mgpu_status", llvm::FunctionType::get(i32, {ptr}, false));
      code = b.CreateCall(gpuStatus, {options});
    }
  } else {
    // Each part gets a thunk taking its argument array; the entry fills the arrays and a
    // table of kiln_partition_t {run, args} for kiln_partitions_run.
    auto *thunkType = llvm::FunctionType::get(voidType, {ptr}, false);
    auto *partType = llvm::StructType::get(ctx, {ptr, ptr});
    llvm::Value *table = b.CreateAlloca(partType, b.getInt32(parts.size()), "partitions");
    for (auto [index, part] : llvm::enumerate(parts)) {
      llvm::Function *impl = impls[index];
      auto *thunk = llvm::Function::Create(thunkType, llvm::GlobalValue::InternalLinkage,
                                           impl->getName() + ".thunk", m);
      llvm::IRBuilder<> tb(llvm::BasicBlock::Create(ctx, "entry", thunk));
      std::vector<llvm::Value *> forwarded;
      for (unsigned i = 0; i < impl->arg_size(); ++i)
        forwarded.push_back(
            tb.CreateLoad(ptr, tb.CreateConstInBoundsGEP1_64(ptr, thunk->getArg(0), i)));
      if (part.gpu)
        setDevice(tb, part);
      tb.CreateCall(impl, forwarded);
      if (part.gpu) {
        // The GPU's first error on this thread becomes the call's (kiln/runtime/mgpu.h).
        llvm::FunctionCallee gpuStatus = m.getOrInsertFunction(
            "kiln_mgpu_partition_status", llvm::FunctionType::get(voidType, {}, false));
        tb.CreateCall(gpuStatus, {});
      }
      tb.CreateRetVoid();

      std::vector<llvm::Value *> args = partArgs(part, index);
      llvm::Value *array = b.CreateAlloca(ptr, b.getInt32(args.size()), "args");
      for (auto [i, v] : llvm::enumerate(args))
        b.CreateStore(v, b.CreateConstInBoundsGEP1_64(ptr, array, i));
      llvm::Value *slot = b.CreateConstInBoundsGEP1_64(partType, table, index);
      b.CreateStore(thunk, b.CreateStructGEP(partType, slot, 0));
      b.CreateStore(array, b.CreateStructGEP(partType, slot, 1));
    }
    std::vector<llvm::Constant *> keys;
    for (const std::string &key : rendezvousKeys) {
      auto *init = llvm::ConstantDataArray::getString(ctx, key, /*AddNull=*/true);
      auto *g = new llvm::GlobalVariable(
          m, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, model.name + ".key");
      keys.push_back(g);
    }
    llvm::Constant *keyTable = llvm::ConstantPointerNull::get(ptr);
    if (!keys.empty()) {
      auto *arrayType = llvm::ArrayType::get(ptr, keys.size());
      keyTable =
          new llvm::GlobalVariable(m, arrayType, true, llvm::GlobalValue::PrivateLinkage,
                                   llvm::ConstantArray::get(arrayType, keys), model.name + ".keys");
    }
    llvm::FunctionCallee runParts = m.getOrInsertFunction(
        "kiln_partitions_run", llvm::FunctionType::get(ptr, {i32, ptr, i32, ptr}, false));
    llvm::Value *result = b.CreateCall(
        runParts, {b.getInt32(parts.size()), table, b.getInt32(rendezvousKeys.size()), keyTable});
    // The first failure of a partition (a transfer, a GPU's driver error), with its message.
    llvm::FunctionCallee report = m.getOrInsertFunction(
        "kiln_status_report", llvm::FunctionType::get(i32, {ptr, ptr}, false));
    code = b.CreateCall(report, {result, options});
  }
  if (status) {
    // A failed check: kiln_check_failed formats the first failing part's message.
    llvm::Value *failedStatus = llvm::ConstantPointerNull::get(ptr);
    for (size_t index = parts.size(); index-- > 0;) {
      llvm::Value *here = partStatus(index);
      llvm::Value *number = b.CreateLoad(i64, here);
      failedStatus = b.CreateSelect(b.CreateICmpNE(number, b.getInt64(0)), here, failedStatus);
    }
    llvm::BasicBlock *before = b.GetInsertBlock();
    auto *failed = llvm::BasicBlock::Create(ctx, "check_failed", run);
    auto *done = llvm::BasicBlock::Create(ctx, "done", run);
    b.CreateCondBr(b.CreateIsNotNull(failedStatus), failed, done);
    b.SetInsertPoint(failed);
    llvm::FunctionCallee report = m.getOrInsertFunction(
        "kiln_check_failed", llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false));
    llvm::Value *failedCode = b.CreateCall(report, {options, checkTable(), failedStatus});
    b.CreateBr(done);
    b.SetInsertPoint(done);
    llvm::PHINode *phi = b.CreatePHI(i32, 2);
    phi->addIncoming(code, before);
    phi->addIncoming(failedCode, failed);
    code = phi;
  }
  if (!entry.writes.empty()) {
    // The state the call wrote replaces the old once it has succeeded.
    auto *copy = llvm::BasicBlock::Create(ctx, "write_state", run);
    auto *done = llvm::BasicBlock::Create(ctx, "state_written", run);
    b.CreateCondBr(b.CreateICmpEQ(code, b.getInt32(KILN_STATUS_OK)), copy, done);
    b.SetInsertPoint(copy);
    for (auto [s, offset] : llvm::zip(entry.writes, entry.writeOffsets))
      b.CreateMemCpy(stateAt(s), llvm::MaybeAlign(KILN_SCRATCH_ALIGNMENT), scratchAt(offset),
                     llvm::MaybeAlign(KILN_SCRATCH_ALIGNMENT), model.states[s].tensor.byteSize);
    b.CreateBr(done);
    b.SetInsertPoint(done);
  }
  if (previous) {
    llvm::FunctionCallee exit = m.getOrInsertFunction(
        "kiln_parallel_exit", llvm::FunctionType::get(voidType, {i32}, false));
    b.CreateCall(exit, {previous});
  }
  b.CreateRet(code);
  return run;
}

LogicalResult addEntryPoints(llvm::Module &m, const ModelInterface &model, bool withMain,
                             std::string &error) {
  // What the lowering defined (the model functions, their outlined loops) is internal to
  // the object: two models linked into one program each have their `main.loop0`.
  for (llvm::Function &f : m)
    if (!f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  EntryBuilder builder(m, model);
  // NAME_run of ABI 1 for a model of one stateless entry "run", NAME_<entry> of ABI 3 for
  // the others; NAME_info points to both kinds, through adapters where needed.
  llvm::Function *first = nullptr;
  std::vector<llvm::Function *> functions;
  bool single = model.isSingleRun();
  for (const EntryInterface &entry : model.entries) {
    std::string symbol = model.name + "_" + entry.name;
    llvm::Function *f = builder.build(entry, symbol, /*withState=*/!single, error);
    if (!f)
      return failure();
    functions.push_back(single ? builder.adapter(f, symbol + ".state", true) : f);
    if (&entry == &model.entries.front() && entry.reads.empty() && entry.writes.empty())
      first = single ? f : builder.adapter(f, symbol + ".stateless", false);
  }
  InfoBuilder info(m, model.name);
  llvm::GlobalVariable *infoGlobal = info.model(model, first, functions);

  if (withMain) {
    auto *i32 = llvm::Type::getInt32Ty(m.getContext());
    auto *ptr = llvm::PointerType::get(m.getContext(), 0);
    auto *runnerType = llvm::FunctionType::get(i32, {i32, ptr, ptr}, false);
    llvm::FunctionCallee runner = m.getOrInsertFunction("kiln_runner_main", runnerType);
    auto *mainType = llvm::FunctionType::get(i32, {i32, ptr}, false);
    auto *mainFn = llvm::Function::Create(mainType, llvm::GlobalValue::ExternalLinkage, "main", m);
    llvm::IRBuilder<> mb(llvm::BasicBlock::Create(m.getContext(), "entry", mainFn));
    mb.CreateRet(mb.CreateCall(runner, {mainFn->getArg(0), mainFn->getArg(1), infoGlobal}));
  }
  return success();
}

/// `text` as the inside of a C string literal: quotes, backslashes and every byte outside
/// printable ASCII escaped (octal, three digits, so that no following digit joins it).
static std::string cString(StringRef text) {
  std::string out;
  unsigned char previous = 0;
  for (unsigned char c : text) {
    bool trigraph = c == '?' && previous == '?'; // "??/" would be a backslash
    previous = c;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f && !trigraph) {
      out += static_cast<char>(c);
    } else {
      char buffer[5];
      std::snprintf(buffer, sizeof buffer, "\\%03o", c);
      out += buffer;
    }
  }
  return out;
}

/// `text` safe inside a C comment: escaped as in a string literal, and "*/" broken.
static std::string commentText(StringRef text) {
  std::string escaped = cString(text), out;
  for (size_t i = 0; i < escaped.size(); ++i) {
    out += escaped[i];
    if (escaped[i] == '*' && i + 1 < escaped.size() && escaped[i + 1] == '/')
      out += ' ';
  }
  return out;
}

/// The macros describing `list` (inputs, outputs or state), each `PREFIX_<i>_...`.
static void describeTensors(llvm::raw_ostream &os, ArrayRef<TensorSignature> list, StringRef prefix,
                            StringRef kind, ArrayRef<int64_t> offsets = {},
                            ArrayRef<int32_t> gpus = {}) {
  for (auto [i, t] : llvm::enumerate(list)) {
    std::string p = (prefix + "_" + std::to_string(i)).str();
    os << "\n/* " << kind << " " << i << ": " << commentText(t.name);
    if (!t.alias.empty())
      os << " (" << commentText(t.alias) << ")";
    os << ", " << kiln_dtype_name(t.dtype) << " ["
       << llvm::join(llvm::map_range(t.dims, [](int64_t d) { return std::to_string(d); }), ",")
       << "] */\n";
    os << "#define " << p << "_NAME \"" << cString(t.name) << "\"\n";
    if (offsets.empty())
      os << "#define " << p << "_ALIAS \"" << cString(t.alias) << "\"\n";
    os << "#define " << p << "_DTYPE " << dtypeMacro(t.dtype) << "\n";
    os << "#define " << p << "_RANK " << t.dims.size() << "\n";
    os << "#define " << p << "_DIMS {";
    llvm::interleaveComma(t.dims, os);
    os << "}\n";
    os << "#define " << p << "_BYTES " << t.byteSize << "\n";
    if (!offsets.empty())
      os << "#define " << p << "_OFFSET " << offsets[i] << "\n";
    if (!gpus.empty())
      os << "#define " << p << "_GPU " << gpus[i] << "\n";
    if (t.shapeOutput >= 0)
      os << "/* Its size depends on values: DIMS are its bound; output " << t.shapeOutput
         << " holds its actual dims (int64), at which it is written densely. */\n"
         << "#define " << p << "_SHAPE_OUTPUT " << t.shapeOutput << "\n";
  }
}

std::string emitHeader(const ModelInterface &model, StringRef source) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const std::string &name = model.name;
  std::string upper = StringRef(name).upper();
  std::string guard = upper + "_KILN_MODEL_H";
  os << "/* " << name << ".h: generated by kiln from " << commentText(source) << ". Do not edit.\n"
     << " *\n";
  if (model.isSingleRun()) {
    os << " * Call " << name << "_run(inputs, outputs, scratch, options) with one pointer per\n"
       << " * input and per output (dense, row-major, sizes below) and " << upper
       << "_SCRATCH_BYTES of\n"
       << " * scratch aligned to " << upper << "_SCRATCH_ALIGNMENT bytes; options may be NULL.\n";
  } else {
    os << " * Each entry point " << name
       << "_ENTRY(inputs, outputs, state, scratch, options) takes one\n"
       << " * pointer per input and per output of its own (dense, row-major, sizes below), the\n"
       << " * model's state (" << upper << "_STATE_BYTES aligned to " << upper
       << "_STATE_ALIGNMENT bytes, zeroed\n"
       << " * before the first call; calls that share it must not overlap), and " << upper
       << "_SCRATCH_BYTES of\n"
       << " * scratch aligned to " << upper << "_SCRATCH_ALIGNMENT bytes; options may be NULL.\n";
  }
  os << " * It returns KILN_STATUS_OK (0) on success. Link with libkiln_kernels.a,\n"
     << " * libkiln_runtime.a and -lm.\n";
  bool onGpu = llvm::any_of(model.entries, [](const EntryInterface &entry) {
    return llvm::any_of(llvm::concat<const int32_t>(entry.inputGpus, entry.outputGpus),
                        [](int32_t gpu) { return gpu >= 0; });
  });
  if (onGpu)
    os << " * An input or output whose _GPU is N >= 0 may also be in the device memory of\n"
       << " * GPU N (kiln/runtime/abi.h: kiln_entry_buffers_t); -1: host memory only.\n";
  os << " */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#include \"kiln/runtime/abi.h\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  if (model.isSingleRun()) {
    const EntryInterface &entry = model.entries.front();
    os << "#define " << upper << "_NUM_INPUTS " << entry.inputs.size() << "\n"
       << "#define " << upper << "_NUM_OUTPUTS " << entry.outputs.size() << "\n"
       << "#define " << upper << "_SCRATCH_BYTES " << model.scratchBytes() << "\n"
       << "#define " << upper << "_SCRATCH_ALIGNMENT " << KILN_SCRATCH_ALIGNMENT << "\n";
    describeTensors(os, entry.inputs, upper + "_INPUT", "input", {}, entry.inputGpus);
    describeTensors(os, entry.outputs, upper + "_OUTPUT", "output", {}, entry.outputGpus);
    os << "\n/* Runs the model. Reentrant: concurrent calls need their own scratch and outputs. "
          "*/\n"
       << "int32_t " << name
       << "_run(const void* const* inputs, void* const* outputs, void* scratch,\n"
       << "     const kiln_run_options_t* options);\n\n";
  } else {
    os << "#define " << upper << "_NUM_ENTRIES " << model.entries.size() << "\n"
       << "#define " << upper << "_NUM_STATES " << model.states.size() << "\n"
       << "#define " << upper << "_STATE_BYTES " << model.stateBytes << "\n"
       << "#define " << upper << "_STATE_ALIGNMENT " << KILN_SCRATCH_ALIGNMENT << "\n"
       << "#define " << upper << "_SCRATCH_BYTES " << model.scratchBytes() << "\n"
       << "#define " << upper << "_SCRATCH_ALIGNMENT " << KILN_SCRATCH_ALIGNMENT << "\n";
    std::vector<TensorSignature> states;
    std::vector<int64_t> offsets;
    for (const StateInterface &state : model.states) {
      states.push_back(state.tensor);
      offsets.push_back(state.offset);
    }
    describeTensors(os, states, upper + "_STATE", "state", offsets);
    for (const EntryInterface &entry : model.entries) {
      std::string prefix = upper + "_" + StringRef(entry.name).upper();
      auto names = [&](ArrayRef<int32_t> list) {
        return llvm::join(
            llvm::map_range(list,
                            [&](int32_t s) { return commentText(model.states[s].tensor.name); }),
            ", ");
      };
      os << "\n/* Entry point " << entry.name << ": " << entry.inputs.size() << " inputs, "
         << entry.outputs.size() << " outputs";
      if (!entry.reads.empty())
        os << "; reads the state " << names(entry.reads);
      if (!entry.writes.empty())
        os << "; writes the state " << names(entry.writes);
      os << ". */\n"
         << "#define " << prefix << "_NUM_INPUTS " << entry.inputs.size() << "\n"
         << "#define " << prefix << "_NUM_OUTPUTS " << entry.outputs.size() << "\n";
      describeTensors(os, entry.inputs, prefix + "_INPUT", entry.name + " input", {},
                      entry.inputGpus);
      describeTensors(os, entry.outputs, prefix + "_OUTPUT", entry.name + " output", {},
                      entry.outputGpus);
      os << "int32_t " << name << "_" << entry.name
         << "(const void* const* inputs, void* const* outputs, void* state,\n"
         << "     void* scratch, const kiln_run_options_t* options);\n";
    }
    os << "\n";
  }
  os << "/* Names, dtypes and shapes of the inputs and outputs, and the scratch size. */\n"
     << "extern const kiln_model_info_t " << name << "_info;\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

} // namespace kiln::codegen
