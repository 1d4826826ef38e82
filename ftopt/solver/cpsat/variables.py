"""The CP-SAT decision variables, in one typed container.

Everything is a count: servers per build, servers per heavy configuration, copies per (mode,
build). No variable names a particular server, so identical servers are never told apart and the
model's size follows distinct runs and modes, not `concurrent`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.configs import holds, needs_room
from ftopt.solver.problem.data import ProblemData


@dataclass
class Variables:
    """Every variable of the model, keyed by indices of the problem data."""

    plain_servers: dict[int, cp_model.IntVar] = field(default_factory=dict)  # build
    light_copies: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)  # mode, build
    config_servers: dict[int, cp_model.IntVar] = field(default_factory=dict)  # heavy configuration
    heavy_copies: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)  # mode, class
    # Sized configurations only (`ProblemData.light_room`): copies of a light mode that needs RAM or
    # NVMe of its own on the servers of one heavy configuration, taking from their room.
    light_on_config: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)  # mode, config
    # Multi-node copies (solver/problem/multinode.py): per mode (one build each), and the servers they take.
    multinode_copies: dict[int, cp_model.IntVar] = field(default_factory=dict)
    multinode_servers: dict[int, cp_model.IntVar] = field(default_factory=dict)
    fabric_cents: cp_model.LinearExprT = 0

    def all(self) -> list[cp_model.IntVar]:
        """Every variable, for hints."""
        return [
            *self.plain_servers.values(),
            *self.light_copies.values(),
            *self.config_servers.values(),
            *self.heavy_copies.values(),
            *self.light_on_config.values(),
            *self.multinode_copies.values(),
            *self.multinode_servers.values(),
        ]

    def copies_by_mode(self) -> list[tuple[int, cp_model.IntVar]]:
        """(mode, count) for every placement variable: light, heavy and multi-node."""
        pairs = [(m, x) for (m, _), x in [*self.light_copies.items(), *self.heavy_copies.items()]]
        return pairs + list(self.multinode_copies.items())

    def fleet(self, data: ProblemData) -> list[tuple[Build, cp_model.IntVar]]:
        """Every server count with the build it buys: what the constraint families constrain
        (`ftopt.solver.cpsat.family.Fleet`), plain, configuration and multi-node servers alike."""
        plain = [(data.builds[f], n) for f, n in self.plain_servers.items()]
        configs = [(data.builds[data.configs[c].build], n) for c, n in self.config_servers.items()]
        spanning = [
            (o.build, self.multinode_servers[o.mode])
            for o in data.multinode
            if o.mode in self.multinode_servers
        ]
        return plain + configs + spanning

    def servers(self) -> list[cp_model.IntVar]:
        """All server counts: summed, the number of servers."""
        return [*self.plain_servers.values(), *self.config_servers.values(), *self.multinode_servers.values()]


@dataclass
class Hint:
    """A plan as values of the count variables, keyed as `Variables` keys them (what CP-SAT starts from)."""

    plain: dict[int, int] = field(default_factory=dict)
    light: dict[tuple[int, int], int] = field(default_factory=dict)
    config: dict[int, int] = field(default_factory=dict)
    heavy: dict[tuple[int, int], int] = field(default_factory=dict)
    light_on_config: dict[tuple[int, int], int] = field(default_factory=dict)
    multinode: dict[int, int] = field(default_factory=dict)  # multi-node mode → copies
    complete: bool = True  # every server found its counterpart in the model


def add_hint(model: cp_model.CpModel, data: ProblemData, v: Variables, hint: Hint) -> None:
    """The hint on every count variable; a variable it does not mention is hinted 0. Beside the
    variables so that a new kind of variable is hinted where it is made."""
    pairs: list[tuple[Mapping[Any, cp_model.IntVar], Mapping[Any, int]]] = [
        (v.plain_servers, hint.plain),
        (v.light_copies, hint.light),
        (v.config_servers, hint.config),
        (v.heavy_copies, hint.heavy),
        (v.light_on_config, hint.light_on_config),
        (v.multinode_copies, hint.multinode),
    ]
    for variables, values in pairs:
        for key, var in variables.items():
            model.add_hint(var, values.get(key, 0))
    nodes = {o.mode: o.servers for o in data.multinode}
    for m, var in v.multinode_servers.items():
        model.add_hint(var, nodes[m] * hint.multinode.get(m, 0))


def make_variables(model: cp_model.CpModel, data: ProblemData) -> Variables:
    """Create and name all variables with tight domains."""
    v = Variables()
    for f in sorted({f for _, f in data.pool}):
        v.plain_servers[f] = model.new_int_var(0, data.pool_bound(f), f"servers[{data.builds[f].key}]")
    for m, f in data.pool:
        run = data.modes[m].run
        v.light_copies[m, f] = model.new_int_var(0, data.copies[run], f"copies[{m},{f}]")
    for c, config in enumerate(data.configs):
        v.config_servers[c] = model.new_int_var(0, data.config_bound(config), f"config[{c}]")
    for k, heavy_class in enumerate(data.heavy_classes):
        for m in heavy_class.modes:
            run = data.modes[m].run
            v.heavy_copies[m, k] = model.new_int_var(0, data.copies[run], f"heavy[{m},{k}]")
    if data.light_room:
        _add_light_on_config(model, data, v)
    return v


def _add_light_on_config(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Per light pair that needs host RAM or NVMe of its own and per configuration of its build with
    a free block and room enough for one copy: how many of its copies stand on that configuration's
    servers (the rest on plain ones)."""
    opened: dict[int, list[int]] = {}
    for c, config in enumerate(data.configs):
        if config.free_blocks:
            opened.setdefault(config.build, []).append(c)
    for m, f in v.light_copies:
        mode = data.modes[m]
        if not needs_room(mode):
            continue
        for c in opened.get(f, []):
            config = data.configs[c]
            if config.capacity(mode.gpus) and holds(config, mode):
                bound = min(
                    data.copies[mode.run], config.capacity(mode.gpus) // mode.gpus * data.config_bound(config)
                )
                v.light_on_config[m, c] = model.new_int_var(0, bound, f"on_config[{m},{c}]")


def add_multinode_variables(model: cp_model.CpModel, data: ProblemData, v: Variables) -> None:
    """Copies per multi-node option, and the servers they take (k nodes and the spares per copy)."""
    for i, option in enumerate(data.multinode):
        run = data.modes[option.mode].run
        copies = model.new_int_var(0, data.copies[run], f"multinode[{i}]")
        servers = model.new_int_var(0, data.copies[run] * option.servers, f"multinode_servers[{i}]")
        model.add(servers == option.servers * copies)
        v.multinode_copies[option.mode] = copies
        v.multinode_servers[option.mode] = servers
