#!/usr/bin/env python3
"""Writes Kiln's Keras 3 layer suite: one small model per layer configuration, with
TensorFlow's answers, and two lit tests per model.

Each case is a Keras functional model of one layer (with what it needs beside it: a second
input, a mask) at batch 2 and a few channels, its float weights seeded random values (biases,
batch-norm moving means and positive moving variances included, so that none is a trivial 0
or 1). Everything about a case lives in its folder, <out>/<family>/<case>/:

  frozen.pb          the model frozen as users freeze Keras models in TensorFlow 2: a
                     tf.function of model(x, training=False), its concrete function for
                     fixed-shape TensorSpecs named after the inputs (which become the graph's
                     Placeholders), convert_variables_to_constants_v2_as_graph with its
                     defaults (control flow lowered to TensorFlow 1's), binary: the GraphDef
                     it returns, as grappler and the conversion left it (dead nodes
                     included), not its function's graph, which re-lifts that GraphDef and,
                     for a loop, comes out differently from run to run (the order of a
                     Python set of ops)
  saved_model/       the same model exported by Keras 3's model.export() with the same fixed
                     input signature (inputs by name, outputs output_0, output_1 ...), as
                     Keras writes it less fingerprint.pb (a random UUID in every export;
                     Kiln does not read it) and the empty assets/ (which git cannot hold)
  <input>.npy        seeded inputs
  output_<i>.npy     the outputs TensorFlow computes for them by running frozen.pb in a
                     Session, checked against the exported SavedModel's serving_default
                     signature loaded by TensorFlow; an output equal to an input (the identity
                     layers) is not written twice: the tests compare with the input's file
  frozen.test        lit: compiles frozen.pb with Kiln (--feed, --fetch), runs it on the
                     inputs and compares its outputs with TensorFlow's
  saved_model.test   lit: the same for saved_model/

Two tests per case, so that each form passes or fails on its own and lit runs them all in
parallel. A form Kiln cannot compile or run yet is marked `XFAIL: *` in its test, with the
reason on the line above, both from the XFAILS table below. lit counts an XFAIL test that
passes (XPASS) as a failure, so the table must shrink as ops land: take the case out (or
the form that now passes) and rerun this script for that case (--case; it rewrites the data
as they were, so deleting the two lines from the test by hand comes to the same). An XFAIL
is for what Kiln lacks, never for a wrong answer: a case that compiles and computes the
wrong numbers stays a failing test until it is fixed (or is listed with a reason that says
so).

The families: core, convolution, pooling, normalization, activations (every function of
keras.activations this Keras has, and variants of their parameters), activation_layers,
attention, reshaping, merging, recurrent, preprocessing (the layers that compute in the
graph), regularization (identities at inference). Left out: Hashing (it hashes integers'
decimal strings), the lookup and text layers (tables and strings), the random augmentation
layers, stateful recurrent layers (they write variables), the Lambda and wrapper layers of
other frameworks.

The files are a function of the case and the versions of TensorFlow and Keras alone:

- each case is written by a fresh Python process (TensorFlow names functions and layers by
  process-wide counters), the SavedModel before the frozen graph (freezing a loop takes a
  varying number of those names);
- the sets by object identity in which TensorFlow collects the variables a function reads
  iterate in the order of insertion rather than of memory addresses (which ordered a
  SavedModel's variables, and a frozen graph's Placeholders, differently from run to run);
- the frozen graph is the one TensorFlow converted, not one lifted again (see frozen.pb);
- TensorFlow runs on one thread.

Rerunning the script rewrites every file byte for byte, a case alone (--case) as in a full
run; a full run removes the folders of cases that no longer exist. On another CPU the
expected outputs may differ in their last bits: TensorFlow's oneDNN kernels, which it uses by
default and which alone run Conv1DTranspose with a dilation on the CPU, choose their code by
the CPU.

The suite runs with the others (check-kiln), or alone: lit -sv build/test/keras, or one
test: lit -v build/test/keras/recurrent/lstm/saved_model.test.

TensorFlow is needed only to regenerate these files, never to run the tests:

    python3 -m venv /tmp/tf && /tmp/tf/bin/pip install tensorflow-cpu==2.21.0 keras==3.15.1
    /tmp/tf/bin/python test/keras/make_keras_tests.py [--out DIR] [--family NAME]...
        [--case FAMILY/CASE]... [--jobs N]
"""
import argparse
import concurrent.futures
import functools
import multiprocessing
import os
import shutil
import traceback
import zlib

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2_as_graph)
from tensorflow.python.util import object_identity  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
L = keras.layers
TOL = (1e-5, 1e-5)  # rtol, atol of every comparison
KILN_DTYPE = {"float32": "f32", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "bool"}
FORMS = ("frozen", "saved_model")


class _InsertionOrderedSet(dict):
    """A set (of object identity wrappers) that iterates in the order of insertion."""

    def __init__(self, items=()):
        super().__init__((item, None) for item in items)

    def add(self, item):
        self[item] = None

    def discard(self, item):
        self.pop(item, None)

    def update(self, items):
        for item in items:
            self[item] = None

    def intersection(self, items):
        items = set(items)
        return _InsertionOrderedSet(item for item in self if item in items)

    def difference(self, items):
        items = set(items)
        return _InsertionOrderedSet(item for item in self if item not in items)


