"""Rules on a server's parts: ids resolve, its stated figures agree with them, the chassis holds them.

A server's `cores`, `ram_gb`, `dimm_gb` and `nvme_tb` are stated for people; here they must equal
what the CPU, DIMM and drive ids give. Every slot of the chassis holds a card, every memory channel
the same DIMM, and the data drives fit the bays.
"""

from __future__ import annotations

from collections.abc import Iterator

from ftopt.model.hardware import Catalogue, Kind
from ftopt.model.plan import Plan
from ftopt.verify.context import Context
from ftopt.verify.violation import Violation, close, num

#: Catalogue kind of each part a plan's server names.
_SERVER_PARTS: tuple[tuple[str, Kind], ...] = (
    ("chassis", "chassis"),
    ("gpu", "gpus"),
    ("cpu", "cpus"),
    ("dimm", "dimms"),
    ("data_drive", "drives"),
    ("boot_drive", "drives"),
    ("bridge", "bridges"),
    ("nic", "nics"),
    ("feed", "feeds"),
)

#: nvme_tb is reported to 0.01 TB.
TB_TOLERANCE = 0.005


def missing_parts(plan: Plan, catalogue: Catalogue) -> list[str]:
    """Ids the plan's servers and fabric name that the catalogue lacks, each once, in plan order.

    Why apart from the rules: a plan solved with a vendor's catalogue (`--catalogue DIR`) and checked
    without it breaks every rule that reads a part; the command says which catalogue is missing
    rather than list those violations."""
    named: list[tuple[str, Kind]] = []
    for server in plan.servers:
        named += [(getattr(server, field), kind) for field, kind in _SERVER_PARTS]
    if plan.fabric is not None:
        named += [(switch.id, "switches") for switch in plan.fabric.switches]
        named += [(link.cable, "cables") for link in plan.fabric.links]
    missing = [item for item, kind in named if item is not None and not catalogue.has(kind, item)]
    return list(dict.fromkeys(missing))


def check_catalogue_ids(ctx: Context) -> Iterator[Violation]:
    """Every id a server names is an item of the right kind (and role, for drives) in the catalogue."""
    for p in ctx.servers():
        s = p.server
        named = (
            ("chassis", s.chassis, p.chassis, "chassis"),
            ("gpu", s.gpu, p.gpu, "card"),
            ("cpu", s.cpu, p.cpu, "CPU"),
            ("dimm", s.dimm, p.dimm, "DIMM"),
            ("data_drive", s.data_drive, p.data_drive, "drive"),
            ("boot_drive", s.boot_drive, p.boot_drive, "drive"),
            ("bridge", s.bridge, p.bridge, "NVLink bridge"),
            ("feed", s.feed, p.feed, "feed"),
        )
        for name, value, item, kind in named:
            if value is not None and item is None:
                yield Violation(
                    "catalogue-id", p.subject, f"{name} {value!r}", f"no such {kind} in the catalogue"
                )
        for name, drive, role in (("data_drive", p.data_drive, "data"), ("boot_drive", p.boot_drive, "boot")):
            if drive is not None and drive.role != role:
                yield Violation(
                    "catalogue-id",
                    p.subject,
                    f"{name} {drive.id!r} is a {drive.role} drive",
                    f"needs a {role} drive",
                )


