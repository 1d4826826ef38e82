"""Rules on the host around the cards: RAM, cores, sockets, CPU cooling and data NVMe.

A figure must hold both as stated on the server and as its parts give it (they are checked to agree
in `components`): the smaller of the two is compared with what the rules and the copies need.
"""

from __future__ import annotations

from collections.abc import Iterator

from ftopt.verify.context import Context, Parts
from ftopt.verify.violation import Violation, at_most, num, plural

#: The NVIDIA-Certified configuration guide asks two sockets (docs/design.md, Sizing).
SOCKETS = 2


def ram_gb(p: Parts) -> int:
    """Host RAM as stated and as the DIMMs give it, whichever is smaller."""
    s = p.server
    return min(s.ram_gb, p.dimm.gb * s.dimm_count) if p.dimm else s.ram_gb


def check_host_ram(ctx: Context) -> Iterator[Violation]:
    """RAM ≥ host_ram_per_gpu_memory × GPU memory, and ≥ offloaded states + the reserve."""
    rules = ctx.catalogue.rules
    by_server = ctx.copies_by_server()
    for p in ctx.servers():
        s, ram = p.server, ram_gb(p)
        if p.gpu is not None:
            memory = s.gpu_count * p.gpu.memory_gb
            need = rules.host_ram_per_gpu_memory * memory
            if not at_most(need, ram):
                yield Violation(
                    "host-ram",
                    p.subject,
                    f"{ram} GB",
                    f"needs ≥ {num(need)} GB "
                    f"({num(rules.host_ram_per_gpu_memory)} × {num(memory)} GB GPU memory)",
                )
        copies = ctx.busiest(by_server.get(s.id, []), lambda sizing: sizing.host_ram_gb)
        offloaded = sum(sizing.host_ram_gb for _, sizing in copies if sizing is not None)
        need = offloaded + rules.host_ram_reserve_gb
        if not at_most(need, ram):
            yield Violation(
                "host-ram",
                p.subject,
                f"{ram} GB",
                f"needs ≥ {num(round(need, 2))} GB ({num(round(offloaded, 2))} GB offloaded "
                f"optimiser states + {num(rules.host_ram_reserve_gb)} GB reserve)",
            )


def check_cores(ctx: Context) -> Iterator[Violation]:
    """At least cores_per_gpu physical cores per card."""
    per_gpu = ctx.catalogue.rules.cores_per_gpu
    for p in ctx.servers():
        s = p.server
        cores = min(s.cores, p.cpu.cores * s.cpu_count) if p.cpu else s.cores
        need = per_gpu * s.gpu_count
        if cores < need:
            yield Violation(
                "cores", p.subject, f"{cores} cores", f"needs ≥ {need} ({per_gpu} per GPU × {s.gpu_count})"
            )


def check_sockets(ctx: Context) -> Iterator[Violation]:
    """Two sockets, each with its CPU."""
    for p in ctx.servers():
        s = p.server
        if s.cpu_count != SOCKETS:
            yield Violation(
                "sockets", p.subject, plural(s.cpu_count, "CPU"), f"needs {SOCKETS}, one per socket"
            )
        if p.chassis and p.chassis.sockets != SOCKETS:
            yield Violation(
                "sockets", p.subject, f"{p.chassis.id} has {p.chassis.sockets} sockets", f"needs {SOCKETS}"
            )
        elif p.chassis and s.cpu_count != p.chassis.sockets:
            yield Violation(
                "sockets",
                p.subject,
                plural(s.cpu_count, "CPU"),
                f"{p.chassis.id} has {p.chassis.sockets} sockets",
            )


def check_cpu_tdp(ctx: Context) -> Iterator[Violation]:
    """The CPU fits the chassis' socket type, and the chassis cools it."""
    for p in ctx.servers():
        if p.cpu and p.chassis and p.cpu.socket != p.chassis.cpu_socket:
            found = f"{p.cpu.id} ({p.cpu.socket})"
            yield Violation("cpu-tdp", p.subject, found, f"{p.chassis.id} has {p.chassis.cpu_socket} sockets")
        if p.cpu and p.chassis and p.cpu.tdp_w > p.chassis.max_cpu_tdp_w:
            yield Violation(
                "cpu-tdp",
                p.subject,
                f"{p.cpu.id} at {p.cpu.tdp_w} W",
                f"{p.chassis.id} cools at most {p.chassis.max_cpu_tdp_w} W",
            )


def check_nvme(ctx: Context) -> Iterator[Violation]:
    """Data NVMe ≥ data_tb_per_socket × sockets, and ≥ the checkpoints and base models of its copies."""
    per_socket = ctx.catalogue.rules.data_tb_per_socket
    by_server = ctx.copies_by_server()
    for p in ctx.servers():
        s = p.server
        tb = min(s.nvme_tb, p.data_drive.tb * s.data_drive_count) if p.data_drive else s.nvme_tb
        sockets = p.chassis.sockets if p.chassis else s.cpu_count
        need = per_socket * sockets
        if not at_most(need, tb):
            yield Violation(
                "nvme",
                p.subject,
                f"{num(tb)} TB",
                f"needs ≥ {num(need)} TB ({num(per_socket)} TB per socket)",
            )
        copies = ctx.busiest(by_server.get(s.id, []), lambda sizing: sizing.nvme_gb)
        need_gb = sum(sizing.nvme_gb for _, sizing in copies if sizing is not None)
        if not at_most(need_gb, tb * 1000):
            yield Violation(
                "nvme",
                p.subject,
                f"{num(tb)} TB",
                f"needs ≥ {num(round(need_gb / 1000, 2))} TB (checkpoints kept and BF16 base models of "
                f"{plural(len(copies), 'copy', 'copies')})",
            )
