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

from ftopt.solver.decode.layout import ServerLayout, right_size
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


def _new_server(modes: list[Mode], builds: list[Build], reserve: int, rams: list[_Finder]) -> _Open | None:
    """The cheapest build, RAM and disk that hold one copy alone (more GPUs, then less memory, on ties)."""
    best: tuple[tuple[float, int, float, str], _Open] | None = None
    cards = {m.gpu for m in modes}
    for build, ram_for in zip(builds, rams, strict=True):
        if build.gpu.id not in cards:
            continue
        for mode in (m for m in modes if compatible(m, build)):
            ram = ram_for(math.ceil(mode.host_ram_gb) + reserve)
            disk = next((t for t in build.disk_upgrades if math.floor(t.gb) >= math.ceil(mode.nvme_gb)), None)
            if ram is None or disk is None:
                continue
            key = (build.fixed_price + ram.price + disk.price, -build.slots, memory_need(mode), build.key)
            if best is None or key < best[0]:
                best = (key, _Open(build, ram, disk))
            break  # the least-memory mode that fits this build
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
    option = min(options, key=lambda o: (o.price + o.nodes * o.build.energy_cost, o.mode))
    mode, gpus = data.modes[option.mode], list(range(option.build.gpu_count))
    servers = []
    for _ in range(data.copies[run]):
        group = next(groups)
        servers += [
            ServerLayout(option.build, option.ram, option.disk, [(mode, gpus)], group=group)
            for _ in range(option.nodes)
        ]
    return servers


def greedy_plan(data: ProblemData) -> list[ServerLayout] | None:
    """First-fit decreasing servers for every copy, right-sized; None when a copy fits no build.

    A run that only multi-node modes hold takes its cheapest multi-node option for every copy."""
    reserve = math.ceil(data.catalogue.rules.host_ram_reserve_gb)
    widest = max((b.gpu_count for b in data.builds), default=0)
    by_run = [
        sorted(
            (data.modes[m] for m in data.modes_of(r) if data.modes[m].gpus <= widest),
            key=lambda m: (memory_need(m), m.gpus, m.preference),
        )
        for r in range(len(data.profiles))
    ]
    need = [min((memory_need(m) for m in modes), default=math.inf) for modes in by_run]
    rams = [tier_finder(build.ram_upgrades) for build in data.builds]
    servers: list[_Open] = []
    room: list[_Open] = []  # servers with a free GPU, in opening order
    spanning: list[ServerLayout] = []  # the whole servers of multi-node copies
    groups = itertools.count()
    for run in sorted(range(len(by_run)), key=lambda r: (-need[r], r)):
        modes = by_run[run]
        if not modes:
            whole = _multinode_copies(data, run, groups)
            if whole is None:
                return None
            spanning += whole
            continue
        fewest = min(m.gpus for m in modes)
        cursor = 0  # a server too full for one copy of this run stays too full for the next
        for _ in range(data.copies[run]):
            placed = False
            while cursor < len(room):
                server = room[cursor]
                if server.build.slots - server.gpus >= fewest:
                    mode = next((m for m in modes if _fits(server, m, reserve)), None)
                    if mode is not None:
                        _place(server, mode)
                        placed = True
                        break
                cursor += 1
            if not placed:
                new = _new_server(modes, data.builds, reserve, rams)
                if new is None:
                    return None
                _place(new, next(m for m in modes if _fits(new, m, reserve)))
                servers.append(new)
                room.append(new)
        room = [s for s in room if s.gpus < s.build.slots]
    laid = [_lay_out(s, data.catalogue.rules.host_ram_reserve_gb) for s in servers]
    return None if any(s is None for s in laid) else [s for s in laid if s is not None] + spanning