def _ordered_identity_set_init(self, *args):
    self._storage = _InsertionOrderedSet(self._wrap_key(obj) for obj in list(*args))


# TensorFlow keeps the variables a tf.function reads in a set by object identity, which
# iterates in the order of their addresses in memory: the order of the variables in an
# exported SavedModel (its graph's VarHandleOps, its checkpoint) would change from run to
# run. Iterated in the order they were first read, they come out the same every time.
object_identity.ObjectIdentitySet.__init__ = _ordered_identity_set_init


class Spec:
    """A model input: its name, shape (batch first), dtype and how its values are drawn."""

    def __init__(self, name, shape, dtype, draw):
        self.name, self.shape, self.dtype, self.draw = name, shape, dtype, draw

    def keras_input(self):
        return keras.Input(self.shape[1:], batch_size=self.shape[0], dtype=self.dtype,
                           name=self.name)

    def tensor_spec(self):
        return tf.TensorSpec(self.shape, self.dtype, name=self.name)


def floats(name, shape, scale=1.0):
    return Spec(name, shape, "float32",
                lambda rng: (rng.standard_normal(shape) * scale).astype(np.float32))


def ints(name, shape, high, dtype="int32"):
    return Spec(name, shape, dtype, lambda rng: rng.integers(0, high, shape).astype(dtype))


def bools(name, shape):
    return Spec(name, shape, "bool", lambda rng: rng.random(shape) < 0.75)


def zeroed_steps(name, shape):
    """Floats with every third time step (axis 1) all zeros, for Masking."""
    def draw(rng):
        value = rng.standard_normal(shape).astype(np.float32)
        value[:, ::3] = 0
        return value
    return Spec(name, shape, "float32", draw)


class Make:
    """A layer's constructor call, to build the layer in the model and to describe it."""

    def __init__(self, cls, *args, **kwargs):
        self.cls, self.args, self.kwargs = cls, args, kwargs

    def __call__(self):
        return self.cls(*(a() if isinstance(a, Make) else a for a in self.args), **self.kwargs)

    def __repr__(self):
        return "%s(%s)" % (self.cls.__name__, ", ".join(
            [repr(a) for a in self.args] + ["%s=%r" % kv for kv in self.kwargs.items()]))


class Case:
    """One model: its name, what it computes (a line of the .test), its inputs and the
    function from their Keras tensors to its outputs."""

    def __init__(self, name, doc, inputs, build):
        self.name, self.doc, self.inputs, self.build = name, doc, inputs, build


def one(name, make, *inputs):
    """A case of one layer applied to its input, or to the list of its inputs."""
    def build(*tensors):
        return make()(tensors[0] if len(tensors) == 1 else list(tensors))
    return Case(name, repr(make), list(inputs), build)


def core():
    x, x3 = floats("x", (2, 6)), floats("x", (2, 3, 6))
    return [
        one("dense", Make(L.Dense, 4), x),
        one("dense_relu", Make(L.Dense, 4, activation="relu"), x),
        one("dense_no_bias", Make(L.Dense, 4, use_bias=False), x),
        one("dense_3d", Make(L.Dense, 4), x3),
        one("einsum_dense", Make(L.EinsumDense, "ab,bc->ac", output_shape=4, bias_axes="c"),
            x),
        one("einsum_dense_3d", Make(L.EinsumDense, "abc,cde->abde", output_shape=(3, 2, 4),
                                    bias_axes="de"), x3),
        one("embedding", Make(L.Embedding, 10, 4), ints("ids", (2, 5), 10)),
        one("embedding_int64", Make(L.Embedding, 10, 4),
            ints("ids", (2, 5), 10, dtype="int64")),
        one("identity", Make(L.Identity), x3),
        one("masking", Make(L.Masking, mask_value=0.0), zeroed_steps("x", (2, 6, 3))),
    ]


