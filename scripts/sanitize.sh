#!/usr/bin/env bash
# Builds the whole of Kiln (compiler, tools, runtime, tests) with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-sanitize/ (or $KILN_SANITIZE_BUILD_DIR) and runs the
# test suite there: every kiln and kiln-opt of the lit tests runs instrumented, every
# compiled model links the instrumented runtime. Run before closing an issue; it takes
# about an hour on two cores (scripts/test.sh covers the runtime alone on every run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${KILN_SANITIZE_BUILD_DIR:-$here/build-sanitize}"
sanitizers=address,undefined

"$here/scripts/setup.sh" --deps-only
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH=/usr/lib/llvm-22 -DKILN_SANITIZE="$sanitizers" "${launcher[@]}"
fi
cmake --build "$build_dir" -j "${KILN_JOBS:-$(nproc)}"
# Compiled models link the instrumented runtime beside the instrumented kiln (KILN_LDFLAGS
# adds the sanitizers' runtime to that link).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export KILN_LDFLAGS="-fsanitize=$sanitizers"
if [ -n "${KILN_SHARED:-}" ]; then shared="$KILN_SHARED"; else shared="$(cd "$here/.." && pwd)/shared"; fi
export KILN_SHARED="$shared"
cd "$build_dir"
ctest --output-on-failure -j "${KILN_JOBS:-$(nproc)}"
