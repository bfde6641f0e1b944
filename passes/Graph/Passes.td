//===- Passes.td - graph-level passes on the tf dialect ----------*- tablegen -*-===//

#ifndef KILN_PASSES_GRAPH_PASSES_TD
#define KILN_PASSES_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrunePass : Pass<"kiln-graph-prune", "mlir::func::FuncOp"> {
  let summary = "Remove ops that no function result depends on (partial execution)";
  let description = [{
    The paper's partial execution (section 4.2): only the subgraph that the fetches need
    runs. Every op that neither a returned value nor, transitively, one of its data or control
    inputs depends on is erased, stateful or not; a `kiln.check` stays, with what it checks.

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = "tf.Tanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
    After: the `tf.Tanh` is gone.
  }];
  let statistics = [
    Statistic<"numPruned", "ops-pruned", "Number of ops removed">,
  ];
}

def BoundSizesPass : Pass<"kiln-graph-bound-sizes", "mlir::ModuleOp"> {
  let summary = "Give sizes that depend on values a static bound and carry the size at run time";
  let description = [{
    XLA's dynamic padder. An op whose result size depends on the values it reads (`Where`,
    `Unique`, `NonMaxSuppressionV3/V4/V5` without padding, `TopKV2` with a fed k) gets the
    static type of a bound on that size: the input's size for `Where` and `Unique`,
    min(max_output_size, boxes) for a non-max suppression, the bound of k's value
    (a constant, a `Minimum` with one, a size) for `TopKV2`, or a smaller `bounds` entry
    for its node (`kiln compile --bound NODE=N`), in which case a `kiln.check` fails the
    call when the actual size is larger (a non-max suppression then gets one row more, to
    tell). The size itself is an i32 scalar of the graph (`Sum` of the nonzero elements,
    `Max` of Unique's idx + 1, the suppression's `valid_outputs`); the op writes its first
    `size` rows and zeros after them.

    Each op that a padded tensor reaches is rewritten to compute the same valid part:
    elementwise ops (the `TF_Elementwise` trait) carry the padding along; `Sum`, `Mean`,
    `Max`, `Min`, `Prod`, `Any`, `All`, `ArgMax`, `ArgMin` and `TopKV2` first replace it
    with their identity (`SelectV2` of a mask of the valid coordinates); `Reshape` of a
    tensor padded in its first dimension moves the size (the valid elements stay a prefix);
    `GatherV2` and `GatherNd` mask padded indices to 0 and check indices into a padded
    axis against its size; `ConcatV2` along a padded dimension gathers the valid rows
    together; `Squeeze`, `ExpandDims`, `Transpose`, `Pack`, `Cumsum` and `Cumprod` move the
    sizes with the dimensions; `Shape` and `Size` become the sizes, followed through
    `StridedSlice` (shape[i]) and `Pack` into `Fill` (padded at the bound), `Range(0, size)`
    (the bound's iota) and `Reshape` (`[shape[0], -1]`, as Flatten writes it). Any other op taking a
    padded tensor is an error at its node. A padded fetch is written densely at its actual
    shape (a gather when a dimension other than the first is padded), and the function
    gains a result with that shape (int64), which the entry point's fetches list as
    `NAME/shape` and the padded fetch names with `shape`.

    Before:
    ```mlir
    func.func @main(%m: tensor<3x4xi1>) -> tensor<?x2xi64> {
      %0 = "tf.Where"(%m) : (tensor<3x4xi1>) -> tensor<?x2xi64>
      return %0 : tensor<?x2xi64>
    }
    ```
    After:
    ```mlir
    func.func @main(%m: tensor<3x4xi1>) -> (tensor<12x2xi64>, tensor<2xi64>) {
      %0 = "tf.Where"(%m) : (tensor<3x4xi1>) -> tensor<12x2xi64>
      %1 = "tf.Cast"(%m) {DstT = i32} : (tensor<3x4xi1>) -> tensor<3x4xi32>
      %count = "tf.Sum"(%1, %axes) ... -> tensor<i32>
      ...
      %shape = "tf.Pack"(%n, %two) {N = 2 : i64, axis = 0 : i64} : ... -> tensor<2xi64>
      return %0, %shape : tensor<12x2xi64>, tensor<2xi64>
    }
    ```
  }];
  let options = [
    ListOption<"bounds", "bounds", "std::string",
               "NODE=N: the bound of the value-dependent size of node NODE's result">,
    Option<"runtimeChecks", "runtime-checks", "bool", /*default=*/"true",
           "Check at run time that sizes stay within --bound, that gathers into a padded "
           "dimension stay below its size and that TopKV2's k does (kiln compile "
           "--no-runtime-checks: false)">,
  ];
  let dependentDialects = ["kiln::dialect::KilnDialect"];
}

