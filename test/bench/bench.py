#!/usr/bin/env python3
"""Kiln against its peers on the same graphs and inputs, on this machine, in one run.

For each model and thread count it compiles the GraphDef with Kiln and runs the executable's
`--bench` (median of N runs after a warm-up), and runs the same GraphDef on the same inputs in
each peer, each in a fresh process whose thread pools are set to that count; the systems take
turns --repeats times, Kiln right after each peer, and each reports the median of its turns'
medians, each ratio the median of the ratios of a peer's turns to the Kiln run after them:

  tf    TensorFlow (tf.compat.v1.Session on the imported GraphDef; grappler and oneDNN on)
  xla   TensorFlow with XLA: the imported graph pruned to a function, tf.function(jit_compile=True)
  ort   ONNX Runtime on the same GraphDef converted to ONNX by tf2onnx (opset 17; converted
        once, in a process of its own, and kept beside the graph as GRAPH.onnx), with
        intra-op threads set to the count and sequential execution; the last column is the
        largest difference between its outputs and TensorFlow's (the conversion's fidelity).
        Once Kiln reads ONNX (a later issue), it can compile that ONNX model too.
  aot   saved_model_cli aot_compile_cpu (tfcompile's successor): reported when the wheel lacks it
  base  the same graphs compiled by another Kiln (--kiln-base, e.g. a build of an earlier
        commit), taking turns with this one like any peer: before/after on one machine

It prints median milliseconds per model, thread count and system, the ratio peer / Kiln
(above 1: Kiln is faster; the median of the paired turns' ratios), the largest difference
between Kiln's outputs and TensorFlow's, and the same for Kiln compiled with --strict-float
(no Winograd, libm functions) with its median milliseconds; then, per model, the scratch
arena against the sum of all intermediates (`kiln compile --stats`), the compile time, the
executable's size and each system's peak resident memory (the whole process). Last, a
1024x1024x1024 f32 MatMul in every system, each turn as a fraction of this core's peak f32
FMA throughput timed just before it (test/bench/peak.c doing the same work), and of the best
peak.

The peers come from PyPI and are never needed to build or test Kiln (tf2onnx without its
dependencies: it pins an older protobuf than TensorFlow's, and needs none of the rest here):
    python3 -m venv /tmp/tf && /tmp/tf/bin/pip install tensorflow-cpu==2.21.0 \
        onnxruntime==1.32.0 onnx==1.23.2 && /tmp/tf/bin/pip install --no-deps tf2onnx==1.17.0
    /tmp/tf/bin/python test/bench/bench.py [--runs 100] [--repeats 3] [--threads 1 2] [--models mlp1 cnn ...]
        [--kiln-base OLD/build/bin/kiln]

--zoo runs the model zoo instead (test/bench/zoo.py: Keras applications, transformer encoders,
an audio model and a U-Net at batch 1 and 8, frozen on first use into $KILN_ZOO or
~/.cache/kiln-zoo), without the --strict-float columns; a model Kiln cannot compile gets a
row with Kiln's error, and the run goes on:
    /tmp/tf/bin/python test/bench/bench.py --zoo [--models densenet121 ...] [--batches 1]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import zoo

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("KILN_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))


# ---- models: each writes a binary GraphDef and returns (feeds, fetches) ------------------

def _write(graph, path):
    with open(path, "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())


def mlp_graph(batch, path):
    """784-256-256-10 MLP with random weights, frozen."""
    import tensorflow as tf
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
    _write(g, path)
    return {"x": rng.uniform(0, 1, (batch, 784)).astype(np.float32)}, ["probs"]


def cnn_graph(batch, path):
    """A small CNN on 28x28x1: conv3x3/32 relu, maxpool, conv3x3/64 relu, maxpool, dense 10."""
    import tensorflow as tf
    rng = np.random.default_rng(9)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, (batch, 28, 28, 1), name="x")
        h = x
        for c_in, c_out in [(1, 32), (32, 64)]:
            w = tf.constant(rng.normal(0, 0.2, (3, 3, c_in, c_out)).astype(np.float32))
            b = tf.constant(rng.normal(0, 0.1, (c_out,)).astype(np.float32))
            h = tf.raw_ops.Conv2D(input=h, filter=w, strides=[1, 1, 1, 1], padding="SAME")
            h = tf.raw_ops.Relu(features=tf.raw_ops.BiasAdd(value=h, bias=b))
            h = tf.raw_ops.MaxPool(input=h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                   padding="VALID")
        h = tf.reshape(h, (batch, 7 * 7 * 64))
        w = tf.constant(rng.normal(0, 0.05, (7 * 7 * 64, 10)).astype(np.float32))
        tf.raw_ops.MatMul(a=h, b=w, name="logits")
    _write(g, path)
    return {"x": rng.uniform(0, 1, (batch, 28, 28, 1)).astype(np.float32)}, ["logits"]


def keras_graph(path, application, size, seed):
    """A Keras application (random weights, batch norms calibrated on the input), frozen at
    batch 1 and size x size x 3; fetches the logits."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    tf.keras.utils.set_random_seed(seed)
    model = getattr(tf.keras.applications, application)(
        input_shape=(size, size, 3), weights=None, classifier_activation=None)
    rng = np.random.default_rng(seed + 1)
    x = rng.uniform(-1, 1, (1, size, size, 3)).astype(np.float32)
    # Random weights with the default batch-norm statistics shrink activations layer after
    # layer (logits near 1e-16, so a comparison with TensorFlow checks nothing). Set each
    # batch norm's statistics to those of its input on this image, in order, so that every
    # layer sees values of order one.
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            act = tf.keras.Model(model.inputs, layer.input)([x], training=False).numpy()
            layer.moving_mean.assign(act.mean(axis=(0, 1, 2)))
            layer.moving_variance.assign(act.var(axis=(0, 1, 2)) + 1e-3)
    fn = tf.function(lambda x: model(x, training=False)).get_concrete_function(
        tf.TensorSpec((1, size, size, 3), tf.float32, name="x"))
    graph_def = convert_variables_to_constants_v2(fn).graph.as_graph_def()
    with open(path, "wb") as f:
        f.write(graph_def.SerializeToString())
    return {"x": x}, ["Identity"]


