#!/usr/bin/env python3
"""Registers and spills of Kiln's generated GPU kernels, model by model, from ptxas -v:
what can be measured of a kernel's occupancy without a GPU.

  collect OUT   compiles every model of the zoo cache (test/bench/zoo.py's frozen graphs
                and their .json) for /gpu:0 with --emit ptx (and FLAGS, by default
                --no-kernels, so that products and convolutions are Kiln's own kernels),
                assembles each PTX with ptxas -v for --arch, and writes OUT/MODEL.txt:
                one line per kernel, "registers spill-store-bytes name".
  compare A B   the kernels whose registers or spills differ between two collections
                (A before, B after), counts of fewer and more, the mean over the changed
                ones, and every kernel that spills in B.

Needs only the standard library (no TensorFlow: the zoo cache must be there; models.py
prepare or test/bench/zoo.py makes it).

Usage: python3 test/gpu/registers.py collect OUT [--kiln build/bin/kiln]
           [--zoo ~/.cache/kiln-zoo] [--arch sm_90] [--flags "--no-kernels"]
       python3 test/gpu/registers.py compare A B [--all]
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def ptxas_kernels(text):
    """{kernel: (registers, spill store bytes)} from ptxas -v's report."""
    kernels, name, spills = {}, None, 0
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            name, spills = m.group(1), 0
        m = re.search(r"(\d+) bytes spill stores", line)
        if m:
            spills = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            kernels[name] = (int(m.group(1)), spills)
    return kernels


def collect(a):
    os.makedirs(a.out, exist_ok=True)
    ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
    graphs = sorted(glob.glob(os.path.join(a.zoo, "*.pb")))
    if not graphs:
        sys.exit("registers.py: no frozen graphs in %s (test/bench/zoo.py makes them)" % a.zoo)
    for graph in graphs:
        stem = os.path.splitext(graph)[0]
        name = os.path.basename(stem)
        with open(stem + ".json") as f:
            fetches = json.load(f)["fetches"]
        ptx = os.path.join(a.out, name + ".ptx")
        cmd = [a.kiln, "compile", graph, "--devices", "/gpu:0", "--emit", "ptx", "-o", ptx]
        for fetch in fetches:
            cmd += ["--fetch", fetch]
        proc = subprocess.run(cmd + shlex.split(a.flags), capture_output=True, text=True)
        if proc.returncode:
            print("%s: kiln compile failed: %s" % (name, proc.stderr.strip()[-300:]))
            continue
        proc = subprocess.run([ptxas, "-arch=" + a.arch, "-v", ptx, "-o", os.devnull],
                              capture_output=True, text=True)
        os.remove(ptx)
        if proc.returncode:
            print("%s: ptxas failed: %s" % (name, proc.stderr.strip()[-300:]))
            continue
        kernels = ptxas_kernels(proc.stderr + proc.stdout)
        with open(os.path.join(a.out, name + ".txt"), "w") as f:
            for kernel, (registers, spills) in sorted(kernels.items()):
                f.write("%d %d %s\n" % (registers, spills, kernel))
        print("%s: %d kernels, at most %d registers, %d spill" % (
            name, len(kernels), max((r for r, _ in kernels.values()), default=0),
            sum(1 for _, s in kernels.values() if s)), flush=True)


def read(directory):
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.txt"))):
        model = os.path.basename(path)[:-4]
        with open(path) as f:
            for line in f:
                registers, spills, kernel = line.split()
                out[(model, kernel)] = (int(registers), int(spills))
    return out


def compare(a):
    before, after = read(a.a), read(a.b)
    changed = [(key, before[key], after[key]) for key in sorted(after)
               if key in before and before[key] != after[key]]
    fewer = sum(1 for _, b, c in changed if c[0] < b[0])
    more = sum(1 for _, b, c in changed if c[0] > b[0])
    for (model, kernel), b, c in changed:
        if a.all or c[0] > b[0] or c[1] > b[1]:
            print("%-24s %-70s %4d -> %4d registers%s" % (
                model, kernel[-70:], b[0], c[0],
                ", spills %d -> %d bytes" % (b[1], c[1]) if b[1] or c[1] else ""))
    print("%d kernels in both, %d changed: %d fewer registers, %d more" % (
        sum(1 for key in after if key in before), len(changed), fewer, more))
    if changed:
        print("mean over the changed: %.1f -> %.1f registers" % (
            sum(b[0] for _, b, _ in changed) / len(changed),
            sum(c[0] for _, _, c in changed) / len(changed)))
    for (model, kernel), (registers, spills) in sorted(after.items()):
        if spills:
            print("spills in %s: %s %d bytes" % (a.b, kernel, spills))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out")
    c.add_argument("--kiln", default=os.path.join(ROOT, "build", "bin", "kiln"))
    c.add_argument("--zoo", default=os.environ.get(
        "KILN_ZOO", os.path.join(os.path.expanduser("~"), ".cache", "kiln-zoo")))
    c.add_argument("--arch", default="sm_90")
    c.add_argument("--flags", default="--no-kernels")
    d = sub.add_parser("compare")
    d.add_argument("a")
    d.add_argument("b")
    d.add_argument("--all", action="store_true", help="every changed kernel, not only worse")
    a = p.parse_args()
    collect(a) if a.command == "collect" else compare(a)


if __name__ == "__main__":
    main()
