"""The band lines a plan's summary carries: every copy's memory per GPU, hours and energy and every
server's wall power, each with the band the plan JSON holds, in the words every format prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.band_lines import band_line, band_lines, copy_numbers
from ftopt.model.spread import Band
from ftopt.model.summary import summarize
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

DEADLINE = Path(__file__).resolve().parents[2] / "examples" / "deadline.yaml"


@pytest.fixture(scope="module")
def solved():
    catalogue = load_catalogue()
    workload = load_workload(DEADLINE, catalogue)
    settings = SolveSettings(time_limit=20, workers=2, what_if=False)
    plan = solve(workload, catalogue, settings).plan_or_raise()
    return plan, summarize(plan, workload, catalogue)


def test_a_band_is_written_as_the_issue_states_it() -> None:
    band = Band(low=-0.06, high=0.11, points=31, sources=7, basis="cross-validated memory of x/y")
    line = band_line(("r", "1"), "memory per GPU", 78.44, band)
    assert line.words == "78.4 GB (−6/+11 %, 31 points, 7 sources)"
    assert (line.shown, line.low_percent, line.high_percent) == ("78.4 GB", -6, 11)
    assert (line.subject, line.of, line.name, line.copies) == ("run r copy 1", "run", "r", "1")
    below = Band(low=-0.39, high=-0.03, points=30, sources=5, basis="b")
    assert (
        band_line(("s1", None), "wall power", 1973, below).words == "1,973 W (−39/−3 %, 30 points, 5 sources)"
    )


def test_copy_numbers_join_consecutive_copies() -> None:
    assert copy_numbers([5, 1, 2, 3]) == "1-3, 5"
    assert copy_numbers([4]) == "4"


def test_every_copy_figure_and_server_power_has_its_line_with_the_plans_band(solved) -> None:
    """Each copy's figures (identical copies once) and each server's wall power carry the band the
    plan holds for them; a figure the copy has (hours, energy with train_tokens) is never left out."""
    plan, summary = solved
    assert summary.bands == band_lines(plan)
    lines = {(b.subject, b.figure): b for b in summary.bands}
    for a in plan.assignments:
        assert a.bands is not None
        (subject,) = {s for s, f in lines if s.startswith(f"run {a.run} cop") and f == "memory per GPU"}
        figures = {
            "memory per GPU": (a.memory_per_gpu_gb.total, a.bands.memory_per_gpu),
            "hours": (a.hours, a.bands.hours),
            "energy": (a.energy_kwh, a.bands.energy),
        }
        for figure, (value, band) in figures.items():
            assert value is not None, figure  # the example trains tokens: every figure is there
            line = lines[(subject, figure)]
            assert line.value == value and (line.points, line.sources, line.basis) == (
                band.points,
                band.sources,
                band.basis,
            )
            assert (line.low_percent, line.high_percent) == (round(band.low * 100), round(band.high * 100))
    for s in plan.servers:
        assert s.power_band is not None
        line = lines[(f"server {s.id}", "wall power")]
        assert line.value == s.power_w and line.basis == s.power_band.basis
    copies = len({(a.run, a.memory_per_gpu_gb.total, a.hours) for a in plan.assignments})
    assert len(summary.bands) == 3 * copies + len(plan.servers)
