"""The host family alone: RAM bought for offloaded states is a binding line; it eases nothing."""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.solver.cpsat import host
from tests.solver.tiny import HEAVY, SMALL, problem


def test_offloaded_states_size_the_host_ram(solve_yaml: Callable[..., Plan]) -> None:
    plan = solve_yaml(HEAVY, time_limit=20)
    lines = host.explain(problem(HEAVY), plan)
    ram = [f for f in lines if f.kind == FindingKind.HOST_RAM]
    assert ram and ram[0].figures["runs"] == ["offload-32b"]
    assert host.explain(problem(SMALL), solve_yaml(SMALL, time_limit=10)) == []
    assert host.Host.relax is None and host.Host.relaxations == ()
