#!/usr/bin/env python3
"""Kiln's f32 matrix product on the shapes real models produce, beside MLAS and oneDNN.

For every shape below, at each thread count: Kiln's kiln_kernel_matmul_f32
(test/bench/gemm_bench.c, linked against the build's kernels), ONNX Runtime's MLAS (a one-op
MatMul or Gemm model) and TensorFlow's MatMul (oneDNN on x86-64 Linux), each as GFLOP/s and as
a share of the machine's FMA peak (test/bench/peak.c, one core; twice that for two threads).
The systems take turns shape by shape (Kiln, then each peer, `--repeats` times); a figure is
the median of a system's turns, each turn the best of its calls.

Shapes are C[M x N] = op(A)[M x K] op(B)[K x N]:
  nn  a forward product with constant weights: B packed ahead for Kiln (as compiled models
      pack them), an initializer for ONNX Runtime (which prepacks it), a constant for TensorFlow;
  tn  A^T B, a weight gradient (A stored K x M: the layer's input, M its features);
  nt  A B^T, an input gradient (B stored N x K: the layer's weights).
Convolutions are their products: 1x1 directly, k x k as im2col (K = k * k * channels).

    /tmp/tf/bin/python test/bench/gemm_shapes.py [--build build] [--threads 1 2]
        [--peers ort tf openblas blis] [--repeats 3] [--only SUBSTRING ...] [--isa avx2]

Needs onnx, onnxruntime and TensorFlow for the peers `ort` and `tf` (pip; see bench.py), and
Debian's libopenblas0 and libblis4 for `openblas` and `blis` (their cblas_sgemm, timed by
gemm_bench itself with GEMM_BENCH_CBLAS: the operands unpacked, the library's own threads);
none of them is ever needed to build or test Kiln. `--peers` with none measures Kiln alone.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def conv_layers(prefix, layers, batch):
    """Forward products of convolutions given as (name, pixels, out channels, depth)."""
    return [(f"{prefix} {name}" + (f" b{batch}" if batch > 1 else ""), m * batch, n, k, "nn")
            for name, m, n, k in layers]


RESNET50 = [("conv1 7x7/2", 12544, 64, 147), ("res2 1x1", 3136, 64, 256),
            ("res2 3x3", 3136, 64, 576), ("res2 1x1 out", 3136, 256, 64),
            ("res3 3x3", 784, 128, 1152), ("res3 1x1 out", 784, 512, 128),
            ("res4 3x3", 196, 256, 2304), ("res4 1x1 in", 196, 256, 1024),
            ("res4 1x1 out", 196, 1024, 256), ("res5 3x3", 49, 512, 4608),
            ("res5 1x1 in", 49, 512, 2048), ("res5 1x1 out", 49, 2048, 512)]
VGG16 = [("conv1_2", 50176, 64, 576), ("conv2_2", 12544, 128, 1152),
         ("conv3_2", 3136, 256, 2304), ("conv4_2", 784, 512, 4608), ("conv5_2", 196, 512, 4608)]
INCEPTIONV3 = [("73x73 1x1", 5329, 80, 64), ("35x35 1x1", 1225, 64, 288),
               ("35x35 3x3", 1225, 96, 576), ("17x17 1x1", 289, 192, 768),
               ("17x17 7x1", 289, 192, 1344), ("8x8 1x1", 64, 448, 2048)]
XCEPTION = [("37x37 1x1", 1369, 256, 128), ("19x19 1x1", 361, 728, 728),
            ("10x10 1x1", 100, 1536, 1024), ("10x10 1x1 out", 100, 2048, 1536)]
BERT = [("qkv", 128, 2304, 768), ("proj", 128, 768, 768), ("ffn1", 128, 3072, 768),
        ("ffn2", 128, 768, 3072)]
# The zoo's 1-D convolutional audio model (test/bench/zoo.py) at batch 1: its four Conv1D
# layers as products (widths 80 with stride 4, then 3).
AUDIO = [("conv 80/4", 4000, 128, 80), ("conv 3 128", 1000, 128, 384),
         ("conv 3 256", 250, 256, 384), ("conv 3 512", 62, 512, 768)]
# Dense layers at batch 1: one row.
DENSE = [("resnet50 fc", 1, 1000, 2048), ("mobilenet fc", 1, 1000, 1024),
         ("vgg16 fc7", 1, 4096, 4096), ("bert pooler", 1, 768, 768),
         ("lstm step", 1, 512, 128)]


def backward(prefix, layers):
    """A^T B and A B^T of a layer's backward pass: its weight and input gradients."""
    out = []
    for name, m, n, k in layers:
        out.append((f"{prefix} {name} dW", k, n, m, "tn"))
        out.append((f"{prefix} {name} dX", m, k, n, "nt"))
    return out


