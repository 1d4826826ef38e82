"""The outlet family: a site's PDU outlets cap what each server power cord carries.

A rule family that brings its own data (its `site.policy` field and the outlets' ratings in
`families/outlet.yaml`), its own relaxation id and its own sentences; the bids are small enough to
check by hand: a 2-card RTX PRO 6000 server draws 2,336 W over one cord (N+N, one of two failed),
beyond a C13's 2,300 W; a 4-card one draws 3,846 W over two cords (N+N supplies, one pair
failed) = 1,923 W a cord, within a C13's 2,300 W; an 8-card one draws 7,415 W over three cords
(N+1) = 2,472 W a cord, beyond it and within a C19's 3,680 W.
"""

from __future__ import annotations

import math
import time

import pytest
import yaml

from ftopt.catalogue.loader import load_catalogue
from ftopt.errors import InputError
from ftopt.model.findings import Finding, FindingKind
from ftopt.model.plan import Status
from ftopt.model.workload import Workload
from ftopt.reading.workload_file import load_workload_text
from ftopt.solver.cpsat import families, outlet
from ftopt.solver.explain.whatif import savings
from ftopt.solver.problem.data import build_problem
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan

QUICK = SolveSettings(time_limit=20, workers=2, what_if=False)

#: Two 8B QLoRA runs on RTX PRO 6000 cards, at a site whose PDUs offer `{outlet}` outlets.
BID = """
site: {{feed: 400v-3p-32a, inlet_c: 25, policy: {{outlet: {outlet}}}}}
hardware: {{gpus: [rtx-pro-6000-se]{chassis}}}
runs:
  - {{name: one, model: llama-3.1-8b, method: qlora, gpus: 1, concurrent: 3}}
  - {{name: two, model: llama-3.1-8b, method: qlora, gpus: 2, concurrent: 2}}
"""


def _bid(outlet_id: str, chassis: str = "") -> Workload:
    return Workload.model_validate(yaml.safe_load(BID.format(outlet=outlet_id, chassis=chassis)))


def test_each_cord_carries_the_draw_of_the_supplies_that_must_carry_it() -> None:
    data = build_problem(_bid("c13"), load_catalogue())
    by_chassis = {(b.chassis.id, b.gpu_count): b for b in data.builds}
    four, eight = by_chassis["gpu-server-4", 4], by_chassis["gpu-server-8", 8]
    assert (four.chassis.psu_redundancy, four.chassis.psu_carrying) == ("N+N", 2)
    assert (eight.chassis.psu_redundancy, eight.chassis.psu_carrying) == ("N+1", 3)
    assert outlet.cord_w(four) == math.ceil(four.power_w / 2) <= 2300 < outlet.cord_w(eight)
    assert outlet.cord_w(eight) == math.ceil(eight.power_w / 3) <= 3680
    assert outlet.admits(data, [four]) and not outlet.admits(data, [four, eight])


def test_c13_outlets_leave_out_the_8_card_servers_and_say_so() -> None:
    catalogue = load_catalogue()
    workload = _bid("c13")
    plan = solve(workload, catalogue, QUICK).plan_or_raise()
    assert plan.status == Status.OPTIMAL and verify_plan(plan, workload, catalogue) == []
    assert {s.chassis for s in plan.servers} == {"gpu-server-4"}
    [line] = outlet.explain(build_problem(workload, catalogue), plan)
    assert line.kind == FindingKind.FAMILY and line.figures["rule"] == "outlet"
    assert line.figures["limit_w"] == 2300 and line.figures["chassis"] == "gpu-server-8"
    assert "c13 outlets carry 2,300 W a cord" in line.text
    assert Finding.model_validate_json(line.model_dump_json()) == line  # the plan's JSON reads back
    wider = solve(_bid("c19"), catalogue, QUICK).plan_or_raise()
    # C19 lets in the 2-card server too: one cord of its N+N pair carries its 2,336 W alone.
    assert wider.total_price < plan.total_price and "gpu-server-2" in {s.chassis for s in wider.servers}
    assert outlet.explain(build_problem(_bid("c19"), catalogue), wider) == []


def test_the_what_if_offers_the_next_larger_outlet_by_the_familys_own_id() -> None:
    catalogue = load_catalogue()
    workload = _bid("c13")
    [eased] = outlet.relax(build_problem(workload, catalogue))
    assert eased.id == "outlet" and eased.workload.site.policy == {"outlet": "c19"}
    assert outlet.relax(build_problem(_bid("c19"), catalogue)) == []  # nothing larger, nothing over
    assert "outlet" in [r.id for r in families.relaxations(build_problem(workload, catalogue))]
    plan = solve(workload, catalogue, QUICK).plan_or_raise()
    data = build_problem(workload, catalogue)
    resolve = lambda r: solve(r.workload, r.catalogue or catalogue, QUICK)  # noqa: E731
    found = savings(data, plan, resolve, time.perf_counter() + 90)
    [saving] = [s for s in found if s.figures["relaxation"] == "outlet"]
    assert saving.figures["saved"] == 163_680 - 128_420
    assert "c19 outlets (3,680 W a cord) would save" in saving.text


def test_a_run_only_8_card_servers_hold_has_no_plan_and_the_outlet_is_why() -> None:
    catalogue = load_catalogue()
    workload = _bid("c13", chassis=", chassis: [gpu-server-8]")
    result = solve(workload, catalogue, QUICK)
    assert result.status == Status.INFEASIBLE
    reasons = [r for r in result.reasons if r.kind == FindingKind.FAMILY_REASON]
    assert {r.subject for r in reasons} == {"one", "two"}
    assert all(r.figures["need_w"] > r.figures["limit_w"] == 2300 for r in reasons)
    assert "the site's c13 outlets carry 2,300 W" in reasons[0].text
    assert families.impossible(build_problem(_bid("c19", ", chassis: [gpu-server-8]"), catalogue)) == []


def test_the_verifier_rejects_a_server_whose_cords_the_outlet_cannot_carry() -> None:
    catalogue = load_catalogue()
    eight = ", chassis: [gpu-server-8]"
    wider = solve(_bid("c19", eight), catalogue, QUICK).plan_or_raise()
    [server] = wider.servers  # 7,048 W as built, over three cords: 2,349.33 W a cord
    found = verify_plan(wider, _bid("c13", eight), catalogue)
    assert [(v.rule, v.found, v.allowed) for v in found] == [
        ("outlet", f"{server.power_w / 3:.2f} W a cord", "c13 outlets carry 2300 W")
    ]


def test_the_outlet_field_and_its_ids_are_checked_where_the_file_writes_them() -> None:
    catalogue = load_catalogue()
    with pytest.raises(InputError) as caught:
        load_workload_text(BID.format(outlet="c14", chassis=""), "bid.yaml", catalogue)
    assert "site.policy.outlet" in str(caught.value) and "one of: c13, c19" in str(caught.value)
    misspelt = BID.format(outlet="c13", chassis="").replace("{outlet: c13}", "{outlets: c13}")
    with pytest.raises(InputError, match=r"unknown site policy 'outlets' \(did you mean 'outlet'\?\)"):
        load_workload_text(misspelt, "bid.yaml", catalogue)


def test_the_family_declares_its_data_file_its_sentences_and_its_hooks() -> None:
    family = outlet.Outlet
    assert family.data == "outlet" and family.relaxations == ("outlet",)
    assert set(family.sentences) == {"binding", "impossible"}
    assert family.items(load_catalogue()).ids == ("c13", "c19")
    assert family in families.FAMILIES and family.add is not None and family.rack_limit is None
