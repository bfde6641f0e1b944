#!/bin/sh
# Kiln's checks on a machine with an NVIDIA GPU (an H200 when one is lent: time on it is
# short, so this is the one script to run there). It sets up and builds like the README's
# first command, then writes everything to one folder:
#
#   device.txt        nvidia-smi
#   lit-gpu.txt       the GPU lit tests (test/codegen/gpu), against the real driver
#   replay.txt        the CPU suite's numeric cases (test/e2e/tf) compiled for /gpu:0, run
#                     and compared with TensorFlow's outputs (test/gpu/replay.py)
#   replay-mixed.txt  the same for /cpu:0,/gpu:0 (placed by the cost model: GPU partitions
#                     beside CPU ones, their tensors through the host)
#   bench.txt         the example graphs timed on the GPU and on the CPU (runner --bench)
#
# Usage: test/gpu/run_on_gpu.sh [OUT_DIR]   (default: gpu-results; $OUT when set)
set -u
cd "$(dirname "$0")/../.."
out=${1:-${OUT:-gpu-results}}
mkdir -p "$out"
nvidia-smi > "$out/device.txt" 2>&1 || echo "nvidia-smi failed: no GPU driver?" >> "$out/device.txt"

if [ ! -x build/bin/kiln ]; then
  scripts/setup.sh > "$out/build.log" 2>&1 || { echo "setup/build failed: $out/build.log"; exit 1; }
fi
ninja -C build >> "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }

# The GPU lit tests run against the real driver here (no KILN_LIBCUDA).
/usr/lib/llvm-22/bin/lit -v build/test/codegen/gpu > "$out/lit-gpu.txt" 2>&1
echo "lit: $(tail -n 3 "$out/lit-gpu.txt" | tr '\n' ' ')"

python3 test/gpu/replay.py --kiln build/bin/kiln --devices /gpu:0 --out "$out/replay" \
  > "$out/replay.txt" 2>&1
echo "replay: $(tail -n 1 "$out/replay.txt")"
python3 test/gpu/replay.py --kiln build/bin/kiln --devices /cpu:0,/gpu:0 \
  --out "$out/replay-mixed" > "$out/replay-mixed.txt" 2>&1
echo "replay (cpu+gpu): $(tail -n 1 "$out/replay-mixed.txt")"

# Whole graphs on the GPU against the same graphs on the CPU (medians of the runner's runs).
{
  for spec in \
    "bn_relu_tanh_large.pbtxt|--feed x=f32[1,32,32,32] --fetch y --fetch z" \
    "softmax_layernorm_large.pbtxt|--feed scores=f32[1,8,32,128] --feed rows=f32[1,128,256] --fetch n --fetch s" \
    "conv3x3_relu_pool.pbtxt|--feed x=f32[2,15,13,16] --fetch y"; do
    graph=${spec%%|*}
    flags=${spec#*|}
    name=${graph%.pbtxt}
    # shellcheck disable=SC2086
    build/bin/kiln compile "test/e2e/tf/$graph" $flags --devices /gpu:0 -o "$out/$name.gpu" &&
      echo "$name gpu: $("$out/$name.gpu" --bench 200 2>&1 | tail -n 1)"
    # shellcheck disable=SC2086
    build/bin/kiln compile "test/e2e/tf/$graph" $flags -o "$out/$name.cpu" &&
      echo "$name cpu: $("$out/$name.cpu" --bench 200 2>&1 | tail -n 1)"
  done
} > "$out/bench.txt" 2>&1
cat "$out/bench.txt"
