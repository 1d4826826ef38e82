"""Deadlines, the infeasible-deadline reason, the tco objective and the frontier engine on fixed bids."""

from __future__ import annotations

from typing import Any

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.findings import FindingKind
from ftopt.model.plan import Status
from ftopt.model.workload import Workload
from ftopt.solver.frontier import frontier, has_train_tokens, with_deadline
from ftopt.solver.solve import SolveSettings, solve

CATALOGUE = load_catalogue()
SETTINGS = SolveSettings(time_limit=20, workers=2)


def _bid(deadline: float | None = None, **extra: Any) -> Workload:
    lora: dict[str, Any] = {
        "name": "llama70b-lora",
        "model": "llama-3.3-70b",
        "method": "lora",
        "train_tokens": 500_000_000,
    }
    if deadline is not None:
        lora["deadline_hours"] = deadline
    return Workload.model_validate(
        {
            "runs": [lora, {"name": "llama8b-qlora", "model": "llama-3.1-8b", "method": "qlora"}],
            "site": {"feed": "230v-16a", "inlet_c": 27},
            "hardware": {"gpus": ["rtx-pro-6000-se", "h200-nvl"]},
            **extra,
        }
    )


def test_without_a_deadline_the_plan_is_todays_and_reports_hours() -> None:
    plan = solve(_bid(), CATALOGUE, SETTINGS).plan_or_raise()
    assert plan.total_price == 81840.0  # the README's first-project answer
    lora = next(a for a in plan.assignments if a.run == "llama70b-lora")
    assert lora.hours is not None and lora.hours > 200 and lora.energy_kwh is not None
    assert plan.makespan_hours == lora.hours
    qlora = next(a for a in plan.assignments if a.run == "llama8b-qlora")
    assert qlora.hours is None and qlora.tokens_per_s is not None


def test_a_deadline_moves_the_lora_onto_nvlink() -> None:
    plan = solve(_bid(100), CATALOGUE, SETTINGS).plan_or_raise()
    lora = next(a for a in plan.assignments if a.run == "llama70b-lora")
    assert (lora.link, len(lora.gpus)) == ("nvlink", 4)
    assert lora.hours is not None and lora.hours <= 100
    assert plan.total_price > 81840.0


def test_an_impossible_deadline_names_the_run_and_the_fastest_mode() -> None:
    result = solve(_bid(10), CATALOGUE, SETTINGS)
    assert result.status == Status.INFEASIBLE
    late = [r for r in result.reasons if r.kind == FindingKind.DEADLINE]
    assert len(late) == 1 and late[0].subject == "llama70b-lora"
    figures = late[0].figures
    assert (figures["gpu"], figures["gpus"], figures["strategy"], figures["offload"]) == (
        "h200-nvl",
        4,
        "fsdp",
        "none",
    )
    # 56.21 h at micro-batch 1; the micro-batch ftopt chooses makes it faster
    assert figures["fastest_hours"] == pytest.approx(52.02, abs=0.01)
    assert "the fastest ftopt can reach is 52.02 h on 4 × h200-nvl" in late[0].text


def test_tco_objective_counts_energy_and_never_beats_price_on_price() -> None:
    by_price = solve(_bid(energy={"price_per_kwh": 2.0}), CATALOGUE, SETTINGS).plan_or_raise()
    by_tco = solve(_bid(objective="tco", energy={"price_per_kwh": 2.0}), CATALOGUE, SETTINGS).plan_or_raise()
    assert by_price.tco is not None and by_tco.tco is not None
    assert by_tco.tco.objective == "tco" and by_tco.gap == 0
    assert by_tco.tco.total <= by_price.tco.total
    assert by_tco.total_price >= by_price.total_price
    assert by_tco.tco.energy_cost == pytest.approx(by_tco.tco.energy_kwh * 2.0, rel=1e-4)


def test_with_deadline_keeps_earlier_deadlines_and_skips_runs_without_tokens() -> None:
    tightened = with_deadline(_bid(50), 80)
    assert [r.deadline_hours for r in tightened.runs] == [50, None]
    assert [r.deadline_hours for r in with_deadline(_bid(), 80).runs] == [80, None]
    assert has_train_tokens(_bid()) and not has_train_tokens(
        Workload.model_validate({"runs": [{"name": "a", "model": "llama-3.1-8b", "method": "lora"}]})
    )


def test_the_frontier_of_the_first_project() -> None:
    found = frontier(_bid(), CATALOGUE, SETTINGS, points=10)
    assert found.stopped == "infeasible"
    hours = [round(p.makespan_hours, 2) for p in found.points]
    prices = [p.total_price for p in found.points]
    assert hours == sorted(hours) and prices == sorted(prices, reverse=True)
    assert prices[-1] == 81840.0 and all(p.status == Status.OPTIMAL for p in found.points)
    assert found.fastest() is found.points[0] and found.cheapest() is found.points[-1]
    assert found.knee() not in (found.points[0], found.points[-1]) or len(found.points) <= 2
