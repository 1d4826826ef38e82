"""The host family alone: RAM bought for offloaded states is a binding line; it eases nothing."""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import host
from tests.solver.tiny import HEAVY, SMALL, problem


def test_offloaded_states_size_the_host_ram(solve_yaml: Callable[..., Plan]) -> None:
    plan = solve_yaml(HEAVY, time_limit=20)
    lines = host.explain(problem(HEAVY), plan)
    ram = [f for f in lines if f.kind == FindingKind.HOST_RAM]
    assert ram and ram[0].figures["runs"] == ["offload-32b"]
    assert host.explain(problem(SMALL), solve_yaml(SMALL, time_limit=10)) == []
    assert host.Host.add is None and host.Host.admits is None


def test_the_host_rules_are_eased_in_the_catalogue_not_the_bid() -> None:
    data = problem(SMALL)
    ram, cores = host.relax(data)
    assert (ram.id, cores.id) == (RelaxationId.HOST_RAM, RelaxationId.CORES)
    assert ram.workload == data.workload and ram.catalogue is not None and cores.catalogue is not None
    assert ram.catalogue.rules.host_ram_per_gpu_memory == host.EASED_RAM_PER_GPU_MEMORY
    assert cores.catalogue.rules.cores_per_gpu == data.catalogue.rules.cores_per_gpu // 2
    assert ram.catalogue.rules.cores_per_gpu == data.catalogue.rules.cores_per_gpu  # one rule each
