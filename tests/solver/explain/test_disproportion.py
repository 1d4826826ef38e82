"""Disproportions: a spare whose price per hour saved dwarfs the plan's own rate gets a note with
both figures; one that buys its hours cheaply gets none."""

from __future__ import annotations

import pytest

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.explain.disproportion import DISPROPORTION_RATIO, disproportions
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.tiny import catalogue


def _spared(tokens: int) -> Plan:
    """A 16-GPU full fine-tune over two servers with one hot spare, `tokens` long."""
    wide = {"name": "wide-full", "model": "llama-3.1-8b", "method": "full", "gpus": 16,
            "train_tokens": tokens, "spares": 1}  # fmt: skip
    workload = Workload.model_validate({"runs": [wide], "site": {"feed": "400v-3p-32a", "inlet_c": 25}})
    return solve(workload, catalogue(), SolveSettings(time_limit=10, workers=1)).plan_or_raise()


def test_a_spare_saving_minutes_for_a_server_s_price_is_flagged_with_both_figures() -> None:
    plan = _spared(20_000_000)
    (a,) = plan.assignments
    assert a.hours_p90 is not None and a.hours_p90_without_spares is not None
    saved = a.hours_p90_without_spares - a.hours_p90
    spare = next(s for s in plan.servers if s.id == a.spares[0])
    [note] = [n for n in plan.notes if n.kind == FindingKind.DISPROPORTION]
    assert note.figures["cost"] == pytest.approx(spare.price)
    assert note.figures["hours_saved"] == pytest.approx(saved, abs=0.01)
    assert note.figures["cost_per_hour"] > DISPROPORTION_RATIO * note.figures["plan_per_hour"]  # type: ignore[operator]
    assert f"USD {spare.price:,.0f}" in note.text and "at P90" in note.text
    assert note == disproportions(plan)[0]


def test_no_note_where_the_spare_is_cheap_against_the_plan_s_rate() -> None:
    plan = _spared(20_000_000)
    (a,) = plan.assignments
    assert a.hours_p90 is not None
    slow = a.model_copy(update={"hours_p90_without_spares": a.hours_p90 * 1000})
    assert disproportions(plan.model_copy(update={"assignments": [slow]})) == []
