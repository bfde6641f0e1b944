#!/usr/bin/env python3
"""Generates docs/ops.md, Kiln's table of TensorFlow ops (standard library only).

  scripts/ops/gen-ops-doc.py --kiln build/bin/kiln [--check] [-o OUT]
      [--tblgen /usr/lib/llvm-22/bin/llvm-tblgen] [--tblgen-include DIR] [--repo DIR]

docs/ops.md is docs/ops/ops.md.in, the hand-written prose, with its `@TABLES@` line replaced
by the tables this script makes from
  - `kiln ops`: the TensorFlow ops Kiln compiles, one a line;
  - `llvm-tblgen --dump-json` of dialects/TF/TFOps.td: each op's dtypes (below);
  - docs/ops/tf2xla-ops.tsv: the reference list, the ops TensorFlow's tf2xla compiles for
    CPU, with their family, scope (reason when out) and TensorFlow's dtypes (made by
    scripts/ops/extract-tf2xla-ops.py);
  - scripts/ops/notes.tsv: a short note per op (its header says how ops are named);
  - the tests: `op: "Sin"` in test/import/**/*.pbtxt and *.test; "tf.Sin" or tf.Sin in
    test/passes/**/*.mlir; `op: "Sin"` in test/e2e/**/*.test and in test/e2e/**/*.pbtxt
    that a .test file of the same folder names (each op's e2e tests are those .test files).

An op's dtypes are those of its first result's type constraint in TFOps.td or, when the
op's first typed operand (Variadic<AnyType> and control inputs left aside) allows more
element types, of that operand's: Fill and OneHot give their result's dtypes, not those of
their index operand, Shape and ArgMax their input's, not the index result's, Equal its
operands' (not bool). A constraint's element types come from its summary ("tensor of 16-bit
float or bfloat16 type values"): each part is the summary of one of MLIR's element type defs
(F16, BF16, F32, F64, I1, I8-I64, UI8-UI64), as the same JSON states them. tf2xla-ops.tsv's
tf_dtypes follow a like rule over TensorFlow's kernel constraints (see its script).

--check writes nothing: it prints a unified diff and exits 1 when the file on disk differs
from what the script would write. The output depends only on its inputs (sorted throughout).
"""

import argparse
import difflib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_TBLGEN = "/usr/lib/llvm-22/bin/llvm-tblgen"
MARKER = "@TABLES@"

# Kiln's element type names, in table order, and MLIR's element type defs they come from.
KILN_DTYPES = ["f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64",
               "u8", "u16", "u32", "u64", "bool"]
MLIR_DEFS = {"F16": "f16", "BF16": "bf16", "F32": "f32", "F64": "f64", "I1": "bool",
             "I8": "i8", "I16": "i16", "I32": "i32", "I64": "i64",
             "UI8": "u8", "UI16": "u16", "UI32": "u32", "UI64": "u64"}
# Abbreviations of dtype sets, largest first; the doc explains them.
GROUPS = [
    ("all", KILN_DTYPES),
    ("numbers", KILN_DTYPES[:12]),
    ("floats", KILN_DTYPES[:4]),
    ("ints", KILN_DTYPES[4:12]),
    ("signed", KILN_DTYPES[4:8]),
    ("unsigned", KILN_DTYPES[8:12]),
]
MAX_E2E = 2  # e2e test files listed per op before "+N"


def fail(message):
    raise SystemExit(f"gen-ops-doc.py: {message}")


def rel(path, repo):
    return path.relative_to(repo).as_posix()


# --- Inputs ----------------------------------------------------------------------------


