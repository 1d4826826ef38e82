"""First-fit decreasing, the way a spreadsheet user sizes a bid. A baseline, not part of the product.

The rules are the product's own: its builds (builds.enumerate_builds, via problem.build_problem),
its training modes (memory-filtered, undominated) and its `compatible` test. What differs is the
search, which is the spreadsheet's:

1. Per copy and per card, take the mode with the least memory need (GPUs × GB per GPU; fewer
   GPUs, then the preferred mode, on ties).
2. Sort copies by that need, largest first.
3. Put each copy in the first open server (in opening order) whose card it can use and whose free
   GPUs, host RAM and NVMe hold it. GPU counts are powers of two dividing the server size, so
   Σ GPUs ≤ cards is exact (aligned blocks); NVLink domains are respected by `compatible`.
4. Else open the cheapest build that holds it alone: the build with its base RAM and disk, or, for a
   copy too heavy for those, the cheapest RAM and disk upgrades of that build that hold it.

Host RAM and NVMe are checked per server, rounded up so never looser than the product's right-sizing
(layout.right_size) and verifier: Σ ⌈offloaded states⌉ + the reserve ≤ RAM, Σ ⌈checkpoints and base
model⌉ ≤ ⌊NVMe⌋. So every FFD plan is valid under the product's rules, and a proven-optimal product
price can never exceed it (one the product only calls feasible, e.g. from its safe configurations,
could: the runner flags that).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload
from ftopt.solver.builds import Build, DiskTier, RamTier
from ftopt.solver.modes import Mode
from ftopt.solver.problem import ProblemData, build_problem, compatible


@dataclass
class FfdServer:
    """One server FFD opened, with what it holds."""

    build: Build
    ram: RamTier
    disk: DiskTier
    gpus_used: int = 0
    host_ram_gb: int = 0
    nvme_gb: int = 0
    copies: list[Mode] = field(default_factory=list)

    @property
    def price(self) -> float:
        """Build, RAM and disk."""
        return self.build.fixed_price + self.ram.price + self.disk.price


@dataclass
class FfdResult:
    """FFD's plan: servers in opening order, total price, and its run time."""

    servers: list[FfdServer]
    seconds: float

    @property
    def price(self) -> float:
        """Total price."""
        return round(sum(s.price for s in self.servers), 2)


def memory_need(mode: Mode) -> float:
    """GB of GPU memory one copy takes in this mode: GPUs × memory per GPU."""
    return mode.gpus * mode.sizing.total_gb


def _pick_key(mode: Mode) -> tuple[float, int, int]:
    return (memory_need(mode), mode.gpus, mode.preference)


def _ram_need(mode: Mode) -> int:
    return math.ceil(mode.host_ram_gb)


def _nvme_need(mode: Mode) -> int:
    return math.ceil(mode.nvme_gb)


def _fits(server: FfdServer, mode: Mode, reserve: int) -> bool:
    return (
        compatible(mode, server.build)
        and server.gpus_used + mode.gpus <= server.build.gpu_count
        and server.host_ram_gb + _ram_need(mode) + reserve <= server.ram.gb
        and server.nvme_gb + _nvme_need(mode) <= math.floor(server.disk.gb)
    )


def _place(server: FfdServer, mode: Mode) -> None:
    server.gpus_used += mode.gpus
    server.host_ram_gb += _ram_need(mode)
    server.nvme_gb += _nvme_need(mode)
    server.copies.append(mode)


def _cheapest_new_server(modes: list[Mode], builds: list[Build], reserve: int) -> FfdServer | None:
    """The cheapest build (with the cheapest RAM and disk tiers) that holds one copy alone."""
    best: tuple[tuple[float, int, float, str], FfdServer] | None = None
    for build in builds:
        fitting = sorted((o for o in modes if compatible(o, build)), key=_pick_key)
        for mode in fitting:
            ram = next((t for t in build.ram_upgrades if t.gb >= _ram_need(mode) + reserve), None)
            disk = next((t for t in build.disk_upgrades if math.floor(t.gb) >= _nvme_need(mode)), None)
            if ram is None or disk is None:
                continue
            server = FfdServer(build, ram, disk)
            key = (server.price, -build.gpu_count, memory_need(mode), build.key)
            if best is None or key < best[0]:
                best = (key, server)
            break  # the least-memory mode that fits this build
    return best[1] if best else None


def first_fit_decreasing(data: ProblemData) -> FfdResult:
    """FFD over the product's problem data; raises ValueError when some copy fits no build."""
    started = time.perf_counter()
    reserve = math.ceil(data.catalogue.rules.host_ram_reserve_gb)
    by_run = {
        r: sorted((data.modes[o] for o in data.modes_of(r)), key=_pick_key) for r in range(len(data.profiles))
    }
    need = {r: min((memory_need(o) for o in opts), default=math.inf) for r, opts in by_run.items()}
    order = sorted(range(len(data.profiles)), key=lambda r: (-need[r], r))
    servers: list[FfdServer] = []
    for run in order:
        for _ in range(data.copies[run]):
            _place_copy(by_run[run], servers, data.builds, reserve, run, data)
    return FfdResult(servers, time.perf_counter() - started)


def _place_copy(
    modes: list[Mode],
    servers: list[FfdServer],
    builds: list[Build],
    reserve: int,
    run: int,
    data: ProblemData,
) -> None:
    for server in servers:
        mode = next((o for o in modes if _fits(server, o, reserve)), None)
        if mode is not None:
            _place(server, mode)
            return
    new = _cheapest_new_server(modes, builds, reserve)
    if new is None:
        raise ValueError(f"run {data.profiles[run].run.name}: no build holds one copy")
    _place(new, next(o for o in modes if _fits(new, o, reserve)))
    servers.append(new)


def ffd(workload: Workload, catalogue: Catalogue) -> FfdResult:
    """FFD for a workload, timing included the product's problem build."""
    started = time.perf_counter()
    result = first_fit_decreasing(build_problem(workload, catalogue))
    result.seconds = time.perf_counter() - started
    return result
