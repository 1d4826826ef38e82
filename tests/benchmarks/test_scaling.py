"""The fixed-mix scaling series behind the flatness target: only copies change, and the verdict
follows the measured growth (no timing asserted: the times here are made up)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.scaling import ScalePoint, flatness_target, measure_series, scale_copies
from ftopt import load_catalogue, load_workload

ROOT = Path(__file__).resolve().parents[2]

XL = ROOT / "benchmarks" / "instances" / "xl-01.yaml"


def test_scaling_keeps_runs_site_and_cards_and_at_least_one_copy() -> None:
    workload = load_workload(XL, load_catalogue())
    small = scale_copies(workload, 0.05)
    assert [r.name for r in small.runs] == [r.name for r in workload.runs]
    assert small.site == workload.site
    assert all(
        s.concurrent == max(1, round(r.concurrent * 0.05))
        for s, r in zip(small.runs, workload.runs, strict=True)
    )
    assert min(r.concurrent for r in small.runs) >= 1
    assert small.total_copies < workload.total_copies / 10
    assert scale_copies(workload, 1.0).total_copies == workload.total_copies


def test_series_solves_every_scale_the_given_number_of_times() -> None:
    workload = load_workload(XL, load_catalogue())
    seen: list[int] = []

    def attempt(scaled, _catalogue):  # type: ignore[no-untyped-def]
        seen.append(scaled.total_copies)
        return "optimal", 0.1

    points = measure_series("xl-01", workload, load_catalogue(), attempt, repeats=2)
    assert [p.factor for p in points] == [0.05, 0.25, 1.0]
    assert seen == [p.copies for p in points for _ in range(2)]
    assert points[-1].copies == workload.total_copies and all(p.optimal for p in points)


def _series(*medians: float, optimal: bool = True) -> list[ScalePoint]:
    return [
        ScalePoint("xl-01", f, c, 40, [m], optimal)
        for f, c, m in zip((0.05, 0.25, 1.0), (100, 500, 2000), medians, strict=True)
    ]


def test_flat_series_meets_the_target_and_a_growing_one_misses_it() -> None:
    measured, verdict = flatness_target([_series(0.2, 0.15, 0.5)])
    assert verdict == "met" and "× 2.5 for copies × 20" in measured
    assert flatness_target([_series(0.2, 0.15, 0.5), _series(0.1, 0.5, 0.4)])[1].startswith("MISSED")
    assert flatness_target([_series(0.2, 0.2, 0.2, optimal=False)])[1].startswith("MISSED")
