"""First-fit decreasing, the way a spreadsheet user sizes a bid. A baseline, not part of the product.

Builds and modes come from `hardware.py` (the catalogue and the model layer, never the solver):

1. Per copy, its modes in spreadsheet order: least GPU memory (GPUs × GB per GPU) first.
2. Copies sorted by their least memory need, largest first.
3. Each copy goes to the first open server (in opening order) that holds it in its first fitting
   mode: same card, bridges large enough, an aligned block of free GPUs (a copy of g GPUs starts at
   a multiple of g, so it never straddles an NVLink domain it fits in), and room left in the RAM
   and NVMe that server was bought with.
4. Else a new server: the cheapest layout, with the cheapest RAM and disk, that holds the copy alone.

The result is a real `ftopt.model.plan.Plan` (bill of materials, GPU indices, per-copy figures from
`ftopt.model.sizing`), so `ftopt.verify.verify_plan` can check it like any plan: a bug here shows
up as a violation, not as a flattering saving. Like a spreadsheet that sizes for memory, it ignores
time to train: deadlines (`deadline_hours`) are not its concern, so it is compared with the product
only on bids without them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from benchmarks.baselines.hardware import Layout, Mode, Part, cheapest, holds, layouts, modes
from ftopt.model.hardware import Catalogue, Dimm, Drive
from ftopt.model.memory import GB
from ftopt.model.parallelism import config_record
from ftopt.model.plan import Assignment, LineItem, MemoryPerGpu, Plan, RoleOnGpus, Server, Status
from ftopt.model.power import Parts as PowerParts
from ftopt.model.power import load_w, planned_load_w, vendor_load_w, wall_w
from ftopt.model.topology import topology_domains, topology_profile
from ftopt.model.traffic import transfer_seconds
from ftopt.model.workload import Workload


@dataclass
class OpenServer:
    """A server FFD bought: its layout, RAM and disk, and the copies on it with their GPUs."""

    layout: Layout
    ram: Part
    disk: Part
    free: list[bool]
    ram_used: int  # GB: the reserve, then each copy's offloaded states rounded up
    nvme_used: int = 0
    copies: list[tuple[Mode, list[int]]] = field(default_factory=list)

    @property
    def price(self) -> float:
        """What the server costs as bought."""
        return self.layout.fixed_price + self.ram.price + self.disk.price


@dataclass
class FfdResult:
    """FFD's plan and how long it took."""

    plan: Plan
    seconds: float

    @property
    def price(self) -> float:
        """Total price."""
        return self.plan.total_price

    @property
    def servers(self) -> int:
        """Servers bought."""
        return len(self.plan.servers)


def aligned_block(server: OpenServer, gpus: int) -> int | None:
    """The first free block of `gpus` GPUs starting at a multiple of `gpus`, or None."""
    for start in range(0, len(server.free) - gpus + 1, gpus):
        if all(server.free[start : start + gpus]):
            return start
    return None


def fits(server: OpenServer, mode: Mode) -> int | None:
    """Where the copy would start on this server, or None when it does not fit."""
    if not holds(server.layout, mode):
        return None
    if server.ram_used + mode.ram_gb > server.ram.gb or server.nvme_used + mode.nvme_gb > server.disk.gb:
        return None
    return aligned_block(server, mode.gpus)


def place(server: OpenServer, mode: Mode, start: int) -> None:
    """Put one copy on the server at GPU `start`."""
    indices = list(range(start, start + mode.gpus))
    for i in indices:
        server.free[i] = False
    server.ram_used += mode.ram_gb
    server.nvme_used += mode.nvme_gb
    server.copies.append((mode, indices))


def new_server(catalogue: Catalogue, options: list[Layout], copy_modes: list[Mode]) -> OpenServer | None:
    """The cheapest server (layout, RAM and disk) that holds one copy alone."""
    reserve = math.ceil(catalogue.rules.host_ram_reserve_gb)
    best: tuple[tuple[float, int, str], OpenServer] | None = None
    for layout in options:
        mode = next((m for m in copy_modes if holds(layout, m)), None)
        if mode is None:
            continue
        ram = cheapest(layout.rams, mode.ram_gb + reserve)
        disk = cheapest(layout.disks, mode.nvme_gb)
        if ram is None or disk is None:
            continue
        server = OpenServer(layout, ram, disk, [True] * layout.gpu_count, reserve)
        key = (server.price, -layout.gpu_count, layout.name)
        if best is None or key < best[0]:
            best = (key, server)
    return best[1] if best else None


