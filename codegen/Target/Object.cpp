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
  // No loop unrolling beyond the vectorizer's interleaving: with every size static, LLVM
  // unrolled loops over channels completely (a batch normalisation's per-channel constants
  // folded into each copy), and DenseNet121's model function grew to 378,000 lines that
  // took 70 s to optimise and emit; without it, 4 s, at the same speed of the compiled model
  // on the zoo (docs/performance.md, "Compile time").
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
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

LogicalResult emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                              llvm::raw_pwrite_stream &os, bool assembly, std::string &error) {
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
