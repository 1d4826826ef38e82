"""Robustness benchmark (issue 13): `python -m benchmarks.robustness`.

Solves each instance of the robustness tiers (benchmarks/generate.py ROBUSTNESS_TIERS: forty distinct
offloading runs at 1-2, 5 and 20 copies each, many checkpoints, 1,000 and 5,000 distinct runs, a
server limit one below the fewest servers a plan needs) `--repeats` times through the public API
with 2 workers, and first-fit decreasing once for comparison. Then times the whole `ftopt solve`
process (what-if re-solves on, the CLI default) on a 10,000-copy bid against the library solve of the
same bid. Writes benchmarks/robustness.md and benchmarks/robustness.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from benchmarks.baselines.ffd import first_fit_decreasing
from benchmarks.generate import INSTANCES, ROBUSTNESS_TIERS
from benchmarks.heavy_gap import HeavyGap, heavy_gap, render_gaps
from ftopt import SolveSettings, load_catalogue, load_workload, solve

HERE = Path(__file__).resolve().parent
#: Time limit per tier where the target names one; 60 s elsewhere.
TIME_LIMITS = {"d1000": 30.0}
HEAVY = ("heavy2", "heavy5", "heavy20")
BIG_BID = "xl-01"  # scaled to 10,000 copies for the process timing
BIG_COPIES = 10_000


#: Why the forty-distinct-offload tiers end unproven, stated with every report above the measured split.
HEAVY_GAP = (
    "Why the heavy tiers are not proven: forty distinct offloading runs make thousands of heavy",
    "configurations. The bound comes from the optimistic configurations (heavy copies priced alone,",
    "as if no light copy shared their server's RAM and disk), raised by the sized model (light copies",
    "counted against each configuration's room) when the optimistic model is proven with time to",
    "spare; the plans from servers right-sized for all they carry, or from the safe configurations",
    "(light copies budgeted). The table solves each bid once more and keeps the optimistic model's",
    "last incumbent (`benchmarks/heavy_gap.py`): where the bound meets or passes it, CP-SAT has",
    "proven that model optimal, and the relaxation gap left (price − the larger of the two) only",
    "the sized model's proof could close; the search gap is what the optimistic search left.",
)


@dataclass
class Row:
    """One instance: its repeats and FFD."""

    instance: str
    tier: str
    copies: int
    runs: int
    time_limit: float
    walls: list[float]
    statuses: list[str]
    gaps: list[float | None]
    prices: list[float | None]
    ffd_price: float | None
    ffd_seconds: float

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def worst(self) -> float:
        return max(self.walls)

    @property
    def dearest_vs_ffd(self) -> float | None:
        """Worst price over FFD's (1.0 = equal); None when either has no plan."""
        priced = [p for p in self.prices if p is not None]
        if not priced or self.ffd_price is None:
            return None
        return max(priced) / self.ffd_price


def _instances() -> list[tuple[str, Path]]:
    return [(t.name, p) for t in ROBUSTNESS_TIERS for p in sorted(INSTANCES.glob(f"{t.name}-*.yaml"))]


def run_instance(tier: str, path: Path, repeats: int) -> Row:
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    limit = TIME_LIMITS.get(tier, 60.0)
    walls, statuses, gaps, prices = [], [], [], []
    for _ in range(repeats):
        started = time.perf_counter()
        result = solve(workload, catalogue, SolveSettings(time_limit=limit, workers=2))
        walls.append(round(time.perf_counter() - started, 3))
        statuses.append(result.status.value)
        gaps.append(None if result.gap is None else round(result.gap, 6))
        prices.append(result.price)
        print(
            f"  {path.stem}: {result.status.value} {result.price} gap {result.gap} {walls[-1]:.2f} s",
            flush=True,
        )
    try:
        baseline = first_fit_decreasing(workload, catalogue)
        ffd_price, ffd_seconds = baseline.price, baseline.seconds
        if workload.site.max_servers is not None and baseline.servers > workload.site.max_servers:
            ffd_price = None  # FFD breaks the server limit: no plan
    except ValueError:
        ffd_price, ffd_seconds = None, 0.0
    return Row(
        path.stem,
        tier,
        workload.total_copies,
        len(workload.runs),
        limit,
        walls,
        statuses,
        gaps,
        prices,
        ffd_price,
        round(ffd_seconds, 3),
    )


