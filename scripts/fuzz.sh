#!/usr/bin/env bash
# Builds Kiln's fuzz targets with clang, libFuzzer, ASan and UBSan into build-fuzz/ (or
# $KILN_FUZZ_BUILD_DIR) and runs each for a while on a copy of its corpus. Findings
# (crash-*, leak-*, timeout-*) land in build-fuzz/findings/TARGET/; add each, once fixed, to
# test/fuzz/corpus/TARGET/. Usage:
#   scripts/fuzz.sh [--seconds N] [--jobs N] [--no-build] [TARGET...]
# TARGET is graphdef, graphdef-text, bundle, saved-model, config, npy or runner-args
# (default: all); N seconds per target (default 60), N targets at a time (default: the
# number of cores); --no-build runs the targets as last built (to top up an earlier run of
# the same code). Each run prints the CPU time it took, its executions, coverage (cov:
# edges, ft: features) and the corpus it grew.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${KILN_FUZZ_BUILD_DIR:-$here/build-fuzz}"
seconds=60
jobs="$(nproc)"
build=yes
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --no-build) build=no; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(graphdef graphdef-text bundle saved-model config npy runner-args)

# clang 22 and its runtime (libFuzzer, the sanitizers), and time, from Debian's packages.
"$here/scripts/setup.sh" --deps-only
missing=()
for p in clang-22 libclang-rt-22-dev time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_PREFIX_PATH=/usr/lib/llvm-22 -DKILN_BUILD_TESTS=ON -DKILN_LIBFUZZER=ON \
    -DKILN_SANITIZE=address,undefined,fuzzer-no-link "${launcher[@]}"
fi
[ "$build" = no ] ||
  cmake --build "$build_dir" -j "$(nproc)" --target $(printf 'kiln-fuzz-%s ' "${targets[@]}")

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
run() {
  local t="$1" work="$build_dir/corpus/$1" findings="$build_dir/findings/$1"
  mkdir -p "$work" "$findings"
  cp -n "$here/test/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  echo "fuzz.sh: kiln-fuzz-$t for ${seconds}s"
  /usr/bin/time -o "$build_dir/fuzz-$t.time" -f "%U %S" \
    "$build_dir/bin/kiln-fuzz-$t" "$work" -max_total_time="$seconds" -print_final_stats=1 \
    -rss_limit_mb=4096 -timeout=30 -artifact_prefix="$findings/" > "$build_dir/fuzz-$t.log" 2>&1 \
    || echo "fuzz.sh: kiln-fuzz-$t stopped with a finding (see $build_dir/fuzz-$t.log)"
  local cpu
  cpu="$(awk '/^[0-9.]+ [0-9.]+$/ { printf "%.0f", $1 + $2 }' "$build_dir/fuzz-$t.time")"
  echo "fuzz.sh: kiln-fuzz-$t: ${cpu}s of CPU, \
$(grep -E '^stat::number_of_executed_units' "$build_dir/fuzz-$t.log" | grep -oE '[0-9]+') executions, \
$(grep -E '#[0-9]+[[:space:]]+DONE' "$build_dir/fuzz-$t.log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+')"
}
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
ls "$build_dir"/findings/*/ 2>/dev/null | grep -qE 'crash|leak|timeout|oom' \
  && { echo "fuzz.sh: findings in $build_dir/findings"; exit 1; }
echo "fuzz.sh: no findings"