def convolution():
    x1, x1g = floats("x", (2, 10, 3)), floats("x", (2, 10, 4))
    x2, x2g = floats("x", (2, 8, 8, 3)), floats("x", (2, 8, 8, 4))
    x3, x3g = floats("x", (2, 6, 6, 6, 2)), floats("x", (2, 6, 6, 6, 4))
    return [
        one("conv1d", Make(L.Conv1D, 4, 3), x1),
        one("conv1d_same_strides", Make(L.Conv1D, 4, 3, strides=2, padding="same"), x1),
        one("conv1d_dilation", Make(L.Conv1D, 4, 3, dilation_rate=2, padding="same"), x1),
        one("conv1d_causal", Make(L.Conv1D, 4, 3, padding="causal"), x1),
        one("conv1d_causal_dilation", Make(L.Conv1D, 4, 3, padding="causal", dilation_rate=2),
            x1),
        one("conv1d_groups", Make(L.Conv1D, 6, 3, groups=2), x1g),
        one("conv2d", Make(L.Conv2D, 4, 3), x2),
        one("conv2d_1x1", Make(L.Conv2D, 5, 1), x2),
        one("conv2d_same_strides", Make(L.Conv2D, 4, 3, strides=2, padding="same"), x2),
        one("conv2d_valid_strides", Make(L.Conv2D, 4, (3, 2), strides=(2, 1)), x2),
        one("conv2d_dilation", Make(L.Conv2D, 4, 3, dilation_rate=2, padding="same"), x2),
        one("conv2d_groups", Make(L.Conv2D, 6, 3, groups=2, padding="same"), x2g),
        one("conv2d_groups_depthwise", Make(L.Conv2D, 4, 3, groups=4), x2g),
        one("conv3d", Make(L.Conv3D, 3, 3), x3),
        one("conv3d_same_strides", Make(L.Conv3D, 3, 3, strides=2, padding="same"), x3),
        one("conv3d_dilation", Make(L.Conv3D, 3, 2, dilation_rate=2), x3),
        one("conv3d_groups", Make(L.Conv3D, 4, 3, groups=2, padding="same"), x3g),
        one("conv1d_transpose", Make(L.Conv1DTranspose, 4, 3), x1),
        one("conv1d_transpose_same_strides",
            Make(L.Conv1DTranspose, 4, 3, strides=2, padding="same"), x1),
        one("conv1d_transpose_dilation", Make(L.Conv1DTranspose, 4, 3, dilation_rate=2), x1),
        one("conv2d_transpose", Make(L.Conv2DTranspose, 4, 3), x2),
        one("conv2d_transpose_same_strides",
            Make(L.Conv2DTranspose, 4, 3, strides=2, padding="same"), x2),
        one("conv2d_transpose_valid_strides", Make(L.Conv2DTranspose, 4, 3, strides=2), x2),
        one("conv2d_transpose_output_padding",
            Make(L.Conv2DTranspose, 4, 3, strides=2, output_padding=1), x2),
        one("conv2d_transpose_dilation", Make(L.Conv2DTranspose, 4, 3, dilation_rate=2), x2),
        one("conv3d_transpose", Make(L.Conv3DTranspose, 3, 3), x3),
        one("conv3d_transpose_same_strides",
            Make(L.Conv3DTranspose, 3, 3, strides=2, padding="same"), x3),
        one("separable_conv1d", Make(L.SeparableConv1D, 4, 3), x1),
        one("separable_conv1d_same_strides_multiplier",
            Make(L.SeparableConv1D, 4, 3, strides=2, padding="same", depth_multiplier=2), x1),
        one("separable_conv2d", Make(L.SeparableConv2D, 4, 3), x2),
        one("separable_conv2d_same_strides_multiplier",
            Make(L.SeparableConv2D, 4, 3, strides=2, padding="same", depth_multiplier=2), x2),
        one("separable_conv2d_dilation",
            Make(L.SeparableConv2D, 4, 3, dilation_rate=2, padding="same"), x2),
        one("depthwise_conv1d", Make(L.DepthwiseConv1D, 3), x1),
        one("depthwise_conv1d_same_strides_multiplier",
            Make(L.DepthwiseConv1D, 3, strides=2, padding="same", depth_multiplier=2), x1),
        one("depthwise_conv1d_dilation", Make(L.DepthwiseConv1D, 3, dilation_rate=2), x1),
        one("depthwise_conv2d", Make(L.DepthwiseConv2D, 3), x2),
        one("depthwise_conv2d_same_strides_multiplier",
            Make(L.DepthwiseConv2D, 3, strides=2, padding="same", depth_multiplier=2), x2),
        one("depthwise_conv2d_dilation",
            Make(L.DepthwiseConv2D, 3, dilation_rate=2, padding="same"), x2),
    ]


def pooling():
    x1, x2, x3 = floats("x", (2, 9, 3)), floats("x", (2, 7, 7, 3)), floats("x", (2, 5, 5, 5, 2))
    cases = []
    for kind in ("Max", "Average"):
        prefix = "max" if kind == "Max" else "average"
        for rank, x in ((1, x1), (2, x2), (3, x3)):
            layer = getattr(L, "%sPooling%dD" % (kind, rank))
            glob = getattr(L, "Global%sPooling%dD" % (kind, rank))
            adaptive = getattr(L, "Adaptive%sPooling%dD" % (kind, rank))
            name = "%s_pool%dd" % (prefix, rank)
            cases += [
                one(name, Make(layer, 2), x),
                one(name + "_same_strides", Make(layer, 3, strides=2, padding="same"), x),
                one("global_" + name, Make(glob), x),
                one("global_%s_keepdims" % name, Make(glob, keepdims=True), x),
                one("adaptive_" + name, Make(adaptive, 3), x),
            ]
    return cases


