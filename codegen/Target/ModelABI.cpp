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
  case KILN_DTYPE_F32: return "KILN_DTYPE_F32";
  case KILN_DTYPE_F64: return "KILN_DTYPE_F64";
  case KILN_DTYPE_F16: return "KILN_DTYPE_F16";
  case KILN_DTYPE_BF16: return "KILN_DTYPE_BF16";
  case KILN_DTYPE_I8: return "KILN_DTYPE_I8";
  case KILN_DTYPE_I16: return "KILN_DTYPE_I16";
  case KILN_DTYPE_I32: return "KILN_DTYPE_I32";
  case KILN_DTYPE_I64: return "KILN_DTYPE_I64";
  case KILN_DTYPE_U8: return "KILN_DTYPE_U8";
  case KILN_DTYPE_U16: return "KILN_DTYPE_U16";
  case KILN_DTYPE_U32: return "KILN_DTYPE_U32";
  case KILN_DTYPE_U64: return "KILN_DTYPE_U64";
  case KILN_DTYPE_BOOL: return "KILN_DTYPE_BOOL";
  default: return "KILN_DTYPE_INVALID";
  }
}

FailureOr<ModelInterface> readModel(ModuleOp module) {
  kiln::dialect::ModelOp model = kiln::dialect::getModel(module);
  if (!model)
    return module.emitError() << "the module has no kiln.model to take the interface from";
  auto entries = llvm::to_vector(model.getBody().getOps<kiln::dialect::EntryOp>());
  if (entries.size() != 1)
    return model.emitOpError() << "has " << entries.size()
                               << " entry points; code generation supports one for now";
  kiln::dialect::EntryOp entry = entries.front();
  if (!entry.getState().empty())
    return entry.emitOpError() << "uses state, which code generation does not support yet";
  if (!entry.getParts())
    return entry.emitOpError() << "runs no parts; run kiln-lower-partitions";
  ModelInterface interface;
  ModelSignature &sig = interface.signature;
  sig.name = model.getName().str();
  auto read = [&](ArrayAttr tensors, std::vector<TensorSignature> &out) -> LogicalResult {
    for (auto tensor : tensors.getAsRange<kiln::dialect::TensorAttr>()) {
      RankedTensorType type = tensor.getType();
      if (!type)
        return entry.emitOpError() << "has '" << tensor.getName()
                                   << "' without its type; run kiln-lower-freeze-interface";
      TensorSignature t;
      t.name = tensor.getName().str();
      if (tensor.getAlias())
        t.alias = tensor.getAlias().str();
      t.dtype = dtypeOf(type.getElementType());
      t.dims.assign(type.getShape().begin(), type.getShape().end());
      t.byteSize = type.getNumElements() * kiln_dtype_size(t.dtype);
      out.push_back(std::move(t));
    }
    return success();
  };
  if (failed(read(entry.getFeeds(), sig.inputs)) || failed(read(entry.getFetches(), sig.outputs)))
    return failure();
  for (auto attr : entry.getParts()->getAsRange<kiln::dialect::PartAttr>()) {
    EntryPart part;
    part.implName = attr.getFunction().getValue().str();
    llvm::append_range(part.inputs, attr.getInputs().asArrayRef());
    llvm::append_range(part.outputs, attr.getOutputs().asArrayRef());
    part.scratchOffset = attr.getScratchOffset();
    part.scratchBytes = attr.getScratchBytes();
    part.statusArgument = attr.getStatus();
    sig.scratchBytes = std::max(
        sig.scratchBytes,
        part.scratchOffset + static_cast<int64_t>(llvm::alignTo(part.scratchBytes,
                                                                KILN_SCRATCH_ALIGNMENT)));
    interface.naiveScratchBytes += attr.getNaiveBytes();
    interface.parts.push_back(std::move(part));
  }
  if (interface.parts.empty())
    return entry.emitOpError() << "has no parts";
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
    tensorInfo = llvm::StructType::create(ctx, {ptr, ptr, i32, i32, ptr, i64}, "kiln_tensor_info_t");
    modelInfo = llvm::StructType::create(ctx, {i32, ptr, i32, i32, ptr, ptr, i64, i64, ptr},
                                         "kiln_model_info_t");
  }

  llvm::Constant *string(StringRef s) {
    auto *init = llvm::ConstantDataArray::getString(ctx, s, /*AddNull=*/true);
    return privateGlobal(init, "str");
  }

  llvm::Constant *tensors(const std::vector<TensorSignature> &list, StringRef kind) {
    if (list.empty())
      return llvm::ConstantPointerNull::get(ptr);
    std::vector<llvm::Constant *> entries;
    for (const TensorSignature &t : list) {
      std::vector<uint64_t> dims(t.dims.begin(), t.dims.end());
      llvm::Constant *dimsPtr =
          dims.empty() ? static_cast<llvm::Constant *>(llvm::ConstantPointerNull::get(ptr))
                       : privateGlobal(llvm::ConstantDataArray::get(ctx, dims), "dims");
      entries.push_back(llvm::ConstantStruct::get(
          tensorInfo, {string(t.name), string(t.alias), llvm::ConstantInt::get(i32, t.dtype),
                       llvm::ConstantInt::get(i32, t.dims.size()), dimsPtr,
                       llvm::ConstantInt::get(i64, t.byteSize)}));
    }
    auto *arrayType = llvm::ArrayType::get(tensorInfo, entries.size());
    return privateGlobal(llvm::ConstantArray::get(arrayType, entries), kind);
  }

  llvm::GlobalVariable *model(const ModelSignature &sig, llvm::Function *entry) {
    auto *init = llvm::ConstantStruct::get(
        modelInfo,
        {llvm::ConstantInt::get(i32, KILN_ABI_VERSION), string(sig.name),
         llvm::ConstantInt::get(i32, sig.inputs.size()),
         llvm::ConstantInt::get(i32, sig.outputs.size()), tensors(sig.inputs, "inputs"),
         tensors(sig.outputs, "outputs"), llvm::ConstantInt::get(i64, sig.scratchBytes),
         llvm::ConstantInt::get(i64, KILN_SCRATCH_ALIGNMENT), entry});
    return new llvm::GlobalVariable(m, modelInfo, /*isConstant=*/true,
                                    llvm::GlobalValue::ExternalLinkage, init, prefix + "_info");
  }