def shapes():
    s = [(f"square {n}", n, n, n, "nn") for n in (512, 1024, 2048)]
    s += conv_layers("resnet50", RESNET50, 1) + conv_layers("resnet50", RESNET50[2::3], 8)
    s += conv_layers("vgg16", VGG16, 1) + conv_layers("vgg16", VGG16[2:], 8)
    s += conv_layers("inceptionv3", INCEPTIONV3, 1) + conv_layers("inceptionv3", INCEPTIONV3[2:4], 8)
    s += conv_layers("xception", XCEPTION, 1) + conv_layers("xception", XCEPTION[1:3], 8)
    s += conv_layers("bert", BERT, 1) + conv_layers("bert", BERT, 8)
    s += backward("resnet50", [RESNET50[i] for i in (2, 4, 7, 10)])
    s += backward("vgg16", VGG16[2:4]) + backward("xception", XCEPTION[1:3])
    s += backward("bert", BERT[2:4])
    s += conv_layers("audio", AUDIO, 1)
    s += [(f"dense {name} b1", m, n, k, "nn") for name, m, n, k in DENSE]
    return s


def reps_for(m, n, k):
    """Calls per turn: about a quarter of a second at 50 GFLOP/s, 3 to 15."""
    seconds = 2.0 * m * n * k / 50e9
    return max(3, min(15, int(0.25 / max(seconds, 1e-9))))


def build(build_dir, tmp):
    """gemm_bench and peak, compiled as docs/performance.md says."""
    inc = ["-I", os.path.join(ROOT, "runtime", "include"), "-I",
           os.path.join(ROOT, "runtime", "kernels", "include")]
    lib = ["-L", os.path.join(build_dir, "lib"), "-lkiln_kernels", "-lkiln_runtime", "-lm",
           "-pthread", "-ldl", "-lstdc++"]
    gemm = os.path.join(tmp, "gemm_bench")
    subprocess.run(["cc", "-O2", *inc, os.path.join(ROOT, "test", "bench", "gemm_bench.c"), *lib,
                    "-o", gemm], check=True)
    peak = os.path.join(tmp, "peak")
    subprocess.run(["cc", "-O2", "-march=native", "-I", os.path.join(ROOT, "test", "bench"),
                    os.path.join(ROOT, "test", "bench", "peak.c"), "-o", peak], check=True)
    return gemm, peak


FLAGS = {"nn": 4 | 8, "tn": 1 | 4, "nt": 2 | 4}
FEW_ROWS, FEW_ROWS_MAX = 64, 3  # as kiln-lower-kernel-calls flags products of few rows


def flags_of(m, kind):
    return FLAGS[kind] | (FEW_ROWS if m <= FEW_ROWS_MAX and kind != "nt" else 0)


# The BLAS libraries gemm_bench loads for the peers `openblas` and `blis`, and the variables
# that set their thread counts.
CBLAS = {"openblas": ("libopenblas.so.0", "OPENBLAS_NUM_THREADS"),
         "blis": ("libblis.so.4", "BLIS_NUM_THREADS")}


def cblas_turn(gemm, shape, threads, peer):
    library, variable = CBLAS[peer]
    env = dict(os.environ, GEMM_BENCH_CBLAS=library, OMP_NUM_THREADS=str(threads))
    env[variable] = str(threads)
    return kiln_turn(gemm, shape, threads, env)


def kiln_turn(gemm, shape, threads, env):
    _, m, n, k, kind = shape
    out = subprocess.run([gemm, str(n), str(threads), str(m), str(k), str(flags_of(m, kind)),
                          str(reps_for(m, n, k))], check=True, capture_output=True, text=True,
                         env=env).stdout
    return float(out.rsplit(":", 1)[1].split()[0])


