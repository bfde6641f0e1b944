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
with one compiler and not the other, and a summary. A case whose output varies from run to
run with the same compiler is compiled again a few times and counted as "varies" when a
run of each compiler agrees. Exit status 0 when nothing differs.

Build the "before" compiler from the commit to compare against (a worktree beside the
checkout, built as scripts/setup.sh builds), then:

  scripts/compare-emit.py --before ../kiln-base/build/bin/kiln --after build/bin/kiln

With --zoo DIR it compares the benchmark zoo's models instead (test/bench/zoo.py writes
DIR/NAME-bBATCH.pb with its feeds and fetches beside it): each compiled as an object file and
header (--emit obj, whose weights bypass LLVM), both files compared.

Usage: scripts/compare-emit.py --before KILN --after KILN [--out DIR] [--filter SUBSTRING]
                               [--jobs N] [--cpu-only] [FILE.test ...]
       scripts/compare-emit.py --before KILN --after KILN --zoo DIR [--filter SUBSTRING]
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
    # The compile alone: not what the case pipes its output to or redirects.
    for i, word in enumerate(words):
        if word in ("|", "&&", ";") or word.startswith((">", "2>", "<")):
            words = words[:i]
            break
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


# A case whose outputs differ is compiled again this many times with each compiler: a
# compiler whose output varies from run to run (the order of a hash map) shows as
# "varies" when some pair of runs agrees, rather than as a difference.
RETRIES = 4


def compile_both(test, name, line, kind, args):
    """Each compiler's (exit code, errors, output bytes) for the case."""
    kind_name, extra, suffix = kind
    test_dir = os.path.dirname(os.path.abspath(test))
    results = []
    for which, kiln in (("before", args.before), ("after", args.after)):
        path = os.path.join(args.out, which, f"{os.path.basename(test)}.{name}.{suffix}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.exists(path):
            os.remove(path)
        code, err = run(compile_command(line, test_dir, kiln, extra, path))
        data = b""
        if code == 0:
            # An object file comes with its header (--emit obj): both are compared.
            for written in (path, path[:-2] + ".h") if suffix == "o" else (path,):
                with open(written, "rb") as f:
                    data += f.read()
        # Errors name the output's folder, which differs by compiler.
        results.append((code, err.replace(os.path.join(args.out, which), "OUT"), data))
    return results


def compare_case(test, name, line, kind, args):
    kind_name = kind[0]
    if kind_name == "ptx" and "--devices" in line:
        return ("skipped", test, name, kind_name, "")
    (before_code, before_err, before), (after_code, after_err, after) = compile_both(
        test, name, line, kind, args)
    if before_code == 0 and after_code == 0 and before != after:
        befores, afters = {before}, {after}
        for _ in range(RETRIES):
            (_, _, b), (_, _, a) = compile_both(test, name, line, kind, args)
            befores.add(b)
            afters.add(a)
            if befores & afters:
                return ("varies", test, name, kind_name,
                        f"{len(befores)} outputs before, {len(afters)} after, some the same")
    if before_code != 0 and after_code != 0:
        same = before_err == after_err
        return ("both-fail" if same else "differ", test, name, kind_name,
                "" if same else f"errors differ:\n  before: {before_err.strip()}\n"
                                f"  after: {after_err.strip()}")
    if before_code != after_code:
        return ("differ", test, name, kind_name,
                f"compiled with one compiler only:\n  before (exit {before_code}): "
                f"{before_err.strip()}\n  after (exit {after_code}): {after_err.strip()}")
    if before == after:
        return ("same", test, name, kind_name, "")
    diff = difflib.unified_diff(before.decode(errors="replace").splitlines(),
                                after.decode(errors="replace").splitlines(), "before", "after",
                                lineterm="", n=1)
    return ("differ", test, name, kind_name, "\n".join(list(diff)[:20]))


def zoo_cases(directory, pattern):
    """(name, compile line) per model of the zoo in `directory` (zoo.py's files)."""
    import ast
    import json
    import zipfile

    def npz_inputs(path):
        """{name: (descr, shape)} of the .npy files in the .npz `path` (no NumPy needed)."""
        inputs = {}
        with zipfile.ZipFile(path) as z:
            for member in z.namelist():
                with z.open(member) as f:
                    head = f.read(10)
                    length = int.from_bytes(head[8:10], "little")
                    if head[6] >= 2:  # version 2 and 3: a 4-byte header length
                        length = int.from_bytes(head[8:10] + f.read(2), "little")
                    header = ast.literal_eval(f.read(length).decode("latin1"))
                inputs[member[:-len(".npy")]] = (header["descr"], header["shape"])
        return inputs

    cases = []
    for spec in sorted(glob.glob(os.path.join(directory, "*.json"))):
        stem = spec[:-len(".json")]
        name = os.path.basename(stem)
        if pattern not in name or not os.path.exists(stem + ".pb"):
            continue
        with open(spec) as f:
            meta = json.load(f)
        inputs = npz_inputs(stem + ".npz")
        line = ["kiln", "compile", stem + ".pb"]
        for feed in meta["feeds"]:
            descr, shape = inputs[feed]
            dtype = {"<f4": "f32", "<i4": "i32", "<i8": "i64"}[descr]
            line += ["--feed", "%s=%s[%s]" % (feed, dtype, ",".join(map(str, shape)))]
        for fetch in meta["fetches"]:
            line += ["--fetch", fetch]
        cases.append((name, shlex.join(line + ["-o", "%t/" + name])))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the kiln to compare against")
    parser.add_argument("--after", required=True, help="the kiln to check")
    parser.add_argument("--out", help="where the outputs go (default: a temporary folder)")
    parser.add_argument("--filter", default="", help="only cases whose name holds this")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cpu-only", action="store_true", help="LLVM IR only, no PTX")
    parser.add_argument("--zoo", help="compare the zoo's models in this folder (zoo.py)")
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
    if args.zoo:
        obj = ("obj", ["--emit", "obj", "--cpu", "x86-64-v3"], "o")
        work = [(os.path.join(args.zoo, "zoo"), name, line, obj)
                for name, line in zoo_cases(args.zoo, args.filter)]
    else:
        # A case's name with its place in the file (a file may compile to one name twice).
        work = [(test, f"{i}.{name}", commands[0], kind)
                for test in tests for i, (name, commands) in enumerate(replay.cases(test))
                if args.filter in name for kind in kinds]
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for status, test, name, kind, detail in pool.map(
                lambda w: compare_case(*w, args), work):
            counts[status] = counts.get(status, 0) + 1
            if status in ("differ", "varies"):
                print(f"{status} {os.path.basename(test)} {name} ({kind})\n{detail}")
    print("compare-emit: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 1 if counts.get("differ") else 0


if __name__ == "__main__":
    sys.exit(main())
