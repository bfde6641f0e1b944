//===- Passes.td - GPU codegen: kernels from loop nests, one module --*- tablegen -*-===//

#ifndef KILN_CODEGEN_GPU_PASSES_TD
#define KILN_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def KernelsPass : Pass<"kiln-gpu-kernels", "mlir::ModuleOp"> {
  let summary = "Turn a GPU partition's bufferized linalg ops into gpu.launch kernels";
  let description = [{
    Runs on the functions placed on a GPU (those `kiln-lower-partitions` marked with a
    `kiln.device` naming one), after buffer planning, when every buffer of the function is
    device memory. Each `memref.copy` becomes a `linalg.copy`, each linalg op a nest of
    `scf.parallel` (its parallel dimensions, moved before its reductions where one comes
    first: a mean over H and W of an NHWC image is parallel in N and C) around `scf.for`
    loops (its reductions, which carry the output element in a register: loaded once
    before them and stored once after, where linalg's own loops would store it in every
    step, the device compiler not knowing that the buffers do not alias; a `linalg.fill`
    of the output right before such an op, which writes every element once, becomes the
    value the loops start from instead of a kernel of its own), and
    each nest one `gpu.launch`: one thread per iteration of the parallel dimensions, taken
    together in row-major order (so neighbouring threads touch neighbouring elements of the
    innermost dimension, and loads coalesce), 256 threads per block (fewer, a multiple of
    32, for small nests), as many blocks as that needs; a thread past the end does nothing.
    An elementwise op (every loop parallel, a body of elementwise scalar ops) whose
    innermost loop is a multiple of 4 long gives each thread 4 consecutive elements
    instead (`vectorise`, on by default): each operand that varies along that loop, read
    as its last and contiguous dimension from 16- or 32-bit rows that start aligned (Kiln's
    device buffers start 64-byte aligned; a view's offset and strides must be multiples of
    4), is one `vector.load` with its alignment (`ld.global.v4.b32` for f32), one that does
    not vary along it (a per-row scale, a scalar) is loaded once and broadcast, the body
    runs on `vector<4x...>` and each output is one aligned `vector.store`. Other ops, and
    operands read transposed or from unaligned views, keep one thread per element.
    Two kinds of op get kernels of their own shape. A matrix product (loops batch..., i, j,
    k; an input read at (i, k), one at (k, j); any body: products no library call took,
    with `--no-kernels` or of other element types) gets 64 x 64 output tiles of 256 threads,
    4 x 4 outputs each (128 x 128 tiles, 8 x 8 outputs a thread, where the output has 128
    rows and columns: rows and columns in groups of 4 consecutive ones, 64 apart), both
    operands staged 16 deep through workgroup memory (A's tile transposed, its rows padded
    by 4 elements), each step reading a thread's groups of A and B as one vector each
    (`ld.shared.v4`, `vectorise`), the next stage's elements fetched into registers before
    this stage's steps, which are written out (the first k % 16 of them before the loop,
    from a stage at depth 0, so that the whole stages after it need no clamped depths; a
    loop over each stage's depth where k is under 32); each output's
    body is applied in k order as before, a plain f32 product's (`c + a * b`) as one fused
    multiply-add a step (`contract`, below); a product of f16 or bf16
    (body `c + a * b`) carries its sums in f32 there, and in one thread per output,
    rounding once when it stores them, as cuBLAS's f16 products do
    (summed in f16 one by one, 4096 terms stray by about 1e-2 of the result). An f16 product of at least 16 in
    each size goes to the tensor cores instead (and an f32 one with `allow-tf32`, `kiln
    compile --allow-tf32`, its operands rounded to TF32, 8 deep a step; `tensor-cores`, on by default; `wmma`
    through `gpu.subgroup_mma_*`, sm_70 and later): 4 warps per 64 x 64 tile, each warp
    2 x 2 accumulators of 16 x 16 in f32, the operands staged 32 deep through workgroup
    memory (the depth past k zeros), the output's old values and the result through an
    f32 tile there, so edge tiles store only what is inside; an operand whose rows allow
    it (A along its depth, B along its columns, a multiple of 16 bytes, aligned) is staged
    16 bytes a load and store (`vectorise`), and each stage's loads are issued before the
    products of the stage before (carried in registers by the loop). With `warpgroup-mma`
    (off by default; `kiln compile --gpu-arch sm_90a`) an f16 product (A, B and the output
    f16, no batch) of at least 128 x 128 outputs and 64 deep, A read as (i, k) and B as
    (k, j) from 2-D row-major matrices whose rows are 16-byte multiples apart and start 16
    bytes aligned, gets a Hopper kernel instead: two warpgroups (256 threads) per tile of
    128 x 256 outputs (128 x 128 under 256 columns, or where tiles of 256 columns would
    be fewer than an H200's 132 SMs), 64 rows each, the host encoding a TMA
    tensor map per operand (`nvgpu.tma.create.descriptor`: A in boxes of 128 x 64, B of
    64 x 64, swizzled 128 bytes, zeros outside), one thread loading each 64-deep stage
    (`nvgpu.tma.async.load`) into one of 4 stages (3) of dynamic shared memory (aligned to
    1024 bytes at run time), completing an mbarrier (`nvgpu.mbarrier.*`), the warpgroups
    waiting for it and multiplying it (`nvgpu.warpgroup.mma`: wgmma m64n256k16, B
    transposed) while the stages ahead load, the f32 sums then through shared memory
    (`nvgpu.warpgroup.mma.store`) to the output, added to its old values (or to the fill
    before the product: `linalg.fill` folded in, the output then not read) and rounded
    once, where inside, 8 columns a thread where the rows allow. A float sum, product,
    maximum or minimum along its operands' innermost dimension (a row's: softmax, layer
    norm; or a reduction to one value) gets a block per output element, the threads reading
    the row side by side and combined by `gpu.all_reduce`, unless `reassociate` is off
    (`--strict-float`). With `contract` (on by default, off for `--strict-float`) every
    float multiplication, addition and subtraction in the kernels carries arith's
    `contract` flag, so that the device compiler fuses a multiplication with the addition
    it feeds into one `fma.rn` (one rounding, one instruction), as nvcc does by default:
    NVVM otherwise writes `mul.rn` and `add.rn`, which ptxas may not fuse (a depthwise
    convolution's taps, a product's steps, a batch norm's `x * s + b`). A loop a lowering wrote
    itself (`scf.for`, `scf.if`, `scf.while`: TopK's selection) that neither calls nor
    allocates, and a full reduction that cannot reassociate, run on one thread; an `scf.parallel` is mapped like a linalg op's. Index
    computations, views and constants stay on the host and reach the kernel as arguments
    (`gpu-kernel-outlining` moves each launch into a kernel of its own).

    What has no GPU lowering is an error at the op: a call, a runtime kernel call, a send or
    receive, an allocation left after buffer planning.

    One function (`selectStrategy`, KernelStrategy.cpp) chooses how each linalg op becomes
    a kernel, taking the first that fits of: the Hopper product (`warpgroup-product`), the
    tensor cores' (`tensor-core-product`), the tiled product (`tiled-product`), the block
    reduction (`block-reduction`), the vectorised elementwise kernel
    (`vectorised-elementwise`), the reduction in registers (`register-reduction`) and
    linalg's parallel loops (`parallel-loops`); each has a file of its own under
    `Strategies/`. With `print-strategies` the pass emits a remark at each linalg op it
    turns into a kernel, naming the strategy and the reason it fits:
    ```
    remark: kernel strategy: block-reduction: a float reduction along its operands' innermost dimension, at least 32 long
    ```

    Before:
    ```mlir
    func.func @main.gpu0(%x: memref<8x16xf32>, %y: memref<8x16xf32>, %s: memref<0xi8>)
        attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
      linalg.generic {...} ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {...}
      return
    }
    ```
    After:
    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, ...) threads(%tx, %ty, %tz) in (%sx = %c128, ...) {
      %id = ... %bx * 128 + %tx
      scf.if %id < 128 {
        %i = %id / 16
        %j = %id % 16
        %v = memref.load %x[%i, %j] ...
        memref.store ..., %y[%i, %j]
      }
      gpu.terminator
    }
    ```
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect", "mlir::NVVM::NVVMDialect",
    "mlir::nvgpu::NVGPUDialect", "mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels launched">,
    Statistic<"numSerial", "serial-kernels", "Kernels of one thread (no parallel dimension)">,
    Statistic<"numReordered", "reordered", "Ops whose parallel dimensions were moved first">,
    Statistic<"numRegisterReductions", "register-reductions",
              "Ops whose reductions run in a register in each thread">,
    Statistic<"numFoldedFills", "folded-fills",
              "Fills that became a register reduction's starting value">,
    Statistic<"numTiledProducts", "tiled-products",
              "Matrix products as kernels of 64 x 64 or 128 x 128 tiles through workgroup memory">,
    Statistic<"numTensorCoreProducts", "tensor-core-products",
              "f16 matrix products as kernels on the tensor cores (wmma)">,
    Statistic<"numWarpgroupProducts", "warpgroup-products",
              "f16 matrix products as Hopper kernels (TMA and wgmma)">,
    Statistic<"numVectorised", "vectorised",
              "Elementwise ops with 4 elements per thread through vector loads and stores">,
    Statistic<"numBlockReductions", "block-reductions",
              "Reductions along the innermost dimension with a block per output element">,
  ];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"true",
           "Let a block of threads combine a row's reduction in a tree (float sums then "
           "round differently from the sequential order; off for --strict-float)">,
    Option<"contract", "contract", "bool", /*default=*/"true",
           "Let the device compiler fuse the kernels' multiplications with the additions "
           "they feed (fma.rn, as nvcc does by default; off for --strict-float)">,
    Option<"vectorise", "vectorise", "bool", /*default=*/"true",
           "Read and write aligned rows as vectors: elementwise ops 4 elements a thread, "
           "the tensor-core products' operands 16 bytes a load, the tiled products' "
           "workgroup tiles 4 elements a load">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Compute f16 matrix products on the tensor cores (wmma, sm_70 and later)">,
    Option<"warpgroupMma", "warpgroup-mma", "bool", /*default=*/"false",
           "Compute large f16 matrix products with Hopper's warpgroup instructions, fed by "
           "the tensor memory accelerator (sm_90a only: kiln compile --gpu-arch sm_90a)">,
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "Compute f32 matrix products on the tensor cores too, their operands rounded to "
           "TF32 (sm_80 and later; kiln compile --allow-tf32)">,
    Option<"printStrategies", "print-strategies", "bool", /*default=*/"false",
           "Emit a remark at each linalg op naming the strategy its kernel is made with "
           "and why">,
  ];
}

def HostPass : Pass<"kiln-gpu-host", "mlir::ModuleOp"> {
  let summary = "Give a GPU partition its device arena, input and output copies and weights";
  let description = [{
    Runs on the functions placed on a GPU after `kiln-gpu-kernels`, and makes each work on
    device memory. The function keeps its signature (host inputs, host outputs, the
    scratch arena the entry point gives it, unused); its device arena holds the scratch, then
    each constant it reads (a `memref.get_global`), input and output, 256-byte aligned. On
    entry it calls the runtime's `kiln_mgpu_part_begin(slot, bytes)` (kiln/runtime/mgpu.h)
    with a private global of its own, which allocates the arena on the first call and
    returns it; the weights are copied to the device only on that call (the runtime marks
    it in the slot), the inputs on every call; its kernels read and write views of the
    arena instead of the arguments and globals; before returning it copies the outputs back
    and calls `kiln_mgpu_part_end(slot)`. Copies are `gpu.memcpy`. A buffer that is not
    static with the identity layout, or a function not run as a part of a `kiln.entry`, is
    an error.

    Before:
    ```mlir
    func.func @main.gpu0(%x: memref<4xf32>, %y: memref<4xf32>, %s: memref<0xi8>)
        attributes {kiln.device = "/job:localhost/replica:0/task:0/device:GPU:0"} {
      %w = memref.get_global @w : memref<4xf32>
      gpu.launch ... { ... %x ... %w ... %y ... }
      return
    }
    ```
    After:
    ```mlir
    memref.global "private" @main.gpu0.gpu_arena : memref<2xi64> = dense<0>
    func.func @main.gpu0(%x: memref<4xf32>, %y: memref<4xf32>, %s: memref<0xi8>) ... {
      %slot = memref.get_global @main.gpu0.gpu_arena : memref<2xi64>
      %a = call @kiln_mgpu_part_begin(%slot, %c768) : (memref<2xi64>, i64) -> memref<1xi8>
      %arena = memref.reinterpret_cast %a to offset: [0], sizes: [768], strides: [1] ...
      %dw = memref.view %arena[%c0][] : memref<768xi8> to memref<4xf32>
      scf.if %fresh { gpu.memcpy %dw, %w_host ... }
      %dx = memref.view %arena[%c256][] ...
      gpu.memcpy %dx, %x : memref<4xf32>, memref<4xf32>
      %dy = memref.view %arena[%c512][] ...
      gpu.launch ... { ... %dx ... %dw ... %dy ... }
      gpu.memcpy %y, %dy : memref<4xf32>, memref<4xf32>
      call @kiln_mgpu_part_end(%slot) : (memref<2xi64>) -> ()
      return
    }
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect", "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
  ];
  let statistics = [
    Statistic<"numPartitions", "partitions", "GPU partitions given a device arena">,
    Statistic<"arenaBytes", "arena-bytes", "Bytes of their device arenas">,
  ];
}

def LowerNVGPUPass : Pass<"kiln-gpu-lower-nvgpu", "mlir::ModuleOp"> {
  let summary = "Lower nvgpu's ops (Hopper products' TMA, mbarriers, wgmma) before outlining";
  let description = [{
    Upstream's `convert-nvgpu-to-nvvm`, for a module whose kernels are still `gpu.launch`
    bodies in their host functions (as upstream's own pipeline runs it): the host's
    `nvgpu.tma.create.descriptor` becomes a call of the runtime's
    `mgpuTensorMapEncodeTiledMemref`, the kernels' tensor-map loads, mbarriers and
    `nvgpu.warpgroup.mma` NVVM's ops (and inline PTX), the accumulators LLVM structs. Unlike
    upstream's pass, a loop changes only where it carries an nvgpu value: the loops of
    kernels that carry `wmma` fragments (which LLVM's type converter does not know, so
    upstream's pass refuses them) or indices are left as they are, and a module without
    nvgpu ops is not touched at all.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::NVVM::NVVMDialect",
  ];
  let statistics = [
    Statistic<"numLowered", "modules", "Modules whose nvgpu ops were lowered">,
  ];
}

def ExternDynamicSharedPass : Pass<"kiln-gpu-extern-dynamic-shared", "mlir::gpu::GPUModuleOp"> {
  let summary = "Declare a kernel module's dynamic shared memory extern, as CUDA does";
  let description = [{
    Runs on a `gpu.module` after `convert-gpu-to-nvvm`, which gives each kernel's
    `gpu.dynamic_shared_memory` an internal zero-sized array in the shared address space.
    NVPTX prints an internal one as a static variable (`.shared .align 16 .b8 NAME;`),
    which ptxas lays out among the kernel's other shared variables (a Hopper product's
    mbarriers), so that the dynamic memory reached through it may overlap them. Declared
    extern (`.extern .shared .align 16 .b8 NAME[];`, what nvcc writes for `extern
    __shared__`), it starts where ptxas puts the dynamic memory: after all of them.

    Before:
    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
    After:
    ```mlir
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numDeclared", "declared", "Dynamic shared memory arrays declared extern">,
  ];
}

def MergeModulesPass : Pass<"kiln-gpu-merge-modules", "mlir::ModuleOp"> {
  let summary = "Put every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` gives each kernel a `gpu.module` of its own, and kernels of
    different modules may share a name. This pass moves every kernel into one module,
    `kiln_kernels`, each named after its function and the graph node it computes (the first
    name in its location, `main.gpu0_kernel` of node `dense/Softmax` becoming
    `main_gpu0_dense_Softmax`: `KILN_GPU_PROFILE` and `--emit ptx` then say which op a
    kernel is; a suffix `_1`, `_2` ... for a node's further kernels), or after the module it
    came from when its location names none, as a PTX identifier
    (other characters become `_`: ptxas rejects `main.gpu0_kernel`), with one copy of each
    function outlining copied in beside them (an integer power's), and points the
    `gpu.launch_func` ops at them: the model then holds one PTX module (one `--emit ptx`
    file, one load by the driver) instead of one per kernel, or a few for many kernels
    (below). Each kernel's workgroup
    buffers get `llvm.align = 32` (unless they have an alignment): the tensor cores' loads
    (`gpu.subgroup_mma_load_matrix`, PTX `wmma.load`) need 256-bit aligned addresses, and
    the NVVM lowering would align a buffer only to its element.

    Before:
    ```mlir
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel_0::@f_kernel ...
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel {...} }
    gpu.module @f_kernel_0 { gpu.func @f_kernel(...) kernel {...} }
    ```
    After:
    ```mlir
    gpu.launch_func @kiln_kernels::@f_kernel ...
    gpu.launch_func @kiln_kernels::@f_kernel_0 ...
    gpu.module @kiln_kernels {
      gpu.func @f_kernel(...) kernel {...}
      gpu.func @f_kernel_0(...) kernel {...}
    }
    ```

    With `modules` above 1 (kiln compile's pipeline: 8, except for `--emit ptx`), many
    kernels go into several modules instead, at most `modules` and one per
    `kernels-per-module` kernels (`kiln_kernels`, `kiln_kernels_1` ...), each kernel, in
    program order, into the one holding the fewest operations so far (the split is the same
    on every machine), each module with copies of the functions its kernels call and no
    others: `kiln-gpu-module-to-binary` then compiles the modules to PTX and assembles them
    side by side, which is most of a large model's compile time (NASNetMobile's 451 kernels:
    5.7 of its 9.9 s on one thread).
  }];
  let options = [
    Option<"modules", "modules", "int64_t", /*default=*/"1",
           "The most modules the kernels go into">,
    Option<"kernelsPerModule", "kernels-per-module", "int64_t", /*default=*/"32",
           "The fewest kernels a module gets where there are several">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def ModuleToBinaryPass : Pass<"kiln-gpu-module-to-binary", "mlir::ModuleOp"> {
  let summary = "Compile each gpu.module to a gpu.binary, the modules on threads";
  let description = [{
    Upstream's `gpu-module-to-binary`, with the modules compiled side by side on the
    context's threads: each `gpu.module`'s targets serialize it (LLVM's NVPTX back end to
    PTX, and with `format=fatbin` ptxas and fatbinary, each run in a process of its own)
    into a `gpu.binary` of the same name that replaces it, in the module's place. A
    failure's diagnostics come in the modules' order whatever the threads did.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "What each binary holds: isa (PTX) or fatbin (a cubin, with its PTX)">,
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "The CUDA toolkit whose ptxas and fatbinary assemble (default: upstream's search)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def StreamPass : Pass<"kiln-gpu-stream", "mlir::func::FuncOp"> {
  let summary = "Queue a function's GPU work in order on one stream per call";
  let description = [{
    Runs after kernel outlining, on each function with GPU work (`gpu.launch_func`,
    `gpu.memcpy`, `gpu.memset`, in any of its regions): on entry it takes a stream
    (`gpu.wait async`, which the runtime's `mgpuStreamCreate` answers from a pool of its
    streams), every launch, copy and fill becomes asynchronous on that stream, and before the
    function returns it waits for the stream and gives it back (`gpu.wait [%s]`). The
    function's work then runs on the device in program order, without the host waiting
    between kernels; the runtime's library calls between them (`kiln_mgpu_conv2d_f32`,
    `kiln_mgpu_matmul_f32`: cuDNN, cuBLAS) run on the same stream, the one the calling
    thread took last (kiln/runtime/mgpu.h), and a copy to host memory returns once it has
    been made. Upstream's `gpu-async-region` instead gives each run of work between
    synchronous calls a stream of its own and waits for it before the next call.

    A function whose GPU work is already asynchronous (or has a `gpu.wait`) is an error: it
    orders its work itself. A function with GPU work must have one block.

    Before:
    ```mlir
    func.func @f(%h: memref<4xf32>, %d: memref<4xf32>) {
      gpu.memcpy %d, %h : memref<4xf32>, memref<4xf32>
      gpu.launch_func @kiln_kernels::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%d : memref<4xf32>)
      gpu.memcpy %h, %d : memref<4xf32>, memref<4xf32>
      return
    }
    ```
    After:
    ```mlir
    func.func @f(%h: memref<4xf32>, %d: memref<4xf32>) {
      %s = gpu.wait async
      %0 = gpu.memcpy async [%s] %d, %h : memref<4xf32>, memref<4xf32>
      %1 = gpu.launch_func async [%s] @kiln_kernels::@k blocks in ... args(%d : memref<4xf32>)
      %2 = gpu.memcpy async [%s] %h, %d : memref<4xf32>, memref<4xf32>
      gpu.wait [%s]
      return
    }
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numStreams", "streams", "Functions given a stream per call">,
    Statistic<"numOps", "ops", "Launches, copies and fills queued on it">,
  ];
}

#endif // KILN_CODEGEN_GPU_PASSES_TD
