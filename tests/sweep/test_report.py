"""The sweep report's figures: cost by component kind (the fabric included) and the objective in use."""

from __future__ import annotations

import pytest

from ftopt import SolveSettings, load_catalogue, load_workload, solve
from ftopt.sweep.report import breakdown, item_kinds, objective, objective_value
from tests.examples.test_examples import EXAMPLES


def test_the_cost_by_kind_of_a_multi_node_plan_adds_up_to_its_price() -> None:
    catalogue = load_catalogue()
    plan = solve(load_workload(EXAMPLES / "405b-full.yaml", catalogue), catalogue, SolveSettings(workers=2))
    record = {"plan": plan.plan_or_raise().model_dump(mode="json", by_alias=True)}
    parts = breakdown(record, item_kinds(catalogue))
    assert parts["network"] > 0 and "other" not in parts
    assert sum(parts.values()) == pytest.approx(record["plan"]["total_price"], abs=0.01)


def test_the_objective_in_use_is_the_tco_when_any_plan_minimised_it() -> None:
    priced = {"total_price": 100.0, "plan": {"tco": {"objective": "price", "total": 150.0}}}
    tco = {"total_price": 120.0, "plan": {"tco": {"objective": "tco", "total": 140.0}}}
    failed = {"total_price": None, "plan": None}
    assert objective([priced, failed]) == "price" and objective([failed, tco]) == "tco"
    assert [objective_value(r, "tco") for r in (tco, failed)] == [140.0, None]
    assert [objective_value(r, "price") for r in (tco, failed)] == [120.0, None]
