"""The inlet family alone: pairs a warm room rules out are its lines, a cooler room its what-if."""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import inlet
from tests.solver.tiny import problem

WARM = """
site: {feed: 400v-3p-32a, inlet_c: 35}
runs: [{name: q, model: llama-3.1-8b, method: qlora}]
"""


def test_a_warm_room_eases_to_the_warmest_limit_it_exceeds() -> None:
    data = problem(WARM)
    [eased] = inlet.relax(data)
    limits = [c.inlet_limit_c(g) for g in data.catalogue.gpus for c in data.catalogue.chassis if c.takes(g)]
    assert eased.id == RelaxationId.INLET
    assert eased.workload.site.inlet_c == min(limit for limit in limits if limit < 35)
    assert eased.words == f"an inlet of {eased.workload.site.inlet_c:g} °C"


def test_a_cool_room_has_nothing_to_ease_and_no_lines(solve_yaml: Callable[..., Plan]) -> None:
    cool = WARM.replace("inlet_c: 35", "inlet_c: 15")
    data = problem(cool)
    assert inlet.relax(data) == []
    assert inlet.explain(data, solve_yaml(cool, time_limit=10)) == []


def test_its_lines_are_the_pairs_the_room_ruled_out(solve_yaml: Callable[..., Plan]) -> None:
    data = problem(WARM)
    lines = inlet.explain(data, solve_yaml(WARM, time_limit=10))
    assert lines and all(f.kind == FindingKind.INLET and f.figures["inlet_c"] == 35 for f in lines)
    assert inlet.Inlet.add is None and inlet.Inlet.verifier_rules == ("inlet",)
