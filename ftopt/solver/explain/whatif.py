"""What shaped the optimum, and what a relaxation would save.

Two kinds of lines for the quote. *Binding rules* are read off the plan and the problem data at no
cost: a feed that forces capped cards, host RAM or NVMe bought beyond the base build for offloaded
states or checkpoints, cards the room's inlet rules out, runs that memory forces onto several
cards, the server limit reached. *Relaxations* re-solve the bid once each with one rule eased (the
next larger feed, a cooler room, 8-bit Adam allowed, no server limit) and report a saving only
where the re-solve proves one.
"""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import Finding, FindingKind, finding
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Assignment, Plan, Server
from ftopt.model.result import Result
from ftopt.model.workload import Optimizer, Workload
from ftopt.solver.cpsat import families
from ftopt.solver.problem.data import ProblemData


def _power_lines(data: ProblemData, plan: Plan) -> list[Finding]:
    return [
        finding(
            FindingKind.POWER_CAP,
            server.id,
            feed=server.feed,
            feed_usable_w=server.feed_usable_w,
            gpu_count=server.gpu_count,
            gpu=server.gpu,
            cap_w=server.gpu_power_cap_w,
        )
        for server in plan.servers
        if server.gpu_power_cap_w < data.catalogue.gpu(server.gpu).power_w
    ]


def _host_lines(data: ProblemData, plan: Plan) -> list[Finding]:
    held = _held_by_server(plan)
    return [
        line for server in plan.servers for line in _server_host_lines(data, server, held.get(server.id, []))
    ]


def _held_by_server(plan: Plan) -> dict[str, list[Assignment]]:
    """The copies each server holds, grouped once (a per-server scan is quadratic on 2,000-copy
    bids); each server of a multi-node copy holds its share of RAM and checkpoints."""
    on_server: dict[str, list[Assignment]] = {}
    for a in plan.assignments:
        if a.multinode:
            k = len(a.nodes)
            share = a.model_copy(update={"host_ram_gb": a.host_ram_gb / k, "nvme_gb": a.nvme_gb / k})
            for node in a.nodes:
                on_server.setdefault(node.server, []).append(share)
            continue
        on_server.setdefault(a.server, []).append(a)
    return on_server


def _server_host_lines(data: ProblemData, server: Server, held: list[Assignment]) -> list[Finding]:
    """One server's host lines: RAM for offloaded states, NVMe for checkpoints, each bought beyond
    the base build."""
    lines = [_ram_line(data, server, held), _nvme_line(data, server, held)]
    return [line for line in lines if line is not None]


def _ram_line(data: ProblemData, server: Server, held: list[Assignment]) -> Finding | None:
    """Host RAM bought for offloaded states: a smaller DIMM would have covered the base build's RAM."""
    rules = data.catalogue.rules
    base_ram = rules.host_ram_per_gpu_memory * server.gpu_count * data.catalogue.gpu(server.gpu).memory_gb
    offloads = [a for a in held if a.host_ram_gb > 0]
    smaller = [d.gb * server.dimm_count for d in data.catalogue.dimms if d.gb < server.dimm_gb]
    if not offloads or not any(base_ram <= gb for gb in smaller):
        return None
    return finding(
        FindingKind.HOST_RAM,
        server.id,
        runs=sorted({a.run for a in offloads}),
        need_gb=round(sum(a.host_ram_gb for a in offloads), 1),
        reserve_gb=rules.host_ram_reserve_gb,
        ram_gb=server.ram_gb,
    )


def _nvme_line(data: ProblemData, server: Server, held: list[Assignment]) -> Finding | None:
    """NVMe bought for checkpoints beyond the base build's data drives."""
    checkpoints = sum(a.nvme_gb for a in held)
    if checkpoints <= data.catalogue.rules.data_tb_per_socket * server.cpu_count * 1000:
        return None
    return finding(FindingKind.NVME, server.id, need_gb=round(checkpoints, 1), nvme_tb=server.nvme_tb)


