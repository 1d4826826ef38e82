"""Step 2 of the benchmarks, measuring: `python -m benchmarks.run` writes benchmarks/results.json.

Per instance: the product (`ftopt.solve`) `--repeats` times with `--time-limit` and `--workers`
(default: the product's own, one per core), recording its status, price, bound, the wall time around
the call and the solver's own phase timings (`Result.timings`: build, search, explain); each plan
is then checked by `ftopt.verify_plan`, outside the timing. First-fit decreasing once, its plan
verified too; the naive CP-SAT model once on `--naive-tiers`. The xl instances are solved again
with their copies scaled at a fixed run mix (scaling.py). Optionally worker counts are compared,
and the whole `ftopt solve` process is timed (process.py).

Nothing here judges or renders: the figures go to results.json as measured, and
`python -m benchmarks.report` turns them into results.md and results.png. Only the public API
(`ftopt`) and the model layer are used, so the runner survives any reshuffle inside ftopt.solver.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict
from importlib.metadata import version
from pathlib import Path
from typing import Any

import ftopt
from benchmarks.baselines.ffd import first_fit_decreasing
from benchmarks.baselines.naive import naive
from benchmarks.generate import KNOWN_OPTIMA, TIER_NAMES
from benchmarks.process import time_process
from benchmarks.scaling import FACTORS, measure_series
from benchmarks.suite import ALL_TIERS, RESULTS, Instance, discover, relative
from ftopt import Catalogue, SolveSettings, Workload, load_catalogue, load_workload, solve, verify_plan
from ftopt.model.workload import Offload

#: The format of results.json; report.py refuses another.
FORMAT = 1

Log = Callable[[str], None]


def product_solve(workload: Workload, catalogue: Catalogue, settings: SolveSettings) -> dict[str, Any]:
    """One timed `ftopt.solve`, with the solver's phase timings; its plan verified outside the timing."""
    started = time.perf_counter()
    result = solve(workload, catalogue, settings)
    wall = time.perf_counter() - started
    entry: dict[str, Any] = {
        "status": str(result.status),
        "price": result.price,
        "bound": result.bound,
        "gap": result.gap,
        "servers": len(result.plan.servers) if result.plan else None,
        "wall": wall,
        "timings": result.timings.model_dump(),
        "violations": None,
    }
    if result.plan is not None:
        checked = time.perf_counter()
        entry["violations"] = len(verify_plan(result.plan, workload, catalogue))
        entry["verify_seconds"] = time.perf_counter() - checked
    return entry


def ffd_entry(workload: Workload, catalogue: Catalogue) -> dict[str, Any]:
    """First-fit decreasing's price, servers and time, its plan verified; or why it failed."""
    try:
        result = first_fit_decreasing(workload, catalogue)
    except ValueError as exc:
        return {"error": str(exc)}
    violations = verify_plan(result.plan, workload, catalogue)
    return {
        "price": result.price,
        "servers": result.servers,
        "seconds": result.seconds,
        "violations": len(violations),
        "first_violations": [str(v) for v in violations[:3]],
    }


def naive_entry(workload: Workload, catalogue: Catalogue, time_limit: float, workers: int) -> dict[str, Any]:
    """The naive CP-SAT model's outcome, with the time limit it ran under."""
    result = naive(workload, catalogue, time_limit, workers)
    return {**asdict(result), "seconds": result.seconds, "time_limit": time_limit}


def offload_copies(workload: Workload) -> int:
    """Copies of runs that may offload optimiser states to host RAM (`offload: auto` or `cpu`).

    Such copies can need more RAM than a server's base, which makes the product's model harder; the
    solver's own count of "heavy" copies is internal to it, so the workload's word is recorded.
    """
    return sum(r.concurrent for r in workload.runs if r.offload != Offload.NONE)


