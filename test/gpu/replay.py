#!/usr/bin/env python3
"""Replays the numeric cases of the CPU suite (test/e2e/tf/*.test) on another device.

Each case of those lit files compiles a graph TensorFlow wrote (`kiln compile ... -o
%t/NAME`), runs it on TensorFlow's inputs and compares the outputs with TensorFlow's
(`%npycompare`). This script runs the same commands with `--devices DEVICES` added to every
compile (`--devices none`: as written, on the CPU, which checks the replay itself), and `--flags`
(`--flags=--no-kernels`: Kiln's generated products and convolutions, not cuBLAS and cuDNN), and
prints one line per case and a summary:

  pass      compiled, ran and matched (with --compile-only: "compiled")
  mismatch  ran, outputs differ beyond the case's tolerance
  error     did not compile, or the program failed (with --prepared: "uncompiled" when
            it did not compile)
  skipped   the case checks an error (`not kiln ...`), a compile-time output, or runs
            FileCheck on IR, or places the graph itself (--devices): nothing to replay;
            or it reads the shared corpus (lit's %shared: $KILN_SHARED, else ../shared
            beside the checkout) and that is absent

With --compile-only nothing runs (for machines without the device); the summary then
counts what compiles. Exit status: 0 when no case mismatched or failed to run.

A GPU machine may have no LLVM 22 to build Kiln with. Then compile here with
`--prepare DIR` (DIR/cases.json lists each case's commands left to run, with the paths of
the checkout and of DIR as placeholders) and run DIR there with `--prepared DIR`, from a
checkout of the same commit (the cases read their inputs and references from it; those of
the shared corpus are copied into DIR/shared).

Usage: test/gpu/replay.py [--kiln build/bin/kiln] [--devices /gpu:0] [--compile-only]
                          [--out DIR] [--filter SUBSTRING] [--python PY] [FILE.test ...]
       test/gpu/replay.py --prepare DIR [--devices ...] [--gpu-arch sm_90] [--flags OPTIONS]
                          [FILE.test ...]
       test/gpu/replay.py --prepared DIR [--python PY] [--jobs N]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_lines(path):
    """The RUN lines of a lit file, joined where they end in a backslash."""
    lines, pending = [], ""
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*#\s*RUN:\s?(.*)$", line)
            if not m:
                continue
            text = pending + m.group(1).rstrip()
            if text.endswith("\\"):
                pending = text[:-1]
                continue
            pending = ""
            lines.append(text)
    return lines


def cases(path):
    """(name, [commands]) per case: a compile and the runs and comparisons that use its -o."""
    result, current = [], None
    for line in run_lines(path):
        if line.startswith("rm -rf %t"):
            continue
        # A compile that must fail checks its error: no case, and not part of the one before.
        if line.startswith("not kiln compile"):
            current = None
            continue
        m = re.match(r"kiln compile .* -o %t/(\S+)", line)
        if m:
            current = (m.group(1), [line])
            result.append(current)
        elif current is not None:
            current[1].append(line)
    return result


# The shared corpus (lit's %shared): $KILN_SHARED, else ../shared beside the checkout.
SHARED = os.environ.get("KILN_SHARED") or os.path.join(os.path.dirname(ROOT), "shared")


def substitute(command, test_dir, tmp, npycompare, root=ROOT):
    command = command.replace("%npycompare", npycompare)
    command = command.replace("%S", test_dir).replace("%t", tmp)
    command = command.replace("%kiln_src", root).replace("%shared", SHARED)
    return command


# Placeholders of a prepared directory's commands: the checkout and the directory itself.
ROOT_MARK, DIR_MARK = "@KILN_SRC@", "@PREPARED@"
TIMEOUT = 120  # seconds for one command of a case (a hang is an error, not a stall)


def take_shared(command, out):
    """`command` (run after the compile) reading the shared corpus's files (inputs and
    TensorFlow's outputs) from copies in OUT/shared: the machine that runs a prepared
    directory has the checkout, not the corpus beside it."""
    def copy(m):
        rel = m.group(1)
        source, target = os.path.join(SHARED, rel), os.path.join(out, "shared", rel)
        if os.path.isfile(source) and not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        return DIR_MARK + "/shared/" + rel
    return re.sub(r"%shared/([^\s'\"]+)", copy, command)


def run_case(commands, env, stop_after_compile=False):
    """Runs a case's commands in order: (status, detail, compiled)."""
    compiled = False
    for i, command in enumerate(commands):
        # Output checks with FileCheck print names and shapes: not the point here.
        command = re.sub(r"\|\s*FileCheck.*$", "", command)
        if stop_after_compile and i > 0:
            break
        try:
            proc = subprocess.run(command, shell=True, env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return "error", "no answer in %d s: %s" % (TIMEOUT, command.split()[0]), compiled
        if proc.returncode != 0:
            compare = "npycompare.py" in command
            lines = (proc.stderr or proc.stdout).strip().splitlines()
            return ("mismatch" if compare else "error",
                    lines[-1] if lines else "exit %d" % proc.returncode, compiled)
        if i == 0:
            compiled = True
    return "pass", "", compiled


def run_prepared(directory, python, jobs):
    """Runs the cases --prepare compiled into DIRECTORY (on the machine with the device),
    JOBS at a time."""
    with open(os.path.join(directory, "cases.json")) as f:
        manifest = json.load(f)
    directory = os.path.abspath(directory)
    npycompare = "%s %s" % (shlex.quote(python),
                            shlex.quote(os.path.join(ROOT, "test", "e2e", "npycompare.py")))
    counts = {"pass": 0, "mismatch": 0, "error": 0, "uncompiled": 0,
              "skipped": manifest["skipped"]}
    def one(case):
        commands = [c.replace(ROOT_MARK, ROOT).replace(DIR_MARK, directory)
                    .replace("%npycompare", npycompare) for c in case["commands"]]
        if case.get("error"):
            return "uncompiled", case["error"]
        return run_case(commands, dict(os.environ))[:2]  # compiled on the preparing machine

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(one, manifest["cases"]))
    for case, (status, detail) in zip(manifest["cases"], results):
        counts[status] += 1
        print("%-9s %s%s" % (status, case["name"], ("  " + detail) if detail else ""))
    total = sum(counts.values())
    print("\n%d cases on %s (prepared): %d passed, %d mismatched, %d errors, %d did not "
          "compile, %d skipped" % (total, manifest["devices"], counts["pass"],
                                   counts["mismatch"], counts["error"], counts["uncompiled"],
                                   counts["skipped"]))
    return 1 if counts["mismatch"] or counts["error"] else 0


