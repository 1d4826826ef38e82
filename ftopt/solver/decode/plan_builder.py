"""Turns laid-out servers into the `Plan`: bill of materials, power, and per-copy figures.

By concern: this module numbers servers and places copies; each copy's failure figures
(`failures.py`), its P50/P90 hours (`spread.py`), the TCO and the price's bound (`tco.py`) and the
notes (`notes.py`) are modules of their own with typed inputs, as are the last steps of a returned
plan, rent (`rent.py`) and the verifier's check (`verification.py`).

Step time and link kind are recomputed on the server's actual topology: a replicated run whose GPUs
happen to share a bridge all-reduces over NVLink, not over PCIe as its estimate assumed. So are the
speed model's tokens per second, hours and energy: on the link kind the copy's GPUs get in that
server and with the host (memory channels, cores) of that server's CPU. The deadline filter
(modes.py) assumed the slowest placement a mode could get, so these hours never exceed it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ftopt.model.fabric import node_network
from ftopt.model.parallelism import config_record
from ftopt.model.plan import (
    Assignment,
    MemoryPerGpu,
    MigCard,
    MigSlice,
    Node,
    Plan,
    RackUse,
    RoleOnGpus,
    RunSummary,
    Server,
    SiteSummary,
    Status,
)
from ftopt.model.power import load_w, planned_load_w, vendor_load_w, wall_w
from ftopt.model.speed import Speed, energy_kwh, hours_to_train
from ftopt.model.topology import topology_domains, topology_profile
from ftopt.model.traffic import transfer_seconds
from ftopt.model.workload import Algorithm
from ftopt.solver.decode.bills import bill_of_materials, build_fabric
from ftopt.solver.decode.failures import FailureInput, with_failures
from ftopt.solver.decode.layout import ServerLayout
from ftopt.solver.decode.notes import plan_notes, price_list_summary
from ftopt.solver.decode.racks import place_in_racks, rack_uses, racked
from ftopt.solver.decode.spread import SpreadInput, with_spread
from ftopt.solver.decode.tco import plan_tco, price_bound
from ftopt.solver.problem.builds import Build, build_parts
from ftopt.solver.problem.data import ProblemData
from ftopt.solver.problem.modes import Mode, placed_speed
from ftopt.solver.problem.multinode import speed_on_servers


def build_link(build: Build, gpus: list[int]) -> tuple[str | None, float | None]:
    """Link kind and bottleneck bandwidth of `gpus` on a server of this build."""
    return topology_profile(build.topology, tuple(gpus))


def _power_fields(f: Build, load: float) -> dict[str, Any]:
    """The server's draw as the plan states it: the parts' estimate, the vendor's scaled maximum, the
    larger of the two (what every power rule planned with) and which one that is."""
    planned = planned_load_w(f.chassis, f.power_cap_w, f.gpu_count, load)
    vendor = vendor_load_w(f.chassis, f.power_cap_w, f.gpu_count)
    return {
        "power_w": wall_w(f.chassis, planned),
        "parts_power_w": wall_w(f.chassis, load),
        "vendor_max_w": None if vendor is None else wall_w(f.chassis, vendor),
        "power_basis": "vendor maximum" if planned > load else "parts",
        "psu_load_w": math.ceil(round(planned, 6)),
    }


def _server(data: ProblemData, layout: ServerLayout, server_id: str) -> Server:
    f = layout.build
    lines = bill_of_materials(data.catalogue, layout)
    parts = build_parts(f.chassis, f.power_cap_w, f.gpu_count, f.cpu, f.boot, layout.ram, layout.disk)
    load = load_w(replace(parts, nic=f.nic, nic_count=f.nic_count))
    spread = data.catalogue.spread
    return Server(
        **_power_fields(f, load),
        power_band=spread.bands.power if spread is not None and spread.bands is not None else None,
        id=server_id,
        chassis=f.chassis.id,
        gpu=f.gpu.id,
        gpu_count=f.gpu_count,
        cpu=f.cpu.id,
        cpu_count=f.chassis.sockets,
        cores=f.cpu.cores * f.chassis.sockets,
        ram_gb=layout.ram.gb,
        dimm=layout.ram.dimm.id,
        dimm_gb=layout.ram.dimm.gb,
        dimm_count=layout.ram.count,
        data_drive=layout.disk.drive.id,
        data_drive_count=layout.disk.count,
        boot_drive=f.boot.id,
        nvme_tb=round(layout.disk.gb / 1000, 2),
        bridge=f.bridge.id if f.bridge else None,
        bridge_count=f.bridge_count,
        nvlink_domains=[list(d) for d in topology_domains(f.topology)],
        link_name=f.gpu.nvlink.name if f.gpu.nvlink else None,
        gpu_power_cap_w=f.power_cap_w,
        feed=f.feed.id,
        feed_usable_w=f.feed.usable_w,
        max_inlet_c=f.max_inlet_c,
        price=round(sum(line.price for line in lines), 2),
        bill_of_materials=lines,
        nic=f.nic.id if f.nic else None,
        nic_count=f.nic_count,
        owned=f.owned is not None,
        psu_watts=f.chassis.psu_watts,
        psu_count=f.chassis.psu_count,
        psu_redundancy=f.chassis.psu_redundancy,
        psu_capacity_w=f.chassis.psu_capacity_w,
        mig=[MigCard(card=i, profiles=[f.mig.name] * f.mig_count) for i in range(f.gpu_count)]
        if f.mig
        else [],
    )


def _gpus_drawn(mode: Mode, build: Build) -> float:
    """The GPUs whose power a copy's energy counts: its GPUs, or its slice's compute share of one card."""
    if mode.mig is None or build.mig is None or build.gpu.mig is None:
        return mode.gpus
    return mode.gpus * build.gpu.mig.compute_share(build.mig.name)


def _timing(data: ProblemData, mode: Mode, build: Build, speed: Speed | None) -> dict[str, float | None]:
    """Tokens per second, hours and energy of one copy (hours and energy only with train_tokens)."""
    tokens = data.profiles[mode.run].run.train_tokens
    constants = data.catalogue.speed
    if speed is None or constants is None:
        return {"tokens_per_s": None, "hours": None, "energy_kwh": None}
    hours = hours_to_train(tokens, speed) if tokens else None
    energy = (
        energy_kwh(
            build.power_cap_w,
            _gpus_drawn(mode, build),
            hours,
            data.workload.energy,
            constants.host_power_w_per_gpu,
        )
        if hours is not None
        else None
    )
    return {
        "tokens_per_s": round(speed.tokens_per_s, 1),
        "hours": round(hours, 6) if hours is not None else None,
        "energy_kwh": round(energy, 2) if energy is not None else None,
    }


def _assignment(
    data: ProblemData,
    mode: Mode,
    link: str | None,
    gbps: float | None,
    timing: dict[str, float | None] | None = None,
) -> Assignment:
    """The figures every copy of `mode` shares on GPUs joined by `link`; copy 1 on no server yet."""
    s = mode.sizing
    transfer = transfer_seconds(s.traffic_gb_per_step * 1e9, gbps) if gbps else 0.0
    return Assignment(
        run=data.profiles[mode.run].run.name,
        copy_=1,
        server="",
        gpus=[],
        strategy=s.strategy,
        optimizer=s.optimizer,
        offload=s.offload,
        link=link,
        memory_per_gpu_gb=MemoryPerGpu(
            states=round(s.states_gb, 2),
            activations=round(s.activations_gb, 2),
            overhead=round(s.overhead_gb, 2),
            total=round(s.total_gb, 2),
        ),
        free_gb=round(s.free_gb, 2),
        memory_margin=round(s.memory_margin, 3),
        memory_margin_basis=s.memory_margin_basis,
        headroom_gb=round(s.headroom_gb, 2),
        host_ram_gb=round(s.host_ram_gb, 2),
        nvme_gb=round(s.nvme_gb, 2),
        traffic_gb_per_step=round(s.traffic_gb_per_step, 3),
        step_seconds=round(max(s.compute_seconds, transfer), 4),
        placement=s.placement.value if s.placement else None,
        roles=[RoleOnGpus(role=r.role.value, gpus=[], memory_gb=round(r.memory_gb, 2)) for r in s.roles],
        **(config_record(s.config) if s.config else {}),
        **(timing or {}),
    )


def placed_roles(mode: Mode, template: Assignment, gpus: list[int]) -> list[RoleOnGpus]:
    """The template's roles on the copy's GPUs: each role's block of the copy (training GPUs first)."""
    return [
        role.model_copy(update={"gpus": gpus[r.first : r.first + r.gpus]})
        for role, r in zip(template.roles, mode.sizing.roles, strict=True)
    ]


