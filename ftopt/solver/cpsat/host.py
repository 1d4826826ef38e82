"""Rule family: the host of a server, its RAM and data NVMe, sized for what its copies hold.

The host rules (RAM per GPU memory and for offloaded optimiser states, NVMe for checkpoints, cores
per GPU) are applied where builds and their RAM and disk tiers are made
(`ftopt.solver.problem.builds`): no constraints here. The family owns the binding lines: RAM bought
for offloaded states and NVMe bought for checkpoints beyond the base build, and the what-ifs of the
catalogue's host rules: host RAM of `EASED_RAM_PER_GPU_MEMORY` × GPU memory, and half the cores per
GPU. They are the catalogue's rules, not the bid's: the eased bid carries an eased catalogue, and
the workbench cannot ease them in a workload.
"""

from __future__ import annotations

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.plan import Assignment, Plan, Server
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat.family import Family, Relaxation
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


#: Host RAM per GPU memory in the host-ram what-if: as much system memory as GPU memory, the floor
#: vendors state (rules.yaml asks twice that, their recommendation for staging and pinned buffers).
EASED_RAM_PER_GPU_MEMORY = 1.0


def relax(data: ProblemData) -> list[Relaxation]:
    """The catalogue with its host RAM rule at `EASED_RAM_PER_GPU_MEMORY`, and with half its cores per
    GPU, each where that eases the rule."""
    catalogue, rules = data.catalogue, data.catalogue.rules
    eased = []
    if rules.host_ram_per_gpu_memory > EASED_RAM_PER_GPU_MEMORY:
        ram = rules.model_copy(update={"host_ram_per_gpu_memory": EASED_RAM_PER_GPU_MEMORY})
        words = f"host RAM of {EASED_RAM_PER_GPU_MEMORY:g} × GPU memory"
        eased.append(
            Relaxation(
                RelaxationId.HOST_RAM, words, data.workload, catalogue.model_copy(update={"rules": ram})
            )
        )
    if rules.cores_per_gpu > 1:
        cores = rules.model_copy(update={"cores_per_gpu": rules.cores_per_gpu // 2})
        words = f"{rules.cores_per_gpu // 2} CPU cores per GPU"
        eased.append(
            Relaxation(
                RelaxationId.CORES, words, data.workload, catalogue.model_copy(update={"rules": cores})
            )
        )
    return eased


Host = Family(
    name="host",
    relaxations=(RelaxationId.HOST_RAM, RelaxationId.CORES),
    verifier_rules=("host-ram", "cores", "nvme"),
    workload_fields=("runs[].offload", "runs[].keep_checkpoints"),
    catalogue_fields=(
        "rules.host_ram_per_gpu_memory",
        "rules.host_ram_reserve_gb",
        "rules.data_tb_per_socket",
        "dimms[].gb",
    ),
    relax=relax,
    explain=explain,
)