def normalization():
    image, seq = floats("x", (2, 5, 5, 4)), floats("x", (2, 5, 8))
    return [
        one("batch_norm", Make(L.BatchNormalization), image),
        one("batch_norm_dense", Make(L.BatchNormalization), floats("x", (2, 6))),
        one("batch_norm_axis1", Make(L.BatchNormalization, axis=1), image),
        one("batch_norm_no_center_scale", Make(L.BatchNormalization, center=False,
                                               scale=False), seq),
        one("layer_norm", Make(L.LayerNormalization), seq),
        one("layer_norm_axes", Make(L.LayerNormalization, axis=[1, 2]), image),
        one("layer_norm_no_center", Make(L.LayerNormalization, center=False), seq),
        one("group_norm", Make(L.GroupNormalization, groups=2), image),
        one("group_norm_instance", Make(L.GroupNormalization, groups=-1), seq),
        one("rms_norm", Make(L.RMSNormalization), seq),
        one("unit_norm", Make(L.UnitNormalization), seq),
        one("unit_norm_axes", Make(L.UnitNormalization, axis=[1, 2]), image),
        one("spectral_norm_dense", Make(L.SpectralNormalization, Make(L.Dense, 4)), seq),
        one("spectral_norm_conv2d", Make(L.SpectralNormalization, Make(L.Conv2D, 3, 3)),
            image),
    ]


# Activations called with parameters other than their defaults, besides each one plain.
ACTIVATION_VARIANTS = [
    ("celu", {"alpha": 0.5}),
    ("elu", {"alpha": 0.5}),
    ("gelu", {"approximate": True}),
    ("glu", {"axis": 1}),
    ("hard_shrink", {"threshold": 1.5}),
    ("leaky_relu", {"negative_slope": 0.1}),
    ("log_softmax", {"axis": 1}),
    ("relu", {"max_value": 2.0}),
    ("relu", {"threshold": 0.5}),
    ("relu", {"negative_slope": 0.1}),
    ("relu", {"negative_slope": 0.1, "max_value": 2.0, "threshold": 0.5}),
    ("soft_shrink", {"threshold": 1.5}),
    ("softmax", {"axis": 1}),
    ("sparsemax", {"axis": 1}),
    ("squareplus", {"b": 1.0}),
]
# Parameters without defaults.
ACTIVATION_REQUIRED = {"threshold": {"threshold": 0.5, "default_value": -1.0}}


def activation(case, name, kwargs):
    """keras.activations.NAME(x, **kwargs) as an Activation layer."""
    fn = getattr(keras.activations, name)
    args = "".join(", %s=%r" % kv for kv in kwargs.items())
    return Case(case, "keras.activations.%s(x%s)" % (name, args), [floats("x", (2, 4, 6), 3)],
                lambda x: L.Activation(functools.partial(fn, **kwargs))(x))


def activations():
    """Every activation function of this Keras (aliases once), then the variants."""
    cases, seen = [], set()
    for name in sorted(dir(keras.activations)):
        fn = getattr(keras.activations, name)
        if name.startswith("_") or name in ("get", "serialize", "deserialize") or fn in seen:
            continue
        seen.add(fn)
        cases.append(activation(name, name, ACTIVATION_REQUIRED.get(name, {})))
    for name, kwargs in ACTIVATION_VARIANTS:
        case = "_".join([name] + ["%s_%s" % kv for kv in kwargs.items()]).replace(".", "_")
        cases.append(activation(case, name, kwargs))
    return cases


def activation_layers():
    x = floats("x", (2, 3, 4), 3)
    return [
        one("relu", Make(L.ReLU), x),
        one("relu_max_value", Make(L.ReLU, max_value=2.0), x),
        one("relu_threshold", Make(L.ReLU, threshold=0.5), x),
        one("relu_negative_slope", Make(L.ReLU, negative_slope=0.1), x),
        one("relu_all", Make(L.ReLU, max_value=2.0, negative_slope=0.1, threshold=0.5), x),
        one("leaky_relu", Make(L.LeakyReLU, negative_slope=0.3), x),
        one("prelu", Make(L.PReLU), x),
        one("prelu_shared_axes", Make(L.PReLU, shared_axes=[1]), x),
        one("elu", Make(L.ELU, alpha=0.5), x),
        one("softmax", Make(L.Softmax), x),
        one("softmax_axis1", Make(L.Softmax, axis=1), x),
        one("softmax_axes", Make(L.Softmax, axis=(1, 2)), x),
        Case("softmax_mask", "Softmax()(x, mask=mask)", [x, bools("mask", (2, 3, 4))],
             lambda x, mask: L.Softmax()(x, mask=mask)),
        one("activation_layer", Make(L.Activation, "swish"), x),
    ]