def worker(peer, threads, shape_file, out_file):
    """One peer at one thread count over every shape in `shape_file`: GFLOP/s each."""
    import numpy as np
    todo = json.load(open(shape_file))
    rng = np.random.default_rng(0)
    results = []
    if peer == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    else:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    for _, m, n, k, kind in todo:
        a = rng.uniform(-0.5, 0.5, (k, m) if kind == "tn" else (m, k)).astype(np.float32)
        b = rng.uniform(-0.5, 0.5, (n, k) if kind == "nt" else (k, n)).astype(np.float32)
        if peer == "tf":
            ta, tb = tf.constant(a), tf.constant(b)
            fn = tf.function(lambda x, y: tf.linalg.matmul(x, y, transpose_a=kind == "tn",
                                                           transpose_b=kind == "nt"))
            call = lambda: fn(ta, tb).numpy()  # noqa: E731
        else:
            inputs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, list(a.shape))]
            inits = []
            if kind == "nn":  # constant weights, prepacked by ONNX Runtime
                inits.append(numpy_helper.from_array(b, "b"))
                node = helper.make_node("MatMul", ["a", "b"], ["c"])
            else:
                inputs.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, list(b.shape)))
                node = helper.make_node("Gemm", ["a", "b"], ["c"], transA=int(kind == "tn"),
                                        transB=int(kind == "nt"))
            graph = helper.make_graph([node], "gemm", inputs,
                                      [helper.make_tensor_value_info("c", TensorProto.FLOAT,
                                                                     [m, n])], inits)
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            sess = ort.InferenceSession(model.SerializeToString(), so,
                                        providers=["CPUExecutionProvider"])
            feeds = {"a": a} if kind == "nn" else {"a": a, "b": b}
            call = lambda: sess.run(None, feeds)  # noqa: E731
        call()
        best = float("inf")
        for _ in range(reps_for(m, n, k)):
            t = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - t)
        results.append(2.0 * m * n * k / best / 1e9)
    json.dump(results, open(out_file, "w"))


def peer_turn(peer, threads, todo, tmp):
    shape_file, out_file = os.path.join(tmp, "shapes.json"), os.path.join(tmp, "out.json")
    json.dump(todo, open(shape_file, "w"))
    subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", peer, str(threads),
                    shape_file, out_file], check=True)
    return json.load(open(out_file))


def peak_gflops(peak):
    out = subprocess.run([peak], check=True, capture_output=True, text=True).stdout
    return float(out.split()[0])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--peers", nargs="*", default=["ort", "tf"], choices=["ort", "tf", *CBLAS])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--only", nargs="+", help="shapes whose name contains one of these")
    p.add_argument("--isa", choices=["avx2"], help="force Kiln's AVX2 code (KILN_KERNEL_ISA)")
    p.add_argument("--base", metavar="GEMM_BENCH",
                   help="also time this gemm_bench binary (built against another commit's "
                   "kernels) as the system `base`, in the same turns")
    p.add_argument("--json", help="also write the figures here")
    p.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), args.worker[2], args.worker[3])
        return
    todo = [s for s in shapes() if not args.only or any(o in s[0] for o in args.only)]
    env = dict(os.environ)
    if args.isa:
        env["KILN_KERNEL_ISA"] = args.isa
    with tempfile.TemporaryDirectory() as tmp:
        gemm, peak = build(args.build, tmp)
        peaks = []
        figures = {}  # (system, threads) -> per shape list of turn figures
        for threads in args.threads:
            for r in range(args.repeats):
                peaks.append(peak_gflops(peak))
                turns = figures.setdefault(("kiln", threads), [[] for _ in todo])
                for i, s in enumerate(todo):
                    turns[i].append(kiln_turn(gemm, s, threads, env))
                    if args.base:
                        base = figures.setdefault(("base", threads), [[] for _ in todo])
                        base[i].append(kiln_turn(args.base, s, threads, env))
                for peer in args.peers:
                    if peer in CBLAS:
                        got = [cblas_turn(gemm, s, threads, peer) for s in todo]
                    else:
                        got = peer_turn(peer, threads, todo, tmp)
                    turns = figures.setdefault((peer, threads), [[] for _ in todo])
                    for i, g in enumerate(got):
                        turns[i].append(g)
                print(f"threads {threads}: turn {r + 1} of {args.repeats} done", file=sys.stderr)
        core = statistics.median(peaks)
    print(f"peak (test/bench/peak.c, one core): {core:.1f} GFLOP/s, median of {len(peaks)}")
    head = "| shape | M x N x K | op |"
    rule = "|---|---|---|"
    others = (["base"] if args.base else []) + args.peers
    for t in args.threads:
        head += f" {t}T Kiln GFLOP/s | % peak |" + "".join(f" {p} |" for p in others)
        rule += "---|---|" + "---|" * len(others)
    print(head)
    print(rule)
    table = []
    for i, (name, m, n, k, kind) in enumerate(todo):
        row = f"| {name} | {m} x {n} x {k} | {kind} |"
        entry = {"shape": name, "m": m, "n": n, "k": k, "op": kind}
        for t in args.threads:
            kiln = statistics.median(figures[("kiln", t)][i])
            row += f" {kiln:.1f} | {100 * kiln / (core * t):.0f}% |"
            entry[f"kiln_{t}"] = kiln
            for peer in others:
                other = statistics.median(figures[(peer, t)][i])
                row += f" {other:.1f} |"
                entry[f"{peer}_{t}"] = other
        print(row)
        table.append(entry)
    if args.json:
        json.dump({"peak": core, "shapes": table}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
