"""`python -m benchmarks.queue`: queue bids against the peak bids of the same jobs, at 50, 200 and 1,000 jobs.

Each instance is a month (720 h) of fine-tunes from four teams, generated here from a seed: LoRA and
QLoRA jobs of 8B to 70B models, some with a release and a deadline inside the month. Each is solved
as a queue bid (`queue: {horizon_hours: 720}`) and as its peak bid (every job at once, each within
its window's length, as ftopt's own queue solve makes it first), both through `ftopt.solve` with
the plan verified. Targets on 2 cores: 50 jobs proven optimal within 10 s; 200 jobs within 1 % of
the bound in 30 s; 1,000 jobs a verified plan within 60 s. The queue bid is never above the peak bid.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

from ftopt import SolveSettings, load_catalogue, solve
from ftopt.model.workload import Workload

HERE = Path(__file__).resolve().parent
REPORT = HERE / "queue.md"
HORIZON_H = 720

#: (jobs, time limit s, target): the issue's targets.
SIZES = ((50, 10.0, "optimal"), (200, 30.0, "gap ≤ 1 %"), (1000, 60.0, "verified plan"))

#: Run templates: name, model, method, tokens per job, whether it gets a window inside the month.
TEMPLATES = (
    ("support-lora-8b", "llama-3.1-8b", "lora", 200_000_000, False),
    ("code-lora-14b", "qwen3-14b", "lora", 150_000_000, False),
    ("search-qlora-32b", "qwen3-32b", "qlora", 100_000_000, True),
    ("legal-qlora-70b", "llama-3.3-70b", "qlora", 40_000_000, True),
)


def instance(jobs: int, seed: int = 0) -> dict[str, Any]:
    """A month of `jobs` jobs over the four templates, windows drawn from the seed (a workload dict)."""
    rng = random.Random(seed * 100_003 + jobs)
    shares = [rng.uniform(1, 3) for _ in TEMPLATES]
    counts = [max(1, round(jobs * s / sum(shares))) for s in shares]
    counts[0] += jobs - sum(counts)
    runs: list[dict[str, Any]] = []
    for (name, model, method, tokens, windowed), count in zip(TEMPLATES, counts, strict=True):
        run: dict[str, Any] = {"name": name, "model": model, "method": method, "jobs": count}
        run["train_tokens"] = tokens
        if windowed:
            release = rng.choice((0, 168, 336))
            run |= {"release_hours": release, "deadline_hours": release + rng.choice((336, 384))}
        runs.append(run)
    return {
        "name": f"queue-{jobs}",
        "queue": {"horizon_hours": HORIZON_H},
        "runs": runs,
        "site": {"feed": "400v-3p-32a", "inlet_c": 25},
        "hardware": {"gpus": ["rtx-pro-6000-se", "h200-nvl", "h100-nvl"]},
    }


def peak(data: dict[str, Any]) -> dict[str, Any]:
    """The same jobs all at once, each within its window's length: the peak bid the queue bid beats."""
    horizon = data["queue"]["horizon_hours"]
    runs = []
    for run in data["runs"]:
        release = run.get("release_hours", 0)
        end = min(run.get("deadline_hours", horizon), horizon)
        rest = {k: v for k, v in run.items() if k not in ("jobs", "release_hours", "deadline_hours")}
        runs.append({**rest, "concurrent": run["jobs"], "deadline_hours": end - release})
    return {k: v for k, v in data.items() if k != "queue"} | {"runs": runs}


def measure(jobs: int, time_limit: float, workers: int, seed: int = 0) -> dict[str, Any]:
    """Solve the queue bid and its peak bid; their prices, statuses, gaps and seconds."""
    catalogue = load_catalogue()
    data = instance(jobs, seed)
    settings = SolveSettings(time_limit=time_limit, workers=workers)
    started = time.perf_counter()
    queued = solve(Workload.model_validate(data), catalogue, settings)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    all_at_once = solve(Workload.model_validate(peak(data)), catalogue, settings)
    peak_seconds = time.perf_counter() - started
    plan = queued.plan
    return {
        "jobs": jobs,
        "seed": seed,
        "time_limit": time_limit,
        "status": queued.status.value,
        "price": queued.price,
        "bound": queued.bound,
        "gap": queued.gap,
        "seconds": seconds,
        "servers": len(plan.servers) if plan else 0,
        "gpus": sum(s.gpu_count for s in plan.servers) if plan else 0,
        "verified": queued.verified,
        "peak_status": all_at_once.status.value,
        "peak_price": all_at_once.price,
        "peak_gpus": sum(s.gpu_count for s in all_at_once.plan.servers) if all_at_once.plan else 0,
        "peak_seconds": peak_seconds,
    }


def _met(row: dict[str, Any], target: str) -> bool:
    if not row["verified"] or row["price"] is None:
        return False
    in_time = bool(row["seconds"] <= row["time_limit"])
    if target == "optimal":
        return in_time and row["status"] == "optimal"
    if target.startswith("gap"):
        return in_time and row["gap"] is not None and row["gap"] <= 0.01
    return in_time


def report(rows: list[dict[str, Any]], workers: int) -> str:
    """The Markdown report."""
    lines = [
        "# Queue benchmark",
        "",
        "Generated by `python -m benchmarks.queue` (instances generated in the script from a seed).",
        f"Each instance solved once as a queue bid and once as its peak bid through `ftopt.solve` (plans "
        f"verified), {workers} CP-SAT workers, on {platform.machine()} with {os.cpu_count()} cores, "
        f"Python {platform.python_version()}. The machine was shared with other work: times are noisy.",
        "",
        "| jobs | seed | limit s | status | queue price | bound | gap | s | servers (GPUs) | peak price "
        "| peak GPUs | queue below peak | peak s | target | met |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    targets = {jobs: target for jobs, _, target in SIZES}
    for r in rows:
        price, peak = r["price"], r["peak_price"]
        below = f"{(peak - price) / peak:.1%}" if price is not None and peak else "-"
        bound = f"{r['bound']:,.0f}" if r["bound"] is not None else "-"
        gap = f"{r['gap']:.2%}" if r["gap"] is not None else "-"
        target = targets.get(r["jobs"], "verified plan")
        lines.append(
            f"| {r['jobs']} | {r['seed']} | {r['time_limit']:g} | {r['status']} | {price:,.0f} | {bound} | "
            f"{gap} | {r['seconds']:.1f} | {r['servers']} ({r['gpus']}) | {peak:,.0f} | {r['peak_gpus']} | "
            f"{below} | {r['peak_seconds']:.1f} | {target} | {'met' if _met(r, target) else 'MISSED'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Solve the three sizes and write the report."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.queue", description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sizes", type=int, nargs="*", default=[jobs for jobs, _, _ in SIZES])
    parser.add_argument("--seeds", type=int, default=3, help="instances per size (seeds 0, 1, …)")
    parser.add_argument("--output", type=Path, default=REPORT)
    args = parser.parse_args(argv)
    limits = {jobs: limit for jobs, limit, _ in SIZES}
    rows = [
        measure(jobs, limits.get(jobs, 60.0), args.workers, seed)
        for jobs in args.sizes
        for seed in range(args.seeds)
    ]
    text = report(rows, args.workers)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
