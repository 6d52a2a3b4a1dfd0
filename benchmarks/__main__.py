"""Run the benchmarks: `python -m benchmarks [--quick] [--repeats N] [--only NAME]`.

Each workload runs its contenders in turn (A B A B ...) after one warm-up round and
reports the median of N repeats, and the ratio of diffcli's median to each other's.
PyTorch is optional: without it, its columns say so.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

from . import functional as HF
from . import workloads as W


def measure(contenders: dict, repeats: int, clock=time.perf_counter, warm_up=True) -> dict:
    times = {k: [] for k in contenders}
    for fn in contenders.values() if warm_up else ():  # warm-up
        fn()
    for _ in range(repeats):
        for name, fn in contenders.items():
            gc.collect()
            t = clock()
            fn()
            times[name].append(clock() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default=None, help="run only workloads whose name contains this")
    args = ap.parse_args(argv)
    s = W.Sizes(args.quick)
    rows = []

    def run(name, contenders, per=None, unit="s", target=None, repeats=None):
        if args.only and args.only not in name:
            return
        med = measure(contenders, repeats or args.repeats, warm_up=repeats is None)
        base = med["diffcli"]
        for k, v in med.items():
            shown = v / per * 1e6 if per else v
            ratio = "" if k == "diffcli" else f"{base / v:.2f}x"
            rows.append(
                (
                    name,
                    k,
                    f"{shown:.3f} {('us/op' if per else unit)}",
                    ratio,
                    target if k != "diffcli" else "",
                )
            )
        print(f"done: {name}", file=sys.stderr)

    for n in s.chain:
        run(f"scalar chain {n} ops (fwd+bwd)", W.scalar_chain(n), per=n, target="<= 0.5x torch")
    run(f"elementwise 20 ops on {s.vec} float64", W.elementwise(s.vec), target="<= 1.15x numpy")
    run(f"3 matmuls {s.mat}x{s.mat} + tanh", W.matmuls(s.mat), target="<= 1.15x numpy")
    for dt in ("float32", "float64"):
        run(
            f"softmax + log_softmax of {s.softmax} {dt} (bit-exact)",
            W.softmax(s.softmax, dt),
            target="<= 0.2 s (4 kernels, bit-exact)",
        )
    run("cold start: grad samples/card.txt --format json", W.cold_start(), target="<= 0.2x torch, <= 0.25 s")
    run(f"script end to end: {s.script} statements", W.script_end_to_end(s.script), target="<= 1.0x torch")
    run(f"parse {s.parse} statements", W.parsing(s.parse), target="<= 2.0x ast.parse")
    if not args.only or "batch" in args.only:  # (one round: 500 processes take minutes)
        run(
            f"batch: grad on {s.batch} scripts, one process",
            W.batch(s.batch),
            target="<= 0.1x separate",
            repeats=1,
        )
    if not args.only or "depth" in args.only:
        secs, mb = W.depth_run(s.depth)
        rows.append(
            (
                f"depth: {s.depth}-op chain",
                "diffcli",
                f"{secs:.2f} s, peak {mb:.0f} MB",
                "",
                "completes, < 2 GB",
            )
        )
    n = 20 if args.quick else 200
    for vectorize in (False, True):
        run(
            f"hessian of {n} inputs, vectorize={vectorize}",
            HF.hessian(n, vectorize),
            target="seconds, not minutes",
        )
    run(f"diffcli hessian command, {n}-element x (process)", HF.hessian_command(n), target="seconds")
    rows.extend(render_rows(s.render, args.repeats, lambda name: not args.only or args.only in name))
    run(
        f"render: graph vs grad, {s.render[1]}-term sum (processes)",
        W.graph_vs_grad(s.render[1]),
        target="same order as grad (<= 3x)",
    )
    if not W.have_torch():
        print("note: torch is not installed; its columns are absent", file=sys.stderr)
    widths = [max(len(r[i]) for r in rows + [HEADER]) for i in range(5)]
    for r in [HEADER] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def render_rows(sizes, repeats, wanted):
    """Building and rendering the graph (not the run) in each format, on each shape, at
    two sizes; the growth is the time at the larger over the time at the smaller
    (linear: about the ratio of the sizes; quadratic: its square). CPU time, which other
    processes on the machine disturb less than the wall clock."""
    small, big = sizes
    rows = []
    for shape in W.RENDER_SHAPES:
        for fmt in W.RENDER_FORMATS:
            name = f"render: {shape} {fmt}"
            if not wanted(name):
                continue
            t = [
                measure({"diffcli": W.render_graph(shape, fmt, n)}, repeats, time.process_time)["diffcli"]
                for n in sizes
            ]
            rows.append(
                (
                    name,
                    "diffcli",
                    f"{t[0] * 1e3:.1f} ms at n={small}, {t[1] * 1e3:.1f} ms at n={big}: {t[1] / t[0]:.2f}x",
                    "",
                    f"growth ~{big / small:.0f}x (linear)",
                )
            )
            print(f"done: {name}", file=sys.stderr)
    return rows


HEADER = ("workload", "contender", "median", "diffcli/this", "target")

if __name__ == "__main__":
    main()
