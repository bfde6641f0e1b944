#!/usr/bin/env python3
"""Writes the SavedModels that savedmodel.test compiles, with TensorFlow's answers.

Each case is a SavedModel directory TensorFlow writes (saved_model.pb and variables/), seeded
inputs, and the outputs TensorFlow's own loader computes for them (tf.saved_model.load and
the signature's concrete function, or a TF1 Session after tf.compat.v1.saved_model.load),
all under <case>/ and <case>/data/<signature>/:

- tf1_dense: a TensorFlow 1 graph (VariableV2 restored by the Saver's RestoreV2), a dense
  layer and a softmax, batch dimension unknown, two signatures (serving_default, logits).
- tf2_module: a tf.Module with resource variables (VarHandleOp, ReadVariableOp in functions,
  a tf.gather of a variable, ResourceGather), two signatures (serving_default with two
  inputs and two outputs, scale), and a third, increment, that assigns a variable.
- keras_cnn: a small Keras CNN (Conv2D, BatchNormalization, pooling, Dense) saved with
  model.export(), Keras 3's way to export for serving.

It also runs every signature of the shared corpus's SavedModels (serving/ and
tfjs_node_saved_models/) whose inputs are numbers on seeded inputs (each unknown dimension
3, an unknown shape the graph tensor's, or [3]), loaded as TensorFlow Serving loads them (a TF1 Session running the
restore op), and writes inputs and outputs under shared/<model>/<signature>/ and the lit
test shared.test that compiles and checks each one.

TensorFlow is needed only to regenerate these files, never to run the tests:

    python3 -m venv /tmp/tf && /tmp/tf/bin/pip install tensorflow-cpu==2.21.0
    /tmp/tf/bin/python test/e2e/savedmodel/make_saved_models.py [--shared ../shared]
"""
import argparse
import os
import shutil

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def fresh(case):
    path = os.path.join(HERE, case)
    shutil.rmtree(path, ignore_errors=True)
    return path


def save_npys(path, arrays):
    os.makedirs(path, exist_ok=True)
    for key, value in arrays.items():
        np.save(os.path.join(path, key.replace("/", "_").replace(":", "_") + ".npy"), value)


def tf1_dense():
    path = fresh("tf1_dense")
    rng = np.random.default_rng(1)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 6], name="x")
        w = tf.compat.v1.get_variable(
            "dense/kernel", initializer=rng.standard_normal((6, 4)).astype(np.float32))
        b = tf.compat.v1.get_variable(
            "dense/bias", initializer=rng.standard_normal(4).astype(np.float32))
        logits = tf.add(tf.matmul(x, w), b, name="logits")
        probs = tf.nn.softmax(logits, name="probs")
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            builder = tf.compat.v1.saved_model.Builder(path)
            info = tf.compat.v1.saved_model.build_tensor_info
            sig = tf.compat.v1.saved_model.signature_def_utils.build_signature_def
            builder.add_meta_graph_and_variables(
                sess, ["serve"],
                signature_def_map={
                    "serving_default": sig({"x": info(x)}, {"probs": info(probs)},
                                           "tensorflow/serving/predict"),
                    "logits": sig({"x": info(x)}, {"logits": info(logits)},
                                  "tensorflow/serving/predict"),
                })
            builder.save()
    # TensorFlow's loader answers, in a fresh session.
    xs = rng.standard_normal((3, 6)).astype(np.float32)
    with tf.compat.v1.Session(graph=tf.Graph()) as sess:
        meta = tf.compat.v1.saved_model.load(sess, ["serve"], path)
        for name in ("serving_default", "logits"):
            signature = meta.signature_def[name]
            fetches = {k: v.name for k, v in signature.outputs.items()}
            out = sess.run(fetches, {signature.inputs["x"].name: xs})
            save_npys(os.path.join(path, "data", name), dict(out, x=xs))


