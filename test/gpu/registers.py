#!/usr/bin/env python3
"""Registers and spills of Kiln's generated GPU kernels, model by model, from ptxas -v:
what can be measured of a kernel's occupancy without a GPU.

  collect OUT   compiles every model of the zoo cache (test/bench/zoo.py's frozen graphs
                and their .json) for /gpu:0 with --emit ptx (and FLAGS, by default
                --no-kernels, so that products and convolutions are Kiln's own kernels),
                assembles each PTX with ptxas -v for --arch, and writes OUT/MODEL.txt:
                one line per kernel, "registers spill-store-bytes threads name" (threads
                a block: the PTX's .maxntid).
  compare A B   the kernels whose registers or spills differ between two collections
                (A before, B after), counts of fewer and more, the mean over the changed
                ones, how many of them an SM holds more or fewer blocks of (by registers
                alone: 65536 an SM, a thread's rounded up to 8), and every kernel that
                spills in B.

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


def block_threads(ptx):
    """{kernel: threads a block} from the PTX's .maxntid directives."""
    return {m.group(1): int(m.group(2)) * int(m.group(3)) * int(m.group(4))
            for m in re.finditer(r"\.entry\s+(\w+)\s*\([^{]*?\.maxntid\s+(\d+),\s*(\d+),"
                                 r"\s*(\d+)", ptx)}


def blocks_per_sm(registers, threads):
    """Blocks of a kernel an SM holds by its registers (65536, a thread's rounded up to 8;
    at most 32 blocks and 2048 threads)."""
    return min(65536 // (threads * ((registers + 7) // 8 * 8)), 32, 2048 // threads)


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
        with open(ptx) as f:
            threads = block_threads(f.read())
        os.remove(ptx)
        if proc.returncode:
            print("%s: ptxas failed: %s" % (name, proc.stderr.strip()[-300:]))
            continue
        kernels = ptxas_kernels(proc.stderr + proc.stdout)
        with open(os.path.join(a.out, name + ".txt"), "w") as f:
            for kernel, (registers, spills) in sorted(kernels.items()):
                f.write("%d %d %d %s\n" % (registers, spills, threads.get(kernel, 0), kernel))
        print("%s: %d kernels, at most %d registers, %d spill" % (
            name, len(kernels), max((r for r, _ in kernels.values()), default=0),
            sum(1 for _, s in kernels.values() if s)), flush=True)


def read(directory):
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.txt"))):
        model = os.path.basename(path)[:-4]
        with open(path) as f:
            for line in f:
                registers, spills, threads, kernel = line.split()
                out[(model, kernel)] = (int(registers), int(spills), int(threads))
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
        sized = [(b, c) for _, b, c in changed if b[2] and b[2] == c[2]]
        gains = [blocks_per_sm(c[0], c[2]) - blocks_per_sm(b[0], b[2]) for b, c in sized]
        print("blocks an SM holds: more for %d of the changed, fewer for %d" % (
            sum(1 for g in gains if g > 0), sum(1 for g in gains if g < 0)))
    for (model, kernel), (registers, spills, _) in sorted(after.items()):
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