def _memory_lines(data: ProblemData, plan: Plan) -> list[Finding]:
    lines, seen = list[Finding](), set()
    runs = {p.run.name: p.run for p in data.profiles}
    cards = {s.id: s.gpu for s in plan.servers}  # by id once: a scan per copy was quadratic
    for a in plan.assignments:
        run = runs[a.run]
        if run.gpus == "auto" and a.gpu_count > 1 and a.run not in seen:
            seen.add(a.run)
            lines.append(
                finding(
                    FindingKind.MULTI_GPU,
                    a.run,
                    gpus=a.gpu_count,
                    gpu=cards[a.server],
                    strategy=a.strategy.value,
                    per_gpu_gb=a.memory_per_gpu_gb.total,
                )
            )
    return lines


def binding_rules(data: ProblemData, plan: Plan) -> list[Finding]:
    """The rules that visibly shaped this plan, read off the plan and the filtered builds, then each
    constraint family's lines (the server limit, a full liquid loop)."""
    lines = _power_lines(data, plan) + _host_lines(data, plan) + _memory_lines(data, plan)
    lines += [reason for reason in data.excluded if reason.kind == FindingKind.INLET]
    return lines + families.findings(data, plan)


def _next_feed(catalogue: Catalogue, feed_id: str) -> str | None:
    current = catalogue.feed(feed_id).usable_w
    bigger = sorted((f for f in catalogue.feeds if f.usable_w > current), key=lambda f: f.usable_w)
    return bigger[0].id if bigger else None


def relaxations(data: ProblemData) -> list[tuple[str, Workload]]:
    """Eased copies of the workload, each with the words for what was eased: the feed, the inlet and
    the optimiser here, then each constraint family's (no server limit, a larger liquid loop)."""
    eased = [_bigger_feed(data), _cooler_inlet(data), _eight_bit_adam(data)]
    return [e for e in eased if e is not None] + families.relaxations(data)


def _bigger_feed(data: ProblemData) -> tuple[str, Workload] | None:
    """The next larger feed (racked sites are eased through their circuits instead)."""
    workload, site = data.workload, data.workload.site
    feed = _next_feed(data.catalogue, site.feed) if site.racks is None else None
    if not feed:
        return None
    return f"a {feed} feed", workload.model_copy(update={"site": site.model_copy(update={"feed": feed})})


def _cooler_inlet(data: ProblemData) -> tuple[str, Workload] | None:
    """The warmest inlet limit of a chassis–card pair that the room's inlet now exceeds."""
    workload, catalogue, site = data.workload, data.catalogue, data.workload.site
    pairs = [c.inlet_limit_c(g) for g in catalogue.gpus for c in catalogue.chassis if c.takes(g)]
    warm = [limit for limit in pairs if site.inlet_c > limit]
    if not warm:
        return None
    cooler = min(warm)
    return (
        f"an inlet of {cooler:g} °C",
        workload.model_copy(update={"site": site.model_copy(update={"inlet_c": cooler})}),
    )


def _eight_bit_adam(data: ProblemData) -> tuple[str, Workload] | None:
    """8-bit Adam for every run fixed at 32-bit whose method would pick 8-bit on its own."""
    workload, catalogue = data.workload, data.catalogue
    fixed = [
        r
        for r in workload.runs
        if r.optimizer == Optimizer.ADAMW_32BIT
        and Optimizer.ADAMW_8BIT in catalogue.methods.method(r.method).offers.auto_optimizers
    ]
    if not fixed:
        return None
    runs = tuple(r.model_copy(update={"optimizer": "auto"}) if r in fixed else r for r in workload.runs)
    return f"8-bit Adam for {', '.join(r.name for r in fixed)}", workload.model_copy(update={"runs": runs})


def savings(data: ProblemData, plan: Plan, resolve: Callable[[Workload], Result]) -> list[Finding]:
    """One re-solve per relaxation; a finding for each that is proven cheaper."""
    found = []
    for words, workload in relaxations(data):
        eased = resolve(workload).plan
        if eased is not None and eased.total_price < plan.total_price - 0.005:
            found.append(
                finding(
                    FindingKind.SAVING,
                    words,
                    saved=round(plan.total_price - eased.total_price, 2),
                    eased_price=eased.total_price,
                    price=plan.total_price,
                    currency=plan.currency,
                    eased_status=eased.status.value,
                )
            )
    return found
