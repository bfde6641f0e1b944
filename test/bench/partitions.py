#!/usr/bin/env python3
"""Concurrent partitions: one graph on one CPU device against the same graph cut in two.

The graph has two independent towers (four 512x512 MatMul + Tanh layers each, on a
[256, 512] input), the first placed on /device:CPU:0 and the second on /device:CPU:1 by
device attributes, joined by an AddV2 on CPU 0. Kiln compiles it twice: without --devices
(one function, the towers one after the other) and with --devices /cpu:0,/cpu:1 (two
partitions on threads of their own, one _Send/_Recv pair). Each executable runs --bench N
with --threads 1 and 2 (the thread budget of each partition); the script prints the medians,
the speed-up of the split, and TensorFlow's own time for the same graph in a session with two
CPU devices (its partitions run concurrently too, inter_op_parallelism_threads = 2).

    /tmp/tf/bin/python test/bench/partitions.py [--runs 200] [--repeats 3]
(the same virtual environment as bench.py; TensorFlow is only needed to write the graph and
for its own timing.)
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def towers(path):
    import tensorflow as tf
    rng = np.random.default_rng(5)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, (256, 512), name="x")
        outs = []
        for d in range(2):
            with tf.device("/device:CPU:%d" % d):
                h = x
                for _ in range(4):
                    w = tf.constant(rng.normal(0, 0.05, (512, 512)).astype(np.float32))
                    h = tf.raw_ops.Tanh(x=tf.raw_ops.MatMul(a=h, b=w))
                outs.append(h)
        with tf.device("/device:CPU:0"):
            tf.raw_ops.AddV2(x=outs[0], y=outs[1], name="y")
    with open(path, "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    return rng.uniform(-1, 1, (256, 512)).astype(np.float32)


def kiln_ms(exe, x_path, runs, threads):
    out = subprocess.run([exe, "--input", "x=" + x_path, "--bench", str(runs), "--threads",
                          str(threads)], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median_ms=([0-9.]+)", out).group(1))


def tf_ms(graph, x, runs):
    import tensorflow as tf
    gd = tf.compat.v1.GraphDef()
    with open(graph, "rb") as f:
        gd.ParseFromString(f.read())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    config = tf.compat.v1.ConfigProto(device_count={"CPU": 2}, intra_op_parallelism_threads=1,
                                      inter_op_parallelism_threads=2)
    with tf.compat.v1.Session(graph=g, config=config) as sess:
        fetch, feed = g.get_tensor_by_name("y:0"), {g.get_tensor_by_name("x:0"): x}
        sess.run(fetch, feed)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            sess.run(fetch, feed)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions; medians")
    p.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "towers.pb")
        x = towers(graph)
        x_path = os.path.join(tmp, "x.npy")
        np.save(x_path, x)
        one, two = os.path.join(tmp, "one"), os.path.join(tmp, "two")
        base = [args.kiln, "compile", graph, "--feed", "x=f32[256,512]", "--fetch", "y"]
        subprocess.run(base + ["-o", one], check=True)
        subprocess.run(base + ["--devices", "/cpu:0,/cpu:1", "-o", two], check=True)
        times = {}
        for _ in range(args.repeats):
            for threads in (1, 2):
                for name, exe in (("one device", one), ("two partitions", two)):
                    times.setdefault((name, threads), []).append(
                        kiln_ms(exe, x_path, args.runs, threads))
            times.setdefault(("tf", 2), []).append(tf_ms(graph, x, args.runs))
        print("| Kiln threads per partition | one device ms | two partitions ms | speed-up |")
        print("|---|---|---|---|")
        for threads in (1, 2):
            a = statistics.median(times[("one device", threads)])
            b = statistics.median(times[("two partitions", threads)])
            print("| %d | %.2f | %.2f | %.2f |" % (threads, a, b, a / b))
        print("TensorFlow, two CPU devices (inter-op 2, intra-op 1): %.2f ms"
              % statistics.median(times[("tf", 2)]))


if __name__ == "__main__":
    sys.exit(main())
