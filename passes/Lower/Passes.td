//===- Passes.td - lowering from the tf dialect to upstream MLIR -*- tablegen -*-===//

#ifndef KILN_PASSES_LOWER_PASSES_TD
#define KILN_PASSES_LOWER_PASSES_TD

include "mlir/Pass/PassBase.td"

def FreezeInterfacePass : Pass<"kiln-lower-freeze-interface", "mlir::ModuleOp"> {
  let summary = "Fix the static types of the model's feeds and fetches, or say why not";
  let description = [{
    The first lowering pass and the one place that checks that a graph can be compiled
    for fixed shapes. It reports, at their nodes and all at once, an input without a static
    shape (the cause of every unknown shape after it), a Placeholder a fetch needs that is
    not fed, and an op whose output shape is still unknown; then, for each entry point of
    the module's `kiln.model`, a feed or fetch of a dtype the C ABI lacks or of more than
    KILN_MAX_RANK dimensions. It writes each feed's and fetch's type into its
    `#kiln.tensor`, which codegen reads for the C header and `NAME_info`. A module without
    a `kiln.model` (IR written by hand) gets `kiln.model "main"` with one entry point,
    `run`, for its first public function.

    Before:
    ```mlir
    kiln.model "m" {
      kiln.entry "run" = @main feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">]
    }
    ```
    After:
    ```mlir
    kiln.model "m" {
      kiln.entry "run" = @main feeds [#kiln.tensor<"x:0" : tensor<2x8xf32>>]
          fetches [#kiln.tensor<"y:0" : tensor<2x4xf32>>]
    }
    ```
  }];
  let dependentDialects = ["kiln::dialect::KilnDialect"];
}