def numpy_python():
    """This Python if it has NumPy, else Debian's, which scripts/setup.sh gives NumPy."""
    try:
        import numpy  # noqa: F401
        return sys.executable
    except ImportError:
        return "/usr/bin/python3"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    parser.add_argument("--devices", default="/gpu:0")
    parser.add_argument("--compile-only", action="store_true")
    parser.add_argument("--out", default=None, help="work directory (default: a temporary one)")
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--python", default=None,
                        help="a Python with NumPy for npycompare.py (default: this one if it "
                             "has NumPy, else /usr/bin/python3, as the lit suite finds it)")
    parser.add_argument("--prepare", metavar="DIR", default=None,
                        help="compile the cases into DIR and list what is left to run in "
                             "DIR/cases.json (for a device machine without the compiler)")
    parser.add_argument("--prepared", metavar="DIR", default=None,
                        help="run the cases --prepare compiled into DIR")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="with --prepared: cases run at a time (default: one per core)")
    parser.add_argument("--gpu-arch", default=None,
                        help="with --prepare: also assemble the kernels for this sm_XX")
    parser.add_argument("--flags", default="",
                        help="more options for every compile (--no-kernels: Kiln's own "
                             "kernels for products and convolutions instead of libraries)")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    python = args.python or numpy_python()
    if args.prepared:
        return run_prepared(args.prepared, python, args.jobs)
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "test", "e2e", "tf", "*.test")))
    if args.prepare:
        args.out = args.prepare
    out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="kiln-replay-"))
    npycompare = "%s %s" % (shlex.quote(python),
                            shlex.quote(os.path.join(ROOT, "test", "e2e", "npycompare.py")))
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(args.kiln)) + os.pathsep + env.get("PATH", "")
    counts = {"pass": 0, "mismatch": 0, "error": 0, "skipped": 0, "compiled": 0}
    prepared = []
    for path in files:
        test_dir = os.path.dirname(os.path.abspath(path))
        tmp = os.path.join(out, os.path.splitext(os.path.basename(path))[0])
        os.makedirs(tmp, exist_ok=True)
        for name, commands in cases(path):
            if args.filter not in name:
                continue
            compile_line = commands[0]
            checks_ir = "--emit" in compile_line or "FileCheck" in compile_line
            # A case that places its graph itself (--devices) is about that placement; one
            # of the shared corpus needs it here (lit skips those tests without it too).
            no_corpus = "%shared" in compile_line and not os.path.isdir(
                os.path.join(SHARED, "corpus"))
            if (compile_line.startswith("not ") or checks_ir or "--devices" in compile_line or
                    "not %t" in " ".join(commands) or no_corpus):
                counts["skipped"] += 1
                print("skipped   %s" % name)
                continue
            if args.devices != "none":
                compile_line += " --devices=" + args.devices
            if args.gpu_arch:
                compile_line += " --gpu-arch=" + args.gpu_arch
            if args.flags:
                compile_line += " " + args.flags
            if args.prepare:
                status, detail, compiled = run_case(
                    [substitute(compile_line, test_dir, tmp, npycompare)], env)
                counts["compiled"] += compiled
                rel_dir = os.path.relpath(test_dir, ROOT)
                rel_tmp = os.path.relpath(tmp, out)
                prepared.append({
                    "name": name, "error": detail if status != "pass" else "",
                    "commands": [substitute(take_shared(c, out), ROOT_MARK + "/" + rel_dir,
                                            DIR_MARK + "/" + rel_tmp, "%npycompare",
                                            ROOT_MARK)
                                 for c in commands[1:]]})
                print("%-9s %s%s" % ("compiled" if compiled else "error", name,
                                     ("  " + detail) if detail else ""))
                continue
            status, detail, compiled = run_case(
                [substitute(c, test_dir, tmp, npycompare) for c in [compile_line] + commands[1:]],
                env, args.compile_only)
            counts["compiled"] += compiled
            if args.compile_only and status == "pass":
                status = "compiled"  # counted in counts["compiled"]
            else:
                counts[status] += 1
            print("%-9s %s%s" % (status, name, ("  " + detail) if detail else ""))
    if args.prepare:
        with open(os.path.join(out, "cases.json"), "w") as f:
            json.dump({"devices": args.devices, "skipped": counts["skipped"],
                       "cases": prepared}, f, indent=1)
        print("\n%d cases for %s prepared in %s: %d compiled, %d skipped"
              % (len(prepared), args.devices, out, counts["compiled"], counts["skipped"]))
        return 0
    total = sum(counts[k] for k in ("pass", "mismatch", "error", "skipped"))
    if args.compile_only:
        total += counts["compiled"]
    print("\n%d cases on %s%s: %d compiled, %d passed, %d mismatched, %d errors, %d skipped"
          % (total, args.devices, " (compile only)" if args.compile_only else "",
             counts["compiled"], counts["pass"], counts["mismatch"], counts["error"],
             counts["skipped"]))
    return 1 if counts["mismatch"] or (counts["error"] and not args.compile_only) else 0


if __name__ == "__main__":
    sys.exit(main())
