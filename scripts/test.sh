#!/usr/bin/env bash
# Runs Kiln's whole test suite from a fresh clone: installs missing Debian packages,
# configures and builds into build/ (or $KILN_BUILD_DIR), then runs lit and googletest under
# ctest; then builds the runtime and kernels under ASan + UBSan and runs their tests and the
# end-to-end tests against them. The shared corpus is read from ../shared beside the
# checkout, or $KILN_SHARED; tests that need it are skipped with a message when it is absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${KILN_BUILD_DIR:-$here/build}"
export KILN_BUILD_DIR="$build_dir"

"$here/scripts/setup.sh"
# Layout first: an unformatted C or C++ file fails the run (scripts/check-format.sh --fix).
"$here/scripts/check-format.sh"

if [ -n "${KILN_SHARED:-}" ]; then
  shared="$KILN_SHARED"
else
  shared="$(cd "$here/.." && pwd)/shared"
fi
if [ -d "$shared/corpus" ]; then
  echo "test.sh: using the shared corpus at $shared"
else
  echo "test.sh: no shared corpus at $shared (set KILN_SHARED): corpus tests are skipped"
fi
export KILN_SHARED="$shared"

jobs="${KILN_JOBS:-$(nproc)}"
cd "$build_dir"
ctest --output-on-failure -j "$jobs"

# The runtime and its kernels again under AddressSanitizer and UndefinedBehaviorSanitizer:
# their unit tests, then the end-to-end tests with every compiled model linked against them.
# KILN_SKIP_SANITIZED=1 skips this part (for quick local runs; CI never sets it).
if [ "${KILN_SKIP_SANITIZED:-0}" = 1 ]; then
  echo "test.sh: KILN_SKIP_SANITIZED=1: the sanitized runtime is not tested"
  exit 0
fi
san_dir="$build_dir/sanitized-runtime"
sanitizers=address,undefined
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$san_dir/build.ninja" ]; then
  cmake -S "$here" -B "$san_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKILN_BUILD_COMPILER=OFF -DKILN_SANITIZE="$sanitizers" "${launcher[@]}" >/dev/null
fi
echo "test.sh: building the runtime with -fsanitize=$sanitizers in $san_dir"
cmake --build "$san_dir" -j "$jobs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
(cd "$san_dir" && ctest --output-on-failure -j "$jobs")
echo "test.sh: the end-to-end tests with models linked against the sanitized runtime"
# (The GPU ones run on the fake driver and cuBLAS the sanitized build makes beside it.)
/usr/lib/llvm-22/bin/lit -sv --param kiln_runtime_lib_dir="$san_dir/lib" \
  --param kiln_ldflags="-fsanitize=$sanitizers" "$build_dir/test/e2e" \
  "$build_dir/test/codegen/gpu"
