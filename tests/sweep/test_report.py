"""The sweep report's cost by component kind: every line of every bill, the fabric included."""

from __future__ import annotations

import pytest

from ftopt import SolveSettings, load_catalogue, load_workload, solve
from ftopt.sweep.report import breakdown, item_kinds
from tests.examples.test_examples import EXAMPLES


def test_the_cost_by_kind_of_a_multi_node_plan_adds_up_to_its_price() -> None:
    catalogue = load_catalogue()
    plan = solve(load_workload(EXAMPLES / "405b-full.yaml", catalogue), catalogue, SolveSettings(workers=2))
    record = {"plan": plan.plan_or_raise().model_dump(mode="json", by_alias=True)}
    parts = breakdown(record, item_kinds(catalogue))
    assert parts["network"] > 0 and "other" not in parts
    assert sum(parts.values()) == pytest.approx(record["plan"]["total_price"], abs=0.01)