def attention():
    q, v, k = floats("query", (2, 3, 4)), floats("value", (2, 5, 4)), floats("key", (2, 5, 4))
    x = floats("x", (2, 4, 8))
    q_mask, v_mask = bools("query_mask", (2, 3)), bools("value_mask", (2, 5))
    mask = bools("mask", (2, 3, 5))
    qg, vg = floats("query", (2, 3, 8)), floats("value", (2, 5, 8))
    return [
        one("attention", Make(L.Attention), q, v),
        one("attention_key", Make(L.Attention), q, v, k),
        one("attention_scale", Make(L.Attention, use_scale=True), q, v),
        one("attention_concat", Make(L.Attention, score_mode="concat"), q, v),
        Case("attention_masks", "Attention()([query, value], mask=[query_mask, value_mask])",
             [q, v, q_mask, v_mask],
             lambda q, v, qm, vm: L.Attention()([q, v], mask=[qm, vm])),
        Case("attention_causal", "Attention()([x, x], use_causal_mask=True)", [x],
             lambda x: L.Attention()([x, x], use_causal_mask=True)),
        Case("attention_scores", "Attention()([query, value], return_attention_scores=True)",
             [q, v], lambda q, v: L.Attention()([q, v], return_attention_scores=True)),
        one("additive_attention", Make(L.AdditiveAttention), q, v),
        Case("additive_attention_masks",
             "AdditiveAttention()([query, value], mask=[query_mask, value_mask])",
             [q, v, q_mask, v_mask],
             lambda q, v, qm, vm: L.AdditiveAttention()([q, v], mask=[qm, vm])),
        Case("multi_head_self", "MultiHeadAttention(2, 4)(x, x)", [x],
             lambda x: L.MultiHeadAttention(2, 4)(x, x)),
        Case("multi_head_cross", "MultiHeadAttention(2, 4, value_dim=3)(query, value, key)",
             [qg, floats("value", (2, 5, 6)), floats("key", (2, 5, 6))],
             lambda q, v, k: L.MultiHeadAttention(2, 4, value_dim=3)(q, v, k)),
        Case("multi_head_attention_mask",
             "MultiHeadAttention(2, 4)(query, value, attention_mask=mask)", [q, v, mask],
             lambda q, v, m: L.MultiHeadAttention(2, 4)(q, v, attention_mask=m)),
        Case("multi_head_query_value_masks",
             "MultiHeadAttention(2, 4)(query, value, query_mask=query_mask, "
             "value_mask=value_mask)", [q, v, q_mask, v_mask],
             lambda q, v, qm, vm: L.MultiHeadAttention(2, 4)(q, v, query_mask=qm,
                                                             value_mask=vm)),
        Case("multi_head_causal", "MultiHeadAttention(2, 4)(x, x, use_causal_mask=True)", [x],
             lambda x: L.MultiHeadAttention(2, 4)(x, x, use_causal_mask=True)),
        Case("multi_head_scores",
             "MultiHeadAttention(2, 4)(query, value, return_attention_scores=True)", [q, v],
             lambda q, v: L.MultiHeadAttention(2, 4)(q, v, return_attention_scores=True)),
        Case("multi_head_attention_axes",
             "MultiHeadAttention(2, 4, attention_axes=(1, 2))(x, x)",
             [floats("x", (2, 3, 3, 4))],
             lambda x: L.MultiHeadAttention(2, 4, attention_axes=(1, 2))(x, x)),
        Case("group_query", "GroupQueryAttention(4, 4, 2)(query, value)", [qg, vg],
             lambda q, v: L.GroupQueryAttention(4, 4, 2)(q, v)),
        Case("group_query_causal", "GroupQueryAttention(4, 4, 2)(x, x, use_causal_mask=True)",
             [x], lambda x: L.GroupQueryAttention(4, 4, 2)(x, x, use_causal_mask=True)),
        Case("group_query_attention_mask",
             "GroupQueryAttention(4, 4, 2)(query, value, attention_mask=mask)",
             [qg, vg, mask], lambda q, v, m: L.GroupQueryAttention(4, 4, 2)(
                 q, v, attention_mask=m)),
    ]


def reshaping():
    x, x1 = floats("x", (2, 3, 4)), floats("x", (2, 6, 3))
    x2, x3 = floats("x", (2, 4, 5, 3)), floats("x", (2, 4, 4, 4, 2))
    return [
        one("reshape", Make(L.Reshape, (4, 3)), x),
        one("reshape_inferred", Make(L.Reshape, (-1, 2)), x),
        one("flatten", Make(L.Flatten), x2),
        one("permute", Make(L.Permute, (2, 1)), x),
        one("permute_3d", Make(L.Permute, (3, 1, 2)), x2),
        one("repeat_vector", Make(L.RepeatVector, 3), floats("x", (2, 4))),
        one("cropping1d", Make(L.Cropping1D, (1, 2)), x1),
        one("cropping2d", Make(L.Cropping2D, ((1, 0), (2, 1))), x2),
        one("cropping3d", Make(L.Cropping3D, 1), x3),
        one("zero_padding1d", Make(L.ZeroPadding1D, (1, 2)), x1),
        one("zero_padding2d", Make(L.ZeroPadding2D, ((1, 0), (2, 1))), x2),
        one("zero_padding3d", Make(L.ZeroPadding3D, 1), x3),
        one("up_sampling1d", Make(L.UpSampling1D, 2), x1),
        one("up_sampling2d_nearest", Make(L.UpSampling2D, (2, 3)), x2),
        one("up_sampling2d_bilinear", Make(L.UpSampling2D, (2, 3), interpolation="bilinear"),
            x2),
        one("up_sampling3d", Make(L.UpSampling3D, 2), x3),
    ]