def FuseAttentionPass : Pass<"kiln-lower-fuse-attention", "mlir::ModuleOp"> {
  let summary = "Fuse scaled dot-product attention into one kiln.attention";
  let description = [{
    Finds `softmax(s * c + mask) v` with `s = q k^T`: a tf.BatchMatMulV2 (or BatchMatMul)
    with `adj_y` of q and k, optionally a Mul or RealDiv by a constant of one element,
    optionally an AddV2 or Add of a mask, a Softmax, and a second batched product of the
    weights with v, on static f32 tensors of rank 3 or 4 whose batch dimensions are equal
    (no broadcasting), where the scores and their scaled and masked forms and the weights
    have no other reader (control edges from them are dropped: the code is sequential). The
    mask is any f32 tensor that broadcasts to the scores NumPy-style except along the keys
    (BERT's [batch, 1, 1, keys], a [batch, queries, keys] one); it stays an operand of the
    op, read in place with strides of 0 where it broadcasts. The chain becomes one
    `kiln.attention`, which bufferizes to a call of the kernel `attention_f32`: the scores
    of a block of query rows stay in a 64 KiB buffer of the kernel from the product that
    makes them to the one that reads them, instead of being written by the first product,
    rewritten by the scaling and the softmax and read again.

    An operand that is `tf.Transpose(x, [0, 2, 1, 3])` (MultiHeadAttention's and BERT's
    heads split from [batch, seq, heads, width]) is read as x in that layout, and a result
    that only such a Transpose reads is written in its layout, so those transposes go too.
    A division by c becomes a multiplication by 1/c (within one rounding of the quotient).
    Rank 3 operands get a heads dimension of 1. Other attention forms (broadcast batch
    dimensions, k not transposed, a mask of one value per query row, a Select for masking)
    keep their ops.

    The lowering pipeline runs it before `kiln-lower-tf-to-linalg` when kernels are called
    and float semantics are not strict (the kernel's exponential is a polynomial, as
    `kiln-lower-approximate-math` writes one).

    Before:
    ```mlir
    %s = "tf.BatchMatMulV2"(%q, %k) {adj_y = true} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
    %x = "tf.Mul"(%s, %c) : (tensor<1x4x8x8xf32>, tensor<f32>) -> tensor<1x4x8x8xf32>
    %p = "tf.Softmax"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %o = "tf.BatchMatMulV2"(%p, %v) : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<1x4x8x16xf32>
    %o = kiln.attention %q, %k, %v into %e {scale = 2.500000e-01 : f32}
        : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
    ```
  }];
  let dependentDialects = ["kiln::dialect::KilnDialect", "mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numFused", "fused", "Attention chains fused into kiln.attention">
  ];
}

def TFToLinalgPass : Pass<"kiln-lower-tf-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tf ops to linalg, tensor, arith and math on value tensors";
  let description = [{
    Control dependencies are dropped first (the code is sequential; ordering among pure ops
    does not change results), then every tf op becomes upstream ops: elementwise ops and
    activations become `linalg.generic` with NumPy broadcasting maps, MatMul a contraction,
    Reshape `tensor.collapse_shape`/`tensor.expand_shape`, Const `arith.constant`. Unsigned
    element types (`ui8`) become signless (`i8`) and select unsigned arithmetic. tf.If
    becomes `scf.if`, tf.Case `scf.index_switch` (the last branch the default, for an index
    out of range) and tf.While `scf.while`, their regions moved over and their tf.Yield
    `scf.yield` (`scf.condition` ending a loop's condition); a condition is true as
    TensorFlow converts a tensor to a bool (a nonzero scalar, or a tensor with elements).

    Every shape must be static by now (`kiln-lower-freeze-interface` reports why one is
    not). An op without a lowering is reported at its node, all of them at once.

    f32 3x3 convolutions with unit strides and 16 or more channels each way are marked
    for the Winograd kernel unless `winograd=false` (`kiln compile --strict-float`): its
    transforms reach the direct sum within 1e-5 of the sum of the products' magnitudes,
    while the GEMM's order of additions is a plain sum's.

    Ops the runtime computes by a kernel call of its own (the matrix factorizations) become
    `kiln.kernel`, and where TensorFlow's kernel fails on their values (a singular matrix)
    a `kiln.check` of the kernel's status, unless `runtime-checks=false`
    (`kiln compile --no-runtime-checks`).

    Before:
    ```mlir
    %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.generic {...} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %z = arith.constant 0.0 : f32
      %m = arith.maximumf %in, %z : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect", "kiln::dialect::KilnDialect",
  ];
  let options = [
    Option<"winograd", "winograd", "bool", /*default=*/"true",
           "Let f32 3x3 convolutions use the Winograd kernel">,
    Option<"runtimeChecks", "runtime-checks", "bool", /*default=*/"true",
           "Check the status of kernels that fail where TensorFlow's kernels report errors">,
  ];
}

def FuseElementwisePass : Pass<"kiln-lower-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse chains of elementwise linalg.generic ops into one loop nest";
  let description = [{
    Merges an all-parallel `linalg.generic` into the all-parallel generic that consumes it,
    when the consumer is its only user, so that a chain such as the batch-normalisation
    arithmetic and Relu6 after a convolution reads and writes memory once instead of once
    per op. Contractions, reductions and the window copies of convolutions are never fused
    into (so matrix products keep the form `kiln-lower-kernel-calls` recognises), and
    reshapes are not moved. A producer with transcendental functions (exp, tanh, log, erf
    ...; not square roots) is not fused into a consumer that broadcasts its result (reads it
    through a map that is not a permutation): the function would run once per element of
    the larger iteration space instead of once per value (the sigmoid of a
    squeeze-and-excitation block's per-channel gate).

    Before:
    ```mlir
    %0 = linalg.generic {parallel} ins(%x, %scale) outs(%e0) { mulf }
    %1 = linalg.generic {parallel} ins(%0, %shift) outs(%e1) { addf }
    ```
    After:
    ```mlir
    %1 = linalg.generic {parallel} ins(%x, %scale, %shift) outs(%e1) { mulf, addf }
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def UseDestinationsPass : Pass<"kiln-lower-use-destinations", "mlir::ModuleOp"> {
  let summary = "Turn the entry function's results into output buffers it writes";
  let description = [{
    The exported entry point uses destination-passing style: the caller owns the outputs.
    Each public function's tensor results become trailing `memref` arguments, written with
    `bufferization.materialize_in_destination`, and the function returns nothing.

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { ... return %0 : tensor<4xf32> }
    ```
    After:
    ```mlir
    func.func @main(%x: tensor<4xf32>, %out0: memref<4xf32>) {
      ...
      bufferization.materialize_in_destination %0 in restrict writable %out0
          : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def FuseKernelCallsPass : Pass<"kiln-lower-fuse-kernel-calls", "mlir::ModuleOp"> {
  let summary = "Compute a 1x1 convolution inside the depthwise convolution it feeds";
  let description = [{
    MobileNetV2's inverted residual block expands its input six times with a 1x1
    convolution, then convolves the expanded tensor depthwise: a kernel call writes the
    expanded tensor (4.8 MB at 112x112x96) and the next reads it back. When a
    `kiln.kernel_call` of `matmul_f32` or `matmul_epilogue_f32` that overwrites its result
    (no transposes, B not packed) is followed, with only ops without memory effects, views
    and allocations in between, by a `depthwise_conv2d_f32` call that overwrites its output
    and reads that result (as n x h x w x c, with a 3x3 or 5x5 window, unit dilations, a
    stride of 1 or 2 along x and a channel multiplier of 1), and nothing else uses the
    buffer, and B (the 1x1 convolution's weights) has at most `max-weight-bytes`, the two
    become one call of `pointwise_depthwise_f32`, the product's epilogue its
    `pointwise_epilogue`. (The fused kernel multiplies one image row at a time and reads
    all of B for each: Xception's 728 x 728 weights, 2 MB, came from memory 19 times per
    layer, and the model ran at 0.82 of ONNX Runtime's speed.) It computes the rows of the
    product each output row needs as it goes, in a few rows of cache, and gives the same
    result bit for bit; the buffer goes, so the scratch arena shrinks too. Runs after
    `kiln-lower-kernel-calls` and before buffer planning.

    Before:
    ```mlir
    kiln.kernel_call "matmul_epilogue_f32" ins(%x, %w, %s : ...) outs(%mid : memref<12544x96xf32>)
        params {m = 12544 : i64, n = 96 : i64, k = 16 : i64, overwrite,
                epilogue = #kiln.epilogue<scale = input 2, lo = 0.0, hi = 6.0>}
    %mid2 = memref.expand_shape %mid [[0, 1, 2], [3]] ... : memref<1x112x112x96xf32>
    kiln.kernel_call "depthwise_conv2d_f32" ins(%mid2, %f : ...) outs(%out : memref<1x56x56x96x1xf32>)
        params {n = 1 : i64, h = 112 : i64, w = 112 : i64, c = 96 : i64, m = 1 : i64, kh = 3 : i64,
                kw = 3 : i64, oh = 56 : i64, ow = 56 : i64, strides = array<i64: 2, 2>,
                dilations = array<i64: 1, 1>, pad = array<i64: 0, 0>, overwrite}
    ```
    After:
    ```mlir
    kiln.kernel_call "pointwise_depthwise_f32" ins(%x, %w, %f, %s : ...) outs(%out : memref<1x56x56x96x1xf32>)
        params {n = 1 : i64, h = 112 : i64, w = 112 : i64, cin = 16 : i64, c = 96 : i64, ...,
                pointwise_epilogue = #kiln.epilogue<scale = input 3, lo = 0.0, hi = 6.0>}
    ```
  }];
  let statistics = [
    Statistic<"numFused", "calls-fused", "Number of 1x1 convolutions fused into a depthwise one">,
  ];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", "1048576",
           "Smallest result of the 1x1 convolution, in bytes, worth fusing">,
    Option<"maxWeightBytes", "max-weight-bytes", "int64_t", "262144",
           "Largest 1x1 convolution weights, in bytes, that the fused kernel reads for every image row">,
  ];
  let dependentDialects = ["kiln::dialect::KilnDialect"];
}

def PackWeightsPass : Pass<"kiln-lower-pack-weights", "mlir::ModuleOp"> {
  let summary = "Pack constant matrix-product operands into the GEMM's layout at compile time";
  let description = [{
    A frozen model's weights are constants, yet the GEMM would copy B into column panels on
    every call (or read it a row stride apart when it does not). For each
    `kiln.kernel_call` of `matmul_f32`, `matmul_epilogue_f32` or `matmul_residual_f32` whose B is a constant f32
    `memref.global` (through reshapes: a convolution's filter), this pass writes op(B) into
    a new constant global in the GEMM's packed layout (`kiln_matmul_packed_b_index` in
    `kiln/runtime/abi.h`: depth slices of at most 512 rows, panels of 32 columns padded with
    zeros), makes it the call's B and sets `packed_b` (dropping `transpose_b`: the packed
    copy is op(B)). A `conv2d_gemm_f32` call's constant filter, a (kh * kw * c) x f matrix,
    is packed the same way and gets `packed_filter`. A `conv2d_3x3_f32` call with a constant
    filter becomes `conv2d_3x3_cached_f32`, with a cache slot of its own (a mutable
    `memref.global` of one i64, `<filter>_winograd`, shared by the calls of one filter):
    the Winograd kernel then transforms the filter on its first call only. Calls sharing a constant share its
    packed copy, and constants nothing reads any more are removed. The results are the
    same bit for bit. Runs after `kiln-lower-kernel-calls`.

    Before:
    ```mlir
    memref.global "private" constant @w : memref<2x3xf32> = dense<...>
    %b = memref.get_global @w : memref<2x3xf32>
    kiln.kernel_call "matmul_f32" ins(%a, %b : memref<4x2xf32>, memref<2x3xf32>)
        outs(%c : memref<4x3xf32>) params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite}
    ```
    After:
    ```mlir
    memref.global "private" constant @w_packed : memref<64xf32> = dense<...>
    %b = memref.get_global @w_packed : memref<64xf32>
    kiln.kernel_call "matmul_f32" ins(%a, %b : memref<4x2xf32>, memref<64xf32>)
        outs(%c : memref<4x3xf32>) params {m = 4 : i64, n = 3 : i64, k = 2 : i64, overwrite, packed_b}
    ```
  }];
  let statistics = [
    Statistic<"numPacked", "calls-packed", "Number of matrix products given packed weights">,
    Statistic<"numCached", "filters-cached",
              "Number of 3x3 convolutions given a cache for their transformed filter">,
  ];
  let dependentDialects = ["kiln::dialect::KilnDialect", "mlir::memref::MemRefDialect"];
}

def AssignScratchPass : Pass<"kiln-lower-assign-scratch", "mlir::ModuleOp"> {
  let summary = "Place every buffer allocation in one scratch arena, sharing memory by lifetime";
  let description = [{
    Each public function gets a trailing `memref<Nxi8>` scratch argument; every static
    `memref.alloc` becomes a `memref.view` of it at an offset aligned to 64 bytes, and its
    `memref.dealloc` disappears, so the compiled code never calls malloc.

    A buffer is live from the op that allocates it to the last op that uses it or a value
    derived from it (a view, a reshape, its address passed to a kernel). A buffer allocated
    inside an `scf.if` or `scf.while` is live for the whole op, and after it while its
    results (which it may be) are used: an iteration reuses its slot, which is right
    because bufferization hands a loop's body fresh copies of the loop variables (a loop
    that does not is an error). Buffers that are never live at the same time share memory: the largest buffers are placed first, each at
    the lowest offset where it overlaps no placed buffer live at the same time (the greedy
    plan of TensorFlow Lite's arena planner). Before that, an elementwise op (all loops
    parallel, identity maps) that reads a buffer for the last time and writes a fresh one of
    the same type writes into the buffer it reads instead (in place). `naive` gives every
    buffer its own slot instead, for comparison. The arena's size (`scratch_bytes`) and that
    of the naive plan (`naive_bytes`) go into the `#kiln.part` of the `kiln.model` entry
    point that runs the function; the parts of an entry get consecutive places in its
    arena (`scratch_offset`). `kiln-lower-verify-scratch` checks the plan.

    Before:
    ```mlir
    func.func @main(%x: memref<4xf32>, %out: memref<4xf32>) {
      %0 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
      ...
    }
    ```
    After:
    ```mlir
    kiln.entry "run" feeds [...] fetches [...] {parts = [#kiln.part<function = @main, ...,
        scratch_bytes = 64, naive_bytes = 64>]}
    func.func @main(%x: memref<4xf32>, %out: memref<4xf32>, %scratch: memref<64xi8>) {
      %c0 = arith.constant 0 : index
      %0 = memref.view %scratch[%c0][] : memref<64xi8> to memref<4xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"naivePlan", "naive", "bool", /*default=*/"false",
           "Give every buffer its own slot (no sharing)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def VerifyScratchPass : Pass<"kiln-lower-verify-scratch", "mlir::ModuleOp"> {
  let summary = "Check that no two buffers live at the same time share scratch memory";
  let description = [{
    For each function argument that is a scratch arena (a `memref<Nxi8>` that
    `memref.view` ops take their buffers from), finds every view of it at a constant offset, computes its lifetime as
    `kiln-lower-assign-scratch` does, and reports an error at both views when two of them
    overlap in memory while both are live, or when a view reaches past the arena's end. It
    changes nothing; the lower pipeline runs it after planning.
  }];
}

def FillBordersPass : Pass<"kiln-lower-fill-borders", "mlir::func::FuncOp"> {
  let summary = "Fill only the border of a buffer whose interior a copy overwrites next";
  let description = [{
    Bufferizing `tensor.pad` fills the whole padded buffer with the padding value, then
    copies the unpadded tensor into its interior: most of the fill is overwritten at once
    (a 1x7 convolution's input, 17x23 pixels padded from 17x17, is 74% interior; a 3x3
    convolution's at 35x35, 89%). When a fill (`linalg.fill`, or a `linalg.map` without
    inputs yielding a value from outside it) is followed, with only side-effect-free ops
    between, by a `memref.copy` into a unit-stride subview of the same buffer with static
    offsets and sizes, from a buffer that does not overlap it, this pass fills only the
    border: along each dimension in turn, the slabs before and after the copied box. Other
    such `linalg.map` fills become `linalg.fill`, which `kiln-lower-parallel-loops` splits
    across threads.

    Before:
    ```mlir
    linalg.map outs(%padded : memref<1x4x6x8xf32>) () { linalg.yield %zero : f32 }
    %interior = memref.subview %padded[0, 1, 1, 0] [1, 2, 4, 8] [1, 1, 1, 1] : ...
    memref.copy %x, %interior : ...
    ```
    After:
    ```mlir
    linalg.fill ins(%zero : f32) outs(%top : memref<1x1x6x8xf32, ...>)      // row 0
    linalg.fill ins(%zero : f32) outs(%bottom : memref<1x1x6x8xf32, ...>)   // row 3
    linalg.fill ins(%zero : f32) outs(%left : memref<1x2x1x8xf32, ...>)     // rows 1-2, column 0
    linalg.fill ins(%zero : f32) outs(%right : memref<1x2x1x8xf32, ...>)    // rows 1-2, column 5
    memref.copy %x, %interior : ...
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect"];
}

def CopiesToLinalgPass : Pass<"kiln-lower-copies-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Turn strided memref.copy into row copies (memcpy) or linalg.copy";
  let description = [{
    `finalize-memref-to-llvm` lowers a copy between dense buffers to `memcpy`, but a copy to
    or from a strided view (a padded tensor's interior, a channel slice of a concatenation)
    to a call of MLIR's `memrefCopy` runtime function, which compiled models do not link.
    This pass rewrites those copies. When the trailing dimensions of both sides form dense
    blocks (a concatenation's channel slice: each pixel's channels), the copy becomes
    `scf.for` loops over the other dimensions around a `memref.copy` of one dense block,
    which is a `memcpy`: a few instructions per block, where loops over every element
    would be unrolled by LLVM into code that grows with the tensor (DenseNet121's 131 copies
    gave a 378,000-line function). Otherwise (no dense trailing dimension) the copy becomes
    `linalg.copy`, which becomes loops.

    Before:
    ```mlir
    memref.copy %a, %sub : memref<1x8x8x2xf32> to memref<1x8x8x2xf32, strided<[200, 20, 2, 1], offset: 22>>
    ```
    After:
    ```mlir
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %s = memref.subview %a[0, %i, %j, 0] [1, 1, 1, 2] [1, 1, 1, 1] : ... to memref<2xf32, strided<[1], offset: ?>>
        %t = memref.subview %sub[0, %i, %j, 0] [1, 1, 1, 2] [1, 1, 1, 1] : ... to memref<2xf32, strided<[1], offset: ?>>
        memref.copy %s, %t : ...
      }
    }
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect"];
}

def ParallelLoopsPass : Pass<"kiln-lower-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Run large elementwise ops and row-wise chains on the thread pool";
  let description = [{
    A `linalg.generic`, `linalg.fill` or `linalg.copy` (on buffers, static sizes) that no
    kernel computes (a batch normalisation and Relu before a convolution, a residual
    addition, an activation, a softmax's or a layer normalisation's reductions) would run on
    one thread while the kernels around it use all of them. This pass splits such ops along
    their first loop of two or more iterations, when that loop is parallel (a reduction
    over the last dimension splits by rows), and moves the iterations into a function of
    their own, `F.parallelN(begin, end, buffers...)`, which computes iterations [begin, end).

    Consecutive ops (only views and constants between them) split along the same loop of
    the same size go into one such function when every buffer one of them writes is read
    and written by the others only as the same slice of the same iteration: each thread
    then runs the whole chain on one iteration's slice after another (a softmax's
    maximum, exponentials, sum and quotients over one head's scores; a layer
    normalisation's mean, variance and normalised values over one row), so the slice's
    intermediate results are still in cache when the next op reads them, and every op of
    the chain runs on all threads. An op whose body loads from a buffer another writes
    (a window op reading its unpadded input at computed positions) does not join: it may
    read any slice. Buffers are told apart by their bytes in the
    scratch arena (views at static offsets); the function's arguments (a model's feeds,
    results, state and arena) are taken to be different buffers.

    A group of at least `min-elements` iterations in all is split (`linalg` tiling by one
    iteration of the loop). In its place, a call of `F.parallelN.launch(count, grain,
    buffers...)`, a declaration here, hands the iterations to the runtime's
    `kiln_parallel_for` in chunks of at least `grain` iterations (each at least
    `min-chunk` elements); `kiln-codegen-parallel-launchers` defines it once the module is
    in the LLVM dialect. The buffers pass as bare pointers, so every buffer the body reads
    or writes has a static layout; constants are cloned into the body. Each element is
    computed by the same code whatever the split, so results do not depend on the thread
    count. An op whose output is also an input read through another map stays serial.

    Before:
    ```mlir
    func.func @f(%x: memref<1x56x56x32xf32>, %y: memref<1x56x56x32xf32>) {
      linalg.generic {... all parallel ...} ins(%x : ...) outs(%y : ...) { ... }
    }
    ```
    After:
    ```mlir
    func.func @f(%x: memref<1x56x56x32xf32>, %y: memref<1x56x56x32xf32>) {
      call @f.parallel0.launch(%c56_i64, %c5_i64, %x, %y) : (i64, i64, memref<...>, memref<...>) -> ()
    }
    func.func private @f.parallel0(%begin: index, %end: index, %x: memref<...>, %y: memref<...>) {
      scf.for %i = %begin to %end step %c1 {
        %xs = memref.subview %x[0, %i, 0, 0] [1, 1, 56, 32] [1, 1, 1, 1] : ...
        ...
        linalg.generic {...} ins(%xs : ...) outs(%ys : ...) { ... }
      }
      return
    }
    func.func private @f.parallel0.launch(i64, i64, memref<...>, memref<...>)
    ```
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", "32768",
           "Fewest iterations worth splitting across threads">,
    Option<"minChunk", "min-chunk", "int64_t", "8192",
           "Fewest elements in one chunk of work">,
    Option<"reassociate", "reassociate-reductions", "bool", "false",
           "Let reductions' additions and multiplications be reassociated (vectorized), "
           "as kiln-lower-outline-loops does for the loops it outlines">,
  ];
  let statistics = [
    Statistic<"numSplit", "ops-split", "Linalg ops run on the thread pool">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect"];
}

def ApproximateMathPass : Pass<"kiln-lower-approximate-math", "mlir::func::FuncOp"> {
  let summary = "Compute chosen math functions with polynomials LLVM can vectorize";
  let description = [{
    Rewrites the `math` ops named in `functions` (by mnemonic: `tanh`, `exp`, ...) into
    MLIR's polynomial and rational approximations (range reduction, then arithmetic and
    selects only), which LLVM vectorizes with the loop around them; a libm call would run one
    element at a time. The approximations are Eigen's and Cephes', the ones TensorFlow's CPU
    kernels use, accurate to a few ulp in f32. Functions not named keep going to libm. The
    exactly rounded operations on f32 and f64 (`fma`, which the approximations compute
    with, `floor`, which exp's range reduction uses, `ceil`, `trunc`, `round`, `roundeven`,
    `sqrt`, `absf`), and `ctpop` on integers of any width (convert-math-to-libm refuses it),
    become LLVM intrinsics, one instruction each, with or without
    `functions`: convert-math-to-libm would call `fmaf`, `floorf` and so on, one call per
    element wherever LLVM does not vectorize the loop (a softmax's exp inside its sum). The
    intrinsics give libm's results bit for bit. The float-to-integer conversions the
    approximations make (exp's exponent) convert 0 where their input is NaN: for NaN the
    conversion is poison in LLVM, and where LLVM sees the NaN (a constant graph folded
    whole) the poison would spread past the approximations' own NaN handling; the NaN
    still reaches the result through the other operands.

    Before:
    ```mlir
    %y = math.tanh %x : f32
    ```
    After (abridged):
    ```mlir
    %c = arith.maximumf %x, %minus9 : f32   // clamp to [-7.99, 7.99]
    ... a degree 13/6 rational function in %c, by fused multiply-adds ...
    %y = arith.select %tiny, %x, %q : f32
    ```
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "Mnemonics of the math ops to approximate">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect", "mlir::LLVM::LLVMDialect"];
}

def ChecksPass : Pass<"kiln-lower-checks", "mlir::ModuleOp"> {
  let summary = "Turn bufferized kiln.check ops into loops that record a failure";
  let description = [{
    Every function holding `kiln.check` ops gets a trailing status argument,
    `memref<3xi64>`: the number of the first check that failed
    (0: none), the failing element's row-major position and its value. Each check becomes
    one pass over its buffer that ands the condition over every element (a loop LLVM
    vectorizes); only when that finds a failure does a second loop find the first failing
    element, which is recorded if no earlier check of the function recorded one. The
    function goes on: the ops themselves never trap on bad values, and the entry point
    reports the failure when every part has returned (each partition has a status of its
    own, and the first partition's failure is reported).

    The checks, numbered from 1 in the order found, are the `kiln.model`'s `checks`
    (`#kiln.check`: their messages and the checked tensors' shapes), from which codegen
    writes the table the runtime formats the message with; the part of the entry point that
    runs the function gets `status = true`. A function with checks that no part runs is an
    error.

    Before:
    ```mlir
    func.func @main(%x: memref<4xi32>, %y: memref<4xi32>, %out: memref<4xi32>, %scratch: memref<0xi8>) {
      kiln.check "nonzero" %y, "node 'z' (FloorDiv): integer division by zero (y{index} is 0)" : memref<4xi32>
      ...
    ```
    After (abridged):
    ```mlir
    func.func @main(..., %scratch: memref<0xi8>, %status: memref<3xi64>) {
      linalg.generic {iterator_types = ["reduction"]} ins(%y) outs(%all) { ...cmpi ne... andi }
      scf.if %failed { ...scf.for finding the first zero..., memref.store to %status if empty }
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

def OutlineLoopsPass : Pass<"kiln-lower-outline-loops", "mlir::ModuleOp"> {
  let summary = "Move each generated loop nest into a function of its own, for LLVM to vectorize";
  let description = [{
    Every buffer of a model function is a view of its scratch arena, and LLVM's dependence
    analysis gives up on two accesses to one object at a distance it cannot compute: a
    softmax's row maximum against the row, a layer normalisation's statistics, a
    per-channel scale against the activations. Such loops stayed scalar, and a reduction
    stored its accumulator at every iteration. This pass moves each `linalg` op on buffers
    that no kernel computes into a private function `F.loopN(arguments...)`, called in its
    place, whose buffers pass as bare pointers, `llvm.noalias` where their bytes overlap no
    other argument's (views of the arena at offsets of their own, constants; two different
    arguments of the model function may be the same memory). Two views of the same bytes
    with the same type become one argument, so an op in place reads and writes through
    one pointer. Scalars pass as arguments, constants are cloned. Ops whose buffers have a
    dynamic layout (inside a loop of views) stay. With `reassociate-reductions`, the
    floating-point additions and multiplications that accumulate a reduction's result get
    the `reassoc` flag, so LLVM may keep partial sums in vector lanes (off under
    `--strict-float`: the sum is then taken in index order).

    Before:
    ```mlir
    func.func @f(%arena: memref<8192xi8>) {
      %x = memref.view %arena[%c0][] : memref<8192xi8> to memref<8x128xf32>
      %s = memref.view %arena[%c4096][] : memref<8192xi8> to memref<8xf32>
      linalg.generic {... ["parallel", "parallel"] ...} ins(%x, %s : ...) outs(%x : ...) { ... }
    }
    ```
    After:
    ```mlir
    func.func @f(%arena: memref<8192xi8>) {
      ...
      call @f.loop0(%x, %s) : (memref<8x128xf32>, memref<8xf32>) -> ()
    }
    func.func private @f.loop0(%x: memref<8x128xf32> {llvm.noalias}, %s: memref<8xf32> {llvm.noalias}) attributes {kiln.outlined} {
      linalg.generic {...} ins(%x, %s : ...) outs(%x : ...) { ... }
      return
    }
    ```
  }];
  let options = [
    Option<"reassociateReductions", "reassociate-reductions", "bool", "true",
           "Let the arithmetic accumulating a reduction be reassociated">,
  ];
  let statistics = [
    Statistic<"numOutlined", "ops-outlined", "Ops moved into functions of their own">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect"];
}

def FlattenEmptyArgumentsPass : Pass<"kiln-lower-flatten-empty-arguments", "mlir::ModuleOp"> {
  let summary = "Give functions' empty buffer arguments a 1-D type";
  let description = [{
    A tensor with a dimension of size 0 (a batch of 0 images, a product of depth 0) is a
    legal TensorFlow input or output, but MLIR cannot pass a buffer such as
    `memref<2x0xf32>` as a bare pointer: its layout has no strides to read
    (`convert-func-to-llvm` leaves the function unconverted). Each such argument becomes a
    `memref<0xT>`, expanded to its shape at the top of the function; the pointer passed is
    never read or written.

    Before:
    ```mlir
    func.func @main(%x: memref<2x0xf32>, %out: memref<2x3xf32>) { ... }
    ```
    After:
    ```mlir
    func.func @main(%x: memref<0xf32>, %out: memref<2x3xf32>) {
      %0 = memref.expand_shape %x [[0, 1]] output_shape [2, 0] : memref<0xf32> into memref<2x0xf32>
      ...
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def ExpandBF16Pass : Pass<"kiln-lower-expand-bf16", "mlir::func::FuncOp"> {
  let summary = "Convert between f32 and bf16 with integer arithmetic, not library calls";
  let description = [{
    `arith.truncf` to bf16 and `arith.extf` from bf16 become bit casts, shifts and adds
    (round to nearest even, NaN kept quiet), which LLVM vectorizes with the loop around
    them. Left alone, an x86 CPU without AVX512-BF16 truncates by calling `__truncsfbf2`,
    which the GCC 12 runtime of Debian 12 does not have, so the model would not link.

    Before:
    ```mlir
    %y = arith.truncf %x : f32 to bf16
    ```
    After (abridged):
    ```mlir
    %b = arith.bitcast %x : f32 to i32
    ... %r = %b + 0x7fff + ((%b >> 16) & 1), a quiet NaN for NaN ...
    %y = arith.bitcast (arith.trunci (%r >> 16) : i32 to i16) : i16 to bf16
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def KernelCallsPass : Pass<"kiln-lower-kernel-calls", "mlir::ModuleOp"> {
  let summary = "Call the runtime's kernels for f32 matrix products, convolutions and max pools";
  let description = [{
    Replaces a bufferized f32 matrix-product `linalg.generic` (loops (m, k, n), A read as
    (m, k) or (k, m), B as (k, n) or (n, k), C += A * B) on contiguous buffers by a
    `kiln.kernel_call` of the kernel table's `matmul_f32` (`libkiln_kernels.a`), with the
    sizes and the `transpose_a`/`transpose_b` flags. Products with fewer than `min-flops`
    multiply-adds stay loops, marked `kiln.small_product` (`kiln compile --stats` counts
    them). A product of at most 3 rows (`KILN_MATMUL_FEW_ROWS_MAX`: a dense layer at batch 1,
    an RNN's step) whose B is not transposed, or is a constant global (packed later), gets
    `few_rows`: the kernel computes several column tiles at once, whose independent FMA
    chains keep the FMA units busy where one tile's two or six chains wait on their latency,
    with the same result bit for bit. When the op before it (ignoring ops without memory effects)
    fills C with +0.0, that fill is removed and the call gets `overwrite`, so C is written
    once. In a function placed on a GPU, every such product becomes a call of
    `gpu_matmul_f32` instead, and a batch of them one of `gpu_batch_matmul_f32` (cuBLAS's
    sgemm and strided batched sgemm on device memory, `kiln_mgpu_matmul_f32` and
    `kiln_mgpu_batch_matmul_f32`; with `allow-tf32`, `kiln compile --allow-tf32`, flagged
    `tf32`: TF32 tensor cores), f16 products likewise calls of `gpu_matmul_f16` and
    `gpu_batch_matmul_f16` (f32 sums, as TensorFlow computes them on a GPU), and each
    convolution the lowering marked (`kiln.conv2d_3x3`, `kiln.conv2d_direct`,
    `kiln.conv2d_gemm`; depthwise ones stay generated kernels) whose
    filter is a constant global becomes a call of `gpu_conv2d_f32` (cuDNN's forward
    convolution, `kiln_mgpu_conv2d_f32`, `tf32` too with `allow-tf32`): the filter transposed at compile time into a
    global `NAME_krsc` in cuDNN's NHWC filter layout, f x kh x kw x c,
    the HWIO global erased when nothing else reads it, and padding cuDNN cannot express
    (more below or right than above or left) made a zero-padded copy of the image (a
    `linalg.fill` and a `memref.copy`) read without padding; a fed filter leaves the
    convolution to kiln-gpu-kernels. With `gpu-epilogues` (`kiln compile
    --gpu-epilogues`; off by default: on an H200 with cuDNN 9.14 these calls were slower
    than cuDNN's plain convolution or cuBLAS followed by a generated kernel, ResNet50 at
    batch 1 11.9 ms a call against 2.9), the elementwise op after an overwriting
    convolution becomes the call's `epilogue` when cuDNN can apply it in the same call
    (`kiln_gpu_conv2d_fused_f32`): a scalar scale, or a constant per-channel one (an
    inference batch norm's, multiplied into the transposed filter, `NAME_x_SCALE_krsc`;
    not with `strict-float`), a bias buffer or none, a Relu or nothing, and a residual
    added after the bias (`gpu_conv2d_residual_f32`). A product of constant k x n weights
    whose rows collapse an NHWC image (a 1x1 convolution's; a depthwise output's last two
    dimensions are k) and whose epilogue ends in a Relu becomes a 1x1 `gpu_conv2d_f32` (or
    `_residual_f32`) on that image, with that epilogue, instead of a cuBLAS call (a dense
    layer's product stays cuBLAS's). With `cublaslt-epilogues` (`kiln compile
    --gpu-epilogues=cublaslt`, or the flag alone for both libraries; off by default until
    measured on a GPU), the elementwise op after an overwriting f32 product (not a batch,
    k >= 1) becomes the call's `epilogue` when cuBLASLt applies it in the same
    cublasLtMatmul (`kiln_gpu_gemm_epilogue`): a scalar scale (alpha), or a constant
    per-channel one multiplied into constant weights (a global `NAME_x_SCALE`; not with
    `strict-float`), a bias buffer or none, a Relu or nothing, and a residual, apart from
    the output or the output itself at any depth (cuBLASLt reads C before writing D;
    under `strict-float` not with a bias, which cuBLASLt adds after the residual): the call
    is `gpu_matmul_epilogue_f32`, or `gpu_matmul_residual_f32` with the residual its input
    2. With both options, 1x1 convolutions' products go to cuBLASLt, not cuDNN. Without
    the options none of this: epilogues stay kernels, products cuBLAS calls. Nothing else
    there changes. The depthwise generic the lowering marks `kiln.depthwise` becomes a call of
    `depthwise_conv2d_f32` at every size, and the 3x3 convolution generic it marks
    `kiln.conv2d_3x3` (unit strides and dilations, 16 or more channels in and out) one of
    `conv2d_3x3_f32`, which computes by Winograd's F(4x4, 3x3); one marked
    `kiln.conv2d_direct` (a window depth kh * kw * c of 64 or less, 8 or more output
    channels) one of `conv2d_direct_f32`, which reads the input in place, and one marked
    `kiln.conv2d_gemm` (every other f32 convolution but 1x1 ones with unit strides) one of
    `conv2d_gemm_f32`, whose matrix product gathers the windows from the input as it packs
    them. The max pool
    generic marked `kiln.max_pool` becomes a call of `max_pool2d_f32`, which writes every
    output element: the fill of its output before it goes, as does the window buffer that
    only gave the generic its loop sizes. There is one matcher per kernel: the matrix
    product's, and a row per marked window generic.

    A 2x2, stride 2 VALID max pool that alone reads an overwriting 3x3 or direct convolution
    kernel's result (after its epilogue, if any) is computed by that kernel (`max_pool`):
    the call writes the pool's output, and the result, the pool and its fill go, so the
    convolution's full-size result never reaches memory.

    An overwriting kernel's result that only an elementwise op reads, of the form
    `min(max(x * scale + bias, lo), hi)` per channel (scale and bias per-channel buffers or
    constants, each part optional: a bias, a folded batch normalisation, Relu, Relu6),
    optionally followed by Swish (`y / (1 + exp(-y))`, as the Sigmoid and Mul lowerings
    leave `y * sigmoid(y)`; the kernels' exp is within a few ulp, so not with
    `strict-float`), is computed by the kernel itself (`matmul_epilogue_f32`, or the convolution kernels'
    `epilogue`), which writes the elementwise op's output directly; the op and the kernel's
    own buffer go. A matrix product's epilogue may also add a residual after the bias
    (`x * scale + bias + r`, then the bounds: a ResNet block's last batch norm, shortcut
    addition and Relu, MobileNetV2's and EfficientNet's projections plus their input):
    `r` a buffer of the output's type read where the output goes, either one that cannot
    overlap the output or, when the product has one depth slice (k <= 512: each element
    is stored once, after its residual is read), the output itself, as bufferization
    leaves the addition written over its shortcut. The call is then `matmul_residual_f32`,
    the residual its input 2. The pass runs before buffer planning, which then sees the
    buffers the kernels really write; `kiln-codegen-expand-kernel-calls` makes the C calls
    later.

    Before:
    ```mlir
    linalg.generic {...matmul maps...} ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>)
        outs(%c : memref<64x256xf32>) { mulf, addf }
    ```
    After:
    ```mlir
    kiln.kernel_call "matmul_f32" ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>)
        outs(%c : memref<64x256xf32>) params {m = 64 : i64, n = 256 : i64, k = 784 : i64}
    ```
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", "4096",
           "Smallest m * n * k sent to the kernel">,
    Option<"strictFloat", "strict-float", "bool", "false",
           "Leave Swish to the elementwise loops (libm's exp under --strict-float)">,
    Option<"allowTf32", "allow-tf32", "bool", "false",
           "Let a GPU's f32 products and convolutions use TF32 tensor cores">,
    Option<"gpuEpilogues", "gpu-epilogues", "bool", "false",
           "Fuse epilogues into a GPU's cuDNN convolutions (1x1 ones with a Relu too; slower on an H200)">,
    Option<"cublasltEpilogues", "cublaslt-epilogues", "bool", "false",
           "Fuse epilogues into a GPU's f32 matrix products by cuBLASLt (1x1 convolutions' too)">,
  ];
  let dependentDialects = ["kiln::dialect::KilnDialect", "mlir::memref::MemRefDialect"];
}

def PartitionsPass : Pass<"kiln-lower-partitions", "mlir::ModuleOp"> {
  let summary = "Compile each kiln.partition's function on its own, for the entry to start";
  let description = [{
    Makes every entry point of the `kiln.model` run parts (`#kiln.part`) instead of a
    function. An entry whose function is cut into partitions (kiln-graph-outline-partitions)
    gets one part per `kiln.partition`: the function it calls, made public so that it is
    lowered like a model of its own (outputs as destinations, a scratch arena of its own),
    its device, and which of the entry's feeds it takes and fetches it writes. The entry
    function, now only calls, goes: the model's entry point (`NAME_run`), generated with the
    object code, starts the parts on threads of their own through `kiln_partitions_run`
    (kiln/runtime/partitions.h), each with its part of one scratch arena. Any other entry
    gets one part running its whole function, on no particular device (`device = ""`).

    Every operand of a `kiln.partition` must be an argument of its function, and every
    result of the function a partition's result.
  }];
}

def RendezvousCallsPass : Pass<"kiln-lower-rendezvous-calls", "mlir::ModuleOp"> {
  let summary = "Turn bufferized kiln.send and kiln.recv into calls of the runtime";
  let description = [{
    After bufferization, `kiln.send %buf as "key"` becomes a `kiln.kernel_call` of
    `partition_send` and `kiln.recv "key" into %buf` one of `partition_recv`
    (`kiln_partition_send`/`_recv` in kiln/runtime/partitions.h), with the key's number;
    the C call passes the buffer's address and its size in bytes. The keys, sorted, are the
    `kiln.model`'s `rendezvous_keys`, which the entry point passes to the runtime. A
    buffer with a non-identity layout (a view) is copied to or from a contiguous one around
    the call. In a function placed on a GPU the calls are `gpu_partition_send` and
    `gpu_partition_recv` (`kiln_mgpu_partition_send`/`_recv` in kiln/runtime/mgpu.h), which
    take device addresses and copy through the host.

    Each key must be sent once and received at most once; a receive without a send in the
    module (from another process), or one that comes before its send in the same function
    (it would wait for ever), is an error.

    Before:
    ```mlir
    kiln.send %0 as "Relu:0;/device:CPU:1" : memref<4xf32>
    ```
    After:
    ```mlir
    kiln.kernel_call "partition_send" ins(%0 : memref<4xf32>) params {key = 0 : i32}
    ```
  }];
  let dependentDialects = ["kiln::dialect::KilnDialect", "mlir::memref::MemRefDialect"];
}

#endif // KILN_PASSES_LOWER_PASSES_TD
