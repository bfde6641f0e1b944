#!/usr/bin/env python3
"""Writes small SavedModels the ways TensorFlow 2.21 and Keras 3 write them besides
model.export (which ../keras_cnn and test/keras cover), and tf2.test, which compiles each
signature and compares with TensorFlow's own loader:

- keras_tfsave_plain: tf.saved_model.save(model, dir) of a Keras 3 model, no signatures
  given (TensorFlow writes serving_default itself);
- keras_tfsave: the same with a serving_default tf.function;
- module_keras: a tf.Module holding a Keras model;
- multi_sig: a tf.Module with two signatures reading different variables;
- while_var, cond_var: a tf.while_loop body and tf.cond branches reading variables, which
  the While and If take as resources;
- captured_const: a function capturing an eager constant besides a variable;
- while_assign: a tf.while_loop body that assigns a variable, which Kiln refuses (its
  variables are constants), naming the node.

tf.saved_model.save of a Keras 3 model restores copies of the variables, not the handles the
signature reads, so only the object graphs lead to their values (as TensorFlow 2's loader
finds them).

Each case goes to <name>/ (the SavedModel) with, for each signature,
<name>/data/<signature>/<key>.npy: the seeded inputs by input key and the outputs
tf.saved_model.load's signature computes, by output key.

TensorFlow is needed only to regenerate these files, never to run the tests:

    /tmp/tf/bin/python test/e2e/savedmodel/tf2/make_tf2_saved_models.py [--case NAME]...

Each case runs in a fresh Python process (TensorFlow names functions by process-wide
counters).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = HERE


def setup():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf
    import keras
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    return np, tf, keras


def fresh(name):
    path = os.path.join(CASES_DIR, name)
    shutil.rmtree(path, ignore_errors=True)
    return path


def seed_weights(model, rng, np):
    for v in model.weights:
        if not str(v.dtype).startswith("float"):
            continue
        if "variance" in v.path:
            value = rng.uniform(0.5, 1.5, v.shape)
        else:
            value = rng.standard_normal(v.shape) * 0.5
        v.assign(value.astype(v.dtype))


def record(path, inputs_by_sig):
    """Loads `path` with TensorFlow, runs each signature on its inputs, saves .npy files."""
    np, tf, _ = setup()
    loaded = tf.saved_model.load(path)
    io = {}
    for sig, inputs in inputs_by_sig.items():
        fn = loaded.signatures[sig]
        out = fn(**{k: tf.constant(v) for k, v in inputs.items()})
        d = os.path.join(path, "data", sig)
        os.makedirs(d, exist_ok=True)
        for k, v in inputs.items():
            np.save(os.path.join(d, k + ".npy"), v)
        for k, v in out.items():
            np.save(os.path.join(d, k + ".npy"), v.numpy())
        print("  %s: inputs %s outputs %s" % (sig, sorted(inputs), sorted(out)))
        io[sig] = {"inputs": sorted(inputs), "outputs": sorted(out)}
    with open(os.path.join(path, "data", "io.json"), "w") as f:
        json.dump(io, f, indent=1, sort_keys=True)


def dense_bn_model(keras, np, seed):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([
        keras.Input((4,), batch_size=2, name="x"),
        keras.layers.Dense(3, name="dense"),
        keras.layers.BatchNormalization(name="bn"),
    ], name="seq")
    seed_weights(model, np.random.default_rng(seed), np)
    return model


def input_key(tf, path):
    loaded = tf.saved_model.load(path)
    sig = loaded.signatures["serving_default"]
    return list(sig.structured_input_signature[1].keys())


# b. The same Keras model through tf.saved_model.save.
def keras_tfsave_plain():
    """No signatures given: TF still writes serving_default, from the Keras model's
    _default_save_signature (input key `inputs`)."""
    np, tf, keras = setup()
    path = fresh("keras_tfsave_plain")
    model = dense_bn_model(keras, np, 1)
    try:
        tf.saved_model.save(model, path)
    except Exception as e:  # noqa: BLE001
        print("  tf.saved_model.save(model) failed: %s: %s" % (type(e).__name__, e))
        return
    loaded = tf.saved_model.load(path)
    print("  signatures:", list(loaded.signatures.keys()))
    if "serving_default" in loaded.signatures:
        sig = loaded.signatures["serving_default"]
        print("  serving_default inputs:", sig.structured_input_signature)
        keys = list(sig.structured_input_signature[1].keys())
        x = np.random.default_rng(11).standard_normal((2, 4)).astype(np.float32)
        record(path, {"serving_default": {keys[0]: x}})


def keras_tfsave():
    np, tf, keras = setup()
    path = fresh("keras_tfsave")
    model = dense_bn_model(keras, np, 1)
    serve = tf.function(lambda x: {"y": model(x, training=False)},
                        input_signature=[tf.TensorSpec([2, 4], tf.float32, name="x")])
    tf.saved_model.save(model, path, signatures={"serving_default": serve})
    x = np.random.default_rng(11).standard_normal((2, 4)).astype(np.float32)
    record(path, {"serving_default": {"x": x}})


# c. A tf.Module holding a Keras model as an attribute.
def module_keras():
    np, tf, keras = setup()

    class Holder(tf.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": self.model(x, training=False)}

    path = fresh("module_keras")
    holder = Holder(dense_bn_model(keras, np, 1))
    tf.saved_model.save(holder, path, signatures={"serving_default": holder.__call__})
    x = np.random.default_rng(11).standard_normal((2, 4)).astype(np.float32)
    record(path, {"serving_default": {"x": x}})


# d. Several signatures reading different variables.
def multi_sig():
    np, tf, _ = setup()
    rng = np.random.default_rng(4)

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(rng.standard_normal((3, 2)).astype(np.float32), name="w")
            self.b = tf.Variable(rng.standard_normal(2).astype(np.float32), name="b")
            self.scale = tf.Variable(np.float32(1.5), name="scale")

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x")])
        def f1(self, x):
            return {"y": tf.matmul(x, self.w) + self.b}

        @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float32, name="v")])
        def f2(self, v):
            return {"z": v * self.scale + self.b}

    path = fresh("multi_sig")
    m = M()
    tf.saved_model.save(m, path, signatures={"a": m.f1, "b": m.f2})
    record(path, {
        "a": {"x": rng.standard_normal((2, 3)).astype(np.float32)},
        "b": {"v": rng.standard_normal((2, 2)).astype(np.float32)},
    })


# e. tf.while_loop / tf.cond whose body reads a variable.
def while_var():
    np, tf, _ = setup()
    rng = np.random.default_rng(5)

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(rng.standard_normal((3, 3)).astype(np.float32) * 0.5, name="w")

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x")])
        def __call__(self, x):
            _, y = tf.while_loop(lambda i, h: i < 3,
                                 lambda i, h: (i + 1, tf.tanh(tf.matmul(h, self.w))),
                                 (tf.constant(0), x))
            return {"y": y}

    path = fresh("while_var")
    m = M()
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__})
    record(path, {"serving_default": {"x": rng.standard_normal((2, 3)).astype(np.float32)}})


def cond_var():
    np, tf, _ = setup()
    rng = np.random.default_rng(6)

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(rng.standard_normal((3,)).astype(np.float32), name="w")
            self.u = tf.Variable(rng.standard_normal((3,)).astype(np.float32), name="u")

        @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.bool, name="p")])
        def __call__(self, x, p):
            y = tf.cond(p, lambda: x * self.w, lambda: x + self.u)
            return {"y": y}

    path = fresh("cond_var")
    m = M()
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__})
    x = rng.standard_normal((2, 3)).astype(np.float32)
    record(path, {"serving_default": {"x": x, "p": np.array(True)}})


# Extra: a function capturing an eager constant besides a variable (bound_inputs then names a
# `constant` SavedObject, and the call is fed by a Const node).
def captured_const():
    np, tf, _ = setup()

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.arange(3, dtype=np.float32) + 0.5, name="w")
            self.c = tf.constant(np.arange(3, dtype=np.float32) * 10)

        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": x * self.w + self.c}

    path = fresh("captured_const")
    m = M()
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__})
    record(path, {"serving_default": {"x": np.array([1, 2, 3], np.float32)}})


# Refused: a loop body writing a variable.
def while_assign():
    np, tf, _ = setup()

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(np.float32(0), name="v")

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32, name="x")])
        def __call__(self, x):
            def body(i):
                self.v.assign_add(x)
                return i + 1
            tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
            return {"y": self.v.read_value()}

    path = fresh("while_assign")
    m = M()
    tf.saved_model.save(m, path, signatures={"serving_default": m.__call__})


CASES = {f.__name__: f for f in [keras_tfsave_plain, keras_tfsave, module_keras, multi_sig,
                                  while_var, cond_var, captured_const, while_assign]}
# The cases Kiln refuses: the error it must give.
ERRORS = {"while_assign": "error: {{.*}}while_assign/saved_model.pb: signature 'serving_default': "
                          "node '{{.*}}' (AssignAddVariableOp) in function '{{.*}}' writes "
                          "variable 'v'{{.*}}: Kiln compiles a SavedModel's variables as "
                          "constants, so a signature may read them but not change them"}

MARK = "# Generated by make_tf2_saved_models.py"


def write_test():
    """tf2.test: per case and signature, compile, run on the inputs, compare."""
    lines = [MARK + "; edit it and rerun (see its docstring).",
             "# Tests that Kiln compiles the SavedModels TensorFlow 2 and Keras 3 write with",
             "# tf.saved_model.save (a Keras model, a tf.Module holding one, several signatures,",
             "# variables read inside tf.while_loop and tf.cond), its variables found through",
             "# the object graphs, and matches tf.saved_model.load's answers.",
             "# RUN: rm -rf %t && mkdir -p %t"]
    for name, message in ERRORS.items():
        lines += ["", "# %s: refused" % name,
                  "# RUN: not kiln compile %%S/%s -o %%t/%s 2>&1 | FileCheck %%s "
                  "--check-prefix=%s" % (name, name, name.upper()),
                  "# %s: %s" % (name.upper(), message)]
    for name in CASES:
        io_path = os.path.join(HERE, name, "data", "io.json")
        if not os.path.exists(io_path):
            continue
        with open(io_path) as f:
            io = json.load(f)
        for sig in sorted(io):
            out = "%t/" + name + "." + sig
            data = "%S/" + name + "/data/" + sig
            inputs = " ".join("--input %s=%s/%s.npy" % (k, data, k) for k in io[sig]["inputs"])
            pairs = " ".join("%s.out/%s.npy %s/%s.npy" % (out, k, data, k)
                             for k in io[sig]["outputs"])
            lines += ["", "# %s, signature %s" % (name, sig),
                      "# RUN: kiln compile %%S/%s --signature %s -o %s" % (name, sig, out),
                      "# RUN: %s %s --output-dir %s.out" % (out, inputs, out),
                      "# RUN: %%npycompare --rtol 1e-5 --atol 1e-6 %s" % pairs]
    with open(os.path.join(HERE, "tf2.test"), "w") as f:
        f.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="one case (a fresh process each)")
    parser.add_argument("--inproc", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inproc:
        CASES[args.inproc]()
        sys.exit(0)
    os.makedirs(CASES_DIR, exist_ok=True)
    for name in args.case or CASES:
        print(name)
        subprocess.run([sys.executable, os.path.abspath(__file__), "--inproc", name], check=True)
    write_test()
