"""Kiln against ONNX Runtime in alternated turns, for a steadier ratio on a shared machine.

    /tmp/tf/bin/python test/bench/ort_turns.py MODEL.pb INPUT OUTPUT INPUT.npy KILN_EXE \\
        [--turns 12] [--runs 200] [--threads 1]

Each turn runs KILN_EXE (compiled from MODEL.pb by `kiln compile`) with `--bench RUNS`, then
RUNS calls of an ONNX Runtime session (sequential, intra-op threads = --threads) on the same
GraphDef converted by tf2onnx (opset 17, cached as MODEL.pb.onnx) in this process, and prints
both medians and their ratio; at the end, the median of the per-turn ratios and each side's
best turn. The setup of bench.py (tensorflow-cpu, onnxruntime, onnx, tf2onnx) is needed.
"""
import argparse
import os
import statistics
import subprocess
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("feed")
    p.add_argument("kiln")
    p.add_argument("--turns", type=int, default=12)
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    onnx_path = a.model + ".onnx"
    if not os.path.exists(onnx_path):
        import tensorflow as tf
        import tf2onnx
        gd = tf.compat.v1.GraphDef()
        with open(a.model, "rb") as f:
            gd.ParseFromString(f.read())
        model, _ = tf2onnx.convert.from_graph_def(gd, input_names=[a.input + ":0"],
                                                  output_names=[a.output + ":0"], opset=17)
        with open(onnx_path, "wb") as f:
            f.write(model.SerializeToString())
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = a.threads, 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    session = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
    feeds = {a.input + ":0": np.load(a.feed)}
    session.run(None, feeds)
    kiln_ms, ort_ms = [], []
    for _ in range(a.turns):
        out = subprocess.run([a.kiln, "--bench", str(a.runs), "--threads", str(a.threads),
                              a.feed], capture_output=True, text=True, check=True).stdout
        kiln_ms.append(float(out.split("median_ms=")[1].split()[0]))
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            session.run(None, feeds)
            times.append((time.perf_counter() - t0) * 1e3)
        ort_ms.append(statistics.median(times))
        print("kiln %.4f ms  ort %.4f ms  ort/kiln %.2f" % (kiln_ms[-1], ort_ms[-1],
                                                           ort_ms[-1] / kiln_ms[-1]), flush=True)
    ratios = [o / k for o, k in zip(ort_ms, kiln_ms)]
    print("median ort/kiln %.2f over %d turns; best turn: kiln %.4f ms, ort %.4f ms"
          % (statistics.median(ratios), a.turns, min(kiln_ms), min(ort_ms)))


if __name__ == "__main__":
    main()