class Module(tf.Module):
    def __init__(self, rng):
        super().__init__()
        self.table = tf.Variable(rng.standard_normal((10, 3)).astype(np.float32), name="table")
        self.w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32), name="w")
        self.factor = tf.Variable(np.float64(2.5), name="factor")
        self.count = tf.Variable(np.int32(0), name="count")

    @tf.function(input_signature=[tf.TensorSpec([4], tf.int32, name="ids"),
                                  tf.TensorSpec([4, 3], tf.float32, name="extra")])
    def serve(self, ids, extra):
        rows = tf.gather(self.table, ids)
        mixed = tf.matmul(rows + extra, self.w)
        return {"mixed": mixed, "total": tf.reduce_sum(rows, axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float64, name="v")])
    def scale(self, v):
        return {"scaled": v * self.factor}

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32, name="by")])
    def increment(self, by):
        return {"count": self.count.assign_add(by)}


def tf2_module():
    path = fresh("tf2_module")
    rng = np.random.default_rng(2)
    module = Module(rng)
    tf.saved_model.save(module, path, signatures={
        "serving_default": module.serve, "scale": module.scale,
        "increment": module.increment})
    loaded = tf.saved_model.load(path)
    ids = np.array([3, 0, 9, 3], np.int32)
    extra = rng.standard_normal((4, 3)).astype(np.float32)
    out = loaded.signatures["serving_default"](ids=tf.constant(ids), extra=tf.constant(extra))
    save_npys(os.path.join(path, "data", "serving_default"),
              dict({k: v.numpy() for k, v in out.items()}, ids=ids, extra=extra))
    v = rng.standard_normal((2, 2))
    out = loaded.signatures["scale"](v=tf.constant(v))
    save_npys(os.path.join(path, "data", "scale"),
              dict({k: v.numpy() for k, v in out.items()}, v=v))


def keras_cnn():
    path = fresh("keras_cnn")
    tf.keras.utils.set_random_seed(3)
    inputs = tf.keras.Input((12, 12, 3), batch_size=2, name="image")
    h = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inputs)
    h = tf.keras.layers.BatchNormalization()(h)
    h = tf.keras.layers.MaxPooling2D()(h)
    h = tf.keras.layers.Conv2D(4, 3, activation="relu")(h)
    h = tf.keras.layers.GlobalAveragePooling2D()(h)
    outputs = tf.keras.layers.Dense(5, activation="softmax")(h)
    model = tf.keras.Model(inputs, outputs)
    # Batch-norm statistics that are not the initial 0 and 1, so that they matter.
    bn = model.layers[2]
    rng = np.random.default_rng(3)
    bn.moving_mean.assign(rng.standard_normal(8).astype(np.float32) * 0.1)
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, 8).astype(np.float32))
    model.export(path, verbose=False)
    loaded = tf.saved_model.load(path)
    image = rng.standard_normal((2, 12, 12, 3)).astype(np.float32)
    signature = loaded.signatures["serving_default"]
    key = list(signature.structured_input_signature[1].keys())[0]
    out = signature(**{key: tf.constant(image)})
    save_npys(os.path.join(path, "data", "serving_default"),
              dict({k: v.numpy() for k, v in out.items()}, **{key: image}))


def file_name(key):
    return key.replace("/", "_").replace(":", "_")


KILN_DTYPE = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64",
              np.uint8: "u8", np.int8: "i8", np.bool_: "bool"}