class _Assignments:
    """Assignments made from one validated template per (mode, link): a bid of thousands of
    copies has a few dozen distinct ones, and validating each copy anew cost a quarter of an xl
    solve. Only the copy number, server and GPU indices differ between copies."""

    def __init__(self, data: ProblemData) -> None:
        self._data = data
        self._templates: dict[tuple[Mode, str | None, float | None, str, int], Assignment] = {}
        self._copies = [0] * len(data.profiles)

    def place(self, mode: Mode, gpus: list[int], layout: ServerLayout, server_id: str) -> Assignment:
        """The next copy of `mode`'s run, on `gpus` of `server_id` (on a sliced build, `gpus` is the
        slot: the copy is placed on that slot's card and instance)."""
        build = layout.build
        mig = None
        if build.mig is not None:
            card, instance = build.slot_card(gpus[0])
            mig, gpus = MigSlice(card=card, profile=build.mig.name, index=instance), [card]
        link, gbps = build_link(build, gpus)
        # The speed depends on the build (host, bridges) and, across sockets, on where the block starts.
        key = (mode, link, gbps, build.key, gpus[0] if len(gpus) > 1 else 0)
        template = self._templates.get(key)
        if template is None:
            timing = _timing(
                self._data,
                mode,
                build,
                placed_speed(self._data.profiles[mode.run], self._data.catalogue, mode, build, gpus[0]),
            )
            template = self._templates[key] = _assignment(self._data, mode, link, gbps, timing)
        self._copies[mode.run] += 1
        return template.model_copy(
            update={
                "copy_": self._copies[mode.run],
                "server": server_id,
                "gpus": list(gpus),
                "nodes": [Node(server=server_id, gpus=list(gpus))],
                "roles": placed_roles(mode, template, list(gpus)),
                "mig": mig,
            }
        )

    def _multinode_timing(self, mode: Mode) -> dict[str, float | None]:
        """Tokens per second, hours and energy of a multi-node copy on its networked servers."""
        data = self._data
        option = next(o for o in data.multinode if data.modes[o.mode] is mode)
        build = option.build
        if build.nic is None:
            return _timing(data, mode, build, None)
        net = node_network(build.gpu, build.gpu_count, build.nic, build.nic_count, data.catalogue.speed)
        speed = speed_on_servers(data.profiles[mode.run], mode.sizing, build, net, data.catalogue)
        return _timing(data, mode, build, speed)

    def place_nodes(self, mode: Mode, nodes: list[Node], spares: list[str]) -> Assignment:
        """The next copy of a multi-node mode, on whole servers with its hot `spares`: its step time is
        the sizing's own, over the network (ftopt.model.fabric), and `server`, `gpus` are the first
        node's."""
        s = mode.sizing
        template = _assignment(self._data, mode, s.link, None, self._multinode_timing(mode))
        self._copies[mode.run] += 1
        return template.model_copy(
            update={
                "copy_": self._copies[mode.run],
                "server": nodes[0].server,
                "gpus": list(nodes[0].gpus),
                "nodes": nodes,
                "spares": spares,
                "roles": placed_roles(mode, template, list(nodes[0].gpus)),
                "step_seconds": round(max(s.compute_seconds, s.transfer_seconds), 4),
            }
        )


