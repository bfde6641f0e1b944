//===- Pipelines.cpp - Kiln's pass pipelines ----------------------------------===//
#include "compiler/Pipelines/Pipelines.h"

#include "codegen/GPU/Passes.h"
#include "codegen/KilnToLLVM/Passes.h"
#include "passes/Graph/Passes.h"
#include "passes/Lower/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>

using namespace mlir;

namespace kiln::pipelines {

LogicalResult buildGraphPipeline(OpPassManager &pm, const PipelineOptions &options) {
  OpPassManager *func = &pm.nest<func::FuncOp>();
  func->addPass(graph::createInferShapesPass());
  func->addPass(graph::createFoldConstantsPass());
  func->addPass(graph::createInferShapesPass());
  // TensorLists learn their shapes from their uses (in loops); then shapes flow again,
  // and a list's length and element shape fold.
  func->addPass(graph::createResolveListsPass());
  func->addPass(graph::createInferShapesPass());
  func->addPass(graph::createFoldConstantsPass());
  func->addPass(graph::createDecomposePass());
  // Sizes that depend on values get their bounds (and the entry point their shapes).
  graph::BoundSizesPassOptions bound;
  bound.bounds.assign(options.bounds.begin(), options.bounds.end());
  bound.runtimeChecks = options.runtimeChecks;
  pm.addPass(graph::createBoundSizesPass(bound));
  func = &pm.nest<func::FuncOp>();
  func->addPass(graph::createFoldPadsPass());
  func->addPass(graph::createCSEPass());
  func->addPass(graph::createPrunePass());
  func->addPass(graph::createSchedulePass());
  if (!options.devices.empty()) {
    graph::PlacePassOptions place;
    place.devices.assign(options.devices.begin(), options.devices.end());
    place.compressTransfers = options.compressTransfers;
    func->addPass(graph::createPlacePass(place));
    func->addPass(graph::createPartitionPass({options.compressTransfers}));
    pm.addPass(graph::createOutlinePartitionsPass());
    func = &pm.nest<func::FuncOp>();
  }
  // Checks go in last, into the function (partition) that computes what they check.
  func->addPass(graph::createInsertChecksPass({/*constantsOnly=*/!options.runtimeChecks}));
  return success();
}

LogicalResult buildLowerPipeline(OpPassManager &pm, const PipelineOptions &options) {
  pm.addPass(lower::createFreezeInterfacePass());
  pm.addPass(lower::createPartitionsPass());
  if (options.kernelCalls && !options.strictFloat)
    pm.addPass(lower::createFuseAttentionPass());
  pm.addPass(lower::createTFToLinalgPass(
      {/*winograd=*/!options.strictFloat, /*runtimeChecks=*/options.runtimeChecks}));
  pm.addPass(lower::createFuseElementwisePass());
  pm.addPass(lower::createUseDestinationsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion = bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop body may yield a new buffer for a loop variable (scf.while after tf.While).
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Bufferization writes a result computed in place into its concatenation's slice, then
  // copies the slice onto a second, equal view of itself: CSE makes the views one value and
  // the canonicalizer drops the copy.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(lower::createRendezvousCallsPass());
  // Kernel calls come before buffer planning: fusing an epilogue changes which buffers the
  // kernels write, so lifetimes must be computed afterwards.
  if (options.kernelCalls) {
    lower::KernelCallsPassOptions kernels;
    kernels.strictFloat = options.strictFloat;
    kernels.allowTf32 = options.allowTf32;
    kernels.gpuEpilogues = options.gpuEpilogues;
    kernels.cublasltEpilogues = options.cublasltEpilogues;
    pm.addPass(lower::createKernelCallsPass(kernels));
    pm.addPass(lower::createFuseKernelCallsPass());
    pm.addPass(lower::createPackWeightsPass());
  }
  pm.addPass(lower::createAssignScratchPass());
  pm.addPass(lower::createVerifyScratchPass());
  pm.addPass(lower::createChecksPass());
  return success();
}

bool placesOnGpu(const PipelineOptions &options) {
  return llvm::any_of(options.devices, [](const std::string &text) {
    std::optional<graph::DeviceName> device = graph::DeviceName::parse(text);
    return device && device->type == "GPU";
  });
}

namespace {

/// The CUDA toolkit ptxas, fatbinary and libdevice come from: $CUDA_HOME, or /usr/local/cuda.
std::string cudaToolkit() {
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    return *home;
  return llvm::sys::fs::is_directory("/usr/local/cuda") ? "/usr/local/cuda" : "";
}

/// A GPU partition's loop nests as kernels in one gpu.binary (kiln/runtime/mgpu.h loads it).
void addGpuKernelPasses(OpPassManager &pm, const PipelineOptions &options) {
  codegen::gpu::KernelsPassOptions launches;
  launches.reassociate = !options.strictFloat;
  launches.contract = !options.strictFloat;
  launches.allowTf32 = options.allowTf32;
  // Hopper's warpgroup products (wgmma) exist only in the arch-specific sm_90a.
  launches.warpgroupMma = options.gpuArch == "sm_90a";
  pm.addPass(codegen::gpu::createKernelsPass(launches));
  pm.addPass(codegen::gpu::createHostPass());
  // nvgpu's ops (those Hopper products: tensor maps, mbarriers, wgmma) as NVVM and LLVM
  // before outlining, as upstream's pipeline does: the host's tensor-map encoding becomes
  // a call of mgpuTensorMapEncodeTiledMemref, the kernel's ops NVVM's.
  pm.addPass(codegen::gpu::createLowerNVGPUPass());
  // Integer powers as functions, which outlining copies into the kernels' module (NVVM has
  // no lowering for math.ipowi).
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createGpuKernelOutliningPass());
  codegen::gpu::MergeModulesPassOptions merge;
  merge.modules = options.gpuModules;
  pm.addPass(codegen::gpu::createMergeModulesPass(merge));
  // Copies, launches and library calls in order on one stream per function call.
  pm.nest<func::FuncOp>().addPass(codegen::gpu::createStreamPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.gpuArch;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views made inside a kernel (a copy of a row chosen by an index a kernel loaded: TensorList
  // scatters) as offset arithmetic.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  // NVVM ops written as inline PTX (wgmma's fences, mbarrier waits) after that.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(codegen::gpu::createExternDynamicSharedPass());
  // What NVVM's conversion leaves of math (trunc, ...) as LLVM intrinsics.
  kernels.addPass(createConvertMathToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  codegen::gpu::ModuleToBinaryPassOptions binary;
  binary.format = options.gpuAssemble ? "fatbin" : "isa";
  binary.toolkitPath = cudaToolkit();
  pm.addPass(codegen::gpu::createModuleToBinaryPass(binary));
}

} // namespace

std::vector<std::string> gpuArchitectures() {
  // Registering a target twice is allowed (the NVVM target's serializer registers NVPTX
  // again when it compiles the kernels).
  static std::once_flag registered;
  std::call_once(registered, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
  });
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  std::unique_ptr<llvm::MCSubtargetInfo> info(target ? target->createMCSubtargetInfo(triple, "", "")
                                                     : nullptr);
  std::vector<std::string> archs;
  if (!info)
    return archs;
  for (const llvm::SubtargetSubTypeKV &cpu : info->getAllProcessorDescriptions())
    if (StringRef(cpu.Key).starts_with("sm_"))
      archs.push_back(cpu.Key);
  // By number, then suffix (sm_9 < sm_90 < sm_90a < sm_100), not as strings.
  auto number = [](StringRef arch) {
    unsigned n = 0;
    arch.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, n);
    return n;
  };
  llvm::stable_sort(archs, [&](const std::string &a, const std::string &b) {
    return std::make_pair(number(a), a) < std::make_pair(number(b), b);
  });
  return archs;
}

LogicalResult buildLLVMPipeline(OpPassManager &pm, const PipelineOptions &options) {
  bool gpu = placesOnGpu(options);
  if (gpu)
    addGpuKernelPasses(pm, options);
  pm.addPass(codegen::createExpandKernelCallsPass());
  OpPassManager &func = pm.nest<func::FuncOp>();
  // A padded buffer's fill covers only the border its interior copy leaves.
  func.addPass(lower::createFillBordersPass());
  func.addPass(lower::createCopiesToLinalgPass());
  // tanh, exp, expm1, log1p, erf and erfc as polynomials LLVM vectorizes (8 to 90 times faster
  // than libm, and within a few ulp: see the pass); log stays with libm, whose result for
  // subnormal inputs the approximation gets wrong. Strict float semantics keep libm.
  lower::ApproximateMathPassOptions approximate;
  if (!options.strictFloat)
    approximate.functions = {"tanh", "exp", "expm1", "log1p", "erf", "erfc"};
  func.addPass(lower::createApproximateMathPass(approximate));
  // Large elementwise ops and row-wise chains (softmax, normalisations) on the thread pool:
  // their iterations move into functions of their own, so this runs on the module, between
  // the function pipelines.
  lower::ParallelLoopsPassOptions parallel;
  parallel.reassociate = !options.strictFloat;
  pm.addPass(lower::createParallelLoopsPass(parallel));
  // The other loop nests in functions of their own, whose disjoint buffers LLVM then knows.
  pm.addPass(lower::createOutlineLoopsPass({/*reassociateReductions=*/!options.strictFloat}));
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(createConvertLinalgToLoopsPass());
  loops.addPass(math::createMathExtendToSupportedTypes());
  // bf16 arithmetic in f32, rounded after each op as TensorFlow's (Eigen's) bfloat16 does;
  // then the conversions, the extension's too, as integer arithmetic.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  loops.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  loops.addPass(lower::createExpandBF16Pass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(lower::createFlattenEmptyArgumentsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // Integer powers become small functions; transcendental functions go to libm first
  // (math-to-llvm would compute expm1 and log1p as exp(x) - 1 and log(1 + x)).
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  // Kernel launches, device memory and streams as calls of kiln/runtime/mgpu.h.
  if (gpu)
    pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(codegen::createParallelLaunchersPass());
  return success();
}

namespace {

/// kiln-opt's options for the pipelines: those of `kiln compile` that change them.
struct PipelineCLOptions : PassPipelineOptions<PipelineCLOptions> {
  ListOption<std::string> devices{*this, "devices",
                                  llvm::cl::desc("Place the graph on these devices")};
  Option<bool> compressTransfers{
      *this, "compress-transfers",
      llvm::cl::desc("Send f32 tensors across devices as their upper 16 bits"),
      llvm::cl::init(false)};
  Option<bool> noKernels{*this, "no-kernels",
                         llvm::cl::desc("Generated loops instead of the runtime's kernels"),
                         llvm::cl::init(false)};
  Option<bool> noRuntimeChecks{*this, "no-runtime-checks",
                               llvm::cl::desc("Check constants only, not run-time values"),
                               llvm::cl::init(false)};
  Option<bool> strictFloat{*this, "strict-float",
                           llvm::cl::desc("No Winograd, no approximated math functions"),
                           llvm::cl::init(false)};
  Option<bool> allowTf32{*this, "allow-tf32",
                         llvm::cl::desc("GPU f32 products and convolutions on TF32 tensor cores"),
                         llvm::cl::init(false)};
  Option<bool> gpuEpilogues{*this, "gpu-epilogues",
                            llvm::cl::desc("GPU convolutions' epilogues in cuDNN's fused call"),
                            llvm::cl::init(false)};
  Option<bool> cublasltEpilogues{*this, "cublaslt-epilogues",
                                 llvm::cl::desc("GPU f32 products' epilogues in cuBLASLt's call"),
                                 llvm::cl::init(false)};
  Option<std::string> gpuArch{*this, "gpu-arch",
                              llvm::cl::desc("GPU architecture of the kernels (sm_80)"),
                              llvm::cl::init("sm_80")};
  Option<bool> gpuAssemble{*this, "gpu-assemble",
                           llvm::cl::desc("Assemble the kernels with ptxas into a fatbin"),
                           llvm::cl::init(false)};
  Option<int64_t> gpuModules{*this, "gpu-modules",
                             llvm::cl::desc("The most PTX modules for the kernels (8)"),
                             llvm::cl::init(8)};

  PipelineOptions get() const {
    PipelineOptions options;
    options.devices.assign(devices.begin(), devices.end());
    options.compressTransfers = compressTransfers;
    options.kernelCalls = !noKernels;
    options.runtimeChecks = !noRuntimeChecks;
    options.strictFloat = strictFloat;
    options.allowTf32 = allowTf32;
    options.gpuEpilogues = gpuEpilogues;
    options.cublasltEpilogues = cublasltEpilogues;
    options.gpuArch = gpuArch;
    options.gpuAssemble = gpuAssemble;
    options.gpuModules = gpuModules;
    return options;
  }
};

} // namespace

void registerPipelines() {
  using Builder = LogicalResult (*)(OpPassManager &, const PipelineOptions &);
  auto add = [](StringRef name, StringRef description, std::vector<Builder> builders) {
    PassPipelineRegistration<PipelineCLOptions>(
        name, description, [builders](OpPassManager &pm, const PipelineCLOptions &o) {
          for (Builder build : builders)
            (void)build(pm, o.get());
        });
  };
  add("kiln-graph-pipeline", "Shape inference and pruning on the tf dialect", {buildGraphPipeline});
  add("kiln-lower-pipeline", "tf dialect to bufferized linalg with a scratch arena",
      {buildLowerPipeline});
  add("kiln-llvm-pipeline", "Bufferized IR to the LLVM dialect (CPU)", {buildLLVMPipeline});
  add("kiln-cpu-pipeline", "tf dialect to the LLVM dialect (CPU)",
      {buildGraphPipeline, buildLowerPipeline, buildLLVMPipeline});
}

} // namespace kiln::pipelines
