"""The registry: every family's relaxations and binding lines are gathered in one place."""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.solver.cpsat import families
from ftopt.solver.cpsat.racks import Racks
from tests.solver.tiny import SMALL, problem


def test_the_registry_holds_each_family_once_and_gives_the_racks_their_limits() -> None:
    names = [family.name for family in families.FAMILIES]
    assert names == ["server-limit", "stock", "racks", "liquid"]
    racks = next(f for f in families.FAMILIES if isinstance(f, Racks))
    assert families.LIQUID.loop in racks.limits


def test_relaxations_and_findings_come_from_the_families(solve_yaml: Callable[..., Plan]) -> None:
    data = problem(SMALL, max_servers=1)
    assert [words for words, _ in families.relaxations(data)] == ["no server limit"]
    plan = solve_yaml(SMALL.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"), time_limit=10)
    assert [f.kind for f in families.findings(data, plan)] == [FindingKind.SERVER_LIMIT]
    assert families.admits(data, [data.builds[0]]) and not families.admits(data, [data.builds[0]] * 2)