def pack(catalogue: Catalogue, workload: Workload) -> list[OpenServer]:
    """First-fit decreasing over every copy; raises ValueError when a copy fits no server."""
    options = layouts(catalogue, workload)
    per_run = modes(catalogue, workload, {layout.gpu.id for layout in options})
    need = [m[0].memory_need if m else math.inf for m in per_run]
    order = sorted(range(len(per_run)), key=lambda r: (-need[r], r))
    servers: list[OpenServer] = []
    for run in order:
        for _ in range(workload.runs[run].concurrent):
            place_copy(catalogue, options, per_run[run], servers, workload.runs[run].name)
    return servers


def place_copy(
    catalogue: Catalogue, options: list[Layout], copy_modes: list[Mode], servers: list[OpenServer], name: str
) -> None:
    """One copy into the first server that holds it, else into a new one."""
    smallest = min((m.gpus for m in copy_modes), default=0)
    for server in servers:
        if server.free.count(True) < smallest:  # most servers are full: skip them cheaply
            continue
        for mode in copy_modes:
            start = fits(server, mode)
            if start is not None:
                place(server, mode, start)
                return
    fresh = new_server(catalogue, options, copy_modes)
    if fresh is None:
        raise ValueError(f"run {name}: no server holds one copy")
    mode = next(m for m in copy_modes if fits(fresh, m) is not None)
    place(fresh, mode, 0)
    servers.append(fresh)


def first_fit_decreasing(workload: Workload, catalogue: Catalogue) -> FfdResult:
    """FFD's plan for a workload; raises ValueError when some copy fits no server, or the site is
    given as racks (a spreadsheet sizes one server per feed and leaves the room to the installer)."""
    if workload.site.racks is not None:
        raise ValueError("the site is given as racks: first-fit decreasing sizes one server per feed")
    started = time.perf_counter()
    servers = pack(catalogue, workload)
    seconds = time.perf_counter() - started
    return FfdResult(to_plan(servers, workload, catalogue, seconds), seconds)


# ---------------------------------------------------------------- the plan


def to_plan(servers: list[OpenServer], workload: Workload, catalogue: Catalogue, seconds: float) -> Plan:
    """FFD's servers as a plan the verifier reads (status feasible: nothing is proven)."""
    built = [to_server(f"s{i}", s, workload, catalogue) for i, s in enumerate(servers, start=1)]
    copy_numbers: dict[str, int] = {}
    assignments = []
    for server_id, server in zip((s.id for s in built), servers, strict=True):
        for mode, gpus in server.copies:
            name = workload.runs[mode.run].name
            copy_numbers[name] = copy_numbers.get(name, 0) + 1
            assignments.append(to_assignment(name, copy_numbers[name], server_id, server.layout, mode, gpus))
    return Plan(
        # FFD states no speed figures and no run summaries: it makes version 2's promises only.
        schema_version=2,
        status=Status.FEASIBLE,
        currency=catalogue.currency,
        total_price=round(sum(s.price for s in built), 2),
        bound=None,
        gap=None,
        wall_seconds=seconds,
        workload=workload.name,
        servers=built,
        assignments=assignments,
    )


