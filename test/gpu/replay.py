#!/usr/bin/env python3
"""Replays the numeric cases of the CPU suite (test/e2e/tf/*.test) on another device.

Each case of those lit files compiles a graph TensorFlow wrote (`kiln compile ... -o
%t/NAME`), runs it on TensorFlow's inputs and compares the outputs with TensorFlow's
(`%npycompare`). This script runs the same commands with `--devices DEVICES` added to every
compile (`--devices none`: as written, on the CPU, which checks the replay itself), and
prints one line per case and a summary:

  pass      compiled, ran and matched (with --compile-only: "compiled")
  mismatch  ran, outputs differ beyond the case's tolerance
  error     did not compile, or the program failed
  skipped   the case checks an error (`not kiln ...`), a compile-time output, or runs
            FileCheck on IR: nothing to replay on a device

With --compile-only nothing runs (for machines without the device); the summary then
counts what compiles. Exit status: 0 when no case mismatched or failed to run.

Usage: test/gpu/replay.py [--kiln build/bin/kiln] [--devices /gpu:0] [--compile-only]
                          [--out DIR] [--filter SUBSTRING] [--python PY] [FILE.test ...]
"""
import argparse
import glob
import os
import re
import shlex
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
        m = re.match(r"kiln compile .* -o %t/(\S+)", line)
        if m:
            current = (m.group(1), [line])
            result.append(current)
        elif current is not None:
            current[1].append(line)
    return result


def substitute(command, test_dir, tmp, npycompare):
    command = command.replace("%npycompare", npycompare)
    command = command.replace("%S", test_dir).replace("%t", tmp)
    command = command.replace("%kiln_src", ROOT)
    return command


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
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "test", "e2e", "tf", "*.test")))
    out = args.out or tempfile.mkdtemp(prefix="kiln-replay-")
    python = args.python or numpy_python()
    npycompare = "%s %s" % (shlex.quote(python),
                            shlex.quote(os.path.join(ROOT, "test", "e2e", "npycompare.py")))
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(args.kiln)) + os.pathsep + env.get("PATH", "")
    counts = {"pass": 0, "mismatch": 0, "error": 0, "skipped": 0, "compiled": 0}
    for path in files:
        test_dir = os.path.dirname(os.path.abspath(path))
        tmp = os.path.join(out, os.path.splitext(os.path.basename(path))[0])
        os.makedirs(tmp, exist_ok=True)
        for name, commands in cases(path):
            if args.filter not in name:
                continue
            compile_line = commands[0]
            checks_ir = "--emit" in compile_line or "FileCheck" in compile_line
            if compile_line.startswith("not ") or checks_ir or "not %t" in " ".join(commands):
                counts["skipped"] += 1
                print("skipped   %s" % name)
                continue
            if args.devices != "none":
                compile_line += " --devices=" + args.devices
            status = "pass"
            detail = ""
            for i, command in enumerate([compile_line] + commands[1:]):
                # Output checks with FileCheck print names and shapes: not the point here.
                command = re.sub(r"\|\s*FileCheck.*$", "", command)
                if args.compile_only and i > 0:
                    break
                proc = subprocess.run(substitute(command, test_dir, tmp, npycompare),
                                      shell=True, env=env, capture_output=True, text=True)
                if proc.returncode != 0:
                    compare = "npycompare.py" in command
                    status = "mismatch" if compare else "error"
                    lines = (proc.stderr or proc.stdout).strip().splitlines()
                    detail = lines[-1] if lines else "exit %d" % proc.returncode
                    break
                if i == 0:
                    counts["compiled"] += 1
            if args.compile_only and status == "pass":
                status = "compiled"  # counted in counts["compiled"]
            else:
                counts[status] += 1
            print("%-9s %s%s" % (status, name, ("  " + detail) if detail else ""))
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
