"""Copies at a fixed run mix: does solve time follow distinct runs or copies?

The tiers differ in distinct runs as well as copies (medium ~18 runs, xl ~40), so comparing their
times mixes the two. Here each xl instance is solved again with every run's `concurrent` scaled
down (at least one copy each), which keeps its runs, site and cards and changes copies only. The
product counts copies, so its time should barely grow from the smallest scale to the full one.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the report imports this module and nothing of ftopt
    from ftopt.model.hardware import Catalogue
    from ftopt.model.workload import Workload

#: Fractions of each run's copies; 1.0 is the instance as committed.
FACTORS = (0.05, 0.25, 1.0)
#: "Nearly flat": the full instance may take at most this many times the smallest scale.
FLAT_GROWTH = 3.0


@dataclass
class ScalePoint:
    """One instance at one scale: its copies and wall times of the product's solve."""

    name: str
    factor: float
    copies: int
    runs: int
    times: list[float]
    optimal: bool

    @property
    def median(self) -> float:
        """Median wall time."""
        return statistics.median(self.times)


def scale_copies(workload: Workload, factor: float) -> Workload:
    """The same bid with each run's copies times `factor`, rounded, at least one."""
    runs = [r.model_copy(update={"concurrent": max(1, round(r.concurrent * factor))}) for r in workload.runs]
    return workload.model_copy(update={"runs": runs})


def measure_series(
    name: str,
    workload: Workload,
    catalogue: Catalogue,
    attempt: Callable[[Workload, Catalogue], tuple[str, float]],
    repeats: int,
) -> list[ScalePoint]:
    """Every scale of one instance; `attempt` solves once and returns (status, seconds)."""
    points = []
    for factor in FACTORS:
        scaled = scale_copies(workload, factor)
        results = [attempt(scaled, catalogue) for _ in range(repeats)]
        points.append(
            ScalePoint(
                name,
                factor,
                scaled.total_copies,
                len(scaled.runs),
                [seconds for _, seconds in results],
                all(status == "optimal" for status, _ in results),
            )
        )
    return points


def growth(series: list[ScalePoint]) -> float:
    """Median time of the full instance over that of the smallest scale."""
    return series[-1].median / series[0].median


def flatness_target(series: list[list[ScalePoint]]) -> tuple[str, str]:
    """(measured, verdict) for 'time nearly flat in copies'."""
    if not series:
        return ("no xl instance scaled", "–")
    parts, ok = [], True
    for points in series:
        first, last = points[0], points[-1]
        times = " → ".join(f"{p.copies} copies {p.median:.3f} s" for p in points)
        proven = all(p.optimal for p in points)
        parts.append(
            f"{first.name} ({first.runs} runs): {times}; × {growth(points):.1f} for copies "
            f"× {last.copies / first.copies:.0f}{'' if proven else ' (not all proven)'}"
        )
        ok = ok and proven and growth(points) <= FLAT_GROWTH
    verdict = "met" if ok else f"MISSED: time grows more than × {FLAT_GROWTH:g} or a scale was not proven"
    return ("; ".join(parts), verdict)


def render_section(series: list[list[ScalePoint]], repeats: int) -> list[str]:
    """The report's table: one row per instance and scale."""
    if not series:
        return []
    lines = [
        "",
        "## Copies at a fixed run mix",
        "",
        f"Each xl instance with every run's copies scaled by {', '.join(f'{f:g}' for f in FACTORS)} "
        f"(rounded, at least one): same runs, site and cards, only the counts change. Median wall of "
        f"`solve()` over {repeats} repeats; growth = time ÷ time at the smallest scale. The flatness "
        f"target is met when the full instance takes at most × {FLAT_GROWTH:g} the smallest scale.",
        "",
        "| instance | scale | copies | runs | status | wall median | wall min–max | growth |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for points in series:
        base = points[0].median
        for p in points:
            lines.append(
                f"| {p.name} | {p.factor:g} | {p.copies} | {p.runs} | "
                f"{'optimal' if p.optimal else 'not proven'} | {p.median:.3f} | "
                f"{min(p.times):.3f}–{max(p.times):.3f} | × {p.median / base:.1f} |"
            )
    return lines
