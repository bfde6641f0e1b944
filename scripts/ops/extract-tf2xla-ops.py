#!/usr/bin/env python3
"""Writes the reference list of TensorFlow ops that tf2xla registers for the CPU JIT device.

Asks the installed TensorFlow (the version Kiln's tests are generated with, 2.21) for the
kernels of its XLA_CPU_JIT device: tf2xla registers them when XLA first compiles a
function, so the script runs one tiny jit_compile=True function, then reads the kernel
registry. It writes docs/ops/tf2xla-ops.tsv: a header of '#' lines (TensorFlow's version
and git version, the command, counts), a row of column names, then one row per op, sorted:

  op  family  scope  reason  tf_dtypes

scope is "in" or "out" of what Kiln means to compile; reason says why an op is out.
tf_dtypes lists the dtypes the XLA_CPU_JIT kernel allows for the op's main type attribute,
in Kiln's names (see DTYPE_NAMES), in a fixed order:
  - the main type attribute is the wider (the one allowing more dtypes) of the type
    attributes of the op's first output and of its first input, a tie going to the
    output's; attributes that type no argument (element_dtype, the type of a TensorList's
    items) compete too, after those two. When neither the first output nor the first input
    has a type attribute and every attribute types an argument (ResourceApplyAdam), the
    widest of the kernel's type attributes (type list attributes only if there is no other).
    So Shape and ArgMax give their input's T (not the int32/int64 out_type), Fill and OneHot
    their output's T (not the index input's), RandomUniform and StatefulUniform their
    dtype, TensorListReserve its element_dtype, Cast its DstT;
  - an op whose kernel has no type constraint (its OpDef fixes every type: LogicalAnd,
    FakeQuantWithMinMaxArgs) gives the fixed dtype of its first output, else of its first
    input: LogicalAnd "bool";
  - "-" when it has neither (NoOp, ControlTrigger).

  PYTHON scripts/ops/extract-tf2xla-ops.py [-o OUT]

PYTHON is a Python with TensorFlow 2.21 (e.g. /tmp/tf/bin/python); only regenerating the
list needs it.

The tables below classify the ops: FAMILY_OVERRIDES and FAMILY_RULES give the family,
OUT_OF_SCOPE the ops Kiln leaves out (complex numbers beyond FFTs, sparse tensors, XLA- and
TPU-internal ops, ops of the TensorFlow runtime), each with its reason; every other op is
in scope, training and random ops included. An op no rule matches gets the family "other"
and is named on stderr. Rerunning with the same TensorFlow rewrites the file byte for byte.
"""

import argparse
import os
import re
import sys
from pathlib import Path

DEVICE = "XLA_CPU_JIT"
DEFAULT_OUTPUT = Path(__file__).resolve().parents[2] / "docs/ops/tf2xla-ops.tsv"

# TensorFlow's dtype names (DType.name) -> Kiln's, in the order tf_dtypes lists them: Kiln's
# element types first, then the rest. A dtype missing here keeps TensorFlow's name, after these.
DTYPE_NAMES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "bool",
    "complex64": "c64", "complex128": "c128",
    "float8_e5m2": "f8e5m2", "float8_e5m2fnuz": "f8e5m2fnuz", "float8_e4m3fn": "f8e4m3fn",
    "float8_e4m3fnuz": "f8e4m3fnuz", "float8_e4m3b11fnuz": "f8e4m3b11fnuz",
    "int4": "i4", "uint4": "u4", "int2": "i2", "uint2": "u2",
    "qint8": "qint8", "quint8": "quint8", "qint16": "qint16", "quint16": "quint16",
    "qint32": "qint32", "string": "string", "resource": "resource", "variant": "variant",
}
DTYPE_ORDER = {name: i for i, name in enumerate(DTYPE_NAMES)}

