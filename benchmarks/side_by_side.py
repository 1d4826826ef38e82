"""`python -m benchmarks.side_by_side --base TREE --bids DIR`: two builds of ftopt on the same bids at once.

Why one run: on a shared 2-core machine the load changes by the minute, so a baseline measured an
hour earlier says nothing. Each repeat solves every bid with both builds back to back, the order
alternating between repeats, each as the user runs it: a whole `ftopt solve BID --format json`
process (defaults: what-if on, the verifier on), its source tree on PYTHONPATH, started from an
empty folder so that neither tree's `benchmarks/` shadows anything. Wall time is the process's,
memory its peak resident set (`/usr/bin/time`, when present). Each bid's prices are set against
first-fit decreasing's: the spreadsheet baseline (`benchmarks.baselines.ffd`, cheapest server that
holds a copy) and the product's own first fit, the cheapest of its passes, among them new servers
the cheapest per GPU and copies on their cheapest GPUs (`ftopt.solver.search.greedy`), both from
the current tree. Bids come from `benchmarks.scale_bids`. With `--naive`, the textbook CP-SAT model
(`benchmarks.baselines.naive`: one boolean per copy, mode and server slot) runs once per bid that is
not a queue, under the same limit, as a process of its own (its build counted in its wall time).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: bid → (time limit s, repeats): the issue's limits; the slow bids once.
PLAN: dict[str, tuple[float, int]] = {
    "c500": (30.0, 3),
    "c10000": (30.0, 2),
    "d300": (30.0, 2),
    "d1000": (30.0, 1),
    "d5000": (60.0, 1),
    "heavy2": (30.0, 1),
    "heavy20": (30.0, 2),
    "ckpt": (30.0, 2),
    "q200": (30.0, 1),
    "q1000": (60.0, 1),
}


def _timed(
    command: list[str], tree: Path, folder: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run `command` from `folder` with `tree` on PYTHONPATH: the finished process, its wall s and
    peak MB (`/usr/bin/time`, when present)."""
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    rss = Path(folder) / "rss"
    if timer:
        command = [timer, "-f", "%M", "-o", str(rss), *command]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    row: dict[str, Any] = {"wall": time.perf_counter() - started, "code": done.returncode}
    if rss.exists():
        row["peak_mb"] = int(rss.read_text().split()[-1]) / 1024
    return done, row


