#!/bin/sh
# Kiln's checks on a machine with an NVIDIA GPU (an H200 when one is lent: time on it is
# short, so this is the one script to run there). It writes everything to one folder:
#
#   device.txt        nvidia-smi, the CUDA libraries found, PyTorch's view of the GPU
#   replay.txt        the CPU suite's numeric cases (test/e2e/tf, and test/e2e's ops, rnn,
#                     corpus and savedmodel: the shared corpus's graphs and SavedModels,
#                     with their inputs and references copied into the bundle, when
#                     ../shared or $KILN_SHARED is here) compiled for /gpu:0, run and
#                     compared with TensorFlow's outputs (test/gpu/replay.py)
#   replay-mixed.txt  the CPU suite's (test/e2e/tf) for /cpu:0,/gpu:0 (placed by the cost
#                     model: GPU partitions beside CPU ones, their tensors through the host)
#   replay-generated.txt  the same on /gpu:0 with --no-kernels: Kiln's own kernels for the
#                     products (tiled; f16 on the tensor cores) and convolutions, not libraries
#   replay-epilogues.txt  the same on /gpu:0 with --gpu-epilogues: products' epilogues in
#                     cuBLASLt's call, convolutions' in cuDNN's
#   replay-hopper.txt the f16 cases ("half") with --no-kernels --gpu-arch sm_90a: the large
#                     f16 products by Kiln's Hopper kernel (wgmma fed by TMA), the others
#                     by wmma (H100/H200 only: sm_90a code runs on sm_90 alone)
#   bench.txt         example graphs timed on the GPU and on the CPU (runner --bench)
#   models.txt        MobileNetV2, ResNet50 and transformer encoders at batch 1 and 32 on the
#                     GPU against TensorFlow's outputs and PyTorch eager's speed, and a 4096^3
#                     matrix product against torch.matmul (test/gpu/models.py)
#   lit-gpu.txt       (one-machine mode only) the GPU lit tests against the real driver
#   profile.txt       where each model's GPU time goes: Kiln's KILN_GPU_PROFILE table
#                     (device time per kernel, library call and copy) beside PyTorch's
#                     profiler's largest kernels (test/gpu/models.py profile)
#
# The GPU machine need not build Kiln (it may lack LLVM 22): compile where Kiln builds,
#   test/gpu/run_on_gpu.sh --prepare [BUNDLE]     (default gpu-bundle.tar.gz)
# which builds like the README's first command and compiles every program into BUNDLE
# (the models need TensorFlow: $KILN_TF_PYTHON, default /tmp/tf/bin/python, and the zoo
# cache of test/bench/zoo.py), then, on the GPU machine, in a checkout of the same commit,
#   test/gpu/run_on_gpu.sh --run [BUNDLE] [OUT_DIR]
# which needs only Python with NumPy (PyTorch for the peers). With no option it does both
# on one machine and also runs the GPU lit tests:
#   test/gpu/run_on_gpu.sh [OUT_DIR]              (default: gpu-results; $OUT when set)
# KILN_GPU_PARTS (default "replay mixed generated epilogues hopper bench profile models") picks what
# --prepare compiles and --run runs, for a short lease; KILN_GPU_MODEL_ARGS passes options to models.py run (e.g. "--turns 3 --runs 10").
set -u
parts=${KILN_GPU_PARTS:-replay mixed generated epilogues hopper bench profile models}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# The CPU suite's replays, one part each (replay, mixed, generated, hopper, epilogues): a
# part's programs live in BUNDLE/replay[-PART] and report in OUT/replay[-PART].txt.
replay_name() { if [ "$1" = replay ]; then echo replay; else echo "replay-$1"; fi; }
# replay_prepare PART REPLAY_OPTIONS...: compiles the part's programs into $dir.
replay_prepare() {
  replay_part=$1
  shift
  want "$replay_part" || return 0
  python3 test/gpu/replay.py --prepare "$dir/$(replay_name "$replay_part")" "$@" | tail -n 1
}
# replay_run PART LABEL: runs the part's programs from $dir, its report in $out.
replay_run() {
  want "$1" || return 0
  replay_part=$(replay_name "$1")
  python3 test/gpu/replay.py --prepared "$dir/$replay_part" > "$out/$replay_part.txt" 2>&1
  echo "$2: $(tail -n 1 "$out/$replay_part.txt")"
}
cd "$(dirname "$0")/../.."
root=$(pwd)
arch=${KILN_GPU_ARCH:-sm_90}
tf_python=${KILN_TF_PYTHON:-/tmp/tf/bin/python}

# Example graphs timed on both devices: file|feeds and fetches.
bench_graphs="bn_relu_tanh_large.pbtxt|--feed x=f32[1,32,32,32] --fetch y --fetch z
softmax_layernorm_large.pbtxt|--feed scores=f32[1,8,32,128] --feed rows=f32[1,128,256] --fetch n --fetch s
conv3x3_relu_pool.pbtxt|--feed x=f32[2,15,13,16] --fetch y"