def merging():
    a, b, c = floats("a", (2, 4, 3)), floats("b", (2, 4, 3)), floats("c", (2, 4, 3))
    va, vb = floats("a", (2, 5)), floats("b", (2, 5))
    return [
        one("add", Make(L.Add), a, b),
        one("add_three", Make(L.Add), a, b, c),
        one("subtract", Make(L.Subtract), a, b),
        one("multiply", Make(L.Multiply), a, b),
        one("average", Make(L.Average), a, b),
        one("maximum", Make(L.Maximum), a, b),
        one("minimum", Make(L.Minimum), a, b),
        one("concatenate", Make(L.Concatenate), a, b),
        one("concatenate_axis1", Make(L.Concatenate, axis=1), a, floats("b", (2, 2, 3))),
        one("dot", Make(L.Dot, axes=1), va, vb),
        one("dot_normalize", Make(L.Dot, axes=1, normalize=True), va, vb),
        one("dot_3d", Make(L.Dot, axes=2), a, floats("b", (2, 5, 3))),
        one("dot_3d_axes1", Make(L.Dot, axes=1), a, floats("b", (2, 4, 5))),
        one("dot_3d_normalize", Make(L.Dot, axes=(2, 2), normalize=True), a,
            floats("b", (2, 5, 3))),
    ]


def recurrent():
    x = floats("x", (2, 5, 3))
    return [
        one("simple_rnn", Make(L.SimpleRNN, 4), x),
        one("simple_rnn_sequences", Make(L.SimpleRNN, 4, return_sequences=True), x),
        one("lstm", Make(L.LSTM, 4), x),
        one("lstm_sequences", Make(L.LSTM, 4, return_sequences=True), x),
        one("lstm_state", Make(L.LSTM, 4, return_state=True), x),
        one("lstm_backwards", Make(L.LSTM, 4, go_backwards=True), x),
        one("lstm_unroll", Make(L.LSTM, 4, unroll=True), x),
        one("gru", Make(L.GRU, 4), x),
        one("gru_sequences", Make(L.GRU, 4, return_sequences=True), x),
        one("gru_reset_before", Make(L.GRU, 4, reset_after=False), x),
        one("bidirectional_lstm", Make(L.Bidirectional, Make(L.LSTM, 4)), x),
        one("bidirectional_gru_sum",
            Make(L.Bidirectional, Make(L.GRU, 4, return_sequences=True), merge_mode="sum"), x),
        Case("masked_lstm", "LSTM(4)(Masking()(x))", [zeroed_steps("x", (2, 6, 3))],
             lambda x: L.LSTM(4)(L.Masking()(x))),
        Case("embedding_mask_zero_gru", "GRU(4)(Embedding(10, 3, mask_zero=True)(ids))",
             [ints("ids", (2, 6), 10)],
             lambda ids: L.GRU(4)(L.Embedding(10, 3, mask_zero=True)(ids))),
        one("time_distributed", Make(L.TimeDistributed, Make(L.Dense, 3)), x),
        one("conv_lstm1d", Make(L.ConvLSTM1D, 3, 3), floats("x", (2, 3, 6, 2))),
        one("conv_lstm2d", Make(L.ConvLSTM2D, 3, 3, padding="same"),
            floats("x", (2, 3, 5, 5, 2))),
        one("conv_lstm3d", Make(L.ConvLSTM3D, 2, 2), floats("x", (2, 2, 4, 4, 4, 2))),
    ]


def preprocessing():
    image = floats("x", (2, 6, 6, 3))
    cases = [
        one("rescaling", Make(L.Rescaling, 1 / 127.5, offset=-1.0), image),
        one("rescaling_uint8", Make(L.Rescaling, 1 / 255.0),
            ints("x", (2, 4, 4, 3), 256, dtype="uint8")),
        one("normalization", Make(L.Normalization, mean=[0.5, -1.0, 2.0],
                                  variance=[1.5, 0.25, 4.0]), floats("x", (2, 4, 3))),
        one("normalization_invert", Make(L.Normalization, mean=[0.5, -1.0, 2.0],
                                         variance=[1.5, 0.25, 4.0], invert=True),
            floats("x", (2, 4, 3))),
    ]
    for interpolation in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
        cases.append(one("resizing_" + interpolation,
                         Make(L.Resizing, 4, 9, interpolation=interpolation), image))
    return cases + [
        one("resizing_antialias", Make(L.Resizing, 4, 3, antialias=True), image),
        one("resizing_crop_to_aspect_ratio", Make(L.Resizing, 4, 8, crop_to_aspect_ratio=True),
            image),
        one("resizing_pad_to_aspect_ratio", Make(L.Resizing, 4, 8, pad_to_aspect_ratio=True),
            image),
        one("center_crop", Make(L.CenterCrop, 4, 3), image),
        one("center_crop_larger", Make(L.CenterCrop, 8, 7), image),
        one("discretization", Make(L.Discretization, bin_boundaries=[-1.0, 0.0, 0.5]),
            floats("x", (2, 6))),
        one("category_encoding_one_hot",
            Make(L.CategoryEncoding, num_tokens=6, output_mode="one_hot"),
            ints("ids", (2, 3), 6)),
        one("category_encoding_multi_hot",
            Make(L.CategoryEncoding, num_tokens=6, output_mode="multi_hot"),
            ints("ids", (2, 4), 6)),
        one("category_encoding_count",
            Make(L.CategoryEncoding, num_tokens=6, output_mode="count"),
            ints("ids", (2, 4), 6)),
    ]


