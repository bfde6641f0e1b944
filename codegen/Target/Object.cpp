//===- Object.cpp - LLVM IR, optimisation and machine code --------------------===//
#include "codegen/Target/Object.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>

using namespace mlir;

namespace kiln::codegen {

StringRef portableCpuLevels() { return "x86-64, x86-64-v2, x86-64-v3, x86-64-v4"; }

std::unique_ptr<llvm::TargetMachine> createTargetMachine(StringRef cpu, std::string &error) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpuName = cpu.str();
  std::string features;
  if (cpu != "native") {
    // Check the name first: LLVM would print its own warnings for an unknown CPU.
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
    if (!info || !info->isCPUStringValid(cpuName)) {
      error = "unknown CPU '" + cpuName + "'; use native or one of " + portableCpuLevels().str() +
              " (or any CPU name LLVM knows, such as znver4)";
      return nullptr;
    }
  } else {
    cpuName = llvm::sys::getHostCPUName().str();
    std::vector<std::string> list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.first().str());
    features = llvm::join(list, ",");
  }
  llvm::TargetOptions options;
  // Constructors (a GPU model's kernel module registration) in .init_array, which every
  // linker runs; lld leaves .ctors alone.
  options.UseInitArray = true;
  auto machine = std::unique_ptr<llvm::TargetMachine>(
      target->createTargetMachine(triple, cpuName, features, options, llvm::Reloc::PIC_,
                                  std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error = "cannot create a target machine for CPU '" + cpuName + "'";
    return nullptr;
  }
  return machine;
}

std::unique_ptr<llvm::Module> translateToLLVMIR(ModuleOp module, llvm::LLVMContext &ctx,
                                                std::string &error) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // GPU kernels: gpu.binary becomes a global holding the PTX or fatbin, gpu.launch_func the
  // runtime's calls (kiln/runtime/mgpu.h).
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  module->getContext()->appendDialectRegistry(registry);
  // The model's interface (kiln.model) has no LLVM IR: the entry point and NAME_info
  // carry it.
  for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations()))
    if (op.getDialect() && op.getDialect()->getNamespace() == "kiln")
      op.erase();
  auto llvmModule = translateModuleToLLVMIR(module, ctx, "kiln_model");
  if (!llvmModule)
    error = "translation of the LLVM dialect to LLVM IR failed";
  return llvmModule;
}

namespace {
// The largest model (LLVM instructions before optimisation) whose loops LLVM unrolls: the
// small CNN of test/bench has 79, MobileNetV2 1,861 (faster without: 2 threads 12.2 to
// 9.1 ms), ResNet50 13,032 (compile 19 s to 5 s without), DenseNet121 32,089.
constexpr size_t kMaxUnrolledInstructions = 1000;
// The smallest model (LLVM instructions before optimisation) whose code is optimised and
// emitted in parts on threads of their own, and the most parts.
constexpr size_t kMinSplitInstructions = 4000;
constexpr unsigned kMaxCodeThreads = 8;
constexpr unsigned kPartsPerThread = 4;

size_t instructionCount(const llvm::Module &module) {
  size_t instructions = 0;
  for (const llvm::Function &f : module)
    instructions += f.getInstructionCount();
  return instructions;
}

/// LLVM's analysis managers, registered with a PassBuilder and with each other.
struct Analyses {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  explicit Analyses(llvm::PassBuilder &pb) {
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};

/// Sets the module's target and each function's CPU and features.
void setTarget(llvm::Module &module, llvm::TargetMachine &machine) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    if (!machine.getTargetFeatureString().empty())
      f.addFnAttr("target-features", machine.getTargetFeatureString());
  }
}

/// LLVM's default pipeline at `optLevel` (1 to 3), loops unrolled if `unroll`.
void runPipeline(llvm::Module &module, llvm::TargetMachine &machine, int optLevel, bool unroll) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = unroll;
  llvm::PassBuilder pb(&machine, tuning);
  Analyses analyses(pb);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, analyses.mam);
}

} // namespace

void optimize(llvm::Module &module, llvm::TargetMachine &machine, int optLevel) {
  setTarget(module, machine);
  if (optLevel <= 0)
    return;
  // Loop unrolling only for small models. With every size static, LLVM unrolled loops over
  // channels completely (a batch normalisation's per-channel constants folded into each
  // copy): DenseNet121's model function grew to 378,000 lines of IR that took 165 s to
  // optimise and emit, 6 s without unrolling, at the same speed of the compiled model on
  // the zoo. Tiny graphs, whose loops are all there is, gain from it (mlir_tests/conv_2d:
  // 3.9 to 1.6 us) and compile in a fraction of a second either way (docs/performance-log.md,
  // 2026-12-02).
  runPipeline(module, machine, optLevel, instructionCount(module) <= kMaxUnrolledInstructions);
}

unsigned codeThreads(const llvm::Module &module, unsigned jobs) {
  if (jobs)
    return jobs;
  if (instructionCount(module) < kMinSplitInstructions)
    return 1;
  unsigned threads = llvm::hardware_concurrency().compute_thread_count();
  return std::max(1u, std::min(threads, kMaxCodeThreads));
}