prepare() { # prepare BUNDLE_DIR
  dir=$1
  rm -rf "$dir" && mkdir -p "$dir/bench"
  if [ ! -x build/bin/kiln ]; then
    scripts/setup.sh || { echo "setup/build failed"; return 1; }
  fi
  ninja -C build || { echo "build failed"; return 1; }
  # What KILN_GPU_PARTS leaves out is not compiled either.
  replay_prepare replay --devices /gpu:0 --gpu-arch "$arch" test/e2e/tf/*.test \
    test/e2e/ops/*.test test/e2e/rnn/*.test test/e2e/corpus/*.test test/e2e/savedmodel/*.test
  replay_prepare mixed --devices /cpu:0,/gpu:0 --gpu-arch "$arch"
  replay_prepare generated --devices /gpu:0 --gpu-arch "$arch" --flags=--no-kernels
  replay_prepare hopper --devices /gpu:0 --gpu-arch sm_90a --flags=--no-kernels --filter half
  replay_prepare epilogues --devices /gpu:0 --gpu-arch "$arch" --flags=--gpu-epilogues
  echo "$bench_graphs" | while IFS='|' read -r graph flags; do
    name=${graph%.pbtxt}
    # shellcheck disable=SC2086
    build/bin/kiln compile "test/e2e/tf/$graph" $flags --devices /gpu:0 --gpu-arch "$arch" \
      -o "$dir/bench/$name.gpu"
    # The GPU machine's processor is not this one: a portable x86-64 level.
    # shellcheck disable=SC2086
    build/bin/kiln compile "test/e2e/tf/$graph" $flags --cpu x86-64-v3 -o "$dir/bench/$name.cpu"
  done
  if ! want models && ! want profile; then
    :
  elif [ -x "$tf_python" ]; then
    "$tf_python" test/gpu/models.py prepare "$dir/models" --gpu-arch "$arch" 2>&1 |
      grep -E ': (compiled|[0-9]+ constants|.*error)' || true
  else
    echo "models: skipped, no TensorFlow at $tf_python (set KILN_TF_PYTHON)"
  fi
}

run() { # run BUNDLE_DIR OUT_DIR
  dir=$1
  out=$2
  # A toolkit's libraries (cuBLAS) where the loader does not look by itself.
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
  if [ -z "${KILN_LIBCUBLAS:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[23]'; then
    lib=$(find /usr/local /opt /usr/lib -name 'libcublas.so.1[23]*' 2>/dev/null | head -n 1)
    [ -n "$lib" ] && export KILN_LIBCUBLAS="$lib"
  fi
  {
    nvidia-smi || echo "nvidia-smi failed: no GPU driver?"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH KILN_LIBCUBLAS=${KILN_LIBCUBLAS:-}"
    ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libcublas|libcudnn' || true
    find /usr/local /opt /usr/lib -name 'libcudnn.so*' -o -name 'libcublasLt.so.1*' 2>/dev/null
    nvcc --version 2>/dev/null | tail -n 2
    python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' 2>&1
    python3 -c 'import onnxruntime as o; print("onnxruntime", o.__version__, o.get_available_providers())' 2>&1
    nproc
  } > "$out/device.txt" 2>&1

  replay_run replay "replay"
  replay_run mixed "replay (cpu+gpu)"
  replay_run generated "replay (--no-kernels)"
  replay_run hopper "replay (--gpu-arch sm_90a --no-kernels, f16)"
  replay_run epilogues "replay (--gpu-epilogues)"

  # Whole graphs on the GPU against the same graphs on the CPU (medians of the runner's runs).
  want bench && for exe in "$dir"/bench/*.gpu; do
    name=$(basename "$exe" .gpu)
    echo "$name gpu: $("$exe" --bench 200 2>&1 | tail -n 1)"
    echo "$name cpu: $("$dir/bench/$name.cpu" --bench 200 2>&1 | tail -n 1)"
  done > "$out/bench.txt" 2>&1
  want bench && cat "$out/bench.txt"

  if want profile && [ -f "$dir/models/models.json" ]; then
    py=python3
    python3 -c 'import numpy' 2>/dev/null || py=/usr/bin/python3
    PYTHONUNBUFFERED=1 $py test/gpu/models.py profile "$dir/models" --runs 10 \
      > "$out/profile.txt" 2>&1
    echo "profile: $out/profile.txt"
  fi

  if want models && [ -f "$dir/models/models.json" ]; then
    py=python3
    python3 -c 'import numpy' 2>/dev/null || py=/usr/bin/python3
    # shellcheck disable=SC2086
    PYTHONUNBUFFERED=1 $py test/gpu/models.py run "$dir/models" ${KILN_GPU_MODEL_ARGS:-} \
      > "$out/models.txt" 2>&1
    cat "$out/models.txt"
  fi
}

case "${1:-}" in
  --prepare)
    bundle=${2:-gpu-bundle.tar.gz}
    tmp=$(mktemp -d)
    prepare "$tmp/gpu-bundle" || exit 1
    # xz with a large dictionary: the programs share their runtime, which gzip's 32 KiB
    # window cannot see across files. Python unpacks it where no xz is installed.
    tar -C "$tmp" -cf - gpu-bundle | xz -9 -T2 > "$bundle" && rm -rf "$tmp"
    echo "prepared $bundle ($(du -h "$bundle" | cut -f1)): run test/gpu/run_on_gpu.sh --run $bundle"
    ;;
  --run)
    bundle=${2:-gpu-bundle.tar.gz}
    out=${3:-${OUT:-gpu-results}}
    mkdir -p "$out"
    tmp=$(mktemp -d)
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
      "$bundle" "$tmp" || exit 1
    # The prepared commands name the checkout: this one.
    run "$tmp/gpu-bundle" "$out"
    ;;
  -h|--help)
    sed -n "2,31p" "$0"
    ;;
  *)
    out=${1:-${OUT:-gpu-results}}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    prepare "$root/gpu-results-bundle" > "$out/build.log" 2>&1 || {
      echo "prepare failed: $out/build.log"; exit 1; }
    # The GPU lit tests run against the real driver here (no KILN_LIBCUDA).
    /usr/lib/llvm-22/bin/lit -v build/test/codegen/gpu > "$out/lit-gpu.txt" 2>&1
    echo "lit: $(tail -n 3 "$out/lit-gpu.txt" | tr '\n' ' ')"
    run "$root/gpu-results-bundle" "$out"
    ;;
esac