def mobilenet_graph(path):
    """Keras MobileNetV2 (alpha 1.0), 224x224."""
    return keras_graph(path, "MobileNetV2", 224, 11)


def matmul_graph(n, path):
    import tensorflow as tf
    rng = np.random.default_rng(8)
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.placeholder(tf.float32, (n, n), name="a")
        b = tf.constant(rng.uniform(-1, 1, (n, n)).astype(np.float32))
        tf.raw_ops.MatMul(a=a, b=b, name="c")
    _write(g, path)
    return {"a": rng.uniform(-1, 1, (n, n)).astype(np.float32)}, ["c"]


def corpus_model(rel, feed_files, fetches):
    path = os.path.join(SHARED, "corpus/tf", rel)
    if not os.path.exists(path):
        return None
    ref = os.path.join(os.path.dirname(path), "ref")
    return path, {k: np.load(os.path.join(ref, v)) for k, v in feed_files.items()}, fetches


# ---- Kiln --------------------------------------------------------------------------------

class CompileError(Exception):
    pass


def kiln_compile(kiln, graph, feeds, fetches, exe, flags=()):
    """Compiles; returns (arena bytes, naive bytes, seconds). Raises CompileError with Kiln's
    first error line when it fails."""
    cmd = [kiln, "compile", graph, "-o", exe, "--stats"] + list(flags)
    for name, value in feeds.items():
        cmd += ["--feed", "%s=f32[%s]" % (name, ",".join(map(str, value.shape)))]
    for name in fetches:
        cmd += ["--fetch", name]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    text = out.stdout + out.stderr
    if out.returncode != 0:
        lines = [x for x in out.stderr.splitlines() if "error" in x] or out.stderr.splitlines()
        raise CompileError(lines[0] if lines else "exit status %d" % out.returncode)
    arena = re.search(r"scratch arena: (\d+) bytes", text)
    naive = re.search(r"naive total: (\d+) bytes", text)
    return (int(arena.group(1)) if arena else None, int(naive.group(1)) if naive else None,
            seconds)