private:
  llvm::GlobalVariable *privateGlobal(llvm::Constant *init, StringRef what) {
    auto *g = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                       llvm::GlobalValue::PrivateLinkage, init,
                                       prefix + "." + what);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return g;
  }

  llvm::Module &m;
  llvm::LLVMContext &ctx;
  std::string prefix;
  llvm::PointerType *ptr;
  llvm::IntegerType *i32, *i64;
  llvm::StructType *tensorInfo, *modelInfo;
};

} // namespace

/// The model's kiln_check_info_t table: {message, rank, is_unsigned, dims} per check.
static llvm::Constant *checkTable(llvm::Module &m, ArrayRef<CheckInfo> checks,
                                  StringRef prefix) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *entryType = llvm::StructType::get(ctx, {ptr, i32, i32, ptr});
  auto global = [&](llvm::Constant *init, StringRef what) {
    auto *g = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                       llvm::GlobalValue::PrivateLinkage, init,
                                       prefix + "." + what);
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
        entryType,
        {global(llvm::ConstantDataArray::getString(ctx, check.message), "check_message"),
         llvm::ConstantInt::get(i32, dims.size()), llvm::ConstantInt::get(i32, check.isUnsigned),
         dimsPtr}));
  }
  return global(llvm::ConstantArray::get(llvm::ArrayType::get(entryType, entries.size()), entries),
                "checks");
}