def _site(data: ProblemData) -> SiteSummary:
    """The site; with racks, its largest circuit stands for the feed (the racks report has them all)."""
    site = data.workload.site
    feed = max((data.catalogue.feed(f) for f in site.feed_ids), key=lambda f: f.usable_w)
    return SiteSummary(
        feed=feed.id, feed_usable_w=feed.usable_w, inlet_c=site.inlet_c, max_servers=site.max_servers
    )


def _runs(data: ProblemData) -> list[RunSummary]:
    return [
        RunSummary(
            name=p.run.name,
            model=p.run.model_id,
            method=p.run.method,
            method_label=p.method.label,
            seq_len=p.run.seq_len,
            micro_batch=p.run.micro_batch,
            concurrent=p.run.concurrent,
            lora_rank=p.run.lora_rank if p.method.ranked else None,
            algorithm=None if p.run.algorithm == Algorithm.SFT else p.run.algorithm.value,
            stack=p.stack.id if p.stack else None,
            train_tokens=p.run.train_tokens,
            deadline_hours=p.run.deadline_hours,
            deadline_confidence=p.run.deadline_confidence,
        )
        for p in data.profiles
    ]


def build_plan(
    data: ProblemData,
    layouts: list[ServerLayout],
    status: Status,
    bound: float,
    wall_seconds: float,
    workload_name: str | None,
) -> Plan:
    """The plan with servers numbered s1… in a deterministic order and copies numbered per run."""
    layouts = sorted(layouts, key=ServerLayout.order)
    servers, assignments = _servers_and_copies(data, layouts)
    servers, racks = _in_racks(data, servers, layouts)
    fabric = build_fabric(data.catalogue, servers)
    total = round(sum(s.price for s in servers) + (fabric.price if fabric else 0.0), 2)
    tco = plan_tco(data.workload.energy, data.workload.objective, servers, total)
    bound, gap = price_bound(tco, total, bound)
    hours = [a.hours for a in assignments if a.hours is not None]
    energies = [a.energy_kwh for a in assignments if a.energy_kwh is not None]
    return Plan(
        status=status,
        currency=data.catalogue.currency,
        total_price=total,
        bound=round(bound, 2),
        gap=round(max(gap, 0.0), 6),
        makespan_hours=max(hours) if hours else None,
        energy_kwh=round(sum(energies), 2) if energies else None,
        tco=tco,
        wall_seconds=round(wall_seconds, 3),
        workload=workload_name or data.workload.name,
        price_list=price_list_summary(data.catalogue),
        site=_site(data),
        runs=_runs(data),
        servers=servers,
        assignments=assignments,
        notes=plan_notes(data, assignments),
        fabric=fabric,
        racks=racks,
    )