# Each op's family is that of the first rule whose regex matches all of its name (any
# "Namespace>" prefix, as in "Addons>Resampler", dropped), after FAMILY_OVERRIDES:
#   tpu-xla-internal  XLA's and TPU's own ops: Xla*, _XLA*, sharding, XLA-only placeholders
#   runtime         ops of the TensorFlow runtime: function plumbing, collectives
#   complex         complex numbers outside FFT
#   sparse          SparseTensor ops
#   list            TensorLists, TensorArrays, stacks
#   variable        resource variables
#   graph           constants, identities, placeholders, checks and assertions
#   training        gradient ops, losses, optimizer updates
#   random          random numbers, stateful and stateless
#   fft             FFTs
#   quantization    quantizing, dequantizing, fake quantization, quantized arithmetic
#   control-flow    functional control flow and calls
#   normalization   batch and local response normalization
#   convolution     convolutions (transposed ones included)
#   pooling         pooling
#   image           resizing, colour, patches, resampling, non-max suppression
#   activation      activations and softmax
#   linear-algebra  products, decompositions, solves, diagonals and bands
#   data-dependent  ops whose result shape depends on the input values
#   segment         segment reductions and counting
#   sort            top-k, sorted search, bucketing
#   reduction       reductions and scans
#   scatter-gather  gathers, scatters, one-hot, stitching
#   slicing         slices, splits, reversals, rolls, unstacking
#   shape           shape queries, reshaping, padding, concatenation, tiling, layout moves
#   comparison      comparisons, predicates, logic, selection, bit operations
#   elementwise     arithmetic and math functions, casts, fused chains of them
#   other           none of the above (reported on stderr: a new rule is due)
# tf2xla registers no string, queue, reader or Tpu* op, so no rule looks for them.
FAMILY_OVERRIDES = {
    # Transposed convolutions (Conv2DTranspose and the like) of inference graphs.
    "Conv2DBackpropInput": "convolution",
    "Conv3DBackpropInputV2": "convolution",
    "DepthwiseConv2dNativeBackpropInput": "convolution",
    # "Sparse" in these names is about the data, not SparseTensors: the operands are dense.
    "SparseMatMul": "linear-algebra",
    "SparseSoftmaxCrossEntropyWithLogits": "training",
    # Dense indices, values and output shape: a scatter into a dense tensor of default values
    # (tf.sparse.to_dense writes it, and so do models that build a mask from computed indices).
    "SparseToDense": "scatter-gather",
}

FAMILY_RULES = [
    ("tpu-xla-internal", [r"_?XLA\w*", r"\w*Xla\w*", r"FakeParam"]),
    ("runtime", [r"_Arg", r"_Retval", r"_ArrayToList", r"_ListToArray", r"Collective\w*"]),
    ("complex", [r"Complex", r"ComplexAbs", r"Real", r"Imag", r"Angle", r"Conj"]),
    ("sparse", [r"Sparse\w*"]),
    ("list", [r"TensorList\w*", r"EmptyTensorList", r"TensorArray\w*",
              r"Stack(Push|Pop|Close)?V2"]),
    ("variable", [r"VarIsInitializedOp", r"\w*VariableOp", r"VariableShape",
                  r"Resource(Gather|Scatter)\w*", r"ResourceStridedSliceAssign"]),
    ("graph", [r"Const", r"_EagerConst", r"Identity(N)?", r"NoOp", r"(Stop|Prevent)Gradient",
               r"Snapshot", r"PlaceholderWithDefault", r"Assert", r"CheckNumerics",
               r"EnsureShape"]),
    ("training", [r"\w*Grad(Grad)?(V\d)?", r"IgammaGradA", r"\w*Backprop\w*",
                  r"\w*Gradient(Args)?", r"ResourceApply\w*", r"L2Loss",
                  r"SoftmaxCrossEntropyWithLogits"]),
    ("control-flow", [r"(Stateless)?(If|Case|While)", r"(Stateful)?PartitionedCall",
                      r"ControlTrigger", r"ToBool", r"DeviceIndex"]),
    ("random", [r"\w*Random\w*", r"(Stateless)?Multinomial", r"\w*TruncatedNormal\w*",
                r"Stateful(Uniform\w*|StandardNormalV2)", r"Rng\w*", r"StochasticCast\w*"]),
    ("fft", [r"I?R?FFT(2D|3D)?"]),
    ("quantization", [r"\w*[Qq]uantiz\w*", r"FakeQuant\w*"]),
    ("normalization", [r"_?FusedBatchNorm\w*", r"LRN"]),
    ("convolution", [r"Conv(2D|3D)?", r"_FusedConv2D", r"DepthwiseConv2dNative"]),
    ("pooling", [r"(Max|Avg)Pool(3D|V2)?"]),
    ("image", [r"Resize\w*", r"Adjust\w*", r"HSVToRGB", r"RGBToHSV", r"ExtractImagePatches",
               r"NonMaxSuppression\w*", r"Resampler"]),
    ("activation", [r"Relu6?", r"Elu", r"Selu", r"LeakyRelu", r"Sigmoid", r"Tanh", r"Softplus",
                    r"Softsign", r"(Log)?Softmax"]),
    ("linear-algebra", [r"\w*MatMul\w*", r"Einsum", r"BiasAdd(V1)?", r"Cholesky", r"Qr", r"Svd",
                        r"SelfAdjointEigV2", r"Matrix\w*", r"Tridiagonal\w*", r"Cross",
                        r"Diag(Part)?"]),
    ("data-dependent", [r"Where", r"Unique(V2)?", r"ListDiff", r"DynamicPartition"]),
    ("segment", [r"(Unsorted)?Segment\w*", r"(Dense)?Bincount"]),
    ("sort", [r"(Approx|In)?TopK(V2)?", r"LowerBound", r"UpperBound", r"Bucketize"]),
    ("reduction", [r"Sum", r"Mean", r"Max", r"Min", r"Prod", r"All", r"Any", r"Arg(Max|Min)",
                   r"Cum(sum|prod)", r"CumulativeLogsumexp"]),
    ("scatter-gather", [r"Gather(V2|Nd)?", r"ScatterNd", r"TensorScatter\w*", r"OneHot",
                        r"(Parallel)?DynamicStitch"]),
    ("slicing", [r"Slice", r"StridedSlice", r"TensorStridedSliceUpdate", r"SplitV?",
                 r"Reverse(V2|Sequence)?", r"Roll", r"Unpack"]),
    ("shape", [r"ShapeN?", r"Size", r"Rank", r"Reshape", r"Squeeze", r"ExpandDims",
               r"(Conjugate)?Transpose", r"(Mirror)?Pad(V2)?", r"Concat(V2|Offset)?", r"Pack",
               r"Tile", r"Fill", r"Broadcast(To|Args)", r"Range", r"LinSpace",
               r"(Zeros|Ones)Like", r"Empty", r"InvertPermutation", r"DataFormat\w*",
               r"(SpaceToBatch|BatchToSpace)(ND)?", r"SpaceToDepth", r"DepthToSpace"]),
    ("comparison", [r"(Not)?Equal", r"(Less|Greater)(Equal)?", r"ApproximateEqual",
                    r"Logical(And|Or|Not)", r"Select(V2)?", r"Bitwise(And|Or|Xor)", r"Invert",
                    r"(Left|Right)Shift", r"PopulationCount", r"Is(Finite|Inf|Nan)"]),
    ("elementwise", [r"Add(N|V2)?", r"Sub", r"Mul(NoNan)?", r"(Real|Truncate|Floor)?Div",
                     r"DivNoNan", r"(Floor|Truncate)?Mod", r"Maximum", r"Minimum", r"Pow",
                     r"Square", r"SquaredDifference", r"Sqrt", r"Rsqrt", r"Exp", r"Expm1",
                     r"Log(1p)?", r"Neg", r"Abs", r"Floor", r"Ceil", r"Round", r"Rint", r"Sign",
                     r"Erf(c|inv)?", r"Ndtri", r"(Sin|Cos|Tan)h?", r"A(sin|cos|tan)h?", r"Atan2",
                     r"Reciprocal", r"Inv", r"Lgamma", r"Digamma", r"Igammac?", r"Betainc",
                     r"Zeta", r"Polygamma", r"Xlogy", r"Xlog1py", r"Xdivy", r"NextAfter",
                     r"BesselI[01]e", r"ClipByValue", r"Cast", r"Bitcast",
                     r"_UnaryOpsComposition"]),
]