LogicalResult addEntryPoint(llvm::Module &m, const ModelInterface &model, bool withMain,
                            std::string &error) {
  ArrayRef<EntryPart> parts = model.parts;
  ArrayRef<std::string> rendezvousKeys = model.rendezvousKeys;
  ArrayRef<CheckInfo> checks = model.checks;
  const ModelSignature &sig = model.signature;
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *voidType = llvm::Type::getVoidTy(ctx);
  std::vector<llvm::Function *> impls;
  for (const EntryPart &part : parts) {
    llvm::Function *impl = m.getFunction(part.implName);
    if (!impl) {
      error = "the lowered module has no function '" + part.implName + "'";
      return failure();
    }
    size_t expected = part.inputs.size() + part.outputs.size() + 1 + part.statusArgument;
    if (impl->arg_size() != expected) {
      error = "the lowered function '" + part.implName + "' takes " +
              std::to_string(impl->arg_size()) + " arguments; its signature needs " +
              std::to_string(expected);
      return failure();
    }
    impl->setName(parts.size() == 1 ? sig.name + "_impl" : sig.name + "_" + part.implName);
    impl->setLinkage(llvm::GlobalValue::InternalLinkage);
    impls.push_back(impl);
  }

  auto *runType = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr}, false);
  auto *run = llvm::Function::Create(runType, llvm::GlobalValue::ExternalLinkage,
                                     sig.name + "_run", m);
  run->getArg(0)->setName("inputs");
  run->getArg(1)->setName("outputs");
  run->getArg(2)->setName("scratch");
  run->getArg(3)->setName("options");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", run));
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  // The status each part's checks record a failure in (kiln/runtime/abi.h), zeroed for
  // this call: one per part, so that concurrent partitions never write the same one.
  llvm::Value *status = nullptr;
  const int64_t words = KILN_CHECK_STATUS_WORDS;
  auto partStatus = [&](size_t index) {
    return b.CreateConstInBoundsGEP1_64(i64, status, index * words);
  };
  if (!checks.empty()) {
    status = b.CreateAlloca(i64, b.getInt32(parts.size() * words), "status");
    for (size_t w = 0; w < parts.size() * words; ++w)
      b.CreateStore(b.getInt64(0), b.CreateConstInBoundsGEP1_64(i64, status, w));
  }
  // The arguments of part `p`, loaded from NAME_run's arrays.
  auto partArgs = [&](const EntryPart &part, size_t index) {
    std::vector<llvm::Value *> args;
    auto load = [&](llvm::Value *array, int64_t index) {
      args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, array, index)));
    };
    for (int64_t i : part.inputs)
      load(run->getArg(0), i);
    for (int64_t i : part.outputs)
      load(run->getArg(1), i);
    args.push_back(b.CreateGEP(b.getInt8Ty(), run->getArg(2), b.getInt64(part.scratchOffset)));
    if (part.statusArgument)
      args.push_back(partStatus(index));
    return args;
  };
  // The thread budget of kernels called by the model comes from the options
  // (kiln/runtime/parallel.h); only models that call kernels or run partitions depend on
  // the runtime for it.
  bool concurrent = parts.size() > 1 || !rendezvousKeys.empty();
  bool callsKernels = llvm::any_of(m.functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && kiln::dialect::symbolUsesThreadPool(f.getName());
  });
  llvm::Value *previous = nullptr;
  if (callsKernels || concurrent) {
    llvm::FunctionCallee enter =
        m.getOrInsertFunction("kiln_parallel_enter", llvm::FunctionType::get(i32, {ptr}, false));
    previous = b.CreateCall(enter, {run->getArg(3)});
  }
  llvm::Value *code = llvm::ConstantInt::get(i32, KILN_STATUS_OK);
  if (!concurrent) {
    b.CreateCall(impls.front(), partArgs(parts.front(), 0));
  } else {
    // Each part gets a thunk taking its argument array; NAME_run fills the arrays and a
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
      tb.CreateCall(impl, forwarded);
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
      auto *g = new llvm::GlobalVariable(m, init->getType(), true,
                                         llvm::GlobalValue::PrivateLinkage, init,
                                         sig.name + ".key");
      keys.push_back(g);
    }
    llvm::Constant *keyTable = llvm::ConstantPointerNull::get(ptr);
    if (!keys.empty()) {
      auto *arrayType = llvm::ArrayType::get(ptr, keys.size());
      keyTable = new llvm::GlobalVariable(m, arrayType, true, llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantArray::get(arrayType, keys),
                                          sig.name + ".keys");
    }
    llvm::FunctionCallee runParts = m.getOrInsertFunction(
        "kiln_partitions_run", llvm::FunctionType::get(ptr, {i32, ptr, i32, ptr}, false));
    llvm::Value *status =
        b.CreateCall(runParts, {b.getInt32(parts.size()), table,
                                b.getInt32(rendezvousKeys.size()), keyTable});
    llvm::FunctionCallee statusCode =
        m.getOrInsertFunction("kiln_status_code", llvm::FunctionType::get(i32, {ptr}, false));
    llvm::FunctionCallee statusFree =
        m.getOrInsertFunction("kiln_status_free", llvm::FunctionType::get(voidType, {ptr}, false));
    code = b.CreateCall(statusCode, {status});
    b.CreateCall(statusFree, {status});
  }
  if (status) {
    // A failed check: kiln_check_failed formats the first failing part's message.
    llvm::Value *failedStatus = llvm::ConstantPointerNull::get(ptr);
    for (size_t index = parts.size(); index-- > 0;) {
      llvm::Value *here = partStatus(index);
      llvm::Value *number = b.CreateLoad(i64, here);
      failedStatus =
          b.CreateSelect(b.CreateICmpNE(number, b.getInt64(0)), here, failedStatus);
    }
    llvm::BasicBlock *before = b.GetInsertBlock();
    auto *failed = llvm::BasicBlock::Create(ctx, "check_failed", run);
    auto *done = llvm::BasicBlock::Create(ctx, "done", run);
    b.CreateCondBr(b.CreateIsNotNull(failedStatus), failed, done);
    b.SetInsertPoint(failed);
    llvm::FunctionCallee report = m.getOrInsertFunction(
        "kiln_check_failed", llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false));
    llvm::Value *failedCode =
        b.CreateCall(report, {run->getArg(3), checkTable(m, checks, sig.name), failedStatus});
    b.CreateBr(done);
    b.SetInsertPoint(done);
    llvm::PHINode *phi = b.CreatePHI(i32, 2);
    phi->addIncoming(code, before);
    phi->addIncoming(failedCode, failed);
    code = phi;
  }
  if (previous) {
    llvm::FunctionCallee exit = m.getOrInsertFunction(
        "kiln_parallel_exit", llvm::FunctionType::get(voidType, {i32}, false));
    b.CreateCall(exit, {previous});
  }
  b.CreateRet(code);

  InfoBuilder info(m, sig.name);
  llvm::GlobalVariable *infoGlobal = info.model(sig, run);

  if (withMain) {
    auto *runnerType = llvm::FunctionType::get(i32, {i32, ptr, ptr}, false);
    llvm::FunctionCallee runner = m.getOrInsertFunction("kiln_runner_main", runnerType);
    auto *mainType = llvm::FunctionType::get(i32, {i32, ptr}, false);
    auto *mainFn = llvm::Function::Create(mainType, llvm::GlobalValue::ExternalLinkage, "main", m);
    llvm::IRBuilder<> mb(llvm::BasicBlock::Create(ctx, "entry", mainFn));
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

std::string emitHeader(const ModelSignature &sig, StringRef source) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string upper = StringRef(sig.name).upper();
  std::string guard = upper + "_KILN_MODEL_H";
  os << "/* " << sig.name << ".h: generated by kiln from " << commentText(source)
     << ". Do not edit.\n"
     << " *\n"
     << " * Call " << sig.name << "_run(inputs, outputs, scratch, options) with one pointer per\n"
     << " * input and per output (dense, row-major, sizes below) and " << upper
     << "_SCRATCH_BYTES of\n"
     << " * scratch aligned to " << upper << "_SCRATCH_ALIGNMENT bytes; options may be NULL.\n"
     << " * It returns KILN_STATUS_OK (0) on success. Link with libkiln_kernels.a,\n"
     << " * libkiln_runtime.a and -lm.\n"
     << " */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#include \"kiln/runtime/abi.h\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "#define " << upper << "_NUM_INPUTS " << sig.inputs.size() << "\n"
     << "#define " << upper << "_NUM_OUTPUTS " << sig.outputs.size() << "\n"
     << "#define " << upper << "_SCRATCH_BYTES " << sig.scratchBytes << "\n"
     << "#define " << upper << "_SCRATCH_ALIGNMENT " << KILN_SCRATCH_ALIGNMENT << "\n";
  auto describe = [&](const std::vector<TensorSignature> &list, StringRef kind) {
    for (auto [i, t] : llvm::enumerate(list)) {
      std::string p = (upper + "_" + kind + "_" + std::to_string(i)).str();
      os << "\n/* " << kind.lower() << " " << i << ": " << commentText(t.name);
      if (!t.alias.empty())
        os << " (" << commentText(t.alias) << ")";
      os << ", " << kiln_dtype_name(t.dtype) << " [" << llvm::join(llvm::map_range(t.dims, [](int64_t d) {
        return std::to_string(d);
      }), ",") << "] */\n";
      os << "#define " << p << "_NAME \"" << cString(t.name) << "\"\n";
      os << "#define " << p << "_ALIAS \"" << cString(t.alias) << "\"\n";
      os << "#define " << p << "_DTYPE " << dtypeMacro(t.dtype) << "\n";
      os << "#define " << p << "_RANK " << t.dims.size() << "\n";
      os << "#define " << p << "_DIMS {";
      llvm::interleaveComma(t.dims, os);
      os << "}\n";
      os << "#define " << p << "_BYTES " << t.byteSize << "\n";
    }
  };
  describe(sig.inputs, "INPUT");
  describe(sig.outputs, "OUTPUT");
  os << "\n/* Runs the model. Reentrant: concurrent calls need their own scratch and outputs. */\n"
     << "int32_t " << sig.name
     << "_run(const void* const* inputs, void* const* outputs, void* scratch,\n"
     << "     const kiln_run_options_t* options);\n\n"
     << "/* Names, dtypes and shapes of the inputs and outputs, and the scratch size. */\n"
     << "extern const kiln_model_info_t " << sig.name << "_info;\n\n"
     << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

} // namespace kiln::codegen