def kiln_run(exe, feeds, runs, threads, tmp, outname="kiln_out"):
    inputs = []
    for name, value in feeds.items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, value)
        inputs += ["--input", "%s=%s" % (name, path)]
    outdir = os.path.join(tmp, outname)
    rss = os.path.join(tmp, "rss")
    out = subprocess.run(peak_rss(rss) + [exe] + inputs + ["--bench", str(runs), "--threads",
                                                            str(threads), "--output-dir", outdir],
                         check=True, capture_output=True, text=True).stdout
    # (median ms, output directory, fastest ms, peak resident MiB)
    return (float(re.search(r"median_ms=([0-9.]+)", out).group(1)), outdir,
            float(re.search(r"min_ms=([0-9.]+)", out).group(1)), read_peak_rss(rss))


def peak_rss(path):
    """The command prefix that writes the command's peak resident KiB to `path`. A child of
    this Python process (which holds TensorFlow and the models) would report this
    process's peak as its own (Linux carries it across fork and exec); /usr/bin/time's
    child starts from time's own few pages."""
    return ["/usr/bin/time", "-f", "%M", "-o", path]


def read_peak_rss(path):
    with open(path) as f:
        return int(f.read().split()[-1]) / 1024


def failure(proc, rss):
    """Why a peer's process failed: the signal that killed it, with its peak memory (the
    kernel's out-of-memory killer sends 9: tf2onnx needs more than 24 GiB to convert
    VGG16), else the last line of its error output."""
    try:
        with open(rss) as f:
            killed = re.search(r"terminated by signal (\d+)", f.read())
        if killed:
            return "killed by signal %s at %.0f MiB" % (killed.group(1), read_peak_rss(rss))
    except (OSError, ValueError, IndexError):
        pass
    return proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"


# ---- peers, each in its own process (thread pools are fixed at start-up) -----------------

def onnx_path(graph):
    return graph + ".onnx"


def onnx_current(graph):
    """Whether GRAPH.onnx exists and is newer than the GraphDef."""
    path = onnx_path(graph)
    return os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(graph)


def onnx_model(graph, feeds, fetches):
    """The GraphDef at `graph` converted to ONNX by tf2onnx (opset 17), converted once and
    kept beside it as GRAPH.onnx (a conversion takes up to a minute, every turn of every
    thread count reuses it; a changed GraphDef is converted again)."""
    path = onnx_path(graph)
    if onnx_current(graph):
        return path
    import tensorflow as tf
    import tf2onnx
    gd = read_graph_def(graph, tf)
    erfc_as_erf(gd, tf)
    model, _ = tf2onnx.convert.from_graph_def(gd, input_names=[k + ":0" for k in feeds],
                                              output_names=[k if ":" in k else k + ":0"
                                                            for k in fetches], opset=17)
    with open(path + ".tmp", "wb") as f:
        f.write(model.SerializeToString())
    os.replace(path + ".tmp", path)
    return path


def read_graph_def(graph, tf):
    gd = tf.compat.v1.GraphDef()
    with open(graph, "rb") as f:
        data = f.read()
    try:
        gd.ParseFromString(data)
    except Exception:  # a text GraphDef
        from google.protobuf import text_format
        text_format.Parse(data.decode(), gd)
    return gd


def worker(peer, threads, graph, feeds_npz, fetches, runs, out_npz, seconds):
    feeds = dict(np.load(feeds_npz))
    if peer == "convert":  # for ort, in a process of its own (peer_run)
        onnx_model(graph, feeds, fetches)
        return
    if peer == "ort":
        # The same GraphDef converted to ONNX by tf2onnx (onnx_model, done by the parent
        # before the turns), run by ONNX Runtime with `threads` intra-op threads,
        # sequentially; this process holds ONNX Runtime only.
        import onnxruntime
        names = {k: k + ":0" for k in feeds}
        outputs = [k if ":" in k else k + ":0" for k in fetches]
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        sess = onnxruntime.InferenceSession(onnx_path(graph), options,
                                            providers=["CPUExecutionProvider"])
        feed = {names[k]: v for k, v in feeds.items()}

        def call():
            return sess.run(outputs, feed)
        time_calls(call, runs, out_npz, seconds)
        return
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    gd = read_graph_def(graph, tf)
    if peer == "tf":
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(gd, name="")
        config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                          inter_op_parallelism_threads=threads)
        sess = tf.compat.v1.Session(graph=g, config=config)
        feed = {g.get_tensor_by_name(k + ":0"): v for k, v in feeds.items()}
        fetch = [g.get_tensor_by_name(k + ":0") for k in fetches]

        def call():
            return sess.run(fetch, feed)
    elif peer == "xla":
        wrapped = tf.compat.v1.wrap_function(lambda: tf.compat.v1.import_graph_def(gd, name=""),
                                             [])
        pruned = wrapped.prune([wrapped.graph.get_tensor_by_name(k + ":0") for k in feeds],
                               [wrapped.graph.get_tensor_by_name(k + ":0") for k in fetches])
        jitted = tf.function(pruned, jit_compile=True)
        args = [tf.constant(v) for v in feeds.values()]

        def call():
            return [t.numpy() for t in jitted(*args)]
    else:
        raise SystemExit("unknown peer " + peer)
    time_calls(call, runs, out_npz, seconds)


