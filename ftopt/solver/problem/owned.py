"""The customer's servers as builds that cost nothing to buy, at most as many as are owned.

An inventory entry is matched to the build the catalogue, the feed and the inlet allow with the
same chassis, cards, bridges, CPUs and boot drive, and to that build's RAM and disk tiers with the
same DIMMs and data drives: so an owned server meets every rule a bought one does, or is not used
(a finding says why). The owned build keeps its power and, under `objective: tco`, its energy cost;
its parts are priced 0 and it has no upgrades (what is owned is what it has). Fabric NICs are not
modelled on owned servers: they train single-server copies.

An owned server of MIG cards is offered sliced too, in each layout a bought one is (`sliced_builds`):
slicing is a driver setting, not a purchase, so owning exactly the servers of a sliced plan must
not buy another one. Every variant uses the entry's pseudo part (`Build.units`), so the servers
owned still bound them all together.
"""

from __future__ import annotations

from dataclasses import replace

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.workload import OwnedServer, Workload
from ftopt.solver.problem.builds import Build, DiskTier, RamTier, sliced_builds, slicing_allowed


def _same_server(build: Build, entry: OwnedServer) -> bool:
    bridge = build.bridge.id if build.bridge else None
    return (
        build.nic is None
        and (build.chassis.id, build.gpu.id, build.gpu_count, build.cpu.id, build.chassis.sockets)
        == (entry.chassis, entry.gpu, entry.gpu_count, entry.cpu, entry.cpu_count)
        and build.boot.id == entry.boot_drive
        and (bridge, build.bridge_count) == (entry.bridge, entry.bridge_count)
    )


def _owned(build: Build, entry: OwnedServer, index: int) -> Build | None:
    """The build as owned: its tiers of the entry's DIMMs and drives at price 0, or None if it has none."""
    ram = next(
        (
            t
            for t in (build.ram, *build.ram_upgrades)
            if (t.dimm.id, t.count) == (entry.dimm, entry.dimm_count)
        ),
        None,
    )
    disk = next(
        (
            t
            for t in (build.disk, *build.disk_upgrades)
            if (t.drive.id, t.count) == (entry.data_drive, entry.data_drive_count)
        ),
        None,
    )
    if ram is None or disk is None:
        return None
    free_ram, free_disk = RamTier(ram.dimm, ram.count, 0.0), DiskTier(disk.drive, disk.count, 0.0)
    return replace(
        build,
        fixed_price=0.0,
        ram=free_ram,
        disk=free_disk,
        ram_upgrades=(free_ram,),
        disk_upgrades=(free_disk,),
        owned=index,
    )


def owned_builds(workload: Workload, builds: list[Build]) -> tuple[list[Build], list[Finding]]:
    """One build per usable inventory entry, and a finding for each entry that cannot be used here."""
    owned: list[Build] = []
    unusable: list[Finding] = []
    for index, entry in enumerate(workload.inventory):
        found = next(
            (
                b
                for b in (_owned(b, entry, index) for b in builds if b.mig is None and _same_server(b, entry))
                if b
            ),
            None,
        )
        if found is None:
            unusable.append(
                finding(
                    FindingKind.OWNED,
                    f"inventory[{index}]",
                    count=entry.count,
                    gpu=entry.gpu,
                    chassis=entry.chassis,
                )
            )
        else:
            owned.append(found)
            owned += sliced_builds(found.gpu, [found]) if slicing_allowed(workload) else []
    return owned, unusable
