"""From the model's counts to concrete servers: which copies each bought server holds.

The model counts servers per build and configuration and copies per (mode, build) or heavy class;
decoding deals the copies onto servers build by build (buddy blocks first fit), right-sizes each
server's RAM and disk, and gives each multi-node copy its k whole servers.
"""

from __future__ import annotations

import itertools

from ortools.sat.python import cp_model

from ftopt.solver.cpsat.formulation import Formulation
from ftopt.solver.cpsat.variables import Variables
from ftopt.solver.decode.layout import HeavyServer, ServerLayout, right_size, spanning_copy
from ftopt.solver.decode.sharing import lay_out_sharing
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import Mode


def _take_heavy(queues: dict[int, list[Mode]], counts: tuple[tuple[int, int], ...]) -> list[Mode]:
    """The next heavy copies of each class in a configuration (the model makes the counts match)."""
    taken = []
    for k, count in counts:
        taken += queues[k][:count]
        del queues[k][:count]
    return taken


def decode(data: ProblemData, built: Formulation, solver: cp_model.CpSolver) -> list[ServerLayout] | None:
    """Concrete servers from the solution's counts, build by build, each right-sized."""
    v = built.variables
    heavy_on, (light_on, sharing) = _heavy_servers(data, v, solver), _light_copies(data, v, solver)
    reserve = data.catalogue.rules.host_ram_reserve_gb
    servers: list[ServerLayout] = []
    for f, build in enumerate(data.builds):
        heavy, light, onto_heavy = heavy_on.get(f, []), light_on.get(f, []), sharing.get(f, [])
        plain = solver.value(v.plain_servers[f]) if f in v.plain_servers else 0
        servers += lay_out_sharing(build, heavy, plain, light, onto_heavy, reserve)
    sized = [right_size(server, reserve) for server in servers]
    if any(s is None for s in sized):
        return None
    return [s for s in sized if s is not None] + _multinode_servers(data, v, solver)


def _heavy_servers(
    data: ProblemData, v: Variables, solver: cp_model.CpSolver
) -> dict[int, list[HeavyServer]]:
    """Per build, a server for every counted configuration, holding the next heavy copies of each
    class it takes."""
    queues = {
        k: [data.modes[m] for m in c.modes for _ in range(solver.value(v.heavy_copies[m, k]))]
        for k, c in enumerate(data.heavy_classes)
    }
    heavy_on: dict[int, list[HeavyServer]] = {}
    for c, config in enumerate(data.configs):
        for _ in range(solver.value(v.config_servers[c])):
            server = HeavyServer(
                config.ram, config.disk, _take_heavy(queues, config.heavy), bool(config.free_blocks), c
            )
            heavy_on.setdefault(config.build, []).append(server)
    return heavy_on


def _light_copies(
    data: ProblemData, v: Variables, solver: cp_model.CpSolver
) -> tuple[dict[int, list[Mode]], dict[int, list[tuple[Mode, int]]]]:
    """Per build, the light copies the solution counts on it (in mode order), and apart those it
    counts on one of its heavy configurations, with that configuration (the sized model only)."""
    sharing: dict[int, list[tuple[Mode, int]]] = {}
    on_configs: dict[tuple[int, int], int] = {}
    for (m, c), y in sorted(v.light_on_config.items()):
        count = solver.value(y)
        f = data.configs[c].build
        sharing.setdefault(f, []).extend([(data.modes[m], c)] * count)
        on_configs[m, f] = on_configs.get((m, f), 0) + count
    light_on: dict[int, list[Mode]] = {}
    for (m, f), x in sorted(v.light_copies.items()):
        light_on.setdefault(f, []).extend([data.modes[m]] * (solver.value(x) - on_configs.get((m, f), 0)))
    return light_on, sharing


def _multinode_servers(data: ProblemData, v: Variables, solver: cp_model.CpSolver) -> list[ServerLayout]:
    """k servers per multi-node copy, each holding all its GPUs, and its spares; a copy's servers
    share a group id."""
    servers = []
    groups = itertools.count()
    for option in data.multinode:
        mode = data.modes[option.mode]
        for _ in range(solver.value(v.multinode_copies[option.mode])):
            o = option
            servers += spanning_copy(o.build, o.ram, o.disk, mode, next(groups), o.nodes, o.spares)
    return servers