def settings_for(args: argparse.Namespace, workers: int | None = None) -> SolveSettings:
    """The product's settings: the time limit, workers when asked (else its default), no verify
    inside the call (the runner verifies each plan outside the timing)."""
    workers = workers if workers is not None else args.workers
    if workers is None:
        return SolveSettings(time_limit=args.time_limit, verify=False)
    return SolveSettings(time_limit=args.time_limit, workers=workers, verify=False)


def measure_instance(
    instance: Instance, catalogue: Catalogue, args: argparse.Namespace, optima: dict[str, Any], log: Log
) -> dict[str, Any] | None:
    """Every measurement of one instance, or None when its file does not load."""
    try:
        workload = load_workload(instance.path, catalogue)
    except Exception as exc:  # an example another engineer is editing may not load: say so, go on
        log(f"  {instance.name}: skipped, does not load ({exc})")
        return None
    settings = settings_for(args)
    solves = []
    for _ in range(args.repeats):
        solves.append(product_solve(workload, catalogue, settings))
        log(f"  {instance.name}: {solves[-1]['status']} {solves[-1]['price']} in {solves[-1]['wall']:.3f} s")
    entry: dict[str, Any] = {
        "name": instance.name,
        "tier": instance.tier,
        "path": relative(instance.path),
        "copies": workload.total_copies,
        "runs": len(workload.runs),
        "offload_copies": offload_copies(workload),
        "known_optimum": (optima.get(instance.name) or {}).get("price"),
        "solves": solves,
        "ffd": ffd_entry(workload, catalogue),
        "naive": None,
    }
    if instance.tier in args.naive_tiers:
        limit = args.naive_time_limit or args.time_limit
        entry["naive"] = naive_entry(workload, catalogue, limit, settings.workers)
        log(f"  {instance.name}: naive {entry['naive']['status']} {entry['naive']['price']}")
    return entry


def measure_scaling(
    instances: list[Instance], catalogue: Catalogue, args: argparse.Namespace, log: Log
) -> list[list[dict[str, Any]]]:
    """The xl instances at a fixed run mix with their copies scaled (scaling.py)."""
    settings = settings_for(args)

    def attempt(workload: Workload, catalogue: Catalogue) -> tuple[str, float]:
        entry = product_solve(workload, catalogue, settings)
        if entry["violations"]:
            raise RuntimeError(f"a scaled plan breaks {entry['violations']} rule(s) per ftopt.verify")
        return entry["status"], entry["wall"]

    series = []
    for instance in instances:
        workload = load_workload(instance.path, catalogue)
        points = measure_series(instance.name, workload, catalogue, attempt, args.repeats)
        log("  scaled " + ", ".join(f"{p.copies} copies {p.median:.3f} s" for p in points))
        series.append([asdict(p) for p in points])
    return series


def compare_workers(
    instances: list[Instance], catalogue: Catalogue, counts: list[int], args: argparse.Namespace, log: Log
) -> list[dict[str, Any]]:
    """Wall times per worker count on a few instances."""
    out = []
    for instance in instances:
        workload = load_workload(instance.path, catalogue)
        entry: dict[str, Any] = {"name": instance.name, "copies": workload.total_copies, "counts": {}}
        for n in counts:
            solves = [product_solve(workload, catalogue, settings_for(args, n)) for _ in range(args.repeats)]
            entry["counts"][str(n)] = {
                "times": [s["wall"] for s in solves],
                "optimal": all(s["status"] == "optimal" for s in solves),
            }
            log(f"  workers {n} on {instance.name}: {statistics.median(s['wall'] for s in solves):.3f} s")
        out.append(entry)
    return out


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages: other processes skew the wall times."""
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(cores),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "ortools": version("ortools"),
        "ftopt": ftopt.__version__,
        "load_start": load_average(),
    }


def parse(argv: list[str] | None) -> argparse.Namespace:
    """What to measure and how often."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    parser.add_argument("--tiers", default=",".join(ALL_TIERS), help="comma-separated tiers")
    parser.add_argument("--repeats", type=int, default=5, help="solves per instance")
    parser.add_argument(
        "--big-repeats",
        type=int,
        default=None,
        help="solves per instance on large and xl (default: --repeats)",
    )
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per product solve")
    parser.add_argument("--workers", type=int, default=None, help="CP-SAT workers (default: the product's)")
    parser.add_argument("--naive-tiers", default="seed,medium,c200", help="tiers the naive model runs on")
    parser.add_argument("--naive-time-limit", type=float, default=None, help="default: --time-limit")
    parser.add_argument("--compare-workers", default="", help="e.g. 1,2: wall times per worker count")
    parser.add_argument("--compare-on", default="seed-01,seed-03,medium-01,large-01,xl-01")
    parser.add_argument("--cli-instance", default="seed-01", help="instance for the whole-process timing")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-process timing")
    parser.add_argument("--no-scaling", action="store_true", help="skip the xl instances with copies scaled")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where results.json goes")
    args = parser.parse_args(argv)
    args.tiers = [t for t in args.tiers.split(",") if t]
    args.naive_tiers = [t for t in args.naive_tiers.split(",") if t]
    unknown = [t for t in args.tiers if t not in ALL_TIERS]
    if unknown:
        parser.error(f"unknown tier(s) {', '.join(unknown)}; expected some of {', '.join(ALL_TIERS)}")
    return args