def regularization():
    x, x1 = floats("x", (2, 3, 4)), floats("x", (2, 5, 3))
    return [
        one("dropout", Make(L.Dropout, 0.5), x),
        one("spatial_dropout1d", Make(L.SpatialDropout1D, 0.5), x1),
        one("spatial_dropout2d", Make(L.SpatialDropout2D, 0.5), floats("x", (2, 4, 4, 3))),
        one("spatial_dropout3d", Make(L.SpatialDropout3D, 0.5), floats("x", (2, 3, 3, 3, 2))),
        one("gaussian_noise", Make(L.GaussianNoise, 0.5), x),
        one("gaussian_dropout", Make(L.GaussianDropout, 0.5), x),
        one("alpha_dropout", Make(L.AlphaDropout, 0.5), x),
        one("activity_regularization", Make(L.ActivityRegularization, l1=0.1, l2=0.1), x),
    ]


FAMILIES = {f.__name__: f for f in (
    core, convolution, pooling, normalization, activations, activation_layers, attention,
    reshaping, merging, recurrent, preprocessing, regularization)}

# The tests Kiln fails today, by case ("family/case", sorted): what Kiln lacks, as a string
# when both forms fail for that reason, or as {form: reason} for one form or for two reasons.
# Each reason lands on the line above its test's `XFAIL: *`. lit reports an XFAIL test that
# passes as XPASS, which fails the suite: when an op lands, take its cases out of this table
# (or just the form that passes now) and rerun this script with --case for each of them.
# Never list a case here for a wrong answer without saying so in its reason.
XFAILS = {}


def seed_weights(model, rng):
    """Seeded random float weights, variances positive (integer seed states as they are)."""
    for variable in model.weights:
        if not variable.dtype.startswith("float"):
            continue
        if "variance" in variable.path:
            value = rng.uniform(0.5, 1.5, variable.shape)
        else:
            value = rng.standard_normal(variable.shape) * 0.5
        variable.assign(value.astype(variable.dtype))


def run_frozen(graph_def, feeds, fetches):
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return session.run(fetches, {name + ":0": value for name, value in feeds.items()})


def find_case(family, name):
    for case in FAMILIES[family]():
        if case.name == name:
            return case
    raise KeyError("%s/%s" % (family, name))


