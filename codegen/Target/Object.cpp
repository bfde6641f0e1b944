//===- Object.cpp - LLVM IR, optimisation and machine code --------------------===//
#include "codegen/Target/Object.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

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
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!info || !info->isCPUStringValid(cpuName)) {
      error = "unknown CPU '" + cpuName + "'; use native or one of " +
              portableCpuLevels().str() + " (or any CPU name LLVM knows, such as znver4)";
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
  auto machine = std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpuName, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
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
} // namespace

void optimize(llvm::Module &module, llvm::TargetMachine &machine, int optLevel) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    if (!machine.getTargetFeatureString().empty())
      f.addFnAttr("target-features", machine.getTargetFeatureString());
  }
  if (optLevel <= 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Loop unrolling only for small models. With every size static, LLVM unrolled loops over
  // channels completely (a batch normalisation's per-channel constants folded into each
  // copy): DenseNet121's model function grew to 378,000 lines of IR that took 165 s to
  // optimise and emit, 6 s without unrolling, at the same speed of the compiled model on
  // the zoo. Tiny graphs, whose loops are all there is, gain from it (mlir_tests/conv_2d:
  // 3.9 to 1.6 us) and compile in a fraction of a second either way (docs/performance.md,
  // 2026-12-02).
  size_t instructions = 0;
  for (const llvm::Function &f : module)
    instructions += f.getInstructionCount();
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = instructions <= kMaxUnrolledInstructions;
  llvm::PassBuilder pb(&machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
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
    auto *replacement = new llvm::GlobalVariable(
        module, init->getType(), g->isConstant(), g->getLinkage(), init, "", g,
        g->getThreadLocalMode(), g->getAddressSpace());
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
