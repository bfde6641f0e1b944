#!/usr/bin/env python3
"""Whole models and a large matrix product on the GPU, against TensorFlow's outputs and
PyTorch eager's speed (issue 17's GPU benchmarks).

A GPU machine may have no LLVM 22 to build Kiln with, and only a small tree may travel to
it, so the work is split:

  prepare DIR  (here: Kiln, TensorFlow in a venv, the zoo cache of test/bench/zoo.py)
      compiles each model for /gpu:0 with --gpu-arch, writes its input and TensorFlow's
      output, and the matrix-product graphs, into DIR with DIR/models.json.
  run DIR      (on the GPU machine: NumPy, and PyTorch with CUDA for the peers)
      runs each model once and compares with TensorFlow, then times it with the program's
      --bench against the same architecture in PyTorch eager, in interleaved turns, and
      prints a table.

Models too large to travel (a 64 MiB limit on what goes to the GPU machine here) are
prepared with *repeated weights*: every large constant of the frozen graph is rewritten in
place as the repetition of its own first 16 KiB, so the program compresses to almost
nothing, while its arithmetic, shapes and speed stay those of the model; TensorFlow's
output of the rewritten graph is the reference. The table marks those rows.

The PyTorch peers are the same architectures built by torchvision / torch.nn with their
own random weights (speed does not depend on the values): MobileNetV2 and ResNet50 from
torchvision (whose ResNet50 strides the 3x3 convolution rather than the first 1x1: the
same FLOPs within 1%), and post-norm nn.TransformerEncoderLayer stacks with exact GELU for
the encoders. Both run in f32 without TF32. Kiln's time is a whole call of the compiled
program: its input copied to the GPU and its output back; PyTorch's is timed both ways.
Kiln runs each turn three times: as built, with KILN_GPU_STAGING=0 (large copies by the
driver from pageable memory instead of through Kiln's pinned staging buffers:
kiln/runtime/mgpu.h), "driver copies", and with the runner's --resident (input and output
in device memory, as an embedding program that keeps its tensors on the GPU passes them:
kiln/runtime/abi.h, kiln_entry_buffers_t), "resident", which compares with PyTorch's
resident time; then the programs compiled another way
(VARIANTS), each checked against TensorFlow like the program as built: every model with
--gpu-epilogues=cublaslt (an f32 product's bias, batch norm, shortcut and Relu in
cuBLASLt's call instead of a generated kernel after cuBLAS's product), "cuBLASLt
epilogues", and the image models with --gpu-epilogues=cudnn (each convolution's in cuDNN's
fused call, 1x1 convolutions with a Relu cuDNN's too), "cuDNN epilogues".

Matrix products: chains of k products of a fed [n,n] matrix with a fed [n,n] matrix
(`y = x w w ... w`) for k = 1 and 9: (t9 - t1) / 8 is one product on the GPU without the
copies (cuBLAS's, in f32, TF32 with --allow-tf32, and f16 with f32 sums), and the same for
Kiln's own kernels (--no-kernels: the tiled kernel in f32, the tensor cores' wmma in TF32
and f16; with --gpu-arch sm_90, also f16 by the Hopper kernel of --gpu-arch sm_90a, wgmma
fed by TMA, "wgmma"), with their speed as a share of cuBLAS's (the issue's goal: 80%); and
the f16 ones again at n = 1024, where the Hopper kernel's 64 tiles leave SMs idle.

Usage: /tmp/tf/bin/python test/gpu/models.py prepare DIR [--kiln build/bin/kiln]
           [--zoo ~/.cache/kiln-zoo] [--gpu-arch sm_90] [--models NAME ...]
       python3 test/gpu/models.py run DIR [--turns 3] [--runs 20]
       python3 test/gpu/models.py profile DIR [--runs 20] [--rows 30] [--models NAME ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (zoo key, batches, weights: "real" or "repeated" per batch, torch peer)
MODELS = {
    "mobilenetv2": ("mobilenetv2", {1: "real", 32: "repeated"}, "mobilenet_v2"),
    "resnet50": ("resnet50", {1: "repeated", 32: "repeated"}, "resnet50"),
    "encoder-small": ("encoder-small", {1: "repeated", 32: "repeated"},
                      "encoder:4:64:256:4:1024"),
    "bert-base-layer": ("bert-base-layer", {1: "repeated", 32: "repeated"},
                        "encoder:1:128:768:12:3072"),
}
MATMUL_N = 4096
# A smaller f16 product too (cuBLAS's, wmma's and the Hopper kernel's): 1024^3 is 64 of
# the Hopper kernel's 128 x 128 tiles, fewer than an H200's 132 SMs.
MATMUL_SMALL_N = 1024
PERIOD = 16384  # bytes a repeated constant repeats
REF_VALUES = 65536  # values of a reference output kept, at most about twice that


# --- preparing (here) ---------------------------------------------------------------------

def varint(data, pos):
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def fields(data, start, end):
    """(field number, wire type, value start, value end) of a protobuf message's fields."""
    pos = start
    while pos < end:
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, nxt = varint(data, pos)
        elif wire == 1:
            nxt = pos + 8
        elif wire == 2:
            length, pos = varint(data, pos)
            nxt = pos + length
        elif wire == 5:
            nxt = pos + 4
        else:
            raise ValueError("unexpected wire type %d at %d" % (wire, pos))
        yield number, wire, pos, nxt
        pos = nxt