def time_calls(call, runs, out_npz, seconds):
    """Calls `call` once (its outputs go to out_npz), then `runs` times timed, or fewer (at
    least 3) once the timed calls have taken `seconds`; prints the median and fastest
    milliseconds as JSON for peer_run."""
    results = call()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1000)
        if len(times) >= 3 and sum(times) > seconds * 1000:
            break
    np.savez(out_npz, *results)
    print(json.dumps({"median_ms": statistics.median(times), "min_ms": min(times)}))


def erfc_as_erf(gd, tf):
    """tf2onnx 1.17 has no Erfc (Keras's exact GELU): for ONNX Runtime each Erfc(x) becomes
    Sub(1, Erf(x)), which loses precision only where erfc is tiny (the "ort vs TF" column
    shows the effect)."""
    for node in list(gd.node):
        if node.op != "Erfc":
            continue
        dtype = tf.dtypes.as_dtype(node.attr["T"].type)
        erf = gd.node.add(name=node.name + "/erf", op="Erf", input=list(node.input))
        erf.attr["T"].CopyFrom(node.attr["T"])
        one = gd.node.add(name=node.name + "/one", op="Const")
        one.attr["dtype"].type = node.attr["T"].type
        one.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(1.0, dtype))
        node.op = "Sub"
        del node.input[:]
        node.input.extend([one.name, erf.name])


def failed_path(graph):
    """Where a failed conversion of `graph` to ONNX leaves its error: GRAPH.onnx.failed."""
    return onnx_path(graph) + ".failed"


def conversion_failure(graph):
    """The error of an earlier conversion of `graph` to ONNX that failed (tf2onnx takes ten
    minutes to run out of this machine's memory on VGG16); None if there is none, or the
    GraphDef changed since."""
    path = failed_path(graph)
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(graph):
        return None
    with open(path) as f:
        return "conversion failed earlier: " + f.read().strip()


def peer_run(peer, threads, graph, feeds, fetches, runs, tmp, seconds):
    earlier = conversion_failure(graph) if peer == "ort" else None
    if earlier:
        return None, None, earlier, None, None
    feeds_npz = os.path.join(tmp, "feeds.npz")
    np.savez(feeds_npz, **feeds)
    out_npz = os.path.join(tmp, "%s_out.npz" % peer)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    for step in ["convert", peer] if peer == "ort" and not onnx_current(graph) else [peer]:
        rss = os.path.join(tmp, "rss")
        proc = subprocess.run(peak_rss(rss) + [sys.executable, os.path.abspath(__file__),
                                               "--worker", step, str(threads), graph,
                                               feeds_npz, ",".join(fetches), str(runs),
                                               out_npz, str(seconds)],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            error = failure(proc, rss)
            if step == "convert":
                with open(failed_path(graph), "w") as f:
                    f.write(error + "\n")
            return None, None, error, None, None
    times = json.loads(proc.stdout.strip().splitlines()[-1])
    with np.load(out_npz) as z:
        outs = [z["arr_%d" % i] for i in range(len(fetches))]
    # (median ms, outputs, error, fastest ms, peak resident MiB of the whole process)
    return times["median_ms"], outs, None, times["min_ms"], read_peak_rss(rss)


def max_error(outdir, fetches, reference):
    worst = 0.0
    for name, ref in zip(fetches, reference):
        node, _, port = name.partition(":")
        got = np.load(os.path.join(outdir, "%s_%s.npy" % (node.replace("/", "_"), port or "0")))
        worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - ref))))
    return worst


