#!/usr/bin/env python3
"""Kiln against TensorFlow on the same graphs and inputs, on this machine, in one run.

For each model it compiles the GraphDef with Kiln, runs the executable's `--bench` (median
of N runs after a warm-up), runs the same GraphDef in TensorFlow (tf.compat.v1.Session with
the same thread count, same inputs, median of N session runs after a warm-up), and prints
median milliseconds and the ratio TF / Kiln (above 1: Kiln is faster). It also reports a
1024x1024x1024 f32 MatMul as GFLOP/s.

Needs tensorflow-cpu (PyPI), never needed to build or test Kiln:
    python3 -m venv /tmp/tf && /tmp/tf/bin/pip install tensorflow-cpu==2.21.0
    /tmp/tf/bin/python test/bench/bench.py [--runs 200] [--threads 1 2] [--kiln build/bin/kiln]
ONNX Runtime joins once Kiln reads ONNX (see peers() below).
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("KILN_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))


def mlp_graph(batch, path):
    """784-256-256-10 MLP with random weights, frozen, written as a binary GraphDef."""
    rng = np.random.default_rng(7)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, (None, 784), name="x")
        h = x
        for i, (n_in, n_out) in enumerate([(784, 256), (256, 256), (256, 10)]):
            w = tf.constant(rng.normal(0, 0.05, (n_in, n_out)).astype(np.float32))
            b = tf.constant(rng.normal(0, 0.05, (n_out,)).astype(np.float32))
            h = tf.raw_ops.BiasAdd(value=tf.raw_ops.MatMul(a=h, b=w), bias=b)
            h = tf.raw_ops.Relu(features=h) if i < 2 else tf.raw_ops.Softmax(logits=h,
                                                                               name="probs")
    with open(path, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    return {"x": rng.uniform(0, 1, (batch, 784)).astype(np.float32)}, ["probs"]


def matmul_graph(n, path):
    rng = np.random.default_rng(8)
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.placeholder(tf.float32, (n, n), name="a")
        b = tf.constant(rng.uniform(-1, 1, (n, n)).astype(np.float32))
        tf.raw_ops.MatMul(a=a, b=b, name="c")
    with open(path, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    return {"a": rng.uniform(-1, 1, (n, n)).astype(np.float32)}, ["c"]


def kiln_ms(kiln, graph, feeds, fetches, runs, threads, tmp):
    exe = os.path.join(tmp, "model")
    cmd = [kiln, "compile", graph, "-o", exe]
    for name, value in feeds.items():
        cmd += ["--feed", "%s=f32[%s]" % (name, ",".join(map(str, value.shape)))]
    for name in fetches:
        cmd += ["--fetch", name]
    subprocess.run(cmd, check=True)
    inputs = []
    for name, value in feeds.items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, value)
        inputs += ["--input", "%s=%s" % (name, path)]
    out = subprocess.run([exe] + inputs + ["--bench", str(runs), "--threads", str(threads)],
                         check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median_ms=([0-9.]+)", out).group(1))


def tf_ms(graph, feeds, fetches, runs, threads):
    gd = tf.compat.v1.GraphDef()
    with open(graph, "rb") as f:
        data = f.read()
    try:
        gd.ParseFromString(data)
    except Exception:  # text GraphDef
        from google.protobuf import text_format
        text_format.Parse(data.decode(), gd)
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=threads)
    with tf.compat.v1.Session(graph=g, config=config) as s:
        feed = {g.get_tensor_by_name(k + ":0"): v for k, v in feeds.items()}
        fetch = [g.get_tensor_by_name(k + ":0") for k in fetches]
        s.run(fetch, feed)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            s.run(fetch, feed)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        models = []
        for batch in (1, 64):
            path = os.path.join(tmp, "mlp%d.pb" % batch)
            feeds, fetches = mlp_graph(batch, path)
            models.append(("mlp 784-256-256-10 batch %d" % batch, path, feeds, fetches))
        fc = os.path.join(SHARED, "corpus/tf/tf2onnx/fc-layers/frozen.pb")
        if os.path.exists(fc):
            models.append(("tf2onnx/fc-layers batch 4", fc,
                           {"X": np.load(os.path.join(os.path.dirname(fc), "ref/X.npy"))},
                           ["output"]))
        conv = os.path.join(SHARED, "corpus/tf/tensorflow/mlir_tests/conv_2d.pbtxt")
        if os.path.exists(conv):
            models.append(("mlir_tests/conv_2d", conv,
                           {"input": np.load(os.path.join(os.path.dirname(conv),
                                                          "ref/input.npy"))}, ["output_0"]))
        print("| model | threads | Kiln ms | TensorFlow ms | TF / Kiln |")
        print("|---|---|---|---|---|")
        for name, path, feeds, fetches in models:
            for t in a.threads:
                k = kiln_ms(a.kiln, path, feeds, fetches, a.runs, t, tmp)
                f = tf_ms(path, feeds, fetches, a.runs, t)
                print("| %s | %d | %.4f | %.4f | %.2f |" % (name, t, k, f, f / k))
        path = os.path.join(tmp, "mm.pb")
        feeds, fetches = matmul_graph(1024, path)
        runs = max(3, a.runs // 20)
        k = kiln_ms(a.kiln, path, feeds, fetches, runs, 1, tmp)
        f = tf_ms(path, feeds, fetches, runs, 1)
        flops = 2 * 1024 ** 3
        print("\nmatmul 1024^3 f32, 1 thread: Kiln %.1f GFLOP/s (%.1f ms), TensorFlow %.1f GFLOP/s"
              " (%.1f ms)" % (flops / k / 1e6, k, flops / f / 1e6, f))


if __name__ == "__main__":
    main()