def recorded_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings as results.json records them, with the worker count the product used."""
    return {
        "tiers": args.tiers,
        "repeats": args.repeats,
        "big_repeats": args.big_repeats,
        "time_limit": args.time_limit,
        "workers": args.workers,
        "workers_used": settings_for(args).workers,
        "naive_tiers": args.naive_tiers,
        "naive_time_limit": args.naive_time_limit or args.time_limit,
        "scaling_factors": list(FACTORS),
    }


def repeats_for(args: argparse.Namespace, tier: str) -> argparse.Namespace:
    """The arguments with --big-repeats in force on large and xl."""
    if args.big_repeats is None or tier not in ("large", "xl"):
        return args
    return argparse.Namespace(**{**vars(args), "repeats": args.big_repeats})


def measure_all(args: argparse.Namespace, log: Log) -> dict[str, Any]:
    """Everything results.json holds."""
    catalogue = load_catalogue()
    optima = json.loads(KNOWN_OPTIMA.read_text()) if KNOWN_OPTIMA.exists() else {}
    raw: dict[str, Any] = {"format": FORMAT, "machine": machine(), "settings": recorded_settings(args)}
    instances = discover(args.tiers)
    raw["instances"] = []
    for instance in instances:
        log(f"{instance.name} ({instance.tier})")
        entry = measure_instance(instance, catalogue, repeats_for(args, instance.tier), optima, log)
        if entry is not None:
            raw["instances"].append(entry)
    xl = [i for i in instances if i.tier == "xl"]
    raw["scaling"] = [] if args.no_scaling else measure_scaling(xl, catalogue, repeats_for(args, "xl"), log)
    raw["workers"] = []
    if args.compare_workers:
        wanted = set(args.compare_on.split(","))
        chosen = [i for i in discover(list(TIER_NAMES)) if i.name in wanted]
        counts = [int(c) for c in args.compare_workers.split(",")]
        raw["workers"] = compare_workers(chosen, catalogue, counts, args, log)
    raw["machine"]["load_end"] = load_average()
    raw["process"] = None if args.no_cli else process_entry(args)
    return raw


def process_entry(args: argparse.Namespace) -> dict[str, Any]:
    """The whole-process timing on --cli-instance, or why it was skipped."""
    target = next((i for i in discover(["seed"]) if i.name == args.cli_instance), None)
    if target is None:
        return {"skipped": f"instance {args.cli_instance} not found"}
    return time_process(target, args.repeats, args.time_limit)


def main(argv: list[str] | None = None) -> int:
    """Measure and write results.json."""
    args = parse(argv)

    def log(text: str) -> None:
        print(text, flush=True)

    raw = measure_all(args, log)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(raw, indent=1) + "\n")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
