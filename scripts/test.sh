#!/usr/bin/env bash
# Runs Kiln's whole test suite from a fresh clone: installs missing Debian packages,
# configures and builds into build/ (or $KILN_BUILD_DIR), then runs lit and googletest under
# ctest. The shared corpus is read from ../shared beside the checkout, or $KILN_SHARED;
# tests that need it are skipped with a message when it is absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${KILN_BUILD_DIR:-$here/build}"
export KILN_BUILD_DIR="$build_dir"

"$here/scripts/setup.sh"

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

cd "$build_dir"
ctest --output-on-failure -j "${KILN_JOBS:-$(nproc)}"