def repeat_weights(src, dst):
    """Copies the GraphDef src to dst with every tensor_content over PERIOD bytes rewritten
    in place as the repetition of its first PERIOD bytes (same sizes, so the rest of the
    file is unchanged). Returns the number of tensors rewritten."""
    data = bytearray(open(src, "rb").read())
    count = 0
    for number, wire, s, e in fields(data, 0, len(data)):
        if number != 1 or wire != 2:  # GraphDef.node
            continue
        for n2, w2, s2, e2 in fields(data, s, e):
            if n2 != 5 or w2 != 2:  # NodeDef.attr (map entry)
                continue
            for n3, w3, s3, e3 in fields(data, s2, e2):
                if n3 != 2 or w3 != 2:  # entry value: AttrValue
                    continue
                for n4, w4, s4, e4 in fields(data, s3, e3):
                    if n4 != 8 or w4 != 2:  # AttrValue.tensor
                        continue
                    for n5, w5, s5, e5 in fields(data, s4, e4):
                        if n5 == 4 and w5 == 2 and e5 - s5 > PERIOD:  # tensor_content
                            block = bytes(data[s5:s5 + PERIOD])
                            for p in range(s5 + PERIOD, e5, PERIOD):
                                data[p:min(p + PERIOD, e5)] = block[:min(PERIOD, e5 - p)]
                            count += 1
    with open(dst, "wb") as f:
        f.write(data)
    return count


def tf_outputs(graph, feeds, fetches):
    import tensorflow as tf
    graph_def = tf.compat.v1.GraphDef()
    with open(graph, "rb") as f:
        graph_def.ParseFromString(f.read())
    with tf.Graph().as_default() as g:
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=g) as sess:
            return sess.run([f + ":0" for f in fetches],
                            {k + ":0": v for k, v in feeds.items()})


def matmul_graph(path, k, dtype, n):
    """A GraphDef in text: y = x w w ... w (k products) of fed [n,n] matrices."""
    lines = []
    for name in ("x", "w"):
        lines.append('node { name: "%s" op: "Placeholder" attr { key: "dtype" value { type: %s } }'
                     ' attr { key: "shape" value { shape { dim { size: %d } dim { size: %d } }'
                     ' } } }' % (name, dtype, n, n))
    prev = "x"
    for i in range(k):
        name = "y" if i == k - 1 else "m%d" % i
        lines.append('node { name: "%s" op: "MatMul" input: "%s" input: "w" attr { key: "T" '
                     'value { type: %s } } }' % (name, prev, dtype))
        prev = name
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# Programs compiled another way, timed beside the program as built: (suffix, label, flags,
# whether only image models get one).
VARIANTS = (("ltepi", "cuBLASLt epilogues", ["--gpu-epilogues=cublaslt"], False),
            ("cudnnepi", "cuDNN epilogues", ["--gpu-epilogues=cudnn"], True))