def solve_process(tree: Path, bid: Path, time_limit: float) -> dict[str, Any]:
    """One whole `ftopt solve` process of `tree` on `bid`: wall s, peak MB, exit code, the plan's figures."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "plan.json"
        command = [sys.executable, "-m", "ftopt.cli.main", "solve", str(bid), "--format", "json"]
        command += ["--quiet", "--time-limit", f"{time_limit:g}", "-o", str(out)]
        done, row = _timed(command, tree, folder)
        if out.exists():
            plan = json.loads(out.read_text())
            row |= {k: plan.get(k) for k in ("status", "total_price", "bound", "gap")}
        else:
            row["error"] = done.stderr.strip()[-300:]
        return row


def naive_process(bid: Path, time_limit: float) -> dict[str, Any]:
    """The textbook CP-SAT model (`benchmarks.baselines.naive`, this tree's) on `bid` under the same
    limit of search, as a process of its own: wall s (its build included), peak MB, status, price
    and gap; "not built" and why where it has no slot count or would not fit the machine."""
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "benchmarks.baselines.naive", str(bid)]
        command += ["--time-limit", f"{time_limit:g}"]
        done, row = _timed(command, ROOT, folder)
        if done.returncode != 0:
            return row | {"error": done.stderr.strip()[-300:]}
        found = json.loads(done.stdout.strip().splitlines()[-1])
        price, bound = found.get("price"), found.get("bound")
        gap = (price - bound) / price if price and bound is not None else None
        status = found["status"]
        return (
            row
            | {"status": status, "total_price": price, "bound": bound, "gap": gap}
            | {"booleans": found.get("booleans"), "why": found.get("why")}
        )


def ffd_prices(bid: Path) -> dict[str, float | None]:
    """The two first-fit decreasing prices of a bid (None where one finds no plan)."""
    from benchmarks.baselines.ffd import first_fit_decreasing
    from ftopt import first_fit_price, load_catalogue, load_workload

    catalogue = load_catalogue()
    workload = load_workload(bid, catalogue)
    prices: dict[str, float | None] = {"ffd": None, "ffd_per_gpu": None}
    if workload.queue is None:
        with contextlib.suppress(ValueError):  # a copy the spreadsheet's servers do not hold
            prices["ffd"] = first_fit_decreasing(workload, catalogue).plan.total_price
        prices["ffd_per_gpu"] = first_fit_price(workload, catalogue)  # with its fabric, as plans price it
    return prices


def measure(base: Path, current: Path, bids: Path, names: list[str], naive: bool = False) -> dict[str, Any]:
    """Every bid with both trees, alternating, then (with `naive`) the naive model once on each bid
    that is not a queue (it knows nothing of time); the load before and after."""
    rows: list[dict[str, Any]] = []
    load_before = os.getloadavg()
    for name in names:
        limit, repeats = PLAN[name]
        bid = bids / f"{name}.yaml"
        for repeat in range(repeats):
            order = [("base", base), ("current", current)]
            for label, tree in order if repeat % 2 == 0 else order[::-1]:
                row = {"bid": name, "build": label, "repeat": repeat, "limit": limit}
                row |= solve_process(tree, bid, limit) | {"load": os.getloadavg()[0]}
                print(json.dumps(row), file=sys.stderr)
                rows.append(row)
        if naive and "queue:" not in bid.read_text():
            row = {"bid": name, "build": "naive", "repeat": 0, "limit": limit}
            row |= naive_process(bid, limit) | {"load": os.getloadavg()[0]}
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    ffd = {name: ffd_prices(bids / f"{name}.yaml") for name in names}
    return {"rows": rows, "ffd": ffd, "load_before": load_before, "load_after": os.getloadavg()}


def _cell(rows: list[dict[str, Any]], ffd: dict[str, float | None]) -> list[str]:
    walls = [r["wall"] for r in rows]
    statuses = sorted({str(r.get("status", f"exit {r['code']}")) for r in rows})
    gaps = [r["gap"] for r in rows if r.get("gap") is not None]
    prices = [r["total_price"] for r in rows if r.get("total_price")]
    price = max(prices) if prices else None
    ratio = [f"{price / v:.3f}" if price and v else "–" for v in (ffd["ffd"], ffd["ffd_per_gpu"])]
    peak = max((r.get("peak_mb", 0) for r in rows), default=0)
    return [
        f"{statistics.median(walls):.1f} / {max(walls):.1f}",
        "/".join(statuses),
        f"{100 * max(gaps):.2f} %" if gaps else "–",
        f"{price:,.0f}" if price else "–",
        *ratio,
        f"{peak:.0f}",
    ]


def _naive_tail(row: dict[str, Any], ratio_base: list[dict[str, Any]]) -> str:
    """The naive row's last cell: its wall over main's median, or why it was not built."""
    if row.get("status") == "not built":
        return f"not built: {row['why']}"
    return f"{row['wall'] / statistics.median(r['wall'] for r in ratio_base):.2f} (over main)"


def report(result: dict[str, Any]) -> str:
    """The Markdown table: per bid, both builds' median / worst wall, statuses, worst gap, prices."""
    lines = [
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.platform()}, Python {platform.python_version()}. Load (1 min) "
        f"{result['load_before'][0]:.1f} before, {result['load_after'][0]:.1f} after.",
        "",
        "| bid | limit s | build | runs | wall median / worst s | status | worst gap | dearest price "
        "| / FFD | / FFD per GPU | peak MB | wall ratio (current / base) |",
        "|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    names = list(dict.fromkeys(r["bid"] for r in result["rows"]))
    for name in names:
        base = [r for r in result["rows"] if r["bid"] == name and r["build"] == "base"]
        current = [r for r in result["rows"] if r["bid"] == name and r["build"] == "current"]
        ratio = statistics.median(r["wall"] for r in current) / statistics.median(r["wall"] for r in base)
        naive = [r for r in result["rows"] if r["bid"] == name and r["build"] == "naive"]
        for label, rows in (("main", base), ("this branch", current), ("naive CP-SAT", naive)):
            if not rows:
                continue
            cells = _cell(rows, result["ffd"][name])
            tails = {"this branch": f"{ratio:.2f}", "naive CP-SAT": _naive_tail(rows[0], ratio_base=base)}
            tail = tails.get(label, "")
            lines.append(
                f"| {name} | {rows[0]['limit']:g} | {label} | {len(rows)} | "
                + " | ".join(cells)
                + f" | {tail} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base", type=Path, required=True, help="source tree of the baseline build (e.g. main)"
    )
    parser.add_argument("--current", type=Path, default=ROOT, help="source tree of the build measured")
    parser.add_argument("--bids", type=Path, required=True, help="folder `benchmarks.scale_bids` wrote")
    parser.add_argument("--only", default="", help="comma-separated bid names (default: all of PLAN)")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw rows here")
    parser.add_argument("--naive", action="store_true", help="also the naive CP-SAT model, once per bid")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(PLAN)
    result = measure(args.base.resolve(), args.current.resolve(), args.bids.resolve(), names, args.naive)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