LogicalResult optimizeAndEmitParts(llvm::Module &module, llvm::TargetMachine &machine,
                                   StringRef cpu, int optLevel, unsigned threads,
                                   std::vector<SmallVector<char, 0>> &objects, std::string &error) {
  setTarget(module, machine);
  const bool unroll = instructionCount(module) <= kMaxUnrolledInstructions;
  // A function called from one place (a parallel loop's body from its thunk) is inlined
  // there first, as the whole module's pipeline would, so that no part calls into another
  // where one function did before.
  if (optLevel > 0) {
    for (llvm::Function &f : module) {
      if (f.isDeclaration() || !f.hasLocalLinkage() || !f.hasOneUse() ||
          f.hasFnAttribute(llvm::Attribute::NoInline))
        continue;
      auto *call = dyn_cast<llvm::CallBase>(f.user_back());
      if (call && call->getCalledFunction() == &f)
        f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
    llvm::PassBuilder pb(&machine);
    Analyses analyses(pb);
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
    mpm.addPass(llvm::GlobalDCEPass());
    mpm.run(module, analyses.mam);
  }
  // The parts, as bitcode: each is read into an LLVMContext of its own, on a thread. Four
  // parts per thread, largest first, so that the threads finish together whatever part
  // holds the model's large entry function (InceptionResNetV2 in two parts: 2.6 s and 1.6
  // s of work, 2.6 s on two threads; in eight: 0.9 s for the entry function's part, 0.25 to
  // 0.3 s for each other, 1.4 s on two threads).
  std::vector<std::string> bitcode;
  std::vector<size_t> sizes;
  llvm::SplitModule(
      module, threads * kPartsPerThread,
      [&](std::unique_ptr<llvm::Module> part) {
        std::string bytes;
        llvm::raw_string_ostream os(bytes);
        llvm::WriteBitcodeToFile(*part, os);
        bitcode.push_back(std::move(bytes));
        sizes.push_back(instructionCount(*part));
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  objects.assign(bitcode.size(), {});
  std::vector<std::string> errors(bitcode.size());
  std::vector<size_t> order(bitcode.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return sizes[x] > sizes[y]; });
  std::atomic<size_t> next{0};
  auto work = [&](size_t i) {
    llvm::LLVMContext context;
    auto part = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode[i], "part"), context);
    if (!part) {
      errors[i] = llvm::toString(part.takeError());
      return;
    }
    std::unique_ptr<llvm::TargetMachine> partMachine = createTargetMachine(cpu, errors[i]);
    if (!partMachine)
      return;
    if (optLevel > 0)
      runPipeline(**part, *partMachine, optLevel, unroll);
    llvm::raw_svector_ostream os(objects[i]);
    (void)emitMachineCode(**part, *partMachine, os, /*assembly=*/false, errors[i]);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (size_t k = next++; k < order.size(); k = next++)
        work(order[k]);
    });
  for (std::thread &worker : workers)
    worker.join();
  for (const std::string &e : errors)
    if (!e.empty()) {
      error = e;
      return failure();
    }
  return success();
}

namespace {
// Constant arrays from this many bytes on are emitted as bytes.
constexpr uint64_t kMinByteArray = 4096;
} // namespace

/// Appends the bytes of `c`, an array of numbers or (nested) arrays of them, to `bytes`;
/// false for anything else.
static bool appendBytes(const llvm::Constant *c, std::string &bytes) {
  if (auto *data = dyn_cast<llvm::ConstantDataSequential>(c)) {
    bytes += data->getRawDataValues();
    return true;
  }
  auto *array = dyn_cast<llvm::ConstantArray>(c);
  if (!array)
    return false;
  for (const llvm::Use &element : array->operands())
    if (!appendBytes(cast<llvm::Constant>(element.get()), bytes))
      return false;
  return true;
}

void constantsAsBytes(llvm::Module &module) {
  const llvm::DataLayout &layout = module.getDataLayout();
  if (!layout.isLittleEndian() || !llvm::sys::IsLittleEndianHost)
    return;
  SmallVector<llvm::GlobalVariable *> globals;
  for (llvm::GlobalVariable &g : module.globals()) {
    if (!g.hasInitializer() || !isa<llvm::ArrayType>(g.getValueType()) ||
        layout.getTypeAllocSize(g.getValueType()) < kMinByteArray)
      continue;
    auto *data = dyn_cast<llvm::ConstantDataSequential>(g.getInitializer());
    if (!(data && data->isString()))
      globals.push_back(&g);
  }
  for (llvm::GlobalVariable *g : globals) {
    std::string bytes;
    if (!appendBytes(g->getInitializer(), bytes) ||
        bytes.size() != layout.getTypeAllocSize(g->getValueType()))
      continue;
    llvm::Constant *init = llvm::ConstantDataArray::getString(module.getContext(), bytes,
                                                              /*AddNull=*/false);
    auto *replacement =
        new llvm::GlobalVariable(module, init->getType(), g->isConstant(), g->getLinkage(), init,
                                 "", g, g->getThreadLocalMode(), g->getAddressSpace());
    replacement->copyAttributesFrom(g);
    replacement->setAlignment(layout.getPreferredAlign(g));
    replacement->takeName(g);
    g->replaceAllUsesWith(replacement);
    g->eraseFromParent();
  }
}

LogicalResult emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                              llvm::raw_pwrite_stream &os, bool assembly, std::string &error) {
  constantsAsBytes(module);
  llvm::legacy::PassManager pm;
  auto kind = assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (machine.addPassesToEmitFile(pm, os, nullptr, kind)) {
    error = "the target cannot emit this kind of file";
    return failure();
  }
  pm.run(module);
  return success();
}

} // namespace kiln::codegen
