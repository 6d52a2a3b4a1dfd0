"""diffcli against an earlier diffcli: `python -m benchmarks.ab REV [--rounds K] [--only NAME]...`.

Takes the tree of the git revision REV (`git archive`, into a temporary folder), then for K
rounds runs `python -m benchmarks --repeats 1 --only NAME` for each NAME (by default the
workloads both trees have had since the op rows: all but batch and the Hessians) in REV's
tree and in this one in turn (A B A B ...), each in a process of its own, and reports per workload the median of diffcli's times
over the rounds, REV's and this tree's, and their ratio. Each tree is measured by its own
benchmarks, so a workload appears when both trees have it under the same name. Processes
on a busy machine disturb single rounds; the medians over alternating rounds much less.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
# the render rows give two sizes ("1.2 ms at n=..., 2.5 ms at n=...: 2.08x"): the larger's
_AT_BIG = re.compile(r", ([0-9.]+) ms at n=")


def export(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def diffcli_times(table: str) -> dict:
    """{workload: (seconds or us/op, unit)} from the diffcli rows of a benchmarks table."""
    out = {}
    for line in table.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 3 or cells[1] != "diffcli":
            continue
        big = _AT_BIG.search(cells[2])
        value = float(big.group(1)) if big else float(_NUMBER.search(cells[2]).group())
        unit = "ms" if big else cells[2].split()[1].rstrip(",")
        out[cells[0]] = (value, unit)
    return out


WORKLOADS = (
    "scalar chain",
    "elementwise",
    "matmuls",
    "cold start",
    "script end to end",
    "parse",
    "depth",
    "render",
)


def one_round(tree: Path, only) -> dict:
    times = {}
    for name in only:
        args = [sys.executable, "-m", "benchmarks", "--repeats", "1", "--only", name]
        r = subprocess.run(args, cwd=tree, capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"benchmarks failed in {tree}:\n{r.stderr[-2000:]}")
        times.update(diffcli_times(r.stdout))
    return times


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.ab")
    ap.add_argument("rev", help="the git revision to compare with (this tree is the other)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", action="append", help="workloads whose name contains this (repeatable)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="diffcli-ab-"))
    try:
        base = export(args.rev, tmp)
        runs = {"base": [], "this": []}
        for i in range(args.rounds):
            for side, tree in (("base", base), ("this", ROOT)):
                runs[side].append(one_round(tree, args.only or WORKLOADS))
            print(f"round {i + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = [("workload", f"{args.rev}", "this tree", "this/base")]
    for name in runs["this"][0]:
        if not all(name in r for rs in runs.values() for r in rs):
            continue
        unit = runs["this"][0][name][1]
        a, b = (statistics.median(r[name][0] for r in runs[side]) for side in ("base", "this"))
        rows.append((name, f"{a:.3f} {unit}", f"{b:.3f} {unit}", f"{b / a:.2f}x"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


if __name__ == "__main__":
    main()