def kiln_ops(kiln):
    """Returns the set of ops `kiln ops` prints."""
    try:
        out = subprocess.run([kiln, "ops"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        fail(f"'{kiln} ops' failed: {error}")
    ops = out.split()
    if not ops:
        fail(f"'{kiln} ops' printed no op")
    return set(ops)


def tblgen_include(tblgen, include):
    """Returns LLVM's include directory: `include`, else the one beside `tblgen`'s bin/."""
    if include:
        return include
    found = shutil.which(tblgen)
    if found:
        beside = Path(found).resolve().parents[1] / "include"
        if (beside / "mlir/IR/OpBase.td").is_file():
            return str(beside)
    return "/usr/lib/llvm-22/include"


def kiln_dtypes(tblgen, include, repo):
    """Returns {op: sorted Kiln dtypes} from TFOps.td's defs (see the docstring)."""
    command = [tblgen, "--dump-json", "-I", include, "-I", str(repo),
               str(repo / "dialects/TF/TFOps.td")]
    try:
        records = json.loads(subprocess.run(command, check=True, capture_output=True,
                                            text=True).stdout)
    except (OSError, subprocess.CalledProcessError) as error:
        stderr = getattr(error, "stderr", "") or ""
        fail(f"{' '.join(command)} failed: {error}\n{stderr}")
    element = {}
    for name, dtype in MLIR_DEFS.items():
        summary = records.get(name, {}).get("summary")
        if not summary:
            fail(f"the TableGen JSON has no summary for {name}")
        element[summary] = dtype
    parts = sorted(element, key=len, reverse=True)

    def dtypes_of(constraint):
        """Returns the dtypes of a type constraint's summary, None for AnyType and the like."""
        summary = records[constraint].get("summary", "")
        summary = re.sub(r"^(variadic|optional) of ", "", summary)
        match = re.fullmatch(r"tensor of (.*) values", summary)
        if not match:
            return None
        rest, found = match.group(1), set()
        while rest:
            part = next((p for p in parts if rest.startswith(p)), None)
            if part is None:
                fail(f"{constraint}: no element type summary starts '{rest}' in '{summary}'")
            found.add(element[part])
            rest = rest[len(part):]
            if rest and not rest.startswith(" or "):
                fail(f"{constraint}: cannot read the summary '{summary}'")
            rest = rest[len(" or "):]
        return found

    def first_typed(args):
        """Returns the dtypes of the first of `args` whose type constraint has some."""
        for arg, _name in args:
            constraint = arg.get("def") if isinstance(arg, dict) else None
            if constraint and "TypeConstraint" in records[constraint]["!superclasses"]:
                dtypes = dtypes_of(constraint)
                if dtypes:
                    return dtypes
        return set()

    result = {}
    for record in records.values():
        if not isinstance(record, dict) or "opName" not in record:
            continue
        if "TF_Op" not in record.get("!superclasses", []):
            continue  # tf.Yield and other ops of Kiln's own
        operands = record.get("dataArgs", record["arguments"])["args"]
        # The first result's dtypes, unless the first typed operand allows more (max keeps
        # the first of equals).
        best = max(first_typed(record["results"]["args"][:1]), first_typed(operands), key=len)
        result[record["opName"]] = sorted(best, key=KILN_DTYPES.index)
    return result


def read_tsv(path, columns):
    """Returns the rows of a '#'-commented TSV as dicts; its header row must hold `columns`."""
    rows, header = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if header is None:
            header = fields
            missing = [c for c in columns if c not in header]
            if missing:
                fail(f"{path}: no column {', '.join(missing)} in its header row")
            continue
        if len(fields) > len(header):
            fail(f"{path}:{number}: {len(fields)} fields, the header has {len(header)}")
        rows.append(dict(zip(header, fields + [""] * (len(header) - len(fields)))))
    return rows


def read_notes(path, ops, families, kiln):
    """Returns {op: note} from notes.tsv; a key is an op, a glob, or family:NAME.

    An op's note is that of its own row, else of the first glob that matches it, else (for
    an op Kiln does not compile) of its family's row, which says why the family's missing
    ops are missing. A row that matches no op is an error (a typo or a stale note)."""
    exact, globs, by_family = {}, [], {}
    for row in read_tsv(path, ["op", "note"]):
        key, note = row["op"], row["note"]
        if not note:
            fail(f"{path}: '{key}' has no note")
        if key.startswith("family:"):
            if key[7:] not in set(families.values()):
                fail(f"{path}: no family {key[7:]} in the reference list")
            by_family[key[7:]] = note
        elif any(c in key for c in "*?["):
            if not fnmatch.filter(ops, key):
                fail(f"{path}: '{key}' matches no op")
            globs.append((key, note))
        else:
            if key not in ops:
                fail(f"{path}: '{key}' is neither a reference op nor one Kiln compiles")
            if key in exact:
                fail(f"{path}: '{key}' has two rows")
            exact[key] = note
    notes = {}
    for op in ops:
        note = exact.get(op) or next((n for g, n in globs if fnmatch.fnmatchcase(op, g)), None)
        if op not in kiln:
            note = note or by_family.get(families.get(op))
        if note:
            notes[op] = note
    return notes


OP_FIELD = re.compile(r'\bop:\s*"([^"]+)"')
TF_NAME = re.compile(r'\btf\.([A-Z_][A-Za-z0-9_]*)\b')


def scan_tests(repo, known):
    """Returns ({op: kinds}, {op: {e2e .test path: graphs}}) for the ops in `known`.

    kinds holds "import" and "passes" where such a test names the op."""
    test = repo / "test"
    kinds = defaultdict(set)

    def files(folder, *suffixes):
        return sorted(p for p in (test / folder).rglob("*")
                      if p.is_file() and p.suffix in suffixes)

    for path in files("import", ".pbtxt", ".test"):
        for op in OP_FIELD.findall(path.read_text(encoding="utf-8", errors="replace")):
            if op in known:
                kinds[op].add("import")
    for path in files("passes", ".mlir"):
        for op in TF_NAME.findall(path.read_text(encoding="utf-8", errors="replace")):
            if op in known:
                kinds[op].add("passes")
    e2e = defaultdict(lambda: defaultdict(int))
    tests = files("e2e", ".test")
    texts = {path: path.read_text(encoding="utf-8", errors="replace") for path in tests}
    for path in tests:  # graphs written inside a .test file (split-file)
        for op in set(OP_FIELD.findall(texts[path])) & known:
            e2e[op][rel(path, repo)] += 1
    for graph in files("e2e", ".pbtxt"):
        name = re.compile(r"(?<![\w.-])" + re.escape(graph.name) + r"(?![\w.-])")
        users = [rel(t, repo) for t in tests if t.parent == graph.parent and name.search(texts[t])]
        if not users:
            continue
        for op in set(OP_FIELD.findall(graph.read_text(encoding="utf-8", errors="replace"))):
            if op in known:
                for user in users:
                    e2e[op][user] += 1
    return kinds, e2e


# --- Output ----------------------------------------------------------------------------


def compact(dtypes):
    """Returns `dtypes` (Kiln's names) abbreviated with GROUPS, in KILN_DTYPES' order."""
    rest, words = set(dtypes), []
    for name, group in GROUPS:
        if set(group) <= rest:
            words.append((KILN_DTYPES.index(group[0]), name))
            rest -= set(group)
    words += [(KILN_DTYPES.index(d), d) for d in rest]
    return " ".join(word for _, word in sorted(words)) or "-"


def dtype_cell(op, kiln, kiln_types, tf_types):
    """Returns the dtypes cell: Kiln's (and TensorFlow's that Kiln lacks), or TensorFlow's."""
    tf_kiln = [d for d in tf_types if d in KILN_DTYPES]
    if op not in kiln:
        return f"TF: {compact(tf_kiln) if tf_kiln else ' '.join(tf_types)}" if tf_types else "-"
    if op not in kiln_types:
        return "-"
    lacking = [d for d in tf_kiln if d not in kiln_types[op]]
    cell = compact(kiln_types[op])
    return cell + (f"; TF also: {compact(lacking)}" if lacking else "")


def tests_cell(op, kinds, e2e):
    """Returns the tests cell: import, passes, then the e2e tests with the most graphs."""
    words = [kind for kind in ("import", "passes") if kind in kinds.get(op, ())]
    files = sorted(e2e.get(op, {}).items(), key=lambda item: (-item[1], item[0]))
    listed = [f"`{path}`" for path, _ in files[:MAX_E2E]]
    if len(files) > MAX_E2E:
        listed[-1] += f" +{len(files) - MAX_E2E}"
    return ", ".join(words + listed) or "-"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
              for row in rows]
    return lines


def wrap(text, width=92):
    """Returns `text` as lines of at most `width` columns (words kept whole)."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line else lines


def tables(reference, kiln, kiln_types, notes, kinds, e2e, tf_header):
    """Returns the generated lines that replace MARKER."""
    ref = {row["op"]: row for row in reference}
    in_scope = sorted(op for op, row in ref.items() if row["scope"] == "in")
    out_scope = sorted(op for op, row in ref.items() if row["scope"] != "in")
    supported = [op for op in in_scope if op in kiln]
    missing = [op for op in in_scope if op not in kiln]
    unexplained = [op for op in missing if op not in notes]
    extra = sorted(kiln - set(ref))
    tf_types = {op: row["tf_dtypes"].split() for op, row in ref.items()}
    percent = 100.0 * len(supported) / len(in_scope) if in_scope else 0.0

    out = ["## Op by op", ""]
    out += wrap("The reference list is every op TensorFlow's XLA compiler (tf2xla) compiles "
                "for CPU, from `docs/ops/tf2xla-ops.tsv`: " + tf_header + ". Its family "
                "and scope come from the rules of `scripts/ops/extract-tf2xla-ops.py`; "
                "this section is written by `scripts/ops/gen-ops-doc.py` (from "
                "`docs/ops/ops.md.in`, `kiln ops`, TFOps.td, `scripts/ops/notes.tsv` and "
                "the tests): edit those and rerun it, not this file.")
    out += [""]
    out += wrap(f"Kiln compiles {len(supported)} of the {len(in_scope)} in-scope reference "
                f"ops ({percent:.1f}%); {len(out_scope)} reference ops are out of scope "
                f"([Out of scope](#out-of-scope)). Kiln also compiles {len(extra)} ops outside "
                "the reference list ([the last table](#kiln-ops-outside-the-reference-list)), "
                "and Keras patterns that have no TensorFlow op of their own (PReLU: the family "
                "table above).")
    out += [""]
    out += wrap(f"{len(unexplained)} of the {len(missing)} in-scope ops Kiln does not compile "
                "have no note saying why (\"not yet\").")
    out += [""]
    out += ["Columns:", ""]
    legend = [
        "Kiln: yes when `kiln ops` lists the op.",
        "dtypes: the element types of the op's first result in TFOps.td (of its first operand "
        "when that allows more: Shape's input, not its index result), abbreviated: floats = "
        "f16 bf16 f32 f64; signed = i8 i16 i32 i64; unsigned = u8 u16 u32 u64; ints = signed "
        "and unsigned; numbers = floats and ints; all = numbers and bool. \"TF also\": the "
        "types TensorFlow's XLA kernel allows (the reference list's tf_dtypes) that Kiln's op "
        "does not. For an op Kiln lacks, \"TF:\" gives the kernel's types, its complex, "
        "quantized, 8- and 4-bit float, 4-bit integer and string types left out unless it "
        "has no other. \"-\": no typed operand or result, or no op of its own in TFOps.td "
        "(rewritten on import).",
        "tests: `import` and `passes` where a test in test/import or test/passes names the "
        "op, then the end-to-end tests (test/e2e) that run it, those with the most graphs "
        f"first ({MAX_E2E} at most, then +N for the others).",
        "note: from `scripts/ops/notes.tsv`; \"not yet\" for an in-scope op Kiln lacks "
        "that has none.",
    ]
    for item in legend:
        lines = wrap(item, 90)
        out += ["- " + lines[0]] + ["  " + line for line in lines[1:]]
    families = sorted({ref[op]["family"] for op in in_scope})
    for family in families:
        ops = [op for op in in_scope if ref[op]["family"] == family]
        count = sum(op in kiln for op in ops)
        out += ["", f"### {family} ({count} of {len(ops)})", ""]
        rows = []
        for op in ops:
            note = notes.get(op, "" if op in kiln else "not yet")
            rows.append([op, "yes" if op in kiln else "no",
                         dtype_cell(op, kiln, kiln_types, tf_types.get(op, [])),
                         tests_cell(op, kinds, e2e), note])
        out += table(["op", "Kiln", "dtypes", "tests", "note"], rows)

    out += ["", "### Out of scope", ""]
    out += wrap("Reference ops Kiln does not mean to compile, with the reason "
                "`docs/ops/tf2xla-ops.tsv` gives.")
    out += [""]
    out += table(["op", "family", "Kiln", "reason"],
                 [[op, ref[op]["family"], "yes" if op in kiln else "no",
                   ref[op]["reason"] + (f" ({notes[op]})" if op in notes else "")]
                  for op in out_scope])

    out += ["", "### Kiln ops outside the reference list", ""]
    out += wrap("Ops Kiln compiles that tf2xla does not: graph inputs, TensorFlow 1 control "
                "flow and variables (rewritten on import), grappler's and partitioning's "
                "internal ops.")
    out += [""]
    out += table(["op", "dtypes", "tests", "note"],
                 [[op, dtype_cell(op, kiln, kiln_types, []), tests_cell(op, kinds, e2e),
                   notes.get(op, "")] for op in extra])
    summary = (f"{len(supported)} of {len(in_scope)} in-scope ops ({percent:.1f}%), "
               f"{len(out_scope)} out of scope, {len(extra)} Kiln ops outside the list, "
               f"{len(unexplained)} of {len(missing)} missing ops without a note")
    return out, summary


def tf_header_line(path):
    """Returns 'TensorFlow 2.21.0, 489 ops' from tf2xla-ops.tsv's header."""
    text = path.read_text(encoding="utf-8")
    version = re.search(r"^# TensorFlow: (\S+)", text, re.M)
    ops = re.search(r"^# ops: (\d+)", text, re.M)
    return (f"{ops.group(1) if ops else '?'} ops of TensorFlow "
            f"{version.group(1) if version else '?'}")


def main():
    parser = argparse.ArgumentParser(description="Generates docs/ops.md.")
    parser.add_argument("--kiln", required=True, help="the kiln binary (runs `kiln ops`)")
    parser.add_argument("--tblgen", default=DEFAULT_TBLGEN,
                        help=f"llvm-tblgen (default: {DEFAULT_TBLGEN})")
    parser.add_argument("--tblgen-include", metavar="DIR",
                        help="LLVM/MLIR include directory (default: ../include beside "
                             "llvm-tblgen's bin/, else /usr/lib/llvm-22/include)")
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="Kiln's source tree (default: this script's)")
    parser.add_argument("-o", "--output", type=Path,
                        help="file to write or check (default: REPO/docs/ops.md)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 with a diff when the file is stale")
    args = parser.parse_args()
    repo = args.repo.resolve()
    output = args.output or repo / "docs/ops.md"

    template_path = repo / "docs/ops/ops.md.in"
    template = template_path.read_text(encoding="utf-8").splitlines()
    if template.count(MARKER) != 1:
        fail(f"{template_path}: needs exactly one line '{MARKER}'")
    reference_path = repo / "docs/ops/tf2xla-ops.tsv"
    reference = read_tsv(reference_path, ["op", "family", "scope", "reason", "tf_dtypes"])
    kiln = kiln_ops(args.kiln)
    kiln_types = kiln_dtypes(args.tblgen, tblgen_include(args.tblgen, args.tblgen_include),
                             repo)
    all_ops = kiln | {row["op"] for row in reference}
    families = {row["op"]: row["family"] for row in reference}
    notes = read_notes(repo / "scripts/ops/notes.tsv", all_ops, families, kiln)
    kinds, e2e = scan_tests(repo, all_ops)
    generated, summary = tables(reference, kiln, kiln_types, notes, kinds, e2e,
                                tf_header_line(reference_path))

    command = "scripts/ops/gen-ops-doc.py --kiln build/bin/kiln"
    head = [f"<!-- Generated by {command} from docs/ops/ops.md.in:",
            "     edit that (and scripts/ops/notes.tsv), then rerun the script. -->",
            ""]
    index = template.index(MARKER)
    text = "\n".join(head + template[:index] + generated + template[index + 1:]) + "\n"

    if args.check:
        current = output.read_text(encoding="utf-8") if output.exists() else ""
        if current == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            current.splitlines(True), text.splitlines(True),
            f"{output} (on disk)", f"{output} (generated)"))
        shown = output.resolve()
        shown = rel(shown, repo) if shown.is_relative_to(repo) else output
        print(f"{shown} is stale: run scripts/ops/gen-ops-doc.py --kiln PATH/TO/kiln "
              "(needed after a change to the ops, their tests, scripts/ops/notes.tsv, "
              "docs/ops/ops.md.in or docs/ops/tf2xla-ops.tsv)", file=sys.stderr)
        return 1
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    print(f"{output}: {summary}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