def InsertChecksPass : Pass<"kiln-graph-insert-checks", "mlir::func::FuncOp"> {
  let summary = "Check input values where TensorFlow's kernels report errors";
  let description = [{
    Asks every op with a `RuntimeChecksInterface` which of its operands must meet which
    condition: an integer divisor must not be 0, an integer exponent must not be negative,
    a gather's indices must be in range. A constant operand is checked now: one that breaks
    the condition is a compile-time error naming the node, the element and its value. Any
    other operand gets a `kiln.check` before the op, whose message names the node; the
    compiled model returns an error status with it when a call's values break the
    condition. With `constants-only` (`kiln compile --no-runtime-checks`), only constants
    are checked.

    Before:
    ```mlir
    %z = "tf.FloorDiv"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
    After:
    ```mlir
    kiln.check "nonzero" %y, "node 'z' (FloorDiv): integer division by zero (y{index} is 0)" : tensor<4xi32>
    %z = "tf.FloorDiv"(%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    ```
  }];
  let options = [
    Option<"constantsOnly", "constants-only", "bool", /*default=*/"false",
           "Check constant operands only (at compile time); add no run-time checks">,
  ];
  let dependentDialects = ["kiln::dialect::KilnDialect"];
  let statistics = [
    Statistic<"numChecks", "checks", "Number of kiln.check ops inserted">,
  ];
}

def ResolveListsPass : Pass<"kiln-graph-resolve-lists", "mlir::func::FuncOp"> {
  let summary = "Give every TensorList the dense type of its elements";
  let description = [{
    Kiln holds a TensorList of N elements of shape S as the tensor [N, S...]. A list
    reserved with an unknown element shape (`tf.map_fn`, `tf.scan` and Keras's RNNs
    reserve their outputs with element shape -1) learns it from what is done with it,
    often inside a loop. The values that are one list, through TensorListSetItem and
    TensorListStack, Identity and IdentityN, a While's loop variables (input, condition
    and body arguments, the body's yields, the results) and the inputs and results of If
    and Case, form one class; the length (a reserve's constant `num_elements`, a stack's
    `num_elements`) and element shape (a reserve's, get's or stack's `element_shape`, the
    items set, any member's own type) every member gives are merged, and every member takes
    the merged type. Contradicting facts are errors at the op that gives one; a list whose
    length or element shape stays unknown is an error at its TensorListReserve. Run
    kiln-graph-infer-shapes after it.

    Before (the list, the loop variable and the stacked result all `tensor<*xf32>`):
    ```mlir
    %l = "tf.TensorListReserve"(%minus1, %five) {element_dtype = f32} : (tensor<i32>, tensor<i32>) -> tensor<*xf32>
    ...  "tf.TensorListSetItem"(%arg, %i, %x) : (tensor<*xf32>, tensor<i32>, tensor<3xf32>) -> tensor<?x3xf32>
    ```
    After: all of them `tensor<5x3xf32>`.
  }];
  let statistics = [
    Statistic<"numResolved", "lists", "TensorLists given a dense type">,
  ];
}

def InferShapesPass : Pass<"kiln-graph-infer-shapes", "mlir::func::FuncOp"> {
  let summary = "Refine result types of tf ops from their operands";
  let description = [{
    Re-runs every op's type inference in program order and keeps the more precise of the
    inferred and the existing result type, so that static feed shapes flow through the graph
    and unknown dimensions (`?`) become known. The function's result types follow. The
    regions of tf.If, tf.Case and tf.While are inferred before the op that holds them,
    their arguments first taking their inputs' types; If's and Case's results then join
    their branches', While's keep their loop variables'. A loop whose body changes a
    variable's shape (tf.while_loop growing a tensor by concatenation) is unrolled when its
    condition folds to a constant each time round, up to 4096 iterations; otherwise it is
    an error at the loop naming the variable.

    As grappler's shape folding does, an op whose data inputs are all constants is
    evaluated (its folder) as soon as its types are known, and so are Shape, Size and Rank
    of static tensors: the shape arithmetic Keras writes (Shape, StridedSlice, Cast, Pack,
    ConcatV2, Range, arithmetic) leaves a constant that the next op's inference reads in the
    same walk (UpSampling, RepeatVector, Softmax over another axis, Conv1DTranspose's output
    shape). Control inputs that only wait for constants (a NoOp of constants) are dropped
    first. A tf.If whose condition is a constant becomes the branch it takes.

    Before:
    ```mlir
    func.func @main(%x: tensor<4x3xf32>) -> tensor<?x3xf32> {
      %0 = "tf.Relu"(%x) : (tensor<4x3xf32>) -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
    ```
    After: `%0` and the function result are `tensor<4x3xf32>`. An op whose inputs do not fit
    it (mismatched dimensions, say) is reported at its node.
  }];
}

def FoldConstantsPass : Pass<"kiln-graph-fold-constants", "mlir::func::FuncOp"> {
  let summary = "Replace tf ops whose results are known at compile time by tf.Const";
  let description = [{
    Runs each op's folder in program order: `tf.Shape`, `tf.Size` and `tf.Rank` of
    tensors with static shapes become constants, and `tf.Identity` without control inputs
    is forwarded. The folders of float arithmetic on constants (Add, AddV2, Sub, Mul,
    RealDiv, Maximum, Minimum, SquaredDifference, Pow, Neg, Abs, Square, Sqrt, Rsqrt, Exp,
    Log, Relu, Relu6, with NumPy broadcasting) compute in double and round once, so the
    statistics of a frozen batch normalisation become two constants. Folded values become
    tf.Const through the dialect's constant materializer; ops with control inputs do not
    fold. No op whose result has more than
    2^20 elements is folded (a Range of 2^31 constants, say): it is computed at run time.
    New constants keep the folded node's name as their location, so later shape
    inference (a Reshape whose shape came from Shape) sees them.

    Then a bias added just before a frozen batch normalisation, (x + b) * s + t with b, s
    and t f32 constants per channel (the last dimension; a BiasAdd in NHWC, an Add or an
    AddV2) and each intermediate used once, becomes x * s + (b * s + t), the new shift
    computed in double and rounded once: Keras writes a convolution with a bias followed
    by BatchNormalization so, and the kernels' epilogues apply a scale, then a shift.

    Before:
    ```mlir
    %s = "tf.Shape"(%x) {out_type = i32} : (tensor<2x3xf32>) -> tensor<2xi32>
    ```
    After:
    ```mlir
    %s = "tf.Const"() {dtype = i32, value = dense<[2, 3]> : tensor<2xi32>} : () -> tensor<2xi32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "ops-folded", "Number of ops folded">,
    Statistic<"numBiasesFolded", "biases-folded",
              "Number of biases folded into the shift of the batch normalisation after them">,
  ];
}

def FoldPadsPass : Pass<"kiln-graph-fold-pads", "mlir::func::FuncOp"> {
  let summary = "Make a zero tf.Pad before a convolution that convolution's own padding";
  let description = [{
    Keras writes a strided convolution's asymmetric padding as a `ZeroPadding2D` layer, a
    `tf.Pad` before a VALID convolution (MobileNetV2 has four). That Pad would be a padded
    copy of the whole input, zeros written first. A Conv2D, DepthwiseConv2dNative or
    _FusedConv2D with VALID or EXPLICIT padding whose input is a `tf.Pad` (or a `tf.PadV2`
    with the value zero) of constant, non-negative amounts on the spatial dimensions only
    reads the Pad's input instead, with EXPLICIT padding that adds those amounts; the
    convolution kernels then skip the window taps outside the input, as they do for SAME
    padding. A Pad left without uses is removed; one with control inputs is kept.

    Before:
    ```mlir
    %p = "tf.Const"() {dtype = i32, value = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi32>} : () -> tensor<4x2xi32>
    %0 = "tf.Pad"(%x, %p) : (tensor<1x8x8x4xf32>, tensor<4x2xi32>) -> tensor<1x9x9x4xf32>
    %1 = "tf.DepthwiseConv2dNative"(%0, %f) {padding = "VALID", strides = [1, 2, 2, 1]} : (tensor<1x9x9x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
    ```
    After:
    ```mlir
    %1 = "tf.DepthwiseConv2dNative"(%x, %f) {explicit_paddings = [0, 0, 0, 1, 0, 1, 0, 0], padding = "EXPLICIT", strides = [1, 2, 2, 1]} : (tensor<1x8x8x4xf32>, tensor<3x3x4x1xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numFolded", "pads-folded", "Number of convolutions that took a Pad's padding">,
  ];
}

def DecomposePass : Pass<"kiln-graph-decompose", "mlir::func::FuncOp"> {
  let summary = "Write composite ops (Einsum, grouped convolutions, list gathers) as the ops Kiln has kernels for";
  let description = [{
    A `tf.Einsum` of two inputs becomes a matrix product between transposes and reshapes:
    `tf.MatMul` when no dimension is batched (a Keras EinsumDense projection, whose
    constant kernel the GEMM then packs at compile time), `tf.BatchMatMulV2` otherwise
    (attention's scores and weighted sums). The inputs' order and `adj_x`/`adj_y` are
    chosen so that as few transposes as possible remain; labels in one input only and not
    in the output are summed first with `tf.Sum`. An Einsum of one input is a `tf.Sum` and
    a `tf.Transpose`. A label repeated in one input (a diagonal, "ii->i", "bii->bi") first
    takes that input's diagonal: a `tf.Transpose` moving the two dimensions last (none when
    they are), then `tf.MatrixDiagPart`. Inputs must have static shapes (after kiln-graph-infer-shapes); an
    Einsum that cannot be decomposed (unknown shapes, a "..."
    dimension of size 1 broadcast against a larger one) is an error at its node.

    A `tf.BatchMatMul`/`tf.BatchMatMulV2` whose second operand has no batch of its own
    (rank 2, or batch dimensions of 1) and whose first is not adjoint (`adj_x` false),
    such as Keras's `Dense` on a sequence, becomes one `tf.MatMul` of the first operand's
    rows (its batch and row dimensions flattened) with the second, reshaped back.

    A grouped `tf.Conv2D` (the filter has a proper divisor of the input's channels, as
    Keras layers compiled with XLA write depthwise convolutions: ConvNeXt) becomes a
    `tf.DepthwiseConv2dNative` with the filter reshaped to [h, w, channels, multiplier]
    when each group has one input channel, or else one `tf.Conv2D` per group between
    `tf.Split`s of the input and the filter and a `tf.ConcatV2` of the results.

    A `tf.TensorListGather` is a `tf.GatherV2` of the list's tensor on axis 0 (with its
    check that each index is in range).

    `tf.BatchToSpaceND(conv(tf.SpaceToBatchND(x)))`, TensorFlow's dilated convolution
    (tf.nn.convolution and depthwise_conv2d with a rate above 1, so Keras's dilated and
    causal layers), becomes one convolution with `dilations` the block shape and EXPLICIT
    padding the paddings less the crops, as grappler and TFLite's converter fuse it: a
    stride-1 VALID `tf.Conv2D` or `tf.DepthwiseConv2dNative` in NHWC on a block of two
    dimensions, or the 1-D form (`tf.ExpandDims` of dimension 1, `tf.Conv2D`, `tf.Squeeze`)
    on a block of one. Any other `tf.SpaceToBatchND` is a `tf.Pad`, `tf.Reshape`,
    `tf.Transpose` and `tf.Reshape`, and any other `tf.BatchToSpaceND` a `tf.Reshape`,
    `tf.Transpose`, `tf.Reshape` and `tf.Slice`; one whose shapes, block shape, paddings or
    crops are not known is an error at its node.

    First of all, the ops TensorFlow keeps under older names, its composites and the shape
    arithmetic of its gradients (dialects/TF/Ops/Aliases.cpp) become the ops they stand
    for: `tf.BiasAddV1` a `tf.BiasAdd`, `tf.Concat` a `tf.ConcatV2`, `tf.Gather` a
    `tf.GatherV2`, `tf.SpaceToBatch` a `tf.SpaceToBatchND` (which may then fuse),
    `tf.MaxPoolV2` a `tf.MaxPool`, `tf.Cross` gathers and products, `tf.L2Loss` and
    `tf.BiasAddGrad` sums, and so on. `tf.BroadcastGradientArgs`, `tf.BroadcastArgs`,
    `tf.ConcatOffset` and `tf.ShapeN` fold while shapes are inferred; one left (its shapes
    not known) is an error at its node.

    The gradient ops of training graphs (dialects/TF/Ops/Gradients.cpp) become forward
    ops too, tap by tap of their window: `tf.Conv2DBackpropFilter` and
    `tf.Conv3DBackpropFilterV2` one `tf.MatMul` per filter tap (the tap's `tf.StridedSlice`
    of the padded input against the gradient), `tf.DepthwiseConv2dNativeBackpropFilter`
    products summed; `tf.DepthwiseConv2dNativeBackpropInput`, `tf.AvgPoolGrad`,
    `tf.AvgPool3DGrad` and the `tf.MaxPoolGrad` family the gradient spread out by the
    strides (`tf.Reshape` and `tf.PadV2`) to each tap's input positions and summed, the max
    pools' selected by the index of each window's first maximum (`tf.SelectV2` chains);
    `tf.FusedBatchNormGrad` (V2, V3) reductions and products; the softmax cross-entropy
    losses `tf.Exp`, `tf.Sum`, `tf.Log` and, sparse, a `tf.GatherV2` of each label's
    logit and a `tf.OneHot`. Each needs static shapes; an error at its node otherwise.

    More composites (dialects/TF/Ops/Composites.cpp): `tf.SparseMatMul` a `tf.MatMul`,
    `tf.Conv` a `tf.Conv2D` or `tf.Conv3D`, `tf.UniqueV2` a `tf.Unique`, `tf.ApproxTopK` a
    `tf.TopKV2`, `tf._UnaryOpsComposition` its chain, `tf.ListDiff` and
    `tf.DynamicPartition` `tf.Where`s and `tf.GatherV2`s (sizes bounded afterwards by
    kiln-graph-bound-sizes), `tf.DynamicStitch` with constant indices one `tf.GatherV2` of
    the concatenated data, `tf.MirrorPadGrad` slices reversed and added, and
    `tf.StridedSliceGrad` and `tf.TensorStridedSliceUpdate` a `tf.PadV2` and `tf.GatherV2`
    per dimension putting the slice in place (and a `tf.SelectV2` into the input),
    `tf.QuantizeAndDequantizeV2`/`V3`/`V4` the scale arithmetic and `tf.Round` (or
    `tf.Floor` for HALF_UP), `tf.TridiagonalMatMul` three products.
    The first forms of the stateless random ops (a [2] seed) become
    `tf.StatelessRandomGetKeyCounter` and the V2 op, and `tf.StatelessRandomGetKeyCounterAlg`
    and `tf.StatelessRandomGetAlg` the key and counter and a constant Philox (1).

    Before:
    ```mlir
    %s = "tf.Einsum"(%k, %q) {N = 2 : i64, equation = "aecd,abcd->acbe"} : (tensor<1x6x2x4xf32>, tensor<1x5x2x4xf32>) -> tensor<1x2x5x6xf32>
    ```
    After:
    ```mlir
    %p = "tf.Const"() {dtype = i64, value = dense<[0, 2, 1, 3]> : tensor<4xi64>} : () -> tensor<4xi64>
    %0 = "tf.Transpose"(%q, %p) : (tensor<1x5x2x4xf32>, tensor<4xi64>) -> tensor<1x2x5x4xf32>
    %1 = "tf.Transpose"(%k, %p) : (tensor<1x6x2x4xf32>, tensor<4xi64>) -> tensor<1x2x6x4xf32>
    %s = "tf.BatchMatMulV2"(%0, %1) {adj_x = false, adj_y = true} : (tensor<1x2x5x4xf32>, tensor<1x2x6x4xf32>) -> tensor<1x2x5x6xf32>
    ```
  }];
  let statistics = [
    Statistic<"numAliases", "aliases-decomposed",
              "Number of older names and composites written as the ops they stand for">,
    Statistic<"numGradients", "gradients-decomposed",
              "Number of gradient ops written as forward ops">,
    Statistic<"numDecomposed", "einsums-decomposed", "Number of Einsums decomposed">,
    Statistic<"numFlattened", "products-flattened",
              "Number of batched products made one MatMul">,
    Statistic<"numGroupedConvolutions", "grouped-convolutions",
              "Number of grouped convolutions written as depthwise or per-group ones">,
    Statistic<"numDilatedConvolutions", "dilated-convolutions",
              "Number of SpaceToBatchND-convolution-BatchToSpaceND chains made one "
              "dilated convolution">,
    Statistic<"numSpaceBatch", "space-batch-decomposed",
              "Number of SpaceToBatchND and BatchToSpaceND written as data movement">,
  ];
}

def CSEPass : Pass<"kiln-graph-cse", "mlir::func::FuncOp"> {
  let summary = "Merge identical ops (common subexpression elimination)";
  let description = [{
    The paper's common subexpression elimination (section 5.1): graphs built by layers of
    abstraction often hold several copies of one computation. Ops with the same name,
    attributes (the device too), result types and operands, control inputs included and in
    the same order, compute the same values, so all but the first are removed and their
    uses take the first's results. Ops are visited in program order, so chains of copies
    merge in one pass. Placeholders (each is its own input) and ops with side effects
    (variables, random numbers, queues, I/O) are never merged; control dependencies are kept
    because ops with different control inputs differ.

    Before:
    ```mlir
    %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "tf.AddV2"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %0 = "tf.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "tf.AddV2"(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numMerged", "ops-merged", "Number of ops merged into an identical one">,
  ];
}

def SchedulePass : Pass<"kiln-graph-schedule", "mlir::func::FuncOp"> {
  let summary = "Order ops to keep the peak of live intermediate tensors low";
  let description = [{
    The paper's memory scheduling (section 5.2). Any topological order computes the same
    values, but the order decides how many intermediate tensors are alive at once, and so
    the scratch arena that kiln-lower-assign-scratch plans. The pass reorders the ops by
    greedy list scheduling: among the ops whose inputs are computed, it runs the one that
    frees the most bytes (inputs whose last reader it is) net of the bytes it creates,
    earliest in program order on ties, so one branch finishes before another starts.
    Constants (and, later, receives) run as late as their first consumer allows; ops with
    side effects keep their relative order. The new order is kept only if its peak of live
    bytes is lower.

    Before (peak: both 4 MB products alive at once):
    ```mlir
    %a = "tf.MatMul"(%x, %w) ... -> tensor<1024x1024xf32>
    %b = "tf.MatMul"(%x, %v) ... -> tensor<1024x1024xf32>
    %sa = "tf.Sum"(%a, %axes) ... -> tensor<f32>
    %sb = "tf.Sum"(%b, %axes) ... -> tensor<f32>
    ```
    After: `%a`, `%sa`, `%b`, `%sb`, so one product is alive at a time.
  }];
  let statistics = [
    Statistic<"peakBefore", "peak-bytes-before", "Peak live bytes in program order">,
    Statistic<"peakAfter", "peak-bytes-after", "Peak live bytes after scheduling">,
  ];
}

def PlacePass : Pass<"kiln-graph-place", "mlir::func::FuncOp"> {
  let summary = "Assign every op a device with the paper's greedy cost model";
  let description = [{
    The paper's placement algorithm (section 3.2.1). `devices` lists the devices to use
    (`/cpu:0`, `/device:GPU:1`, or full names `/job:J/replica:R/task:T/device:TYPE:N`).
    Constraints come first: a node's `device` attribute, possibly partial
    (`/device:GPU:*`), limits it to the devices it matches; nodes named in each other's
    `_class = ["loc:@node"]` are colocated (grouped with union-find) and share the
    intersection of their constraints; and a device must have a lowering for the op (a
    CPU has them all; a GPU takes stateless ops without regions on tensors of numbers, but
    not Where, Unique and the non-max suppressions, which are one sequential loop). A
    group no listed device can run goes to the host's CPU (`CPU:0` of the first device's
    task, which every program has), as TensorFlow's soft placement does: with
    `devices=/gpu:0` a tf.While runs on the CPU, its inputs and results crossing over. A
    group whose nodes pin a device that cannot run them is an error naming its nodes and
    their constraints.

    Then, in program (topological) order, each op goes to the feasible device where it
    would finish first in a simulated execution: it starts when the device is free and
    every input has arrived (its producer's finish time plus a transfer time from bytes and
    the link between the devices: memcpy, PCIe or network), and takes a launch cost plus
    its FLOPs (estimated from shapes) over the device's speed; with `compress-transfers`
    (kiln-graph-partition's), an f32 tensor costs half its bytes to move; control inputs
    cost nothing. A device other than the one holding the op's largest input is also
    charged for sending the op's results back there (where its consumers likely are), so a
    cheap op does not go to an idle device only to have its result cross back. Constants, and Identity ops of them (a frozen variable's read, kept for
    its control edges), go with their first user that takes them as data (a NoOp, which
    takes its inputs as control edges, only when no other user is placed): placed on their
    own, the free reads would go to an idle CPU and the weights cross to the GPU on every
    call. The chosen device, in full, is written to each op's `device` attribute.
    A tf.If, tf.Case or tf.While is placed as one op and runs whole on its device: the ops
    of its regions take that device, whatever their own attributes said (the paper's
    alternative, a loop body partitioned with Send/Recv inside the frame, is not done), so
    only the loop's inputs and results cross devices.

    Before:
    ```mlir
    %0 = "tf.MatMul"(%a, %b) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    %1 = "tf.MatMul"(%c, %d) : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
    ```
    After (`devices=/cpu:0,/cpu:1`): the two independent products run on different CPUs.
    ```mlir
    %0 = "tf.MatMul"(%a, %b) {device = "/job:localhost/replica:0/task:0/device:CPU:0"} ...
    %1 = "tf.MatMul"(%c, %d) {device = "/job:localhost/replica:0/task:0/device:CPU:1"} ...
    ```
  }];
  let options = [
    ListOption<"devices", "devices", "std::string",
               "Devices to place ops on (none: the pass does nothing)">,
    Option<"compressTransfers", "compress-transfers", "bool", /*default=*/"false",
           "f32 tensors cross devices as their upper 16 bits: half the bytes to move">,
  ];
  let statistics = [
    Statistic<"numSoftPlaced", "soft-placed",
              "Ops no listed device can run, placed on the host's CPU">,
  ];
}

def PartitionPass : Pass<"kiln-graph-partition", "mlir::func::FuncOp"> {
  let summary = "Turn every edge between devices into a _Send/_Recv pair";
  let description = [{
    The paper's partitioning (section 3.2.2), after kiln-graph-place. Each tensor an op on
    one device produces for ops on another is sent once per destination device: a
    `tf._Send` right after the producer, on its device, and one `tf._Recv` on the
    destination device, right before the first consumer there (as late as its consumers allow:
    the paper's ALAP rule for receives), which every consumer on that device then reads. The pair shares a `tensor_name` ("node:port;destination device").
    Constants are copied to each device that uses them instead of sent. A tensor an op on
    another device takes as a control input (`^node`: the operands after its data inputs,
    all of a NoOp's) is not sent: that control input is dropped. Control edges between
    devices carry no data and order ops on their own device only (control tokens are left
    for kiln-graph-outline-partitions, which drops them).

    Before (`%0` on CPU 0, `%1` on CPU 1):
    ```mlir
    %0 = "tf.Relu"(%x) {device = ".../device:CPU:0"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "tf.Tanh"(%0) {device = ".../device:CPU:1"} : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %0 = "tf.Relu"(%x) {device = ".../device:CPU:0"} : (tensor<4xf32>) -> tensor<4xf32>
    "tf._Send"(%0) {device = ".../device:CPU:0", tensor_name = "...", ...} : (tensor<4xf32>) -> ()
    %r = "tf._Recv"() {device = ".../device:CPU:1", tensor_name = "...", ...} : () -> tensor<4xf32>
    %1 = "tf.Tanh"(%r) {device = ".../device:CPU:1"} : (tensor<4xf32>) -> tensor<4xf32>
    ```

    With `compress-transfers` (the paper's lossy compression, section 5.5), every f32 pair
    is marked `kiln.compressed`: its tensor crosses as the upper 16 bits of each value
    (bfloat16 by truncation; a NaN stays a NaN), and the receiver fills the lower 16 with
    zeros. The relative error of each value is below 2^-7; other types cross whole.
  }];
  let options = [
    Option<"compressTransfers", "compress-transfers", "bool", /*default=*/"false",
           "Send f32 tensors as their upper 16 bits (kiln.compressed)">,
  ];
  let statistics = [
    Statistic<"numRecvs", "recvs", "Number of _Send/_Recv pairs inserted">,
  ];
}

def OutlinePartitionsPass : Pass<"kiln-graph-outline-partitions", "mlir::ModuleOp"> {
  let summary = "Make each device's ops a function of its own, run by a kiln.partition";
  let description = [{
    After kiln-graph-partition, a function whose ops are on two or more devices becomes one
    function per device (named after the function and the device: `@main.cpu1`; in the
    order of the device names), holding that device's ops in their order, with the `tf._Send`/`tf._Recv` pairs that now join
    them. The original function keeps its signature and calls each partition with a
    `kiln.partition` op, which passes the inputs the partition reads and returns the
    outputs it computes. The partitions of a function run concurrently (each on a thread of
    its own on the CPU), so a partition may receive from one it has sent to.

    Control edges between devices carry no data; since every op that crosses devices today
    is free of side effects, they are dropped (within a device they stay). Functions on one
    device, or with ops that have no device, are left alone.

    After:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      kiln.partition @main.cpu0(%x) on ".../device:CPU:0" : (tensor<4xf32>) -> ()
      %0 = kiln.partition @main.cpu1() on ".../device:CPU:1" : () -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    func.func private @main.cpu0(%x: tensor<4xf32>) {
      %0 = "tf.Relu"(%x) ...
      "tf._Send"(%0) {tensor_name = "Relu:0;..."} ...
      return
    }
    func.func private @main.cpu1() -> tensor<4xf32> {
      %r = "tf._Recv"() {tensor_name = "Relu:0;..."} ...
      %1 = "tf.Tanh"(%r) ...
      return %1 : tensor<4xf32>
    }
    ```
  }];
  let dependentDialects = ["kiln::dialect::KilnDialect"];
  let statistics = [
    Statistic<"numPartitions", "partitions", "Number of partition functions made">,
  ];
}

#endif // KILN_PASSES_GRAPH_PASSES_TD
