"""The greedy plan as CP-SAT's first guess: a plan's servers mapped onto the model's count variables.

The mapping is its own concern: the greedy plan names servers and modes, the model counts them per
build, configuration and heavy class, and a mode the model dropped as dominated needs a stand-in.
The values themselves (`Hint`) and their hinting live beside the variables
(`ftopt.solver.cpsat.variables`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from ftopt.solver.cpsat import variables
from ftopt.solver.cpsat.formulation import Formulation
from ftopt.solver.cpsat.variables import Hint
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.problem.data import ProblemData

__all__ = ["Hint", "add_hint", "hint"]

_K = TypeVar("_K")


def _bump(counts: dict[_K, int], key: _K) -> None:
    counts[key] = counts.get(key, 0) + 1


@dataclass
class _Index:
    """What mapping a server needs, computed once per plan: indices by identity, the pool, each
    (mode, build)'s heavy class, the configurations by content and each (run, build)'s stand-in."""

    builds: dict[int, int]
    modes: dict[int, int]
    pool: set[tuple[int, int]]
    heavy_class: dict[tuple[int, int], int]
    configs: dict[tuple[int, tuple[tuple[int, int], ...], bool], list[int]]
    stand_in: dict[tuple[int, int], int]
    spanning: set[int]


def _stand_ins(data: ProblemData) -> dict[tuple[int, int], int]:
    """Per (run, build): its light mode with the fewest GPUs (then the most preferred)."""
    stand_in: dict[tuple[int, int], int] = {}
    for m, on in data.pool:
        key, mode = (data.modes[m].run, on), data.modes[m]
        held = stand_in.get(key)
        if held is None or (mode.gpus, mode.preference) < (
            data.modes[held].gpus,
            data.modes[held].preference,
        ):
            stand_in[key] = m
    return stand_in


def _by_content(data: ProblemData) -> dict[tuple[int, tuple[tuple[int, int], ...], bool], list[int]]:
    """Configurations by (build, heavy copies, open to light copies): one each, or, sized, one per
    RAM and disk tier (configs.py)."""
    found: dict[tuple[int, tuple[tuple[int, int], ...], bool], list[int]] = {}
    for i, c in enumerate(data.configs):
        found.setdefault((c.build, c.heavy, bool(c.free_blocks)), []).append(i)
    return found


def _index(data: ProblemData) -> _Index:
    return _Index(
        builds={id(b): f for f, b in enumerate(data.builds)},
        modes={id(m): i for i, m in enumerate(data.modes)},
        pool=set(data.pool),
        heavy_class={(m, c.build): k for k, c in enumerate(data.heavy_classes) for m in c.modes},
        configs=_by_content(data),
        stand_in=_stand_ins(data),
        spanning={option.mode for option in data.multinode},
    )


def _light_stand_in(data: ProblemData, ix: _Index, m: int, f: int) -> int:
    """A mode the model dropped as dominated on build f stands in as its run's light mode there with
    the fewest GPUs: light copies need only GPUs, so fewer keep every block count met."""
    if (m, f) in ix.pool or (m, f) in ix.heavy_class:
        return m
    return ix.stand_in.get((data.modes[m].run, f), m)


def _multinode(ix: _Index, server: ServerLayout, out: Hint, counted: set[int]) -> None:
    """One node of a multi-node copy: the copy counts once, by its group (its spares with it)."""
    if server.spare:
        return
    index = ix.modes.get(id(server.copies[0][0])) if server.copies else None
    if index is None or index not in ix.spanning:
        out.complete = False
    elif server.group not in counted:
        counted.add(server.group or 0)
        _bump(out.multinode, index)


def _config(
    data: ProblemData, ix: _Index, server: ServerLayout, heavy: list[tuple[int, int]], has_light: bool
) -> int | None:
    """The configuration holding these heavy copies (open to light copies when some share it); of
    sized ones, the cheapest with at least the server's RAM and disk, else the largest."""
    f = ix.builds[id(server.build)]
    multiset = tuple(sorted({k: sum(1 for _, kk in heavy if kk == k) for _, k in heavy}.items()))
    found = ix.configs.get((f, multiset, True), [])
    if not has_light:
        found = ix.configs.get((f, multiset, False), found)
    if not found:
        return None
    holding = [
        (data.configs[c].price, c)
        for c in found
        if data.configs[c].ram.gb >= server.ram.gb and data.configs[c].disk.gb >= server.disk.gb
    ]
    return min(holding)[1] if holding else found[-1]


def _split(
    data: ProblemData, ix: _Index, f: int, found: list[int]
) -> tuple[list[int], list[tuple[int, int]]] | None:
    """A server's modes (with stand-ins) as light modes and (heavy mode, class) pairs on build f;
    None when one is neither."""
    modes = [_light_stand_in(data, ix, m, f) for m in found]
    light = [m for m in modes if (m, f) in ix.pool]
    heavy = [(m, ix.heavy_class[m, f]) for m in modes if (m, f) in ix.heavy_class and (m, f) not in ix.pool]
    return (light, heavy) if len(light) + len(heavy) == len(modes) else None


def _counts(
    data: ProblemData, ix: _Index, server: ServerLayout
) -> tuple[int, int | None, list[int], list[tuple[int, int]]] | None:
    """(build, configuration or None for a plain server, light modes, heavy (mode, class) pairs) of
    one server; None when the model lacks its build, a mode or its configuration."""
    f = ix.builds.get(id(server.build))
    found = [ix.modes.get(id(mode)) for mode, _ in server.copies]
    known = [m for m in found if m is not None]
    split = _split(data, ix, f, known) if f is not None and len(known) == len(found) else None
    if f is None or split is None:
        return None
    light, heavy = split
    if not heavy:
        return f, None, light, heavy
    config = _config(data, ix, server, heavy, bool(light))
    return None if config is None else (f, config, light, heavy)


def _single(data: ProblemData, ix: _Index, server: ServerLayout, out: Hint) -> None:
    """One single-server server: a plain server or a configuration, with its light and heavy copies."""
    counts = _counts(data, ix, server)
    if counts is None:
        out.complete = False
        return
    f, config, light, heavy = counts
    if config is None:
        _bump(out.plain, f)
    else:
        _bump(out.config, config)
    for m in light:
        _bump(out.light, (m, f))
        if config is not None:
            _bump(out.light_on_config, (m, config))
    for key in heavy:
        _bump(out.heavy, key)


def hint(data: ProblemData, servers: list[ServerLayout]) -> Hint:
    """The model's counts for `servers`: plain servers and light copies per build, heavy copies per
    class and one configuration per server that holds any. A server whose copies or configuration
    the model lacks (a mode it dropped as dominated) is left out, and the hint marked incomplete."""
    ix, out, counted = _index(data), Hint(), set[int]()
    for server in servers:
        if server.group is not None:
            _multinode(ix, server, out, counted)
        else:
            _single(data, ix, server, out)
    return out


def add_hint(built: Formulation, hint: Hint) -> None:
    """The greedy plan as CP-SAT's first guess; every variable it does not mention is hinted 0."""
    variables.add_hint(built.model, built.data, built.variables, hint)
