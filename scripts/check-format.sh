#!/usr/bin/env bash
# Checks that every C and C++ file of the checkout is laid out as .clang-format says
# (LLVM's style at 100 columns), with clang-format from LLVM 22's packages (clang-format-22,
# which scripts/setup.sh installs). Exits 1 naming each file that is not, with the first
# lines clang-format would change. Options:
#   --fix   rewrite those files instead
# scripts/test.sh runs it first, so CI fails on an unformatted change.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
fix=0
for a in "$@"; do
  case "$a" in
    --fix) fix=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "check-format.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done
format="${CLANG_FORMAT:-}"
if [ -z "$format" ]; then
  for candidate in clang-format-22 /usr/lib/llvm-22/bin/clang-format; do
    if command -v "$candidate" >/dev/null; then format="$candidate"; break; fi
  done
fi
if [ -z "$format" ]; then
  echo "check-format.sh: no clang-format-22 (scripts/setup.sh installs it)" >&2
  exit 2
fi
# The tracked files, or every file where this is not a git checkout (an unpacked archive).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h')
else
  mapfile -t files < <(find . -path ./build -prune -o -type f \
    \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.h' \) -print | sed 's|^\./||')
fi
if [ "$fix" = 1 ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" "$f" | cmp -s - "$f"; then
    echo "check-format.sh: $f is not formatted (scripts/check-format.sh --fix); first changes:"
    "$format" "$f" | diff -u "$f" - | sed -n '3,14p'
    bad=$((bad + 1))
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "check-format.sh: $bad of ${#files[@]} files not formatted with $("$format" --version)"
  exit 1
fi
echo "check-format.sh: ${#files[@]} C and C++ files formatted"