# (family, op regex, reason): the ops Kiln leaves out; the first match gives the reason.
OUT_OF_SCOPE = [
    ("complex", r".*", "complex numbers are out of scope except in FFTs"),
    ("sparse", r".*", "sparse tensors are out of scope"),
    ("tpu-xla-internal", r"XlaCallModule",
     "XLA-internal: runs a serialized StableHLO module (what jax2tf exports)"),
    ("tpu-xla-internal", r"FakeParam",
     "shape-only placeholder that while_v2 gradients write only inside XLA clusters"),
    ("tpu-xla-internal", r".*",
     "XLA- or TPU-internal: XLA operations, sharding and host transfers, for XLA/TPU tooling"),
    ("runtime", r"_Arg|_Retval",
     "argument or result node of an instantiated function inside the TensorFlow runtime"),
    ("runtime", r"_ArrayToList|_ListToArray",
     "pass-through of the TensorFlow runtime's function instantiation"),
    ("runtime", r"Collective\w*",
     "collective across the devices or workers of the TensorFlow runtime"),
]


def classify(op):
    """Returns (family, scope, reason) of `op`."""
    base = op.rpartition(">")[2]
    family = FAMILY_OVERRIDES.get(op) or next(
        (f for f, patterns in FAMILY_RULES if re.fullmatch("|".join(patterns), base)), "other")
    reason = next((r for f, pattern, r in OUT_OF_SCOPE
                   if f == family and re.fullmatch(pattern, base)), "")
    return family, "out" if reason else "in", reason


def dtype_list(names):
    """Returns TensorFlow dtype `names` in Kiln's names, in DTYPE_NAMES' order, space-separated."""
    ordered = sorted(set(names), key=lambda n: (DTYPE_ORDER.get(n, len(DTYPE_ORDER)), n))
    return " ".join(DTYPE_NAMES.get(name, name) for name in ordered) or "-"


