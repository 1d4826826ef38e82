"""The greedy plan as CP-SAT's first guess: a plan's servers mapped onto the model's count variables.

The mapping is its own concern: the greedy plan names servers and modes, the model counts them per
build, configuration and heavy class, and a mode the model dropped as dominated needs a stand-in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from ftopt.solver.cpsat.formulation import Formulation
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData

_K = TypeVar("_K")


@dataclass
class Hint:
    """A plan as values of the model's count variables, keyed as `Variables` keys them."""

    plain: dict[int, int] = field(default_factory=dict)
    light: dict[tuple[int, int], int] = field(default_factory=dict)
    config: dict[int, int] = field(default_factory=dict)
    heavy: dict[tuple[int, int], int] = field(default_factory=dict)
    multinode: dict[int, int] = field(default_factory=dict)  # multi-node mode → copies
    complete: bool = True  # every server found its counterpart in the model


def _bump(counts: dict[_K, int], key: _K) -> None:
    counts[key] = counts.get(key, 0) + 1


def _light_stand_in(
    data: ProblemData,
    m: int | None,
    f: int,
    pool: set[tuple[int, int]],
    heavy_class: dict[tuple[int, int], int],
    stand_in: dict[tuple[int, int], int],
) -> int | None:
    """A mode the model dropped as dominated on build f stands in as its run's light mode there with
    the fewest GPUs: light copies need only GPUs, so fewer keep every block count met."""
    if m is None or (m, f) in pool or (m, f) in heavy_class:
        return m
    return stand_in.get((data.modes[m].run, f), m)


def hint(data: ProblemData, servers: list[ServerLayout]) -> Hint:
    """The model's counts for `servers`: plain servers and light copies per build, heavy copies per
    class and one configuration per server that holds any. A server whose copies or configuration
    the model lacks (a mode it dropped as dominated) is left out, and the hint marked incomplete."""
    build_index = {id(b): f for f, b in enumerate(data.builds)}
    mode_index = {id(m): i for i, m in enumerate(data.modes)}
    pool = set(data.pool)
    stand_in: dict[tuple[int, int], int] = {}  # (run, build): its light mode needing fewest GPUs
    for m, on in data.pool:
        key, mode = (data.modes[m].run, on), data.modes[m]
        held = stand_in.get(key)
        if held is None or (mode.gpus, mode.preference) < (
            data.modes[held].gpus,
            data.modes[held].preference,
        ):
            stand_in[key] = m
    heavy_class = {(m, c.build): k for k, c in enumerate(data.heavy_classes) for m in c.modes}
    configs = {(c.build, c.heavy, bool(c.free_blocks)): i for i, c in enumerate(data.configs)}
    out = Hint()
    spanning = {option.mode for option in data.multinode}
    counted_groups: set[int] = set()
    for server in servers:
        if server.group is not None:  # one node of a multi-node copy: the copy counts once
            index = mode_index.get(id(server.copies[0][0])) if server.copies else None
            if index is None or index not in spanning:
                out.complete = False
            elif server.group not in counted_groups:
                counted_groups.add(server.group)
                _bump(out.multinode, index)
            continue
        f = build_index.get(id(server.build))
        modes = [mode_index.get(id(mode)) for mode, _ in server.copies]
        if f is None or any(m is None for m in modes):
            out.complete = False
            continue
        modes = [_light_stand_in(data, m, f, pool, heavy_class, stand_in) for m in modes]
        light = [m for m in modes if m is not None and (m, f) in pool]
        heavy = [
            (m, heavy_class[m, f])
            for m in modes
            if m is not None and (m, f) in heavy_class and (m, f) not in pool
        ]
        if len(light) + len(heavy) < len(modes):
            out.complete = False
            continue
        config = None
        if heavy:
            multiset = tuple(sorted({k: sum(1 for _, kk in heavy if kk == k) for _, k in heavy}.items()))
            config = configs.get((f, multiset, True)) if light else None
            if config is None and not light:
                config = configs.get((f, multiset, False), configs.get((f, multiset, True)))
            if config is None:
                out.complete = False
                continue
            _bump(out.config, config)
        else:
            _bump(out.plain, f)
        for m in light:
            _bump(out.light, (m, f))
        for key in heavy:
            _bump(out.heavy, key)
    return out


def add_hint(built: Formulation, hint: Hint) -> None:
    """The greedy plan as CP-SAT's first guess; every variable it does not mention is hinted 0."""
    v, model = built.variables, built.model
    for f, var in v.plain_servers.items():
        model.add_hint(var, hint.plain.get(f, 0))
    for key, var in v.light_copies.items():
        model.add_hint(var, hint.light.get(key, 0))
    for c, var in v.config_servers.items():
        model.add_hint(var, hint.config.get(c, 0))
    for key, var in v.heavy_copies.items():
        model.add_hint(var, hint.heavy.get(key, 0))
    nodes = {o.mode: o.nodes for o in built.data.multinode}
    for m, var in v.multinode_copies.items():
        model.add_hint(var, hint.multinode.get(m, 0))
        model.add_hint(v.multinode_servers[m], nodes[m] * hint.multinode.get(m, 0))