def _servers_and_copies(
    data: ProblemData, layouts: list[ServerLayout]
) -> tuple[list[Server], list[Assignment]]:
    """The servers numbered s1… in the layouts' order and their copies; a multi-node copy is
    placed once all its nodes' servers are numbered."""
    servers, assignments = [], []
    placed = _Assignments(data)
    groups: dict[int, tuple[Mode, list[Node]]] = {}
    spares: dict[int, list[str]] = {}
    for number, layout in enumerate(layouts, start=1):
        server_id = f"s{number}"
        servers.append(_server(data, layout, server_id))
        if layout.group is not None:  # one node or spare of a multi-node copy: placed once all are numbered
            spares.setdefault(layout.group, []).extend([server_id] if layout.spare else [])
            for mode, gpus in layout.copies:
                groups.setdefault(layout.group, (mode, []))[1].append(Node(server=server_id, gpus=gpus))
            continue
        assignments += [placed.place(mode, gpus, layout, server_id) for mode, gpus in layout.copies]
    assignments += [placed.place_nodes(mode, nodes, spares[g]) for g, (mode, nodes) in groups.items()]
    return servers, _with_figures(data, servers, assignments)


def _with_figures(
    data: ProblemData, servers: list[Server], assignments: list[Assignment]
) -> list[Assignment]:
    """Each copy with its failure figures, then its hours at P50 and P90: servers by id and runs by
    name are looked up in dicts built once, so this is linear in copies."""
    spread = SpreadInput.of(data.catalogue.spread, data.profiles)
    failures = FailureInput(
        data.catalogue, {s.id: s for s in servers}, {p.run.name: p for p in data.profiles}, spread
    )
    return [with_spread(spread, with_failures(failures, a)) for a in assignments]


def _in_racks(
    data: ProblemData, servers: list[Server], layouts: list[ServerLayout]
) -> tuple[list[Server], list[RackUse]]:
    """The servers with their rack and circuit, and the racks' use, when the site has racks."""
    if data.workload.site.racks is None:
        return servers, []
    places = place_in_racks(data, layouts)
    if places is None:  # the searches keep within the racks; this is ftopt's bug, not the bid's
        raise ValueError("the plan's servers do not fit the site's racks")
    servers = [racked(data, server, place) for server, place in zip(servers, places, strict=True)]
    return servers, rack_uses(data, servers, layouts)
