#!/usr/bin/env bash
# Installs Kiln's build and test dependencies from Debian 12 packages (idempotent), then
# configures and builds into build/. Options:
#   --deps-only   install packages, do not configure or build
#   --no-build    same as --deps-only
# Environment: KILN_BUILD_DIR (default build), KILN_JOBS (default: number of cores).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${KILN_BUILD_DIR:-$here/build}"
build=1
for a in "$@"; do
  case "$a" in
    --deps-only|--no-build) build=0 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22 clang-format-22
  libeigen3-dev libprotobuf-dev protobuf-compiler libcli11-dev
  googletest libgtest-dev libopenmpi-dev openmpi-bin
  python3 python3-numpy zlib1g-dev libzstd-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "$build" -eq 1 ] || exit 0

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -S "$here" -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE="${KILN_BUILD_TYPE:-Release}" \
    -DCMAKE_PREFIX_PATH=/usr/lib/llvm-22 "${launcher[@]}"
fi
cmake --build "$build_dir" -j "${KILN_JOBS:-$(nproc)}"
