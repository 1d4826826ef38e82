"""Light copies on heavy servers within the room their configurations left: the sized model's layout.

The sized model (`ProblemData.with_sized_configs`) says how many copies of each light mode stand
on the servers of each heavy configuration, and bounds their RAM and NVMe only summed over those
identical servers. Laying them out server by server is a packing of its own: the copies bound for
heavy servers go first, largest and neediest first, each to the first free block of its
configuration's servers whose server still has the RAM and NVMe it needs; then the light copies
that need room of their own fill the plain servers; then every other light copy the blocks left.
Each phase deals largest first into fresh aligned blocks, so every copy still starts at a multiple
of its size. When a phase finds no place, the build is laid out as the optimistic model's plans
are (`lay_out_build`), and right-sizing prices the RAM and disk it needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.solver.decode.layout import (
    Block,
    HeavyServer,
    ServerLayout,
    deal_first_fit,
    lay_out_build,
    lay_out_heavy,
    neediest_first,
    take,
)
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.configs import free_blocks, needs_room
from ftopt.solver.problem.modes import Mode


@dataclass
class _Room:
    """What one heavy server still has for light copies: host RAM and data NVMe, GB."""

    ram_gb: float
    nvme_gb: float
    config: int | None

    def holds(self, mode: Mode, config: int) -> bool:
        """Whether the server is of `config` and has the RAM and NVMe one copy of `mode` needs."""
        return config == self.config and mode.host_ram_gb <= self.ram_gb and mode.nvme_gb <= self.nvme_gb

    def take(self, mode: Mode) -> None:
        self.ram_gb -= mode.host_ram_gb
        self.nvme_gb -= mode.nvme_gb


def lay_out_sharing(
    build: Build,
    heavy: list[HeavyServer],
    plain: int,
    light: list[Mode],
    onto_heavy: list[tuple[Mode, int]],
    reserve_gb: float,
) -> list[ServerLayout]:
    """Servers of one build with `onto_heavy` (copy, configuration) on their configurations' servers
    within their room and `light` on the rest (module docstring); empty plain servers are dropped."""
    if onto_heavy:
        servers = _phased(build, heavy, plain, _Copies(light, onto_heavy), reserve_gb)
        if servers is not None:
            return servers
    return lay_out_build(build, heavy, plain, [*light, *(mode for mode, _ in onto_heavy)])


@dataclass(frozen=True)
class _Copies:
    """The light copies of one build: those the model counted on its build (plain servers, or any
    free block when they need no room), and those it counted on a heavy configuration, with it."""

    light: list[Mode]
    onto_heavy: list[tuple[Mode, int]]


def _phased(
    build: Build, heavy: list[HeavyServer], plain: int, copies: _Copies, reserve_gb: float
) -> list[ServerLayout] | None:
    """The three phases of the module docstring; None when one finds no place for a copy."""
    plain_servers = [ServerLayout(build, build.ram, build.disk) for _ in range(plain)]
    plain_blocks = [Block(server, 0, build.slots) for server in plain_servers]
    heavy_servers, heavy_blocks, rooms = _heavy_servers(build, heavy, reserve_gb)
    if not _deal_within(heavy_blocks, copies.onto_heavy, rooms):
        return None
    needy = [m for m in copies.light if needs_room(m)]
    if not deal_first_fit(plain_blocks, sorted(needy, key=neediest_first)):
        return None
    rest = [m for m in copies.light if not needs_room(m)]
    if not deal_first_fit(_fresh(plain_blocks) + _fresh(heavy_blocks), sorted(rest, key=neediest_first)):
        return None
    return [s for s in plain_servers + heavy_servers if s.copies]


def _heavy_servers(
    build: Build, heavy: list[HeavyServer], reserve_gb: float
) -> tuple[list[ServerLayout], list[Block], dict[int, _Room]]:
    """Each heavy server with its heavy copies on its first GPUs, the free blocks of those open to
    light copies, and the room each has left."""
    servers, blocks, rooms = [], [], {}
    for spec in heavy:
        server, free = lay_out_heavy(build, spec)
        blocks += free
        ram = spec.ram.gb - reserve_gb - sum(m.host_ram_gb for m in spec.heavy)
        rooms[id(server)] = _Room(ram, spec.disk.gb - sum(m.nvme_gb for m in spec.heavy), spec.config)
        servers.append(server)
    return servers, blocks, rooms


def _deal_within(blocks: list[Block], copies: list[tuple[Mode, int]], rooms: dict[int, _Room]) -> bool:
    """Each copy (largest, then neediest first) into the first block with GPUs for it on a server of
    its configuration with room for it; False when one found none. Quadratic, but only in the copies
    the model put on heavy servers and those servers' blocks."""
    for mode, config in sorted(copies, key=lambda pair: neediest_first(pair[0])):
        block = next(
            (b for b in blocks if b.size - b.used >= mode.gpus and rooms[id(b.server)].holds(mode, config)),
            None,
        )
        if block is None:
            return False
        take(block.server, mode, block.start + block.used)
        block.used += mode.gpus
        rooms[id(block.server)].take(mode)
    return True


def _fresh(blocks: list[Block]) -> list[Block]:
    """What the blocks have left, as fresh aligned blocks: a later phase deals largest first again,
    so a block partly filled by small copies must not take a large one at an unaligned start."""
    fresh = []
    for block in blocks:
        start = block.start + block.used
        for size in free_blocks(block.size, block.used):
            fresh.append(Block(block.server, start, size))
            start += size
    return fresh