def to_server(server_id: str, s: OpenServer, workload: Workload, catalogue: Catalogue) -> Server:
    """One server with its bill of materials from the price list."""
    layout, chassis, dimm, drive = s.layout, s.layout.chassis, s.ram.item, s.disk.item
    assert isinstance(dimm, Dimm) and isinstance(drive, Drive)
    bridges = layout.gpu_count // layout.bridge_size if layout.bridge else 0
    parts = [
        (chassis.id, chassis.name, 1),
        (layout.gpu.id, layout.gpu.name, layout.gpu_count),
        *([(layout.bridge.id, layout.bridge.name, bridges)] if layout.bridge else []),
        (layout.cpu.id, layout.cpu.name, chassis.sockets),
        (dimm.id, dimm.name, s.ram.count),
        (drive.id, drive.name, s.disk.count),
        (layout.boot.id, layout.boot.name, 1),
    ]
    lines = [_line(catalogue, item, name, n) for item, name, n in parts]
    feed = catalogue.feed(workload.site.feed)
    load = load_w(
        PowerParts(
            chassis,
            layout.power_cap_w,
            layout.gpu_count,
            layout.cpu,
            dimm,
            s.ram.count,
            layout.boot,
            drive,
            s.disk.count,
        )
    )
    planned = planned_load_w(chassis, layout.power_cap_w, layout.gpu_count, load)
    vendor = vendor_load_w(chassis, layout.power_cap_w, layout.gpu_count)
    return Server(
        id=server_id,
        chassis=chassis.id,
        gpu=layout.gpu.id,
        gpu_count=layout.gpu_count,
        cpu=layout.cpu.id,
        cpu_count=chassis.sockets,
        cores=layout.cpu.cores * chassis.sockets,
        ram_gb=s.ram.gb,
        dimm=dimm.id,
        dimm_gb=dimm.gb,
        dimm_count=s.ram.count,
        data_drive=drive.id,
        data_drive_count=s.disk.count,
        boot_drive=layout.boot.id,
        nvme_tb=round(drive.tb * s.disk.count, 2),
        bridge=layout.bridge.id if layout.bridge else None,
        bridge_count=bridges,
        nvlink_domains=[list(d) for d in topology_domains(layout.topology)],
        link_name=layout.gpu.nvlink.name if layout.gpu.nvlink else None,
        gpu_power_cap_w=layout.power_cap_w,
        power_w=wall_w(chassis, planned),
        parts_power_w=wall_w(chassis, load),
        vendor_max_w=None if vendor is None else wall_w(chassis, vendor),
        power_basis="vendor maximum" if planned > load else "parts",
        feed=feed.id,
        feed_usable_w=feed.usable_w,
        max_inlet_c=chassis.inlet_limit_c(layout.gpu),
        price=round(sum(line.price for line in lines), 2),
        bill_of_materials=lines,
        psu_load_w=math.ceil(round(planned, 6)),
        psu_watts=chassis.psu_watts,
        psu_count=chassis.psu_count,
        psu_redundancy=chassis.psu_redundancy,
        psu_capacity_w=chassis.psu_capacity_w,
    )


def _line(catalogue: Catalogue, item: str, name: str, quantity: int) -> LineItem:
    unit = catalogue.price(item).amount
    return LineItem(item=item, name=name, quantity=quantity, unit_price=unit, price=round(unit * quantity, 2))


def to_assignment(
    run: str, copy: int, server: str, layout: Layout, mode: Mode, gpus: list[int]
) -> Assignment:
    """One copy with the figures the model layer's sizing gives, on the server's real links."""
    s = mode.sizing
    link, gbps = topology_profile(layout.topology, tuple(gpus))
    transfer = transfer_seconds(s.traffic_gb_per_step * GB, gbps) if gbps else 0.0
    return Assignment(
        run=run,
        copy_=copy,
        server=server,
        gpus=gpus,
        strategy=s.strategy,
        optimizer=s.optimizer,
        offload=s.offload,
        link=link,
        memory_per_gpu_gb=MemoryPerGpu(
            states=s.states_gb, activations=s.activations_gb, overhead=s.overhead_gb, total=s.total_gb
        ),
        free_gb=s.free_gb,
        host_ram_gb=s.host_ram_gb,
        nvme_gb=s.nvme_gb,
        traffic_gb_per_step=s.traffic_gb_per_step,
        step_seconds=max(s.compute_seconds, transfer),
        placement=s.placement.value if s.placement else None,
        roles=[
            RoleOnGpus(role=r.role.value, gpus=gpus[r.first : r.first + r.gpus], memory_gb=r.memory_gb)
            for r in s.roles
        ],
        **(config_record(s.config) if s.config else {}),
    )