def write_case(out, family, name):
    """Writes one case's folder: its frozen graph, SavedModel, data and tests. Run in a fresh
    process (see the docstring)."""
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    case = find_case(family, name)
    keras.backend.clear_session()
    folder = os.path.join(out, family, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    seed = zlib.crc32(("%s/%s" % (family, name)).encode())
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    inputs = [s.keras_input() for s in case.inputs]
    model = keras.Model(inputs, case.build(*inputs), name=case.name)
    seed_weights(model, rng)
    specs = [s.tensor_spec() for s in case.inputs]
    single = len(specs) == 1

    # The SavedModel first: freezing a loop takes a number of TensorFlow's names (ops.uid())
    # that changes from run to run, and the names of the exported functions take the next.
    saved = os.path.join(folder, "saved_model")
    model.export(saved, verbose=False, input_signature=specs if single else [specs])
    os.remove(os.path.join(saved, "fingerprint.pb"))
    os.rmdir(os.path.join(saved, "assets"))

    def call(*xs):
        return model(xs[0] if single else list(xs), training=False)

    frozen, graph_def = convert_variables_to_constants_v2_as_graph(
        tf.function(call).get_concrete_function(*specs))
    placeholders = [node.name for node in graph_def.node if node.op == "Placeholder"]
    assert placeholders == [s.name for s in case.inputs], placeholders
    fetches = [t.name.split(":")[0] for t in frozen.outputs]
    with open(os.path.join(folder, "frozen.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))

    feeds = {s.name: s.draw(rng) for s in case.inputs}
    outputs = run_frozen(graph_def, feeds, [f + ":0" for f in fetches])
    loaded = tf.saved_model.load(saved)
    served = loaded.signatures["serving_default"](
        **{k: tf.constant(v) for k, v in feeds.items()})
    for feed, value in feeds.items():
        np.save(os.path.join(folder, feed + ".npy"), value)
    expected = []  # each output's file, relative to the case's folder
    for i, value in enumerate(outputs):
        np.testing.assert_allclose(served["output_%d" % i].numpy(), value, rtol=1e-5,
                                   atol=1e-6, err_msg="%s: the SavedModel's output_%d"
                                   % (case.name, i))
        same = [k for k, v in feeds.items() if v.dtype == value.dtype and
                v.shape == value.shape and v.tobytes() == value.tobytes()]
        if same:
            expected.append(same[0] + ".npy")
        else:
            expected.append("output_%d.npy" % i)
            np.save(os.path.join(folder, expected[-1]), value)
    reasons = xfail_reasons(family, name)
    for form in FORMS:
        with open(os.path.join(folder, form + ".test"), "w") as f:
            f.write(test_text(family, case, form, fetches, expected, reasons.get(form)))


def xfail_reasons(family, name):
    """{form: reason} for the forms of the case that XFAILS lists."""
    reason = XFAILS.get("%s/%s" % (family, name), {})
    return {form: reason for form in FORMS} if isinstance(reason, str) else reason


def test_text(family, case, form, fetches, expected, reason):
    """One form's lit test."""
    feeds = " ".join("--feed '%s=%s[%s]'" % (s.name, KILN_DTYPE[s.dtype],
                                             ",".join(map(str, s.shape)))
                     for s in case.inputs)
    inputs = " ".join("--input %s=%%S/%s.npy" % (s.name, s.name) for s in case.inputs)
    if form == "frozen":
        what = "its frozen graph (frozen.pb)"
        compile_args = "%%S/frozen.pb %s %s" % (feeds, " ".join("--fetch " + f for f in fetches))
        actual = ["%s_0.npy" % f for f in fetches]
    else:
        what = "its SavedModel (saved_model/)"
        compile_args = "%S/saved_model"
        actual = ["output_%d.npy" % i for i in range(len(fetches))]
    lines = [
        "# Generated by make_keras_tests.py (Keras %s, TensorFlow %s); edit it and rerun."
        % (keras.__version__, tf.__version__),
        "# %s/%s: %s." % (family, case.name, case.doc),
        "# Kiln compiles %s, runs it on the inputs and matches TensorFlow's outputs." % what,
    ]
    if reason:
        lines += ["# Expected to fail: Kiln lacks %s (XFAILS in make_keras_tests.py)." % reason,
                  "# XFAIL: *"]
    lines += [
        "# RUN: rm -rf %t && mkdir -p %t",
        "# RUN: kiln compile %s -o %%t/model" % compile_args,
        "# RUN: %%t/model %s --output-dir %%t/out" % inputs,
        "# RUN: %%npycompare --rtol %g --atol %g %s" % (TOL + (" ".join(
            "%%t/out/%s %%S/%s" % pair for pair in zip(actual, expected)),)),
    ]
    return "\n".join(lines) + "\n"


def write_case_or_say_why(out, family, name):
    """write_case, its exception (TensorFlow's do not pickle) as a RuntimeError."""
    try:
        write_case(out, family, name)
    except Exception:
        raise RuntimeError("%s/%s:\n%s" % (family, name, traceback.format_exc())) from None


def write_in_fresh_process(out, family, name):
    """write_case in a process of its own, its files thus independent of the others'."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        pool.submit(write_case_or_say_why, out, family, name).result()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=HERE, help="where to write (default: beside this)")
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES),
                        help="write only this family (repeatable; default: all)")
    parser.add_argument("--case", action="append", metavar="FAMILY/CASE",
                        help="write only this case (repeatable)")
    parser.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 8),
                        help="cases written at once (default: one per CPU, at most 8)")
    args = parser.parse_args()
    cases = {family: [c.name for c in make()] for family, make in FAMILIES.items()}
    known = {"%s/%s" % (f, c) for f, names in cases.items() for c in names}
    stale = sorted(set(XFAILS) - known)
    if stale or list(XFAILS) != sorted(XFAILS):
        parser.error("XFAILS must be sorted and name existing cases (not: %s)"
                     % ", ".join(stale))
    for key, reason in XFAILS.items():
        if not isinstance(reason, str) and (not reason or set(reason) - set(FORMS)):
            parser.error("XFAILS['%s']: a reason, or {form: reason} for forms in %s"
                         % (key, FORMS))
    if args.case:
        unknown = sorted(set(args.case) - known)
        if unknown:
            parser.error("no such case: %s" % ", ".join(unknown))
        todo = [tuple(c.split("/")) for c in args.case]
    else:
        todo = [(f, c) for f in args.family or FAMILIES for c in cases[f]]
    # One fresh process per case, --jobs of them at once.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for (family, name), _ in zip(todo, pool.map(
                lambda fc: write_in_fresh_process(args.out, *fc), todo)):
            print("%s/%s" % (family, name), flush=True)
    if not args.case:
        # The folders of cases that no longer exist.
        for family in args.family or FAMILIES:
            folder = os.path.join(args.out, family)
            for entry in sorted(set(os.listdir(folder)) - set(cases[family])):
                path = os.path.join(folder, entry)
                print("removing %s" % path)
                if os.path.isdir(path):
                    shutil.rmtree(path)
                else:
                    os.remove(path)
    print("wrote %d cases with TensorFlow %s, Keras %s" % (len(todo), tf.__version__,
                                                          keras.__version__))


if __name__ == "__main__":
    main()
