"""The verifier's liquid-cooling rules: coolant supply within the chassis' limit, liquid servers only
in racks with a loop, each loop within its liquid_kw; the card's air limit no longer applies."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "liquid-rack.yaml"


@pytest.fixture(scope="module")
def solved() -> tuple[Workload, Plan, Catalogue]:
    catalogue = load_catalogue()
    workload = Workload.model_validate(yaml.safe_load(EXAMPLE.read_text()))
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, what_if=False)).plan_or_raise()
    return workload, plan, catalogue


def _rules(plan: Plan, workload: Workload, catalogue: Catalogue) -> set[str]:
    return {v.rule for v in verify_plan(plan, workload, catalogue)}


def test_a_clean_liquid_plan_passes_although_the_room_is_warmer_than_the_card_takes(
    solved: tuple[Workload, Plan, Catalogue],
) -> None:
    workload, plan, catalogue = solved
    assert workload.site.inlet_c > catalogue.gpu("b200-sxm").max_inlet_c
    assert verify_plan(plan, workload, catalogue) == []


def test_warm_or_missing_coolant_is_caught(solved: tuple[Workload, Plan, Catalogue]) -> None:
    workload, plan, catalogue = solved
    for coolant in (45.0, None):
        site = workload.site.model_copy(update={"coolant_c": coolant})
        assert "coolant" in _rules(plan, workload.model_copy(update={"site": site}), catalogue)


def test_a_liquid_server_in_the_air_rack_or_an_overfull_loop_is_caught(
    solved: tuple[Workload, Plan, Catalogue],
) -> None:
    workload, plan, catalogue = solved
    moved = [
        s.model_copy(update={"rack": "air", "circuit": 1}) if s.chassis == "hgx-b200-8gpu-lc" else s
        for s in plan.servers
    ]
    assert "liquid-loop" in _rules(plan.model_copy(update={"servers": moved}), workload, catalogue)
    racks = workload.site.racks
    assert racks is not None
    small = tuple(r.model_copy(update={"liquid_kw": 5.0}) if r.liquid_kw else r for r in racks)
    site = workload.site.model_copy(update={"racks": small})
    assert "liquid-loop" in _rules(plan, workload.model_copy(update={"site": site}), catalogue)
