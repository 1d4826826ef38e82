"""The hard rules that depend on which copies share servers, one CP-SAT constraint family each.

Rules fixed before the model are filters elsewhere: memory per GPU (modes.py), cores, sockets,
power against the feed, inlet temperature and identical DIMMs in every channel (builds.py), host RAM
and NVMe of servers with heavy copies (configs.py), light copies' share of RAM and disk
(problem.py). `build_formulation` calls the families below in order; the rules of the site (server
limit, stock and owned servers, racks, liquid loops) are the registered families of
`ftopt.solver.cpsat.families`, shared with the queue model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ortools.sat.python import cp_model

from ftopt.model.workload import GPU_COUNTS
from ftopt.solver.cpsat.variables import Variables
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.configs import HeavyConfig, needs_room
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import Mode


def add_every_copy_placed(
    model: cp_model.CpModel, data: ProblemData, v: Variables, enforce: dict[int, cp_model.IntVar]
) -> None:
    """Every copy of every run is placed once (switched by a literal, for infeasibility cores)."""
    placed: dict[int, list[cp_model.IntVar]] = {r: [] for r in range(len(data.profiles))}
    for m, copies in v.copies_by_mode():
        placed[data.modes[m].run].append(copies)
    for run, terms in placed.items():
        model.add(sum(terms) == data.copies[run]).only_enforce_if(enforce[run])


def add_heavy_classes_filled(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """The heavy copies of each class fill exactly the places its configurations' servers offer.

    Terms are grouped in one pass over the variables: a scan per class was quadratic, seconds on
    forty distinct offloading runs (150 classes, 40,000 configurations)."""
    copies: dict[int, list[cp_model.IntVar]] = {k: [] for k in range(len(data.heavy_classes))}
    places: dict[int, list[cp_model.LinearExpr]] = {k: [] for k in copies}
    for (_, k), x in v.heavy_copies.items():
        copies[k].append(x)
    for c, config in enumerate(data.configs):
        for k, count in config.heavy:
            places[k].append(count * v.config_servers[c])
    for k in copies:
        model.add(sum(copies[k]) == sum(places[k]))


def add_gpu_blocks(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """One copy per GPU, in aligned blocks: per build and block size t, light copies of ≥ t GPUs fit
    the free blocks of ≥ t GPUs. Exact for power-of-two sizes; an aligned block of ≤ 4 cards never
    straddles an NVLink domain it fits in, so compatible() settles the domain rule."""
    light_on: dict[int, list[tuple[int, cp_model.IntVar]]] = {}
    for (m, f), x in v.light_copies.items():
        light_on.setdefault(f, []).append((data.modes[m].gpus, x))
    configs_on: dict[int, list[tuple[int, HeavyConfig]]] = {}
    for c, config in enumerate(data.configs):
        configs_on.setdefault(config.build, []).append((c, config))
    for f, build in enumerate(data.builds):
        light = light_on.get(f, [])
        if light:
            _add_build_blocks(model, v, _OnBuild(f, build, light, configs_on.get(f, [])))


@dataclass(frozen=True)
class _OnBuild:
    """One build (its index and itself) with the light copies that may stand on it (GPUs, count)
    and its heavy configurations (index, configuration)."""

    f: int
    build: Build
    light: list[tuple[int, cp_model.IntVar]]
    configs: list[tuple[int, HeavyConfig]]


def _add_build_blocks(model: cp_model.CpModel, v: Variables, on: _OnBuild) -> None:
    """One build's block constraints: for each block size t, its light copies of ≥ t GPUs fit the
    blocks of ≥ t GPUs its plain servers and its heavy configurations leave free."""
    f, build, light, configs = on.f, on.build, on.light, on.configs
    for t in GPU_COUNTS:  # block sizes are the GPU counts a copy may take
        demand = [g * x for g, x in light if g >= t]
        if not demand:
            continue
        plain = build.slots * v.plain_servers[f] if build.slots >= t else 0
        shared = [config.capacity(t) * v.config_servers[c] for c, config in configs if config.capacity(t)]
        model.add(sum(demand) <= plain + sum(shared))


#: Host RAM and NVMe are compared in hundredths of a GB: needs rounded down and rooms rounded up, so
#: the rounding can only loosen the relaxation, never cut off a valid plan.
_ROOM_UNITS_PER_GB = 100


def add_light_room(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Sized configurations (`ProblemData.light_room`): the light copies that need RAM or NVMe of
    their own fit, per configuration, its servers' free blocks and RAM and NVMe rooms, summed over
    those identical servers; the rest of them fit the plain servers' blocks.

    Summed over the servers of one configuration, not server by server, so every valid plan meets it:
    a relaxation whose optimum is a bound, and whose plan is valid wherever those copies also pack
    server by server (the decoder deals them so, and right-sizes every server to check)."""
    if not data.light_room:
        return
    per_config: dict[int, list[tuple[Mode, cp_model.IntVar]]] = {}
    per_pair: dict[tuple[int, int], list[cp_model.IntVar]] = {}
    for (m, c), y in v.light_on_config.items():
        per_config.setdefault(c, []).append((data.modes[m], y))
        per_pair.setdefault((m, data.configs[c].build), []).append(y)
    for c, light in per_config.items():
        _add_config_room(model, data.configs[c], v.config_servers[c], light)
    on_plain: dict[int, list[tuple[int, cp_model.LinearExprT]]] = {}
    for (m, f), x in v.light_copies.items():
        if needs_room(data.modes[m]):
            on_configs = sum(per_pair.get((m, f), []))
            model.add(on_configs <= x)
            on_plain.setdefault(f, []).append((data.modes[m].gpus, x - on_configs))
    for f, rests in on_plain.items():
        build, plain = data.builds[f], v.plain_servers[f]
        for t in GPU_COUNTS:
            demand = [g * rest for g, rest in rests if g >= t]
            if demand:
                model.add(sum(demand) <= (build.slots * plain if build.slots >= t else 0))


def _add_config_room(
    model: cp_model.CpModel,
    config: HeavyConfig,
    servers: cp_model.IntVar,
    light: list[tuple[Mode, cp_model.IntVar]],
) -> None:
    """One configuration's servers: the light copies on them fit their free blocks per block size,
    and their RAM and NVMe the rooms."""
    for t in GPU_COUNTS:
        demand = [mode.gpus * y for mode, y in light if mode.gpus >= t]
        if demand:
            model.add(sum(demand) <= config.capacity(t) * servers)
    units = _ROOM_UNITS_PER_GB
    ram = [math.floor(mode.host_ram_gb * units) * y for mode, y in light]
    nvme = [math.floor(mode.nvme_gb * units) * y for mode, y in light]
    model.add(sum(ram) <= math.ceil(config.ram_room_gb * units) * servers)
    model.add(sum(nvme) <= math.ceil(config.nvme_room_gb * units) * servers)
