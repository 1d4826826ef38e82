"""The heavy tiers' gap split (benchmarks/heavy_gap.py): relaxation and search add up to the gap
the solve's bound leaves, and the report says which is which."""

from __future__ import annotations

import pytest

from benchmarks.heavy_gap import HeavyGap, render_gaps
from benchmarks.robustness import Row, render


def _gap(
    optimistic: float | None, bound: float = 90.0, proven: bool = False, price: float | None = 100.0
) -> HeavyGap:
    return HeavyGap("heavy-x", price, optimistic, bound, proven, 1.5)


def test_the_two_parts_add_up_to_the_gap_of_the_bound() -> None:
    relaxation, search = _gap(96.0).split()
    assert relaxation == pytest.approx(0.04) and search == pytest.approx(0.06)
    assert relaxation + search == pytest.approx((100.0 - 90.0) / 100.0)


def test_a_proven_optimistic_model_leaves_the_whole_gap_to_the_relaxation() -> None:
    relaxation, search = _gap(97.0, bound=97.0, proven=True).split()
    assert relaxation == pytest.approx(0.03) and search == pytest.approx(0.0)


def test_a_bound_the_sized_model_raised_above_the_optimistic_optimum_leaves_no_search_gap() -> None:
    gap = _gap(96.0, bound=98.0, proven=True)
    relaxation, search = gap.split()
    assert relaxation == pytest.approx(0.02) and search == 0.0
    assert gap.sized_gain() == pytest.approx(0.02)
    assert _gap(96.0).sized_gain() == 0.0


def test_no_optimistic_plan_or_no_price_splits_nothing_and_renders_dashes() -> None:
    assert _gap(None).split() == (None, None) and _gap(None).sized_gain() is None
    lines = render_gaps([_gap(None), _gap(96.0, proven=True, price=None)])
    assert len(lines) == 4 and lines[0].startswith("| instance")
    assert lines[2].count("–") == 4  # best, relaxation, sized, search
    assert "| yes |" in lines[3] and lines[3].count("–") == 4  # price, relaxation, sized, search


def test_the_robustness_report_carries_the_split_of_each_heavy_bid() -> None:
    row = Row("heavy-x", "heavy2", 61, 40, 60.0, [55.0], ["feasible"], [0.1], [100.0], 110.0, 0.1)
    process = {"copies": 10, "runs": 1, "process_seconds": 1.0, "library_seconds": 1.0}
    process |= {"status": "optimal", "ratio": 1.0, "limit": 60.0}
    meta = {"machine": "m", "cpus": 2, "repeats": 1}
    text = render([row], process, [], meta, [_gap(96.0)])
    assert "## Heavy tiers: where the gap comes from" in text
    assert "| heavy-x | 96 | 90 | no | 100 | 4.00% | 0.00% | 6.00% | 1.5 |" in text