def check_server_fields(ctx: Context) -> Iterator[Violation]:
    """Cores, RAM, DIMM size and data NVMe stated on the server equal what its parts give."""
    for p in ctx.servers():
        s = p.server
        if p.cpu and s.cores != p.cpu.cores * s.cpu_count:
            yield Violation(
                "server-fields",
                p.subject,
                f"cores {s.cores}",
                f"{s.cpu_count} × {p.cpu.cores} ({p.cpu.id}) = {p.cpu.cores * s.cpu_count}",
            )
        if p.dimm and s.dimm_gb != p.dimm.gb:
            yield Violation(
                "server-fields", p.subject, f"dimm_gb {s.dimm_gb}", f"{p.dimm.id} holds {p.dimm.gb} GB"
            )
        if p.dimm and s.ram_gb != p.dimm.gb * s.dimm_count:
            yield Violation(
                "server-fields",
                p.subject,
                f"ram_gb {s.ram_gb}",
                f"{s.dimm_count} × {p.dimm.gb} GB ({p.dimm.id}) = {p.dimm.gb * s.dimm_count} GB",
            )
        if p.data_drive and not close(s.nvme_tb, p.data_drive.tb * s.data_drive_count, TB_TOLERANCE):
            yield Violation(
                "server-fields",
                p.subject,
                f"nvme_tb {num(s.nvme_tb)}",
                f"{s.data_drive_count} × {num(p.data_drive.tb)} TB ({p.data_drive.id}) = "
                f"{num(p.data_drive.tb * s.data_drive_count)} TB",
            )


def check_gpu_slots(ctx: Context) -> Iterator[Violation]:
    """Every card slot of the chassis holds a card it takes: gpu_count equals the chassis' slots,
    and the card is one the chassis lists (an HGX system's modules) or a PCIe card."""
    for p in ctx.servers():
        if p.chassis and p.gpu and not p.chassis.takes(p.gpu):
            takes = ", ".join(p.chassis.gpus) if p.chassis.gpus is not None else "PCIe cards"
            yield Violation(
                "gpu-slots", p.subject, f"{p.gpu.form} card {p.gpu.id}", f"{p.chassis.id} takes {takes}"
            )
        if p.chassis and p.server.gpu_count != p.chassis.gpu_slots:
            yield Violation(
                "gpu-slots",
                p.subject,
                f"{p.server.gpu_count} cards",
                f"{p.chassis.id} has {p.chassis.gpu_slots} slots, each holding a card",
            )


def check_dimm_channels(ctx: Context) -> Iterator[Violation]:
    """One DIMM in every slot (one per channel), so that all channels are populated alike."""
    for p in ctx.servers():
        s = p.server
        if p.chassis and s.dimm_count != p.chassis.dimm_slots:
            yield Violation(
                "dimm-channels",
                p.subject,
                f"{s.dimm_count} DIMMs",
                f"needs {p.chassis.dimm_slots}, one in every slot of {p.chassis.id}",
            )
        if p.cpu and s.dimm_count % (p.cpu.memory_channels * s.cpu_count):
            channels = p.cpu.memory_channels * s.cpu_count
            yield Violation(
                "dimm-channels",
                p.subject,
                f"{s.dimm_count} DIMMs",
                f"needs a multiple of {channels} ({s.cpu_count} × {p.cpu.memory_channels} channels) "
                "so every channel is populated alike",
            )


def check_drive_bays(ctx: Context) -> Iterator[Violation]:
    """The data drives fit the chassis' bays."""
    for p in ctx.servers():
        if p.chassis and p.server.data_drive_count > p.chassis.drive_bays:
            yield Violation(
                "drive-bays",
                p.subject,
                f"{p.server.data_drive_count} data drives",
                f"{p.chassis.id} has {p.chassis.drive_bays} bays",
            )


def check_hardware_limits(ctx: Context) -> Iterator[Violation]:
    """Only the cards and chassis the workload's `hardware:` limits allow."""
    limits = ctx.workload.hardware
    for p in ctx.servers():
        s = p.server
        if limits.gpus is not None and s.gpu not in limits.gpus:
            yield Violation(
                "hardware-limits",
                p.subject,
                f"card {s.gpu}",
                f"workload allows only {', '.join(limits.gpus)}",
            )
        if limits.chassis is not None and s.chassis not in limits.chassis:
            yield Violation(
                "hardware-limits",
                p.subject,
                f"chassis {s.chassis}",
                f"workload allows only {', '.join(limits.chassis)}",
            )
