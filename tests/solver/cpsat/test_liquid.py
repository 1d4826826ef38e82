"""The liquid-cooling family: coolant instead of inlet air, per-rack loops, its what-if and findings."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from ftopt.cli.main import cli
from ftopt.model.findings import FindingKind
from ftopt.model.plan import Status
from ftopt.model.relaxation import RelaxationId
from ftopt.model.workload import Workload
from ftopt.solver.cpsat import families, liquid
from ftopt.solver.cpsat.liquid import LiquidLoop, is_liquid
from ftopt.solver.problem.data import build_problem
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan
from tests.solver.tiny import catalogue

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "liquid-rack.yaml"
QUICK = SolveSettings(time_limit=20, workers=2, what_if=False)


def _workload(**site: object) -> Workload:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["site"].update(site)
    return Workload.model_validate(data)


def _with_loop(kw: float | None) -> Workload:
    racks = yaml.safe_load(EXAMPLE.read_text())["site"]["racks"]
    racks[1]["liquid_kw"] = kw
    return _workload(racks=racks)


def test_the_liquid_rack_carries_what_the_air_rack_cannot() -> None:
    workload = _workload()
    plan = solve(workload, catalogue(), QUICK).plan_or_raise()
    assert plan.status == Status.OPTIMAL and verify_plan(plan, workload, catalogue()) == []
    liquid = [s for s in plan.servers if s.chassis == "hgx-b200-8gpu-lc"]
    assert [s.rack for s in liquid] == ["liquid"]
    assert {s.rack for s in plan.servers if s not in liquid} == {"air"}
    lines = families.findings(build_problem(workload, catalogue()), plan)
    assert [f.subject for f in lines if f.kind == FindingKind.LIQUID] == ["liquid"]


def test_a_loop_too_small_or_no_coolant_leaves_no_plan_and_says_why() -> None:
    small = solve(_with_loop(10), catalogue(), QUICK)
    assert small.status == Status.INFEASIBLE
    [short] = [r for r in small.reasons if r.kind == FindingKind.LIQUID_SMALL]
    assert short.subject == "llama70b-full" and short.figures["liquid_kw"] == 10
    assert "liquid loop" in short.text and "rack units" not in " ".join(r.text for r in small.reasons)
    dry = solve(_workload(coolant_c=None), catalogue(), QUICK)
    assert dry.status == Status.INFEASIBLE
    assert any(r.kind == FindingKind.COOLANT and "coolant_c" in r.text for r in dry.reasons)
    warm = build_problem(_workload(coolant_c=45), catalogue())
    assert any(r.kind == FindingKind.COOLANT and "40 °C" in r.text for r in warm.excluded)


def test_the_cli_exits_3_when_only_a_liquid_chassis_would_fit(tmp_path: Path) -> None:
    path = tmp_path / "small-loop.yaml"
    path.write_text(yaml.safe_dump(_with_loop(10).model_dump(mode="json", exclude_defaults=True)))
    result = CliRunner().invoke(cli, ["solve", str(path), "--workers", "2", "--time-limit", "20"])
    assert result.exit_code == 3, result.output


def test_the_what_if_offers_a_loop_as_large_as_the_rack_circuits() -> None:
    data = build_problem(_with_loop(10), catalogue())
    [eased] = liquid.relax(data)
    assert eased.id == RelaxationId.LIQUID_LOOP and "liquid_kw" in eased.words
    racks = eased.workload.site.racks
    assert racks is not None
    assert [r.liquid_kw for r in racks] == [None, catalogue().feed("400v-3p-32a").usable_w / 1000]
    assert liquid.relax(build_problem(_with_loop(20), catalogue())) == []  # 20 kW ≥ its circuit


def test_the_family_declares_a_rack_limit_and_no_constraints_of_its_own() -> None:
    family = liquid.Liquid
    assert family.add is None and family.admits is None  # the racks family keeps the loop
    assert isinstance(family.rack_limit, LiquidLoop) and family.rack_limit in families.RACKS.limits
    assert family.relaxations == (RelaxationId.LIQUID_LOOP,) and "liquid-loop" in family.verifier_rules


def test_a_loop_large_enough_for_one_server_is_not_reported_impossible() -> None:
    assert liquid.impossible(build_problem(_workload(), catalogue())) == []
    [short] = liquid.impossible(build_problem(_with_loop(10), catalogue()))
    assert short.figures["need_kw"] > 10


def test_only_a_liquid_cooled_build_takes_its_watts_from_the_loop() -> None:
    data = build_problem(_workload(), catalogue())
    liquid = [b for b in data.builds if is_liquid(b)]
    air = [b for b in data.builds if not is_liquid(b)]
    assert liquid and air, "the example offers both kinds of build"
    loop = LiquidLoop()
    assert all(loop.need(b) == b.power_w > 0 for b in liquid)
    assert all(loop.need(b) == 0 for b in air)
