"""The plan as terminal tables: summary, each server's bill of materials, each copy's GPUs."""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ftopt.model.findings import money
from ftopt.model.plan import Assignment, Plan, Server


def summary_line(plan: Plan) -> str:
    """Status, price, proof quality, servers and time in one sentence."""
    gap = f"gap {plan.gap:.2%}" if plan.gap is not None else "no bound"
    bound = money(plan.bound, plan.currency) if plan.bound is not None else "n/a"
    count = len(plan.servers)
    line = (
        f"{plan.status.value}: {money(plan.total_price, plan.currency)} for {count} "
        f"server{'s' if count != 1 else ''} (bound {bound}, {gap}, solved in {plan.wall_seconds:.2f} s)"
    )
    if plan.makespan_hours is not None:
        line += f"; makespan {plan.makespan_hours:,.1f} h"
    if plan.tco is not None and plan.tco.objective == "tco":
        line += f"; TCO {money(plan.tco.total, plan.currency)} over {plan.tco.years:g} years"
    return line


def has_hours(plan: Plan) -> bool:
    """Whether any copy has hours (its run gives train_tokens): then the placement shows speed too."""
    return any(a.hours is not None for a in plan.assignments)


TIMING_HEADERS = ("tok/s", "hours", "kWh")

#: The plan's `step_seconds` is the sizing's lower bound at the workload's MFU, not the speed model's
#: step (which tok/s implies): its column says so.
BOUND_HEADER = "bound s"
BOUND_NOTE = (
    "bound s: a step's lower bound at the workload's sizing MFU, compute and transfer overlapped; "
    "tok/s, hours and kWh: the speed model for this placement and power setting"
)


def timing_cells(a: Assignment) -> list[str]:
    """Tokens per second, hours to train and their energy ('-' where unknown)."""
    return [
        f"{a.tokens_per_s:,.0f}" if a.tokens_per_s is not None else "-",
        f"{a.hours:,.1f}" if a.hours is not None else "-",
        f"{a.energy_kwh:,.0f}" if a.energy_kwh is not None else "-",
    ]


def server_heading(server: Server, currency: str) -> str:
    """One line describing a server's build, power against its feed and its inlet limit."""
    bridges = f", {server.bridge_count} × {server.bridge}" if server.bridge else ""
    return (
        f"{server.id}: {server.gpu_count} × {server.gpu}{bridges} in {server.chassis}; "
        f"{server.cpu_count} × {server.cpu} ({server.cores} cores); {server.ram_gb:,} GB RAM "
        f"({server.dimm_count} × {server.dimm_gb} GB); {server.nvme_tb:g} TB NVMe; "
        f"{server.power_w:,} W of {server.feed_usable_w:,} W ({server.feed}, cards at "
        f"{server.gpu_power_cap_w} W); inlet ≤ {server.max_inlet_c:g} °C; {money(server.price, currency)}"
    )


def bom_table(server: Server, currency: str) -> Table:
    """The server's bill of materials with line prices."""
    table = Table(show_edge=False, pad_edge=False)
    for column in ("item", "description", "qty", "unit", "price"):
        table.add_column(column, justify="right" if column in ("qty", "unit", "price") else "left")
    for line in server.bill_of_materials:
        table.add_row(
            line.item,
            line.name,
            str(line.quantity),
            money(line.unit_price, currency),
            money(line.price, currency),
        )
    return table


def fabric_heading(plan: Plan) -> str:
    """One line for the fabric of multi-node copies: NICs, switches, links and price."""
    f = plan.fabric
    if f is None:
        return ""
    switches = ", ".join(f"{s.count} × {s.id} {s.role}" for s in f.switches)
    links = ", ".join(f"{g.links} {g.joins} links" for g in f.links)
    servers = len(f.nics_per_server)
    return (
        f"fabric: {f.nic_ports} ports of {f.nic} on {servers} servers; {switches}; {links}; "
        f"{money(f.price, plan.currency)} (NICs in their servers' bills)"
    )


