"""From counts to servers: which copies share which server, and which GPU indices each copy gets.

The model decides how many servers of each frame and how many copies of each option go to them;
indices are laid out afterwards. Pool copies are dealt to their frame's servers largest first, each
to the first server with room: GPU counts are powers of two that divide the server size, so free
room is always a multiple of the next copy's size and the deal never fails. Inside a server, copies
take consecutive GPUs in the same order, so each block starts at a multiple of its size and never
straddles an NVLink domain it fits in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ftopt.solver.builds import DiskTier, Frame, RamTier
from ftopt.solver.options import Option


@dataclass
class ServerLayout:
    """One concrete server: its frame, RAM and disk, and the copies it holds with their GPUs."""

    frame: Frame
    ram: RamTier
    disk: DiskTier
    copies: list[tuple[Option, list[int]]] = field(default_factory=list)

    @property
    def gpus_used(self) -> int:
        """GPUs taken by copies."""
        return sum(option.gpus for option, _ in self.copies)


def _order(option: Option) -> tuple[int, int]:
    return (-option.gpus, option.run)


def deal_pool(frame: Frame, servers: int, copies: list[tuple[Option, int]]) -> list[ServerLayout]:
    """Deal `copies` (option, count) onto `servers` identical servers, largest first, first fit."""
    layouts = [ServerLayout(frame, frame.ram, frame.disk) for _ in range(servers)]
    for option, count in sorted(copies, key=lambda oc: _order(oc[0])):
        for _ in range(count):
            target = next(s for s in layouts if s.gpus_used + option.gpus <= frame.gpu_count)
            target.copies.append((option, []))
    return [s for s in layouts if s.copies]


def assign_indices(server: ServerLayout) -> ServerLayout:
    """Give each copy consecutive GPU indices, largest copies first (aligned buddy blocks)."""
    start = 0
    placed = []
    for option, _ in sorted(server.copies, key=lambda c: _order(c[0])):
        placed.append((option, list(range(start, start + option.gpus))))
        start += option.gpus
    server.copies = placed
    return server