def main_dtypes(constraints, op_def, dtype_name):
    """Returns the TensorFlow dtype names of the op's main type attribute (see the docstring).

    `constraints` maps each constrained attribute to its set of DataType enums; `op_def` is
    the op's OpDef; `dtype_name` maps a DataType enum to its name."""
    outputs, inputs = list(op_def.output_arg), list(op_def.input_arg)
    if not constraints:
        fixed = [arg.type for arg in outputs[:1] + inputs[:1] if arg.type]
        return [dtype_name(fixed[0])] if fixed else []
    used = {arg.type_attr or arg.type_list_attr for arg in outputs + inputs}
    order = []
    for attr in [(args[0].type_attr or args[0].type_list_attr) if args else ""
                 for args in (outputs, inputs)] + sorted(set(constraints) - used):
        if attr in constraints and attr not in order:
            order.append(attr)
    if not order:  # the first output and input have fixed types: the widest other attribute
        lists = {attr.name for attr in op_def.attr if attr.type == "list(type)"}
        order = sorted(set(constraints) - lists) or sorted(constraints)
    best = max(order, key=lambda attr: (len(constraints[attr]), -order.index(attr)))
    return [dtype_name(t) for t in constraints[best]]


def registered_ops():
    """Returns ({op: tf_dtypes}, number of kernels, tf version, tf git version)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from tensorflow.python.framework import dtypes, kernels, op_def_registry

    @tf.function(jit_compile=True)
    def add_one(x):
        return x + 1

    add_one(tf.constant(1.0))  # compiles with XLA, which registers the XLA_*_JIT kernels
    kernel_defs = [k for k in kernels.get_all_registered_kernels().kernel
                   if k.device_type == DEVICE]
    if not kernel_defs:
        raise SystemExit(f"TensorFlow {tf.__version__} registered no {DEVICE} kernel")
    constraints = {}
    for kernel in kernel_defs:
        attrs = constraints.setdefault(kernel.op, {})
        for constraint in kernel.constraint:
            attrs.setdefault(constraint.name, set()).update(constraint.allowed_values.list.type)
    ops = {}
    for op, attrs in constraints.items():
        op_def = op_def_registry.get(op)
        if op_def is None:
            raise SystemExit(f"{op}: TensorFlow has a {DEVICE} kernel but no OpDef")
        ops[op] = dtype_list(main_dtypes(attrs, op_def, lambda t: dtypes.as_dtype(t).name))
    return ops, len(kernel_defs), tf.__version__, tf.version.GIT_VERSION


def wrap_comment(title, words, width=100):
    """Returns '#' lines: `title`, then `words` wrapped at `width` columns."""
    lines, line = [], "#  "
    for word in words:
        if len(line) + 1 + len(word) > width:
            lines.append(line)
            line = "#  "
        line += " " + word
    return ["# " + title] + lines + [line.rstrip(",")]


def main():
    parser = argparse.ArgumentParser(
        description="Writes the TensorFlow ops that tf2xla registers for CPU, classified "
                    "(run with a Python that has TensorFlow).")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT,
                        help="file to write (default: docs/ops/tf2xla-ops.tsv)")
    args = parser.parse_args()

    ops, num_kernels, version, git_version = registered_ops()
    rows = [(op, *classify(op), ops[op]) for op in sorted(ops)]

    command = "PYTHON scripts/ops/extract-tf2xla-ops.py"
    if args.output.resolve() != DEFAULT_OUTPUT:
        command += f" -o {args.output}"
    scopes = {scope: sum(row[2] == scope for row in rows) for scope in ("in", "out")}
    families = sorted({row[1] for row in rows})
    header = [
        f"# TensorFlow ops that tf2xla registers for the CPU JIT device ({DEVICE}), with",
        "# their family, whether Kiln means to compile them (scope; reason when out) and the",
        "# dtypes the kernel allows for the op's main type attribute (tf_dtypes, Kiln's names).",
        "# Made by scripts/ops/extract-tf2xla-ops.py (its docstring has the rules): change them,",
        "# then rerun it.",
        f"# TensorFlow: {version}",
        f"# TensorFlow git version: {git_version}",
        f"# command: {command}  (PYTHON: a Python with tensorflow=={version})",
        f"# {DEVICE} kernels: {num_kernels}, of {len(rows)} ops",
        f"# ops: {len(rows)} ({scopes['in']} in, {scopes['out']} out)",
    ]
    header += wrap_comment("families:", [f"{family} {sum(row[1] == family for row in rows)},"
                                         for family in families])
    others = [row[0] for row in rows if row[1] == "other"]
    if others:
        print("no family rule matches: " + " ".join(others), file=sys.stderr)

    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as out:
        out.writelines(line + "\n" for line in header)
        out.write("op\tfamily\tscope\treason\ttf_dtypes\n")
        out.writelines("\t".join(row) + "\n" for row in rows)
    print(f"{args.output}: {len(rows)} ops, {scopes['in']} in, {scopes['out']} out",
          file=sys.stderr)


if __name__ == "__main__":
    main()