def process_timing(limit: float) -> dict[str, Any]:
    """`ftopt solve` as a process (what-if on) against the library solve, on a 10,000-copy bid."""
    doc = yaml.safe_load((INSTANCES / f"{BIG_BID}.yaml").read_text())
    total = sum(r.get("concurrent", 1) for r in doc["runs"])
    for run in doc["runs"]:
        run["concurrent"] = max(1, round(run.get("concurrent", 1) * BIG_COPIES / total))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        catalogue = load_catalogue()
        workload = load_workload(path, catalogue)
        started = time.perf_counter()
        result = solve(workload, catalogue, SolveSettings(time_limit=limit, workers=2))
        library = time.perf_counter() - started
        script = Path(sys.executable).with_name("ftopt")  # the installed command, else the module
        ftopt = [str(script)] if script.exists() else [sys.executable, "-m", "ftopt.cli.main"]
        command = [*ftopt, "solve", str(path), "--time-limit", f"{limit:g}", "--workers", "2", "--quiet"]
        command += ["--format", "json", "-o", str(Path(tmp) / "plan.json")]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        process = time.perf_counter() - started
    return {
        "copies": workload.total_copies,
        "runs": len(workload.runs),
        "status": result.status.value,
        "library_seconds": round(library, 2),
        "process_seconds": round(process, 2),
        "process_exit": done.returncode,
        "ratio": round(process / library, 2),
        "limit": limit,
    }


