"""The issue-38 bids and the side-by-side report: the sizes the issue names, the same bid for the
same seed, and a report that sets both builds against first fit (no timing asserted)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from benchmarks import scale_bids
from benchmarks.scale_bids import bid, queue_bid
from benchmarks.side_by_side import report
from ftopt import load_catalogue, runs_fitting
from ftopt.model.workload import Workload


def test_c500_is_500_copies_of_40_distinct_runs_each_fitting_some_build() -> None:
    doc = bid("c500")
    assert doc == bid("c500"), "the same seed gives the same bid"
    assert len(doc["runs"]) == 40 and sum(r.get("concurrent", 1) for r in doc["runs"]) == 500
    assert all(runs_fitting(Workload.model_validate(doc), load_catalogue()))
    same_runs = [{k: v for k, v in r.items() if k != "concurrent"} for r in bid("c10000")["runs"]]
    assert same_runs == [{k: v for k, v in r.items() if k != "concurrent"} for r in doc["runs"]]


def test_the_queue_has_its_jobs_each_run_with_its_own_release_and_a_10_to_13_day_window() -> None:
    doc = queue_bid(200)
    assert sum(r["jobs"] for r in doc["runs"]) == 200 and len(doc["runs"]) == 60
    windows = {r["deadline_hours"] - r["release_hours"] for r in doc["runs"]}
    assert windows <= {24 * d for d in range(10, 14)} and len({r["release_hours"] for r in doc["runs"]}) > 1
    Workload.model_validate(doc)


def _two_builds() -> list[dict[str, Any]]:
    """c500 solved once by each build, proven at 90, main in 4 s and the branch in 2 s."""
    return [
        {"bid": "c500", "build": b, "repeat": 0, "limit": 30.0, "wall": w, "code": 0, "status": "optimal",
         "total_price": 90.0, "bound": 90.0, "gap": 0.0, "peak_mb": 100}
        for b, w in (("base", 4.0), ("current", 2.0))
    ]  # fmt: skip


def test_the_report_sets_each_build_against_first_fit() -> None:
    rows = _two_builds()
    text = report({"rows": rows, "ffd": {"c500": {"ffd": 100.0, "ffd_per_gpu": 90.0}},
                   "load_before": (1.0, 1.0, 1.0), "load_after": (2.0, 2.0, 2.0)})  # fmt: skip
    assert (
        "| c500 | 30 | this branch | 1 | 2.0 / 2.0 | optimal | 0.00 % | 90 | 0.900 | 1.000 | 100 | 0.50 |"
        in text
    )


def test_the_naive_model_gets_a_row_of_its_own_or_says_why_it_was_not_built() -> None:
    rows = _two_builds()
    naive = {"bid": "c500", "build": "naive", "repeat": 0, "limit": 30.0, "wall": 36.0, "code": 0,
             "status": "unknown", "total_price": None, "bound": None, "gap": None,
             "booleans": 10}  # fmt: skip
    ffd = {"c500": {"ffd": 100.0, "ffd_per_gpu": 90.0}}
    loads = {"load_before": (1.0,) * 3, "load_after": (1.0,) * 3}
    text = report({"rows": [*rows, naive], "ffd": ffd} | loads)
    assert (
        "| c500 | 30 | naive CP-SAT | 1 | 36.0 / 36.0 | unknown | – | – | – | – | 0 | 9.00 (over main) |"
        in text
    )
    skipped = naive | {"status": "not built", "why": "12,345,678 booleans over 900 slots", "wall": 5.0}
    text = report({"rows": [*rows, skipped], "ffd": ffd} | loads)
    assert "not built: 12,345,678 booleans over 900 slots |" in text


def _slow_template(draws: list[int]) -> Any:
    """A template that yields a new run only every 40th draw, as 5,000 distinct runs thin out."""

    def template(rng: random.Random, name: str, offload: bool) -> dict[str, Any]:
        draws.append(1)
        return {"name": name, "model": "m", "method": "lora", "lora_rank": len(draws) // 40}

    return template


def test_a_round_that_draws_only_seen_runs_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    draws: list[int] = []
    monkeypatch.setattr(scale_bids, "_run_template", _slow_template(draws))
    checked: list[int] = []
    monkeypatch.setattr(
        scale_bids, "_fitting", lambda runs, hw: checked.append(len(runs)) or [True] * len(runs)
    )
    runs = scale_bids._draw_runs(random.Random(1), "mix", 2, None)
    assert [r["lora_rank"] for r in runs] == [0, 1]
    assert 0 not in checked and len(draws) > 40, "rounds with nothing new were drawn again, not checked"


def test_a_template_too_small_for_the_bid_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        scale_bids, "_run_template", lambda rng, name, offload: {"model": "m", "method": "lora"}
    )
    monkeypatch.setattr(scale_bids, "_fitting", lambda runs, hw: [True] * len(runs))
    with pytest.raises(ValueError, match="only 1 distinct runs fit, 3 asked"):
        scale_bids._draw_runs(random.Random(1), "mix", 3, None)
