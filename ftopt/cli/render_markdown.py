"""The plan as Markdown, for a bid document or a ticket."""

from __future__ import annotations

from ftopt.cli.render_table import (
    BOUND_HEADER,
    BOUND_NOTE,
    TIMING_HEADERS,
    fabric_heading,
    has_hours,
    placement_cells,
    server_heading,
    summary_line,
    timing_cells,
)
from ftopt.model.findings import money
from ftopt.model.plan import Plan


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_markdown(plan: Plan) -> str:
    """Summary, one section per server with its bill of materials, the placement and the rules."""
    title = f"# Fine-tuning servers: {plan.workload}" if plan.workload else "# Fine-tuning servers"
    lines = [title, "", f"**{summary_line(plan)}**", "", f"Prices: {plan.price_list}.", ""]
    if plan.site:
        lines += [
            f"Site: {plan.site.feed} feed ({plan.site.feed_usable_w:,} W usable per position), "
            f"room inlet up to {plan.site.inlet_c:g} °C.",
            "",
        ]
    for server in plan.servers:
        lines += [f"## {server.id}", "", server_heading(server, plan.currency), ""]
        lines += [_row(["item", "description", "qty", "unit", "price"]), _row(["---"] * 5)]
        lines += [
            _row(
                [
                    li.item,
                    li.name,
                    str(li.quantity),
                    money(li.unit_price, plan.currency),
                    money(li.price, plan.currency),
                ]
            )
            for li in server.bill_of_materials
        ]
        lines.append("")
    if plan.fabric is not None:
        lines += ["## Fabric", "", fabric_heading(plan), ""]
        lines += [_row(["item", "description", "qty", "unit", "price"]), _row(["---"] * 5)]
        lines += [
            _row([li.item, li.name, str(li.quantity), money(li.unit_price, plan.currency),
                  money(li.price, plan.currency)])
            for li in plan.fabric.bill_of_materials
        ]  # fmt: skip
        lines.append("")
    lines += ["## Placement", "", "Memory per GPU in GB.", ""]
    header = [
        "run",
        "copy",
        "server",
        "GPUs",
        "training (strategy, micro-batch × accumulation, recomputation, degrees)",
        "link",
        "optimizer",
        "offload",
        "states",
        "activations",
        "overhead",
        "free",
        "host RAM GB",
        BOUND_HEADER,
    ]
    timed = has_hours(plan)
    header += list(TIMING_HEADERS) if timed else []
    lines += [_row(header), _row(["---"] * len(header))]
    for a in plan.assignments:
        lines.append(_row(placement_cells(a) + (timing_cells(a) if timed else [])))
    lines += ["", BOUND_NOTE + "."]
    if plan.binding or plan.savings:
        lines += ["", "## What shaped the answer", ""] + [f"- {b}" for b in (*plan.binding, *plan.savings)]
    lines += ["", "## Rules and defaults applied", ""] + [f"- {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"
