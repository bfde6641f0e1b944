#!/usr/bin/env bash
# Compiles the bundled example (examples/mlp/mlp.pbtxt, a small MLP) with the kiln in
# build/ (or $KILN_BUILD_DIR), runs it on examples/mlp/x.npy and compares the result with
# the NumPy reference examples/mlp/probs_0.npy.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${KILN_BUILD_DIR:-$here/build}"
out="$build_dir/example"
mkdir -p "$out"
set -x
"$build_dir/bin/kiln" compile "$here/examples/mlp/mlp.pbtxt" \
  --feed x=f32[2,8] --fetch probs -o "$out/mlp"
"$out/mlp" --input x="$here/examples/mlp/x.npy" --output-dir "$out"
/usr/bin/python3 "$here/test/e2e/npycompare.py" --rtol 1e-5 --atol 1e-6 \
  "$out/probs_0.npy" "$here/examples/mlp/probs_0.npy"
