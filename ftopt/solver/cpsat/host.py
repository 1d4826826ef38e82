"""Rule family: the host of a server, its RAM and data NVMe, sized for what its copies hold.

The host rules (RAM per GPU memory and for offloaded optimiser states, NVMe for checkpoints, cores
per GPU) are applied where builds and their RAM and disk tiers are made
(`ftopt.solver.problem.builds`): no constraints here. The family owns the binding lines: RAM bought
for offloaded states and NVMe bought for checkpoints beyond the base build. Its what-if (a looser
host rule of the catalogue) is not re-solved: the ids `host-ram` and `cores` are named, not eased.
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Assignment, Plan, Server
from ftopt.solver.cpsat.family import Family
from ftopt.solver.problem.data import ProblemData


def explain(data: ProblemData, plan: Plan) -> list[Finding]:
    """Each server's host lines."""
    held = _held_by_server(plan)
    return [
        line for server in plan.servers for line in _server_host_lines(data, server, held.get(server.id, []))
    ]


def _held_by_server(plan: Plan) -> dict[str, list[Assignment]]:
    """The copies each server holds, grouped once (a per-server scan is quadratic on 2,000-copy
    bids); each server of a multi-node copy holds its share of RAM and checkpoints."""
    on_server: dict[str, list[Assignment]] = {}
    for a in plan.assignments:
        if a.multinode:
            k = len(a.nodes)
            share = a.model_copy(update={"host_ram_gb": a.host_ram_gb / k, "nvme_gb": a.nvme_gb / k})
            for node in a.nodes:
                on_server.setdefault(node.server, []).append(share)
            continue
        on_server.setdefault(a.server, []).append(a)
    return on_server


def _server_host_lines(data: ProblemData, server: Server, held: list[Assignment]) -> list[Finding]:
    """One server's host lines: RAM for offloaded states, NVMe for checkpoints, each bought beyond
    the base build."""
    lines = [_ram_line(data, server, held), _nvme_line(data, server, held)]
    return [line for line in lines if line is not None]


def _ram_line(data: ProblemData, server: Server, held: list[Assignment]) -> Finding | None:
    """Host RAM bought for offloaded states: a smaller DIMM would have covered the base build's RAM."""
    rules = data.catalogue.rules
    base_ram = rules.host_ram_per_gpu_memory * server.gpu_count * data.catalogue.gpu(server.gpu).memory_gb
    offloads = [a for a in held if a.host_ram_gb > 0]
    smaller = [d.gb * server.dimm_count for d in data.catalogue.dimms if d.gb < server.dimm_gb]
    if not offloads or not any(base_ram <= gb for gb in smaller):
        return None
    return finding(
        FindingKind.HOST_RAM,
        server.id,
        runs=sorted({a.run for a in offloads}),
        need_gb=round(sum(a.host_ram_gb for a in offloads), 1),
        reserve_gb=rules.host_ram_reserve_gb,
        ram_gb=server.ram_gb,
    )


def _nvme_line(data: ProblemData, server: Server, held: list[Assignment]) -> Finding | None:
    """NVMe bought for checkpoints beyond the base build's data drives."""
    checkpoints = sum(a.nvme_gb for a in held)
    if checkpoints <= data.catalogue.rules.data_tb_per_socket * server.cpu_count * 1000:
        return None
    return finding(FindingKind.NVME, server.id, need_gb=round(checkpoints, 1), nvme_tb=server.nvme_tb)


Host = Family(
    name="host",
    relaxations=(),
    verifier_rules=("host-ram", "cores", "nvme"),
    workload_fields=("runs[].offload", "runs[].keep_checkpoints"),
    catalogue_fields=(
        "rules.host_ram_per_gpu_memory",
        "rules.host_ram_reserve_gb",
        "rules.data_tb_per_socket",
        "dimms[].gb",
    ),
    explain=explain,
)
