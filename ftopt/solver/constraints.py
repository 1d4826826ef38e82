"""The hard rules as CP-SAT constraint families, one function each, called in order by `build_model`.

Rules fixed before the model (memory per GPU, cores and sockets, power against the feed, inlet
temperature, identical DIMMs in every channel) live in builds.py and options.py as filters; what
remains here is what depends on which copies share a server.
"""

from __future__ import annotations

import math

from ortools.sat.python import cp_model

from ftopt.solver.problem import ProblemData
from ftopt.solver.variables import Variables


def add_every_copy_placed(
    model: cp_model.CpModel, data: ProblemData, v: Variables, enforce: dict[int, cp_model.IntVar]
) -> None:
    """Every copy of every run is placed once (enforced by a literal, for infeasibility cores)."""
    for run, copies in enumerate(data.copies):
        placed = [x for o in data.options_of(run) for x in v.copies_of_option(o)]
        model.add(sum(placed) == copies).only_enforce_if(enforce[run])


def add_pool_gpu_capacity(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """One copy per GPU in pool servers: Σ GPUs of light copies ≤ cards × servers (exact by buddy sizes)."""
    for f, servers in v.pool_servers.items():
        used = [data.options[o].gpus * x for (o, ff), x in v.pool_copies.items() if ff == f]
        model.add(sum(used) <= data.frames[f].gpu_count * servers)


def _slot_terms(data: ProblemData, v: Variables, f: int, s: int, weight: str) -> list[cp_model.LinearExpr]:
    return [
        math.ceil(getattr(data.options[o], weight)) * x
        for (o, ff, ss), x in v.slot_copies.items()
        if ff == f and ss == s
    ]


def add_slot_gpu_capacity(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """One copy per GPU in slot servers; an unused slot holds nothing, a used one something."""
    for (f, s), used in v.slot_used.items():
        gpus = _slot_terms(data, v, f, s, "gpus")
        model.add(sum(gpus) <= data.frames[f].gpu_count * used)
        model.add(sum(gpus) >= used)


def add_slot_host_ram(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Host RAM of a slot: one DIMM size in all channels (≥ 2 × GPU memory), its offloads plus a reserve."""
    reserve = math.ceil(data.catalogue.rules.host_ram_reserve_gb)
    for (f, s), used in v.slot_used.items():
        tiers = data.frames[f].ram_upgrades
        choice = [v.slot_ram[f, s, t] for t in range(len(tiers))]
        model.add(sum(choice) == used)
        capacity = sum(tier.gb * c for tier, c in zip(tiers, choice, strict=True))
        model.add(sum(_slot_terms(data, v, f, s, "host_ram_gb")) + reserve * used <= capacity)


def add_slot_nvme(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Data NVMe of a slot: ≥ 2 TB per socket, holding its copies' checkpoints and base models."""
    for (f, s), used in v.slot_used.items():
        tiers = data.frames[f].disk_upgrades
        choice = [v.slot_disk[f, s, t] for t in range(len(tiers))]
        model.add(sum(choice) == used)
        capacity = sum(math.floor(tier.gb) * c for tier, c in zip(tiers, choice, strict=True))
        model.add(sum(_slot_terms(data, v, f, s, "nvme_gb")) <= capacity)


def add_server_limit(
    model: cp_model.CpModel, data: ProblemData, v: Variables, enforce: cp_model.IntVar
) -> None:
    """At most `site.max_servers` servers."""
    limit = data.workload.site.max_servers
    if limit is not None:
        model.add(sum(v.servers()) <= limit).only_enforce_if(enforce)


def add_slot_symmetry_breaking(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Slots of one frame are interchangeable: order them by GPUs used, so no plan is met twice."""
    for f, count in data.slots.items():
        for s in range(count - 1):
            model.add(v.slot_used[f, s] >= v.slot_used[f, s + 1])
            model.add(sum(_slot_terms(data, v, f, s, "gpus")) >= sum(_slot_terms(data, v, f, s + 1, "gpus")))
