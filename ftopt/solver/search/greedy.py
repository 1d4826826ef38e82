"""A plan in hand before the search: first-fit decreasing over the model's own builds and modes.

Why: CP-SAT can spend its whole time limit without a first plan when heavy copies come in many
shapes, and a presales engineer would rather have a plan with its gap than none. This is the
spreadsheet user's method, so the plan `solve` returns is never dearer than theirs:

1. Per copy and per card, modes by least GPU memory taken (GPUs × GB per GPU), then fewer GPUs,
   then the preferred mode.
2. Runs by that need, largest first; each copy into the first open server (in opening order) whose
   card it can use and whose free GPUs, host RAM and NVMe hold it, in the first of its modes that
   fits there.
3. Else a new server: the cheapest build, with the cheapest RAM and disk tiers, that holds it alone.

Host RAM and NVMe are counted rounded up (never looser than the verifier); every server is then
right-sized (layout.right_size), which can only make it cheaper. GPU counts are powers of two that
divide the server size, so Σ GPUs ≤ cards is exact: copies laid largest first start at multiples of
their size, and a sharded copy's aligned block lies in an NVLink domain `compatible` found large
enough.

Copies no single server holds (multi-node) take whole servers of their run's cheapest multi-node
option, k per copy. `hint` maps such a plan onto the count variables of the CP-SAT model, as its
solution hint.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ftopt.solver.decode.layout import ServerLayout, right_size, spanning_copy
from ftopt.solver.problem.builds import Build, DiskTier, RamTier
from ftopt.solver.problem.configs import tier_finder
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import Mode, compatible

_Finder = Callable[[float], RamTier | None]


@dataclass
class _Open:
    """A server being filled."""

    build: Build
    ram: RamTier
    disk: DiskTier
    gpus: int = 0
    ram_gb: int = 0
    nvme_gb: int = 0
    copies: list[Mode] = field(default_factory=list)


def memory_need(mode: Mode) -> float:
    """GB of GPU memory one copy takes in this mode."""
    return mode.gpus * mode.sizing.total_gb


def _fits(server: _Open, mode: Mode, reserve: int) -> bool:
    return (
        server.gpus + mode.gpus <= server.build.slots
        and compatible(mode, server.build)
        and server.ram_gb + math.ceil(mode.host_ram_gb) + reserve <= server.ram.gb
        and server.nvme_gb + math.ceil(mode.nvme_gb) <= math.floor(server.disk.gb)
    )


def _place(server: _Open, mode: Mode) -> None:
    server.gpus += mode.gpus
    server.ram_gb += math.ceil(mode.host_ram_gb)
    server.nvme_gb += math.ceil(mode.nvme_gb)
    server.copies.append(mode)


def _alone_on(
    build: Build, modes: list[Mode], reserve: int, ram_for: _Finder
) -> tuple[RamTier, DiskTier, Mode] | None:
    """The RAM and disk tiers of `build` that hold one copy alone, in its least-memory mode that fits."""
    for mode in (m for m in modes if compatible(m, build)):
        ram = ram_for(math.ceil(mode.host_ram_gb) + reserve)
        disk = next((t for t in build.disk_upgrades if math.floor(t.gb) >= math.ceil(mode.nvme_gb)), None)
        if ram is not None and disk is not None:
            return ram, disk, mode
    return None


def _new_server(modes: list[Mode], builds: list[Build], reserve: int, rams: list[_Finder]) -> _Open | None:
    """The cheapest build, RAM and disk that hold one copy alone (more GPUs, then less memory, on ties)."""
    best: tuple[tuple[float, int, float, str], _Open] | None = None
    cards = {m.gpu for m in modes}
    for build, ram_for in zip(builds, rams, strict=True):
        found = _alone_on(build, modes, reserve, ram_for) if build.gpu.id in cards else None
        if found is None:
            continue
        ram, disk, mode = found
        key = (build.fixed_price + ram.price + disk.price, -build.slots, memory_need(mode), build.key)
        if best is None or key < best[0]:
            best = (key, _Open(build, ram, disk))
    return best[1] if best else None


def _lay_out(server: _Open, reserve_gb: float) -> ServerLayout | None:
    layout = ServerLayout(server.build, server.ram, server.disk)
    start = 0
    for mode in sorted(server.copies, key=lambda m: (-m.gpus, m.run)):
        layout.copies.append((mode, list(range(start, start + mode.gpus))))
        start += mode.gpus
    return right_size(layout, reserve_gb)


def _multinode_copies(data: ProblemData, run: int, groups: Iterator[int]) -> list[ServerLayout] | None:
    """Every copy of a run no single server holds, each on k whole servers of the run's cheapest
    multi-node option (as `decode` lays them out); None when the run has no such option.

    Why: a bid whose big full fine-tunes need two servers each had no plan in hand, so CP-SAT
    searched without a hint and found none in 30 s."""
    options = [o for o in data.multinode if data.modes[o.mode].run == run]
    if not options:
        return None
    o = min(options, key=lambda o: (o.price + o.servers * o.build.energy_cost, o.mode))
    mode, servers = data.modes[o.mode], []
    for _ in range(data.copies[run]):
        servers += spanning_copy(o.build, o.ram, o.disk, mode, next(groups), o.nodes, o.spares)
    return servers


def _modes_by_need(data: ProblemData) -> list[list[Mode]]:
    """Per run, its single-server modes by least GPU memory taken, then fewer GPUs, then preference."""
    widest = max((b.gpu_count for b in data.builds), default=0)
    return [
        sorted(
            (data.modes[m] for m in data.modes_of(r) if data.modes[m].gpus <= widest),
            key=lambda m: (memory_need(m), m.gpus, m.preference),
        )
        for r in range(len(data.profiles))
    ]


@dataclass
class _Filling:
    """First fit's state: the servers opened, those with a free GPU (in opening order), and how to
    open another."""

    builds: list[Build]
    reserve: int
    rams: list[_Finder]
    servers: list[_Open] = field(default_factory=list)
    room: list[_Open] = field(default_factory=list)

    def place_run(self, modes: list[Mode], copies: int) -> bool:
        """Every copy of one run into the first server that holds it, else a new one; False when a
        copy fits no build."""
        fewest = min(m.gpus for m in modes)
        cursor = 0  # a server too full for one copy of this run stays too full for the next
        for _ in range(copies):
            cursor = self._first_fit(modes, fewest, cursor)
            if cursor == len(self.room) and not self._open(modes):
                return False
        self.room = [s for s in self.room if s.gpus < s.build.slots]
        return True

    def _first_fit(self, modes: list[Mode], fewest: int, cursor: int) -> int:
        """Place one copy in the first server from `cursor` on that holds it; where it went (or past
        the end when none does)."""
        while cursor < len(self.room):
            server = self.room[cursor]
            if server.build.slots - server.gpus >= fewest:
                mode = next((m for m in modes if _fits(server, m, self.reserve)), None)
                if mode is not None:
                    _place(server, mode)
                    return cursor
            cursor += 1
        return cursor

    def _open(self, modes: list[Mode]) -> bool:
        new = _new_server(modes, self.builds, self.reserve, self.rams)
        if new is None:
            return False
        _place(new, next(m for m in modes if _fits(new, m, self.reserve)))
        self.servers.append(new)
        self.room.append(new)
        return True


def _laid_out(servers: list[_Open], reserve_gb: float) -> list[ServerLayout] | None:
    """Every server laid out and right-sized; None when one fits no RAM or disk tier."""
    laid = [_lay_out(s, reserve_gb) for s in servers]
    return None if any(s is None for s in laid) else [s for s in laid if s is not None]


def _largest_first(by_run: list[list[Mode]]) -> list[int]:
    """Runs by their least memory need, largest first (runs with no single-server mode last)."""
    need = [min((memory_need(m) for m in modes), default=math.inf) for modes in by_run]
    return sorted(range(len(by_run)), key=lambda r: (-need[r], r))


def greedy_plan(data: ProblemData) -> list[ServerLayout] | None:
    """First-fit decreasing servers for every copy, right-sized; None when a copy fits no build.

    A run that only multi-node modes hold takes its cheapest multi-node option for every copy."""
    reserve = math.ceil(data.catalogue.rules.host_ram_reserve_gb)
    by_run = _modes_by_need(data)
    filling = _Filling(data.builds, reserve, [tier_finder(build.ram_upgrades) for build in data.builds])
    spanning: list[ServerLayout] = []  # the whole servers of multi-node copies
    groups = itertools.count()
    for run in _largest_first(by_run):
        if by_run[run]:
            placed = filling.place_run(by_run[run], data.copies[run])
        else:
            whole = _multinode_copies(data, run, groups)
            spanning += whole or []
            placed = whole is not None
        if not placed:
            return None
    laid = _laid_out(filling.servers, data.catalogue.rules.host_ram_reserve_gb)
    return None if laid is None else laid + spanning