def shared_refs(shared):
    """References for the shared corpus's SavedModels, and shared.test."""
    out_root = os.path.join(HERE, "shared")
    shutil.rmtree(out_root, ignore_errors=True)
    lines = [
        "# Generated by make_saved_models.py; edit it and rerun (see its docstring).",
        "# Tests that every signature of the shared corpus's SavedModels whose inputs are",
        "# numbers compiles and gives the answers of TensorFlow " + tf.__version__ + " (the SavedModel",
        "# loaded as TensorFlow Serving loads it: a Session running the restore op). The",
        "# signatures that write a variable are refused with a clear error (savedmodel.test).",
        "# REQUIRES: shared-corpus",
        "# RUN: rm -rf %t && mkdir -p %t",
    ]
    rng = np.random.default_rng(4)
    for group in ("serving", "tfjs_node_saved_models"):
        for model in sorted(os.listdir(os.path.join(shared, "corpus", "tf", group))):
            path = os.path.join(shared, "corpus", "tf", group, model)
            if not os.path.exists(os.path.join(path, "saved_model.pb")):
                continue
            graph = tf.Graph()
            with tf.compat.v1.Session(graph=graph) as sess:
                meta = tf.compat.v1.saved_model.load(sess, ["serve"], path)
                for name in sorted(meta.signature_def):
                    signature = meta.signature_def[name]
                    if name.startswith("__") or not signature.inputs and not signature.outputs:
                        continue
                    feeds, feed_args, ok = {}, [], True
                    for key in sorted(signature.inputs):
                        info = signature.inputs[key]
                        dtype = tf.as_dtype(info.dtype).as_numpy_dtype
                        if dtype not in KILN_DTYPE:
                            ok = False
                            break
                        # An unknown shape takes the graph tensor's, if it has one.
                        declared = [d.size for d in info.tensor_shape.dim]
                        if (not info.HasField("tensor_shape") or
                                info.tensor_shape.unknown_rank):
                            shape = graph.get_tensor_by_name(info.name).shape
                            declared = None if shape.rank is None else [
                                -1 if d is None else d for d in shape.as_list()]
                        dims = [3] if declared is None else [3 if d < 0 else d for d in declared]
                        if np.issubdtype(dtype, np.floating):
                            value = rng.standard_normal(dims).astype(dtype)
                        else:
                            value = rng.integers(1, 6, dims).astype(dtype)
                        feeds[key] = value
                        known = declared is not None and all(d >= 0 for d in declared)
                        if not known:
                            feed_args.append("--feed '%s=%s[%s]'" % (
                                key, KILN_DTYPE[dtype], ",".join(map(str, dims))))
                    if not ok:
                        continue
                    fetches = {k: v.name for k, v in sorted(signature.outputs.items())}
                    graph_ops = [graph.get_tensor_by_name(t).op.type for t in fetches.values()]
                    if any(op.startswith("Assign") for op in graph_ops):
                        continue  # the signature writes a variable
                    try:
                        results = sess.run(fetches, {signature.inputs[k].name: v
                                                     for k, v in feeds.items()})
                    except tf.errors.OpError as e:
                        print("%s/%s '%s': TensorFlow cannot run it: %s" % (
                            group, model, name, " ".join(e.message.split()[3:])[:160]))
                        lines += ["", "# %s/%s, signature '%s': TensorFlow cannot run it (%s)"
                                  % (group, model, name, " ".join(e.message.split()[3:])[:160])]
                        continue
                    case = "%s/%s" % (model, file_name(name))
                    data = os.path.join(out_root, model, file_name(name))
                    save_npys(data, dict(results, **feeds))
                    exe = "%t/" + model + "." + file_name(name)
                    sig = "" if name == "serving_default" else " --signature '%s'" % name
                    inputs = " ".join("--input '%s=%%S/shared/%s/%s.npy'" % (k, case, file_name(k))
                                      for k in sorted(feeds))
                    pairs = " ".join("%s.out/%s.npy %%S/shared/%s/%s.npy" % (
                        exe, file_name(k), case, file_name(k)) for k in sorted(results))
                    lines += [
                        "",
                        "# %s/%s, signature '%s'" % (group, model, name),
                        "# RUN: kiln compile %%shared/corpus/tf/%s/%s%s%s -o %s" % (
                            group, model, sig, "".join(" " + a for a in feed_args), exe),
                        "# RUN: %s %s --output-dir %s.out" % (exe, inputs, exe),
                        "# RUN: %%npycompare --rtol 1e-6 --atol 1e-6 %s" % pairs,
                    ]
    with open(os.path.join(HERE, "shared.test"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="the shared corpus (for shared/ and shared.test)")
    args = parser.parse_args()
    tf1_dense()
    tf2_module()
    keras_cnn()
    if args.shared:
        shared_refs(args.shared)
    print("tensorflow", tf.__version__)