def targets(rows: list[Row], process: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(target, met, measured) for each target of issue 13."""
    out = []
    for row in rows:
        if row.tier in HEAVY:
            ok = all(s == "optimal" for s in row.statuses) and row.median < 5
            out.append(
                (
                    f"{row.instance}: proven optimal, median < 5 s",
                    ok,
                    f"{set(row.statuses)}, {row.median:.1f} s",
                )
            )
        if row.tier in HEAVY or row.tier == "ckpt":
            ok = all(p is not None for p in row.prices)
            out.append((f"{row.instance}: a plan on every repeat", ok, f"{row.statuses}"))
        if row.tier == "limit":
            ok = all(s == "infeasible" for s in row.statuses) and row.worst < 5
            out.append(
                (f"{row.instance}: infeasible < 5 s", ok, f"{set(row.statuses)}, worst {row.worst:.1f} s")
            )
        if row.tier == "d1000":
            ok = all(s == "optimal" for s in row.statuses) and row.worst < 30
            out.append(
                (f"{row.instance}: proven < 30 s", ok, f"{set(row.statuses)}, worst {row.worst:.1f} s")
            )
        if row.tier == "d5000":
            ok = all(g is not None and g < 1 for g in row.gaps) and row.worst <= row.time_limit
            out.append(
                (
                    f"{row.instance}: a plan with a real bound within the 60 s limit",
                    ok,
                    f"{set(row.statuses)}, worst {row.worst:.1f} s, gap {_fmt(_worst(row.gaps), '.2%')}",
                )
            )
        ratio = row.dearest_vs_ffd
        if ratio is not None:
            out.append((f"{row.instance}: price ≤ FFD", ratio <= 1 + 1e-9, f"dearest {ratio:.4f} × FFD"))
    out.append(
        (
            "ftopt solve process within --time-limit (10,000 copies, what-if on)",
            process["process_seconds"] <= process["limit"],
            f"{process['process_seconds']} s at --time-limit {process['limit']:g}",
        )
    )
    out.append(
        (
            "ftopt solve process < 2 × solve time (10,000 copies)",
            process["ratio"] < 2,
            f"{process['process_seconds']} s vs {process['library_seconds']} s",
        )
    )
    return out


def _worst(gaps: list[float | None]) -> float | None:
    """The largest gap; 1.0 (no bound) when a repeat had none."""
    return max((1.0 if g is None else g for g in gaps), default=None)


def _fmt(x: float | None, spec: str) -> str:
    return "–" if x is None else format(x, spec)


def render(
    rows: list[Row],
    process: dict[str, Any],
    checks: list[tuple[str, bool, str]],
    meta: dict[str, Any],
    heavy_gaps: list[HeavyGap] | None = None,
) -> str:
    lines = [
        "# Robustness benchmark (issue 13)",
        "",
        f"Generated by `python -m benchmarks.robustness` on {meta['machine']}, {meta['cpus']} CPUs, "
        f"{meta['repeats']} repeats per instance, 2 workers, public API (`ftopt.solve`, verifier on). "
        "Wall time is the whole `solve` call. Gap is (price − bound) / price.",
        "",
        "| instance | copies | runs | limit s | median s | worst s | statuses | worst gap | price | FFD "
        "| price/FFD |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        statuses = ", ".join(f"{s}×{r.statuses.count(s)}" for s in sorted(set(r.statuses)))
        gaps = [g for g in r.gaps if g is not None]
        priced = [p for p in r.prices if p is not None]
        worst_gap = _fmt(max(gaps) if gaps else None, ".2%")
        price = _fmt(max(priced) if priced else None, ",.0f")
        versus = f"{_fmt(r.ffd_price, ',.0f')} | {_fmt(r.dearest_vs_ffd, '.4f')}"
        lines.append(
            f"| {r.instance} | {r.copies} | {r.runs} | {r.time_limit:g} | {r.median:.2f} | {r.worst:.2f} | "
            f"{statuses} | {worst_gap} | {price} | {versus} |"
        )
    lines += [
        "",
        f"Process timing: `ftopt solve` (what-if on) on {process['copies']:,} copies of "
        f"{process['runs']} runs: "
        f"{process['process_seconds']} s as a process against {process['library_seconds']} s for the library "
        f"solve ({process['status']}), ratio {process['ratio']}.",
        "",
        "## Targets",
        "",
        "| target | met | measured |",
        "|---|---|---|",
    ]
    lines += [f"| {name} | {'yes' if ok else '**no**'} | {measured} |" for name, ok, measured in checks]
    lines += ["", "## Heavy tiers: where the gap comes from", "", *HEAVY_GAP, ""]
    lines += render_gaps(heavy_gaps or [])
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.robustness", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tiers", default=",".join(t.name for t in ROBUSTNESS_TIERS))
    parser.add_argument("--process-limit", type=float, default=60.0, help="time limit of the process timing")
    args = parser.parse_args(argv)
    wanted = args.tiers.split(",")
    rows = []
    for tier, path in _instances():
        if tier in wanted:
            print(path.stem, flush=True)
            rows.append(run_instance(tier, path, args.repeats))
    gaps = [heavy_gap(INSTANCES / f"{r.instance}.yaml", r.time_limit) for r in rows if r.tier in HEAVY]
    print(gaps, flush=True)
    process = process_timing(args.process_limit)
    print(process, flush=True)
    checks = targets(rows, process)
    meta = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "repeats": args.repeats,
        "python": platform.python_version(),
    }
    (HERE / "robustness.md").write_text(render(rows, process, checks, meta, gaps))
    payload = {
        "meta": meta,
        "instances": [{**asdict(r), "median": r.median, "worst": r.worst} for r in rows],
        "process": process,
        "targets": [{"target": n, "met": ok, "measured": m} for n, ok, m in checks],
        "heavy_gaps": [asdict(g) for g in gaps],
    }
    (HERE / "robustness.json").write_text(json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