def fabric_bom(plan: Plan) -> Table | None:
    """The fabric's bill of materials (switches and cables), or None without multi-node copies."""
    if plan.fabric is None:
        return None
    table = Table(show_edge=False, pad_edge=False)
    for column in ("item", "description", "qty", "unit", "price"):
        table.add_column(column, justify="right" if column in ("qty", "unit", "price") else "left")
    for line in plan.fabric.bill_of_materials:
        table.add_row(
            line.item, line.name, str(line.quantity), money(line.unit_price, plan.currency),
            money(line.price, plan.currency),
        )  # fmt: skip
    return table


def training_text(a: Assignment) -> str:
    """The strategy with the configuration the plan states, so an engineer can reproduce the run:
    `fsdp, mb 2×4, full, tp 2 pp 2` (accumulation and degrees only where not 1; dp is the rest)."""
    parts = [a.strategy.value]
    if a.micro_batch is not None:
        accumulation = a.accumulation or 1
        parts.append(f"mb {a.micro_batch}" + (f"×{accumulation}" if accumulation > 1 else ""))
    if a.recompute is not None:
        parts.append(a.recompute.value)
    p = a.parallelism
    if p is not None:
        split = " ".join(f"{k} {v}" for k, v in (("tp", p.tp), ("pp", p.pp), ("cp", p.cp)) if v > 1)
        parts += [split] if split else []
    return ", ".join(parts)


def placement_cells(a: Assignment) -> list[str]:
    """One copy's row of the placement table, shared by the terminal and Markdown views; a
    multi-node copy names all its servers and the GPUs it takes on each."""
    m = a.memory_per_gpu_gb
    servers = "+".join(n.server for n in a.nodes) if a.multinode else a.server
    gpus = ",".join(map(str, a.gpus)) + (f" on each of {len(a.nodes)}" if a.multinode else "")
    return [
        a.run,
        str(a.copy_),
        servers,
        gpus,
        training_text(a),
        a.link or "-",
        a.optimizer.value,
        a.offload.value,
        f"{m.states:.1f}",
        f"{m.activations:.1f}",
        f"{m.overhead:.1f}",
        f"{a.free_gb:.1f}",
        f"{a.host_ram_gb:.0f}",
        f"{a.step_seconds:.2f}",
    ]


def runs_table(plan: Plan) -> Table:
    """Each copy: server, GPUs, strategy and link, optimiser, memory per GPU, host RAM, step time."""
    table = Table(
        title="placement (memory per GPU, GB)",
        caption=BOUND_NOTE,
        caption_justify="left",
        show_edge=False,
        pad_edge=False,
    )
    headers = (
        "run",
        "copy",
        "server",
        "gpus",
        "training",
        "link",
        "optimizer",
        "offload",
        "states",
        "activ.",
        "overhead",
        "free",
        "host RAM",
        BOUND_HEADER,
    )
    timed = has_hours(plan)
    for header in headers + (TIMING_HEADERS if timed else ()):
        table.add_column(header, justify="left" if header in headers[:8] else "right")
    for a in plan.assignments:
        table.add_row(*placement_cells(a), *(timing_cells(a) if timed else ()))
    return table


def render_table(plan: Plan, console: Console) -> None:
    """Print the whole plan."""
    parts: list[object] = [Text(summary_line(plan), style="bold"), Text("")]
    for server in plan.servers:
        parts += [Text(server_heading(server, plan.currency)), bom_table(server, plan.currency), Text("")]
    fabric = fabric_bom(plan)
    if fabric is not None:
        parts += [Text(fabric_heading(plan)), fabric, Text("")]
    parts.append(runs_table(plan))
    if plan.binding or plan.savings:
        parts += [Text(""), Text("what shaped the answer:", style="bold")]
        parts += [Text(f"  - {line}") for line in (*plan.binding, *plan.savings)]
    parts += [Text(""), Text("rules and defaults applied:", style="bold")]
    parts += [Text(f"  - {note}") for note in plan.notes]
    console.print(Group(*parts))  # type: ignore[arg-type]
