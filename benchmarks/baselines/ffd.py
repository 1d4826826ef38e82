"""First-fit decreasing, the way a spreadsheet user sizes a bid. A baseline, not part of the product.

The rules are the product's own: its frames (builds.enumerate_frames, via problem.build_problem),
its placement options (memory-filtered, undominated) and its `compatible` test. What differs is the
search, which is the spreadsheet's:

1. Per copy and per card, take the option with the least memory need (GPUs × GB per GPU; fewer
   GPUs, then the preferred option, on ties).
2. Sort copies by that need, largest first.
3. Put each copy in the first open server (in opening order) whose card it can use and whose free
   GPUs, host RAM and NVMe hold it. GPU counts are powers of two dividing the server size, so
   Σ GPUs ≤ cards is exact (aligned blocks); NVLink domains are respected by `compatible`.
4. Else open the cheapest build that holds it alone: the frame with its base RAM and disk, or, for a
   copy too heavy for those, the cheapest RAM and disk upgrades of that frame that hold it.

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
from ftopt.solver.builds import DiskTier, Frame, RamTier
from ftopt.solver.options import Option
from ftopt.solver.problem import ProblemData, build_problem, compatible


@dataclass
class FfdServer:
    """One server FFD opened, with what it holds."""

    frame: Frame
    ram: RamTier
    disk: DiskTier
    gpus_used: int = 0
    host_ram_gb: int = 0
    nvme_gb: int = 0
    copies: list[Option] = field(default_factory=list)

    @property
    def price(self) -> float:
        """Frame, RAM and disk."""
        return self.frame.fixed_price + self.ram.price + self.disk.price


@dataclass
class FfdResult:
    """FFD's plan: servers in opening order, total price, and its run time."""

    servers: list[FfdServer]
    seconds: float

    @property
    def price(self) -> float:
        """Total price."""
        return round(sum(s.price for s in self.servers), 2)


def memory_need(option: Option) -> float:
    """GB of GPU memory one copy takes in this option: GPUs × memory per GPU."""
    return option.gpus * option.sizing.total_gb


def _pick_key(option: Option) -> tuple[float, int, int]:
    return (memory_need(option), option.gpus, option.preference)


def _ram_need(option: Option) -> int:
    return math.ceil(option.host_ram_gb)


def _nvme_need(option: Option) -> int:
    return math.ceil(option.nvme_gb)


def _fits(server: FfdServer, option: Option, reserve: int) -> bool:
    return (
        compatible(option, server.frame)
        and server.gpus_used + option.gpus <= server.frame.gpu_count
        and server.host_ram_gb + _ram_need(option) + reserve <= server.ram.gb
        and server.nvme_gb + _nvme_need(option) <= math.floor(server.disk.gb)
    )


def _place(server: FfdServer, option: Option) -> None:
    server.gpus_used += option.gpus
    server.host_ram_gb += _ram_need(option)
    server.nvme_gb += _nvme_need(option)
    server.copies.append(option)


def _cheapest_new_server(options: list[Option], frames: list[Frame], reserve: int) -> FfdServer | None:
    """The cheapest frame (with the cheapest RAM and disk tiers) that holds one copy alone."""
    best: tuple[tuple[float, int, float, str], FfdServer] | None = None
    for frame in frames:
        fitting = sorted((o for o in options if compatible(o, frame)), key=_pick_key)
        for option in fitting:
            ram = next((t for t in frame.ram_upgrades if t.gb >= _ram_need(option) + reserve), None)
            disk = next((t for t in frame.disk_upgrades if math.floor(t.gb) >= _nvme_need(option)), None)
            if ram is None or disk is None:
                continue
            server = FfdServer(frame, ram, disk)
            key = (server.price, -frame.gpu_count, memory_need(option), frame.key)
            if best is None or key < best[0]:
                best = (key, server)
            break  # the least-memory option that fits this frame
    return best[1] if best else None


def first_fit_decreasing(data: ProblemData) -> FfdResult:
    """FFD over the product's problem data; raises ValueError when some copy fits no build."""
    started = time.perf_counter()
    reserve = math.ceil(data.catalogue.rules.host_ram_reserve_gb)
    by_run = {
        r: sorted((data.options[o] for o in data.options_of(r)), key=_pick_key)
        for r in range(len(data.profiles))
    }
    need = {r: min((memory_need(o) for o in opts), default=math.inf) for r, opts in by_run.items()}
    order = sorted(range(len(data.profiles)), key=lambda r: (-need[r], r))
    servers: list[FfdServer] = []
    for run in order:
        for _ in range(data.copies[run]):
            _place_copy(by_run[run], servers, data.frames, reserve, run, data)
    return FfdResult(servers, time.perf_counter() - started)


def _place_copy(
    options: list[Option],
    servers: list[FfdServer],
    frames: list[Frame],
    reserve: int,
    run: int,
    data: ProblemData,
) -> None:
    for server in servers:
        option = next((o for o in options if _fits(server, o, reserve)), None)
        if option is not None:
            _place(server, option)
            return
    new = _cheapest_new_server(options, frames, reserve)
    if new is None:
        raise ValueError(f"run {data.profiles[run].run.name}: no build holds one copy")
    _place(new, next(o for o in options if _fits(new, o, reserve)))
    servers.append(new)


def ffd(workload: Workload, catalogue: Catalogue) -> FfdResult:
    """FFD for a workload, timing included the product's problem build."""
    started = time.perf_counter()
    result = first_fit_decreasing(build_problem(workload, catalogue))
    result.seconds = time.perf_counter() - started
    return result