def prepare(args):
    import numpy as np
    sys.path.insert(0, os.path.join(ROOT, "test", "bench"))
    import zoo
    out = os.path.abspath(args.dir)
    os.makedirs(out, exist_ok=True)
    manifest = {"gpu_arch": args.gpu_arch, "models": [], "matmul": []}
    arch = ["--gpu-arch", args.gpu_arch] if args.gpu_arch else []
    for name in args.models or MODELS:
        key, batches, peer = MODELS[name]
        for batch, weights in batches.items():
            title, graph, feeds, fetches = zoo.load(key, batch, args.zoo)
            stem = os.path.join(out, "%s-b%d" % (name, batch))
            if weights == "repeated":
                # The input too: the zoo's first values repeated with a prime period, so
                # the examples of a batch differ and the file compresses.
                x = feeds["x"]
                feeds["x"] = np.resize(x.ravel()[:4093], x.shape).astype(x.dtype)
                count = repeat_weights(graph, stem + ".pb")
                graph = stem + ".pb"
                print("%s: %d constants repeated" % (os.path.basename(stem), count), flush=True)
            ref = tf_outputs(graph, feeds, fetches)
            np.save(stem + ".x.npy", feeds["x"])
            # A large output does not compress: every stride-th value of it is checked.
            stride = max(1, ref[0].size // REF_VALUES)
            np.save(stem + ".ref.npy", ref[0].ravel()[::stride])
            cmd = [args.kiln, "compile", graph, "--devices", "/gpu:0", "-o", stem] + arch
            for f in fetches:
                cmd += ["--fetch", f]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            # The same model compiled the other ways (VARIANTS), for comparison.
            variants = {}
            for suffix, _, flags, images in VARIANTS:
                if proc.returncode or (images and len(feeds["x"].shape) != 4):
                    continue
                cmd[cmd.index("-o") + 1] = stem + "-" + suffix
                if subprocess.run(cmd + flags, capture_output=True, text=True).returncode == 0:
                    variants[suffix] = os.path.basename(stem) + "-" + suffix
            if weights == "repeated":
                os.remove(graph)
            entry = {"name": name, "batch": batch, "title": title, "weights": weights,
                     "peer": peer, "shape": list(feeds["x"].shape),
                     "ref_shape": list(ref[0].shape), "ref_stride": stride,
                     "exe": os.path.basename(stem), "variants": variants,
                     "error": proc.stderr.strip()[-500:] if proc.returncode else ""}
            manifest["models"].append(entry)
            print("%s: %s" % (os.path.basename(stem), entry["error"] or "compiled"), flush=True)
    # cuBLAS's products (k = 1 and 9): f32, TF32 (--allow-tf32) and f16 (f32 sums); then
    # Kiln's own kernels (--no-kernels: tiled in f32, the tensor cores' wmma in TF32 and
    # f16), also k = 1 and 9, last.
    # And on an H100/H200 (sm_90), f16 by Kiln's Hopper kernel (--gpu-arch sm_90a: wgmma
    # fed by TMA).
    kinds = (("DT_FLOAT", "f32", []), ("DT_FLOAT", "tf32", ["--allow-tf32"]),
             ("DT_HALF", "f16", []))
    sizes = (MATMUL_N, MATMUL_SMALL_N)
    runs = ([(d, t, f, k, "cuBLAS", n) for n in sizes for d, t, f in kinds for k in (1, 9)
             if n == MATMUL_N or t == "f16"] +
            [(d, t, f + ["--no-kernels"], k, "generated", n) for n in sizes
             for d, t, f in kinds for k in (1, 9) if n == MATMUL_N or t == "f16"])
    if args.gpu_arch.startswith("sm_90"):
        runs += [("DT_HALF", "f16", ["--no-kernels"], k, "wgmma", n) for n in sizes
                 for k in (1, 9)]
    for dtype, tag, flags, k, kernel, n in runs:
        stem = "matmul-%s-k%d%s%s" % (tag, k, "" if kernel == "cuBLAS" else "-" + kernel,
                                      "" if n == MATMUL_N else "-n%d" % n)
        matmul_graph(os.path.join(out, stem + ".pbtxt"), k, dtype, n)
        proc = subprocess.run([args.kiln, "compile", os.path.join(out, stem + ".pbtxt"),
                               "--devices", "/gpu:0", "-o", os.path.join(out, stem)]
                              + (["--gpu-arch", "sm_90a"] if kernel == "wgmma" else arch)
                              + flags, capture_output=True, text=True)
        os.remove(os.path.join(out, stem + ".pbtxt"))
        manifest["matmul"].append({"exe": stem, "dtype": tag, "k": k, "n": n,
                                   "kernel": kernel,
                                   "error": proc.stderr.strip()[-500:]
                                   if proc.returncode else ""})
        print("%s: %s" % (stem, manifest["matmul"][-1]["error"] or "compiled"),
              flush=True)
    with open(os.path.join(out, "models.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


# --- running (on the GPU machine) ---------------------------------------------------------

def kiln_bench(exe, runs, inputs=(), driver_copies=False, resident=False):
    cmd = [exe, "--bench", str(runs)] + (["--resident"] if resident else [])
    for i in inputs:
        cmd += ["--input", i]
    env = dict(os.environ)
    if driver_copies:  # no pinned staging of large copies (kiln/runtime/mgpu.h)
        env["KILN_GPU_STAGING"] = "0"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("bench:"):
            return float(line.split("median_ms=")[1].split()[0])
    raise RuntimeError((proc.stderr or proc.stdout).strip()[-300:] or "no bench line")


def torch_model(peer, torch):
    nn = torch.nn
    if peer.startswith("encoder:"):
        layers, seq, hidden, heads, ffn = (int(v) for v in peer.split(":")[1:])
        layer = nn.TransformerEncoderLayer(hidden, heads, ffn, dropout=0.0, activation="gelu",
                                           layer_norm_eps=1e-12, batch_first=True,
                                           norm_first=False)
        return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    import torchvision
    return getattr(torchvision.models, peer)()


def torch_times(model, x_host, runs, torch, channels_last=False):
    """(median ms device-resident, median ms with the host copies) of model(x); with
    channels_last, model and input in NHWC memory (cuDNN's NHWC kernels, Kiln's layout)."""
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x_host = x_host.contiguous(memory_format=torch.channels_last)
    x = x_host.cuda()
    with torch.no_grad():
        for _ in range(3):
            model(x)
        torch.cuda.synchronize()
        resident, copied = [], []
        for _ in range(runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(x)
            end.record()
            end.synchronize()
            resident.append(start.elapsed_time(end))
        import time
        for _ in range(runs):
            t = time.perf_counter()
            model(x_host.cuda()).cpu()
            copied.append((time.perf_counter() - t) * 1e3)
    return statistics.median(resident), statistics.median(copied)


def check_product(d, mm, label, np):
    """Runs a one-product program once on seeded inputs and compares with NumPy's product
    in float64: within 1e-4 of the largest output for f32, 1e-2 for TF32 and f16 (a
    product of 4096 terms of values about 1)."""
    n = mm.get("n", MATMUL_N)
    dtype = np.float16 if mm["dtype"] == "f16" else np.float32
    rng = np.random.default_rng(17)
    x = rng.uniform(-1, 1, (n, n)).astype(dtype)
    w = rng.uniform(-1, 1, (n, n)).astype(dtype)
    exe = os.path.join(d, mm["exe"])
    np.save(exe + ".x.npy", x)
    np.save(exe + ".w.npy", w)
    out = exe + ".out"
    proc = subprocess.run([exe, "--input", "x=" + exe + ".x.npy", "--input",
                           "w=" + exe + ".w.npy", "--output-dir", out],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode:
        print("%s: error: %s" % (label, proc.stderr.strip()[-300:]), flush=True)
        return False
    got = np.load(os.path.join(out, sorted(os.listdir(out))[0])).astype(np.float64)
    ref = x.astype(np.float64) @ w.astype(np.float64)
    err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
    ok = err < (1e-4 if mm["dtype"] == "f32" else 1e-2)
    print("%s: %s, largest error %.1e of the largest output" % (label, "ok" if ok else "FAIL",
                                                                err), flush=True)
    return ok


def check_model(d, m, exe_name, np, flags=()):
    """Runs the model's program `exe_name` once (with `flags`) and compares its output with
    TensorFlow's: (ok, relative error), or (None, nan) after printing why it did not run."""
    exe = os.path.join(d, exe_name)
    x = os.path.join(d, m["exe"] + ".x.npy")
    outdir = os.path.join(d, exe_name + "".join(flags) + ".out")
    proc = subprocess.run([exe, "--input", "x=" + x, "--output-dir", outdir] + list(flags),
                          capture_output=True, text=True, timeout=180)
    if proc.returncode:
        print("%-40s error: %s" % (exe_name, proc.stderr.strip()[-300:]), flush=True)
        return None, float("nan")
    got = np.load(os.path.join(outdir, sorted(os.listdir(outdir))[0]))
    ref = np.load(os.path.join(d, m["exe"] + ".ref.npy"))
    shape_ok = list(got.shape) == m["ref_shape"]
    got = got.ravel()[::m["ref_stride"]]
    if got.shape != ref.shape:
        got = np.zeros_like(ref)
    err = float(np.max(np.abs(got.astype(np.float64) - ref)) / max(np.max(np.abs(ref)), 1e-30))
    return shape_ok and err < 1e-3, err


def to_nchw(shape):
    return [shape[0], shape[3], shape[1], shape[2]] if len(shape) == 4 else shape


def run(args):
    import numpy as np
    try:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch_ok = torch.cuda.is_available()
    except ImportError:
        torch, torch_ok = None, False
    d = os.path.abspath(args.dir)
    with open(os.path.join(d, "models.json")) as f:
        manifest = json.load(f)
    print("models on /gpu:0 (%s); PyTorch %s" % (
        manifest["gpu_arch"] or "PTX", torch.__version__ if torch else "missing"), flush=True)
    failures = 0
    rows = []
    for m in manifest["models"]:
        label = "%s b%d%s" % (m["name"], m["batch"], " (repeated weights)"
                              if m["weights"] == "repeated" else "")
        if m["error"]:
            print("%-40s compile error: %s" % (label, m["error"].splitlines()[-1]), flush=True)
            failures += 1
            continue
        exe = os.path.join(d, m["exe"])
        x = os.path.join(d, m["exe"] + ".x.npy")
        ok, err = check_model(d, m, m["exe"], np)
        if ok is None:
            failures += 1
            continue
        failures += not ok
        # The variants this model has: (label, program, times).
        variants = [(lab, m["variants"][suffix], []) for suffix, lab, _, _ in VARIANTS
                    if m.get("variants", {}).get(suffix)]
        r_ok, r_err = check_model(d, m, m["exe"], np, ["--resident"])
        print("%-40s resident: %s rel.err %.1e" % (label, "ok" if r_ok else "FAIL", r_err),
              flush=True)
        failures += not r_ok
        for lab, program, _ in variants:
            v_ok, v_err = check_model(d, m, program, np)
            print("%-40s %s: %s rel.err %.1e" % (label, lab, "ok" if v_ok else "FAIL", v_err),
                  flush=True)
            failures += not v_ok
        kiln_ms, driver_ms, resident_ms, torch_ms, nhwc_ms = [], [], [], [], []
        model = None
        if torch_ok:
            model = torch_model(m["peer"], torch).cuda().eval()
            xt = torch.from_numpy(np.load(x).reshape(m["shape"]))
            if len(m["shape"]) == 4:
                xt = xt.permute(0, 3, 1, 2).contiguous()
        for _ in range(args.turns):
            try:
                kiln_ms.append(kiln_bench(exe, args.runs, ["x=" + x]))
                driver_ms.append(kiln_bench(exe, args.runs, ["x=" + x], driver_copies=True))
                # Input and output in device memory, as PyTorch's resident time has them.
                resident_ms.append(kiln_bench(exe, args.runs, ["x=" + x], resident=True))
                for _, program, times in variants:
                    times.append(kiln_bench(os.path.join(d, program), args.runs, ["x=" + x]))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print("%-40s bench error: %s" % (label, e), flush=True)
                break
            if model is not None:
                torch_ms.append(torch_times(model, xt, args.runs, torch))
                if len(m["shape"]) == 4:
                    nhwc_ms.append(torch_times(model, xt, args.runs, torch, True))
        k = statistics.median(kiln_ms) if kiln_ms else float("nan")
        driver = statistics.median(driver_ms) if driver_ms else float("nan")
        kr = statistics.median(resident_ms) if resident_ms else float("nan")
        epi = "".join("  (%s %8.3f)" % (lab, statistics.median(times))
                      for lab, _, times in variants if times)
        if torch_ms:
            tr = statistics.median(t[0] for t in torch_ms)
            tc = statistics.median(t[1] for t in torch_ms)
            row = "%-40s %s rel.err %.1e  kiln %8.3f ms (driver copies %8.3f, resident %8.3f)%s" \
                  "  torch %8.3f ms resident, %8.3f ms with copies  torch/kiln %.2f with " \
                  "copies, %.2f resident" % (label, "ok  " if ok else "FAIL", err, k, driver, kr,
                                             epi, tr, tc, tc / k, tr / kr)
            if nhwc_ms:
                row += "  (torch channels_last: %.3f resident, %.3f with copies)" % (
                    statistics.median(t[0] for t in nhwc_ms),
                    statistics.median(t[1] for t in nhwc_ms))
        else:
            row = "%-40s %s rel.err %.1e  kiln %8.3f ms (driver copies %8.3f, resident %8.3f)%s" % (
                label, "ok  " if ok else "FAIL", err, k, driver, kr, epi)
        print(row, flush=True)
        rows.append(row)
    print(flush=True)
    if torch_ok:
        for n, dtype in sorted({(mm.get("n", MATMUL_N), mm["dtype"])
                                for mm in manifest["matmul"]}, reverse=True):
            flops = 2.0 * n ** 3
            torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
            a = torch.randn(n, n, device="cuda",
                            dtype=torch.float16 if dtype == "f16" else torch.float32)
            for _ in range(3):
                a @ a
            torch.cuda.synchronize()
            ms = []
            for _ in range(20):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                a @ a
                e.record()
                e.synchronize()
                ms.append(s.elapsed_time(e))
            t = statistics.median(ms)
            print("matmul %dx%dx%d %s, torch.matmul: %.3f ms (%.1f TFLOP/s)"
                  % (n, n, n, dtype, t, flops / t / 1e9), flush=True)
        torch.backends.cuda.matmul.allow_tf32 = False
    times = {}
    for mm in manifest["matmul"]:
        n = mm.get("n", MATMUL_N)
        label = "matmul %dx%dx%d %s, Kiln %s, %d product%s" % (
            n, n, n, mm["dtype"], mm["kernel"], mm["k"], "s" if mm["k"] > 1 else "")
        if mm["error"]:
            print("%s: compile error: %s" % (label, mm["error"].splitlines()[-1]), flush=True)
            continue
        if args.no_generated and mm["kernel"] != "cuBLAS":
            continue
        if mm["k"] == 1:
            failures += not check_product(d, mm, label, np)
        try:
            t = statistics.median(kiln_bench(os.path.join(d, mm["exe"]), 5)
                                  for _ in range(args.turns))
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("%s: error: %s" % (label, e), flush=True)
            continue
        times[(mm["dtype"], mm["kernel"], mm["k"], n)] = t
        print("%s: whole call %.3f ms (with the copies of x, w and y)" % (label, t), flush=True)
    per_product = {}
    for n, kernel, dtype in [(n, kernel, dtype) for n in (MATMUL_N, MATMUL_SMALL_N)
                             for kernel in ("cuBLAS", "generated", "wgmma")
                             for dtype in ("f32", "tf32", "f16")]:
        flops = 2.0 * n ** 3
        lo, hi = times.get((dtype, kernel, 1, n)), times.get((dtype, kernel, 9, n))
        if lo is None or hi is None:
            continue
        t = per_product[(dtype, kernel, n)] = (hi - lo) / 8
        of = ""
        if kernel != "cuBLAS" and (dtype, "cuBLAS", n) in per_product:
            of = ", %.0f%% of cuBLAS's speed" % (100 * per_product[(dtype, "cuBLAS", n)] / t)
        print("matmul %dx%dx%d %s, Kiln %s: %.3f ms per product (%.1f TFLOP/s)%s, "
              "(t9 - t1) / 8" % (n, n, n, dtype, kernel, t, flops / t / 1e9, of),
              flush=True)
    return 1 if failures else 0


def profile(args):
    """Where each model's GPU time goes: Kiln's KILN_GPU_PROFILE table (kiln/runtime/mgpu.h)
    and, for the peer, PyTorch's profiler's largest kernels, per call."""
    d = os.path.abspath(args.dir)
    with open(os.path.join(d, "models.json")) as f:
        manifest = json.load(f)
    try:
        import numpy as np
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    for m in manifest["models"]:
        if m["error"] or (args.models and m["name"] not in args.models):
            continue
        exe = os.path.join(d, m["exe"])
        env = dict(os.environ, KILN_GPU_PROFILE="1")
        # The program as built, then the variants.
        programs = [(m["exe"], "")] + [
            (m.get("variants", {}).get(suffix), ", " + " ".join(flags))
            for suffix, _, flags, _ in VARIANTS]
        for program, how in programs:
            if not program:
                continue
            proc = subprocess.run([os.path.join(d, program), "--input", "x=" + exe + ".x.npy",
                                   "--bench", str(args.runs)], capture_output=True, text=True,
                                  timeout=300, env=env)
            lines = proc.stderr.splitlines()
            print("== %s b%d: Kiln%s (KILN_GPU_PROFILE, %d timed calls and a warm-up)"
                  % (m["name"], m["batch"], how, args.runs), flush=True)
            print("\n".join(lines[:args.rows + 2]), flush=True)
        if torch is None:
            continue
        model = torch_model(m["peer"], torch).cuda().eval()
        xt = torch.from_numpy(np.load(exe + ".x.npy").reshape(m["shape"]))
        if len(m["shape"]) == 4:
            xt = xt.permute(0, 3, 1, 2).contiguous()
        x = xt.cuda()
        from torch.profiler import ProfilerActivity, profile as torch_profile
        with torch.no_grad():
            for _ in range(3):
                model(x)
            torch.cuda.synchronize()
            with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.runs):
                    model(x)
                torch.cuda.synchronize()
        events = [e for e in prof.key_averages() if e.device_type.name == "CUDA"]
        events.sort(key=lambda e: -e.self_device_time_total)
        total = sum(e.self_device_time_total for e in events)
        print("== %s b%d: PyTorch %s (profiler, %d calls): %.3f ms of kernels per call"
              % (m["name"], m["batch"], torch.__version__, args.runs,
                 total / 1e3 / args.runs), flush=True)
        for e in events[:args.rows]:
            print("%10.4f %5.1f%% %8.2f  %s" % (
                e.self_device_time_total / 1e3 / args.runs,
                100.0 * e.self_device_time_total / max(total, 1e-9), e.count / args.runs,
                e.key[:150]), flush=True)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=("prepare", "run", "profile"))
    p.add_argument("dir")
    p.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    p.add_argument("--zoo", default=os.path.expanduser("~/.cache/kiln-zoo"))
    p.add_argument("--gpu-arch", default="sm_90")
    p.add_argument("--models", nargs="+", choices=sorted(MODELS))
    p.add_argument("--turns", type=int, default=3)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--rows", type=int, default=30, help="profile: rows of each table")
    p.add_argument("--no-generated", action="store_true",
                   help="run: skip the products of Kiln's own kernels (--no-kernels)")
    args = p.parse_args()
    return {"prepare": prepare, "run": run, "profile": profile}[args.action](args)


if __name__ == "__main__":
    sys.exit(main())
