#!/usr/bin/env python3
"""Writes the tensor bundle (checkpoint) that test/import/tensor-bundle.test reads, and what
TensorFlow's own checkpoint reader reads back from it (expected.txt, in the format of
`kiln-translate --dump-tensor-bundle`: name, dtype, [shape], then the first 8 values,
numbers as %.9g, strings quoted and escaped). With the shared corpus beside the checkout (or at
$KILN_SHARED), it also writes what TensorFlow reads from the variables of its SavedModels
(shared-FOLDER-NAME.txt, for test/import/tensor-bundle-shared.test).

TensorFlow is needed only to regenerate these files, never to run the tests:
    /tmp/tf/bin/python test/import/Inputs/make_bundle.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundle")
PREFIX = os.path.join(HERE, "ckpt")

rng = np.random.default_rng(7)
tensors = {
    "dense/kernel": rng.standard_normal((3, 4)).astype(np.float32),
    "dense/bias": np.array([1.5, -2.0], np.float64),
    "global_step": np.array(7, np.int64),
    "flags": np.array([True, False, True]),
    "special": np.array([np.inf, -np.inf, -0.0, 1e-38, 3.4e38], np.float32),
    "vocab": np.array([b"ab", b"", b"c\xc3\xa9de"]),
    "empty": np.zeros((0, 3), np.float32),
}
# Enough small tensors that the index holds several data blocks (4 KiB each).
for i in range(300):
    tensors["layer_%03d/scale" % i] = np.array([i, -i], np.int32)


def escape(data):
    """At most 48 bytes of a string: printable ASCII as is (but quotes and backslashes),
    other bytes as \\xNN, then "..." if there is more."""
    text = "".join(chr(b) if 0x20 <= b < 0x7f and b not in b'"\\' else "\\x%02x" % b
                   for b in data[:48])
    return text + ("..." if len(data) > 48 else "")


def describe(name, value):
    value = np.asarray(value)
    dtype = types_pb2.DataType.Name(tf.as_dtype(value.dtype).as_datatype_enum)
    flat = value.reshape(-1)
    if value.dtype.kind in "SO":
        text = " ".join('"%s"' % escape(v) for v in flat[:8])
    elif value.dtype == np.bool_:
        text = " ".join("%d" % v for v in flat[:8])
    elif value.dtype.kind == "f":
        text = " ".join("%.9g" % v for v in flat[:8])
    else:
        text = " ".join("%d" % v for v in flat[:8])
    if flat.size > 8:
        text += " ..."
    return "%s %s [%s]: %s" % (name, dtype, ",".join(map(str, value.shape)), text)


SHARED = os.environ.get("KILN_SHARED", os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared"))
SHARED_MODELS = ["rust/regression_savedmodel", "serving/saved_model_counter",
                 "serving/saved_model_half_plus_three", "serving/saved_model_half_plus_two_cpu",
                 "serving/saved_model_half_plus_two_mkl",
                 "serving/saved_model_half_plus_two_tf2_cpu", "tf2onnx/regression/saved_model",
                 "tfjs_node_saved_models/int64_multiply",
                 "tfjs_node_saved_models/model_multi_output",
                 "tfjs_node_saved_models/model_single_input_multi_output",
                 "tfjs_node_saved_models/module_with_multiple_signatures",
                 "tfjs_node_saved_models/times_three_float", "tfjs_node_saved_models/times_two_int",
                 "tfjs_node_saved_models/uint8_multiply"]


def shared_name(model):
    return model.replace("/", "-")


def dump(prefix):
    reader = tf.train.load_checkpoint(prefix)
    return [describe(n, reader.get_tensor(n))
            for n in sorted(reader.get_variable_to_shape_map())]


def main():
    os.makedirs(HERE, exist_ok=True)
    for f in os.listdir(HERE):
        os.remove(os.path.join(HERE, f))
    names = sorted(tensors)
    tf.raw_ops.SaveV2(prefix=PREFIX, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(tensors[n]) for n in names])
    lines = dump(PREFIX)
    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for model in SHARED_MODELS:
        prefix = os.path.join(SHARED, "corpus", "tf", model, "variables", "variables")
        if not os.path.exists(prefix + ".index"):
            print("no %s: shared-%s.txt not written" % (prefix, shared_name(model)))
            continue
        with open(os.path.join(HERE, "shared-%s.txt" % shared_name(model)), "w") as f:
            f.write("\n".join(dump(prefix)) + "\n")
    print("wrote %s.index, its data shard and expected.txt (%d tensors)" % (PREFIX, len(lines)))


if __name__ == "__main__":
    main()
