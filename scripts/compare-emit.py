#!/usr/bin/env python3
"""Compares what two builds of `kiln` emit for the test models: byte for byte.

A change that only moves code (a split, a rename, a new stage order) must leave the
generated code as it was. This script takes every compile of the end-to-end suite
(`kiln compile ... -o %t/NAME` in test/e2e/{tf,ops,rnn,corpus,savedmodel}/*.test, as
test/gpu/replay.py reads them; the corpus cases need the shared corpus, ../shared or
$KILN_SHARED) and runs it with each compiler twice:

  --emit llvm                          the CPU model's LLVM IR
  --emit ptx --devices /gpu:0          the same graph's GPU kernels (PTX), with the
             --no-kernels --gpu-arch sm_90a   products and convolutions as Kiln's own kernels
                                       (cases whose graph places itself, or that a GPU
                                       cannot take, are skipped by both alike)

and reports each output that differs (the first lines of the diff), each case that compiled
with one compiler and not the other, and a summary. Exit status 0 when nothing differs.

Build the "before" compiler from the commit to compare against (a worktree beside the
checkout, built as scripts/setup.sh builds), then:

  scripts/compare-emit.py --before ../kiln-base/build/bin/kiln --after build/bin/kiln

Usage: scripts/compare-emit.py --before KILN --after KILN [--out DIR] [--filter SUBSTRING]
                               [--jobs N] [--cpu-only] [FILE.test ...]
"""
import argparse
import concurrent.futures
import difflib
import glob
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import replay  # noqa: E402  (the lit files' compile commands, and their substitutions)

# The emitted kinds: a name, the options added to the case's compile, and the file suffix.
KINDS = [
    ("llvm", ["--emit", "llvm", "--cpu", "x86-64-v3"], "ll"),
    ("ptx", ["--emit", "ptx", "--devices", "/gpu:0", "--no-kernels", "--gpu-arch", "sm_90a"],
     "ptx"),
]


def compile_command(line, test_dir, kiln, extra, output):
    """The case's compile line for `kiln`, writing `output` with `extra` options added."""
    command = replay.substitute(line, test_dir, os.path.dirname(output), "true")
    words = shlex.split(command)
    words = words[words.index("compile") + 1:]
    # Drop the case's own -o, --emit and --cpu (the kinds set them).
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-o", "--emit", "--cpu"):
            skip = True
            continue
        kept.append(word)
    return [kiln, "compile"] + kept + extra + ["-o", output]


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, result.stderr


def compare_case(test, name, line, kind, args):
    kind_name, extra, suffix = kind
    if kind_name == "ptx" and "--devices" in line:
        return ("skipped", test, name, kind_name, "")
    test_dir = os.path.dirname(os.path.abspath(test))
    outputs, codes = [], []
    for which, kiln in (("before", args.before), ("after", args.after)):
        path = os.path.join(args.out, which, f"{os.path.basename(test)}.{name}.{suffix}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        code, err = run(compile_command(line, test_dir, kiln, extra, path))
        codes.append((code, err))
        outputs.append(path)
    (before_code, before_err), (after_code, after_err) = codes
    if before_code != 0 and after_code != 0:
        same = before_err == after_err
        return ("both-fail" if same else "differ", test, name, kind_name,
                "" if same else f"errors differ:\n  before: {before_err.strip()}\n"
                                f"  after: {after_err.strip()}")
    if before_code != after_code:
        return ("differ", test, name, kind_name,
                f"compiled with one compiler only:\n  before (exit {before_code}): "
                f"{before_err.strip()}\n  after (exit {after_code}): {after_err.strip()}")
    with open(outputs[0], "rb") as f:
        before = f.read()
    with open(outputs[1], "rb") as f:
        after = f.read()
    if before == after:
        return ("same", test, name, kind_name, "")
    diff = difflib.unified_diff(before.decode(errors="replace").splitlines(),
                                after.decode(errors="replace").splitlines(), "before", "after",
                                lineterm="", n=1)
    return ("differ", test, name, kind_name, "\n".join(list(diff)[:20]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the kiln to compare against")
    parser.add_argument("--after", required=True, help="the kiln to check")
    parser.add_argument("--out", help="where the outputs go (default: a temporary folder)")
    parser.add_argument("--filter", default="", help="only cases whose name holds this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cpu-only", action="store_true", help="LLVM IR only, no PTX")
    parser.add_argument("tests", nargs="*")
    args = parser.parse_args()
    for kiln in (args.before, args.after):
        if not os.access(kiln, os.X_OK):
            sys.exit(f"compare-emit: '{kiln}' is not an executable kiln")
    tests = args.tests or sorted(
        path for suite in ("tf", "ops", "rnn", "corpus", "savedmodel")
        for path in glob.glob(os.path.join(ROOT, "test", "e2e", suite, "*.test")))
    temporary = None
    if not args.out:
        temporary = tempfile.TemporaryDirectory(prefix="kiln-compare-")
        args.out = temporary.name
    kinds = KINDS[:1] if args.cpu_only else KINDS
    # A case's name with its place in the file (a file may compile to one name twice).
    work = [(test, f"{i}.{name}", commands[0], kind)
            for test in tests for i, (name, commands) in enumerate(replay.cases(test))
            if args.filter in name for kind in kinds]
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for status, test, name, kind, detail in pool.map(
                lambda w: compare_case(*w, args), work):
            counts[status] = counts.get(status, 0) + 1
            if status == "differ":
                print(f"differ {os.path.basename(test)} {name} ({kind})\n{detail}")
    print("compare-emit: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 1 if counts.get("differ") else 0


if __name__ == "__main__":
    sys.exit(main())