def peak_program(tmp):
    exe = os.path.join(tmp, "peak")
    subprocess.run(["cc", "-O2", "-march=native", os.path.join(HERE, "peak.c"), "-o", exe],
                   check=True)
    return exe


def peak_gflops(exe):
    """This core's peak f32 FMA throughput: the median of 5 runs of test/bench/peak.c."""
    runs = [float(subprocess.run([exe], check=True, capture_output=True, text=True)
                  .stdout.split()[0]) for _ in range(5)]
    return statistics.median(runs)


def peak_ms(exe, runs, flops):
    """Milliseconds test/bench/peak.c takes for `flops` FMA work at peak: the median of `runs`."""
    out = subprocess.run([exe, str(runs), str(flops)], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[2])


def ort_available():
    """ONNX Runtime and tf2onnx, which converts the GraphDef for it, both importable."""
    import importlib.util
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tf2onnx"))


def aot_available():
    cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    if not os.path.exists(cli):
        return False
    out = subprocess.run([cli, "aot_compile_cpu", "--help"], capture_output=True, text=True)
    return "output_prefix" in out.stdout + out.stderr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3,
                   help="turns each system takes per model and thread count (median of medians)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--peers", nargs="+", default=["tf", "xla", "ort"])
    p.add_argument("--models", nargs="+",
                   help="default: mlp1 mlp64 cnn fc-layers conv_2d mobilenetv2 resnet50 "
                        "inceptionv3; with --zoo, every zoo model not skipped (zoo.py --list)")
    p.add_argument("--zoo", action="store_true",
                   help="the model zoo (test/bench/zoo.py, frozen on first use) instead of the "
                        "default set; no --strict-float columns")
    p.add_argument("--batches", type=int, nargs="+", default=list(zoo.BATCHES),
                   help="the zoo's batch sizes")
    p.add_argument("--zoo-dir", default=zoo.DEFAULT_DIR)
    p.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    p.add_argument("--kiln-base", metavar="KILN",
                   help="another kiln binary (an earlier commit's build): its executables "
                        "become the peer 'base', taking turns with this Kiln's")
    p.add_argument("--turn-seconds", type=float, default=30,
                   help="a peer's turn ends after --runs timed calls or, with at least 3, "
                        "once they have taken this long (XLA on a large model at batch 8)")
    p.add_argument("--worker", nargs=8, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        peer, threads, graph, feeds_npz, fetches, runs, out_npz, seconds = a.worker
        worker(peer, int(threads), graph, feeds_npz, fetches.split(","), int(runs), out_npz,
               float(seconds))
        return

    with tempfile.TemporaryDirectory() as tmp:
        builders = {
            "mlp1": ("mlp 784-256-256-10 batch 1", lambda path: mlp_graph(1, path)),
            "mlp64": ("mlp 784-256-256-10 batch 64", lambda path: mlp_graph(64, path)),
            "cnn": ("small CNN 28x28 batch 16", lambda path: cnn_graph(16, path)),
            "mobilenetv2": ("MobileNetV2 224x224 batch 1", mobilenet_graph),
            "resnet50": ("ResNet50 224x224 batch 1",
                         lambda path: keras_graph(path, "ResNet50", 224, 21)),
            "inceptionv3": ("InceptionV3 299x299 batch 1",
                            lambda path: keras_graph(path, "InceptionV3", 299, 31)),
        }
        corpus = {
            "fc-layers": ("tf2onnx/fc-layers batch 4",
                          ("tf2onnx/fc-layers/frozen.pb", {"X": "X.npy"}, ["output"])),
            "conv_2d": ("mlir_tests/conv_2d",
                        ("tensorflow/mlir_tests/conv_2d.pbtxt", {"input": "input.npy"},
                         ["output_0"])),
        }
        models = []
        if a.zoo:
            for key in a.models or zoo.default_models():
                for batch in a.batches:
                    models.append(zoo.load(key, batch, a.zoo_dir))
        for key in [] if a.zoo else a.models or ["mlp1", "mlp64", "cnn", "fc-layers", "conv_2d",
                                                 "mobilenetv2", "resnet50", "inceptionv3"]:
            if key in builders:
                title, build = builders[key]
                path = os.path.join(tmp, key + ".pb")
                feeds, fetches = build(path)
                models.append((title, path, feeds, fetches))
            elif key in corpus:
                title, spec = corpus[key]
                found = corpus_model(*spec)
                if found is None:
                    print("skipped %s: ../shared corpus not found" % title)
                else:
                    models.append((title,) + found)
        peers = [x for x in a.peers if x in ("tf", "xla", "ort")]
        if a.kiln_base:
            peers.append("base")
        missing = ""
        if "ort" in peers and not ort_available():
            peers.remove("ort")
            missing = " ONNX Runtime not run (pip install onnxruntime onnx; pip install " \
                      "--no-deps tf2onnx);"
        print("Peers:", ", ".join(peers) + ";" + missing,
              "saved_model_cli aot_compile_cpu %s" %
              ("available but not run" if aot_available() else
               "not in this tensorflow-cpu wheel"))
        print()
        head = "| model | threads | Kiln ms |" + "".join(" %s ms | %s / Kiln |" % (x, x)
                                                        for x in peers)
        extra = " ort vs TF |" if "ort" in peers else ""
        strict = not a.zoo
        print(head + " max abs diff vs TF |" + extra +
              (" strict ms | strict vs TF |" if strict else ""))
        print("|---" * (3 + 2 * len(peers) + 1 + bool(extra) + 2 * strict) + "|")
        memory = []
        for title, path, feeds, fetches in models:
            exe = os.path.join(tmp, "model")
            strict_exe = os.path.join(tmp, "model_strict")
            base_exe = os.path.join(tmp, "model_base")
            try:
                arena, naive, seconds = kiln_compile(a.kiln, path, feeds, fetches, exe)
                if strict:
                    kiln_compile(a.kiln, path, feeds, fetches, strict_exe, ["--strict-float"])
                if a.kiln_base:
                    kiln_compile(a.kiln_base, path, feeds, fetches, base_exe)
            except CompileError as e:
                print("| %s | | Kiln failed: %s |" % (title, str(e)[:160]), flush=True)
                continue
            rss = {"Kiln": 0.0}
            memory.append((title, arena, naive, seconds, os.path.getsize(exe), rss))
            for t in a.threads:
                # Kiln and each peer take turns, `repeats` times, Kiln right after each peer
                # (whose timed calls end its process): a busy spell on this shared machine,
                # which can slow a run by half for a few hundred milliseconds, then slows one
                # pair instead of one system's whole run, and each ratio is the median of
                # its pairs' ratios.
                kiln_ms, peer_ms, ratios, errors, diff = [], {x: [] for x in peers}, \
                    {x: [] for x in peers}, {}, "n/a"
                tf_outs, ort_outs = None, None
                for _ in range(a.repeats):
                    for peer in peers:
                        if peer == "base":
                            ms, _, _, mib = kiln_run(base_exe, feeds, a.runs, t, tmp,
                                                     "base_out")
                            outs, err = None, None
                        else:
                            ms, outs, err, _, mib = peer_run(peer, t, path, feeds, fetches,
                                                             a.runs, tmp, a.turn_seconds)
                        k, outdir, _, kiln_mib = kiln_run(exe, feeds, a.runs, t, tmp)
                        kiln_ms.append(k)
                        rss["Kiln"] = max(rss["Kiln"], kiln_mib)
                        if ms is None:
                            errors[peer] = err
                            continue
                        rss[peer] = max(rss.get(peer, 0.0), mib)
                        peer_ms[peer].append(ms)
                        ratios[peer].append(ms / k)
                        if peer == "tf":
                            diff = "%.2g" % max_error(outdir, fetches, outs)
                            tf_outs = outs
                        elif peer == "ort":
                            ort_outs = outs
                k = statistics.median(kiln_ms)
                row = "| %s | %d | %.4f |" % (title, t, k)
                for peer in peers:
                    if not peer_ms[peer]:
                        row += " failed | (%s) |" % errors.get(peer, "")[:60]
                        continue
                    ms = statistics.median(peer_ms[peer])
                    row += " %.4f | %.2f |" % (ms, statistics.median(ratios[peer]))
                row += " %s |" % diff
                if extra:
                    row += (" %.2g |" % max(float(np.max(np.abs(o.astype(np.float64) - r)))
                                            for o, r in zip(ort_outs, tf_outs))
                            if tf_outs is not None and ort_outs is not None else " n/a |")
                if strict:
                    # Kiln with --strict-float: one turn, its speed and its error.
                    strict_ms, strict_dir = kiln_run(strict_exe, feeds, a.runs, t, tmp)[:2]
                    row += " %.4f | %s |" % (strict_ms,
                                             "%.2g" % max_error(strict_dir, fetches, tf_outs)
                                             if tf_outs is not None else "n/a")
                print(row, flush=True)

        # Peak resident memory is the whole process's: the executable (code, weights, arena)
        # or the peer's Python process with its framework and graph.
        systems = ["Kiln"] + peers
        print("\n| model | scratch arena bytes | sum of intermediates | arena / sum | "
              "compile s | executable bytes |" + "".join(" %s peak MiB |" % x for x in systems))
        print("|---" * (6 + len(systems)) + "|")
        for title, arena, naive, seconds, size, rss in memory:
            ratio = "%.2f" % (arena / naive) if arena and naive else "n/a"
            print("| %s | %s | %s | %s | %.1f | %d |" % (title, arena, naive or "n/a", ratio,
                                                        seconds, size) +
                  "".join(" %.0f |" % rss[x] if x in rss else " n/a |" for x in systems))

        peak_exe = peak_program(tmp)
        path = os.path.join(tmp, "mm.pb")
        feeds, fetches = matmul_graph(1024, path)
        exe = os.path.join(tmp, "mm")
        kiln_compile(a.kiln, path, feeds, fetches, exe)
        base_exe = os.path.join(tmp, "mm_base")
        if a.kiln_base:
            kiln_compile(a.kiln_base, path, feeds, fetches, base_exe)
        runs = max(5, a.runs // 10)
        flops = 2 * 1024 ** 3
        # Every turn, Kiln's and each peer's (Kiln after each peer), comes right after a turn
        # of peak.c doing the same work as many times, and counts as the fraction of that
        # turn's peak it reached: a co-tenant of this shared machine slows the core itself
        # (peak.c too) for a few hundred milliseconds at a time. Each system reports the
        # median of its turns' fractions, and its fastest run against the peak peak.c
        # measures over longer runs (the median of five, each the best of three), which
        # catch the quiet spells.
        best = peak_gflops(peak_exe)
        ms, fraction, fastest = {}, {}, {}

        def turn(system, run):
            p = peak_ms(peak_exe, runs, flops)
            median, least = run()
            if median is not None:
                ms.setdefault(system, []).append(median)
                fraction.setdefault(system, []).append(p / median)
                fastest[system] = min(fastest.get(system, least), least)

        def kiln_turn():
            turn("Kiln", lambda: kiln_run(exe, feeds, runs, 1, tmp)[::2])

        for _ in range(a.repeats):
            kiln_turn()
            for peer in peers:
                if peer == "base":
                    turn(peer, lambda: kiln_run(base_exe, feeds, runs, 1, tmp, "base_out")[::2])
                else:
                    turn(peer, lambda: peer_run(peer, 1, path, feeds, fetches, runs, tmp,
                                                a.turn_seconds)[::3])
                kiln_turn()
        print("\nmatmul 1024^3 f32, 1 thread, turns of %d runs: median turn GFLOP/s and its "
              "fraction of the peak timed just before it; fastest run GFLOP/s and its fraction "
              "of the peak, %.1f GFLOP/s (test/bench/peak.c)" % (runs, best))
        for system in ["Kiln"] + [p for p in peers if p in fraction]:
            g = flops / fastest[system] / 1e6
            print("  %-5s median %6.1f GFLOP/s %3.0f%%   fastest %6.1f GFLOP/s %3.0f%%" % (
                system, flops / statistics.median(ms[system]) / 1e6,
                100 * statistics.median(fraction[system]), g, 100 * g / best))


if __name__ == "__main__":
    main()
