"""The plan as a customer-facing quote: one self-contained HTML file that opens offline.

Inline CSS and an inline SVG placement diagram only: no scripts, no external stylesheets, fonts or
images, so the file can be mailed, archived and printed as it is. The sections follow the other
renderers (`render_table`, `render_markdown`): summary, placement diagram, one section per server
with its bill of materials and its power against the feed and the inlet limit, the per-run table,
what shaped the answer, and the rules and defaults that were applied. All text is escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ftopt.cli.render_frontier import three_bids_html
from ftopt.cli.render_page import CSS
from ftopt.cli.render_svg import placement_svg, run_styles, text_colour
from ftopt.cli.render_table import fabric_heading, server_heading, summary_line, training_text
from ftopt.model.findings import Finding, money
from ftopt.model.plan import LineItem, Plan, Server, Status

if TYPE_CHECKING:
    from ftopt.solver.frontier import Frontier


def _num(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def _table(headers: list[tuple[str, bool]], rows: list[list[str]], foot: list[str] | None = None) -> str:
    """A table; `headers` are (label, numeric) and cells are already-escaped HTML."""
    numeric = [n for _, n in headers]
    head = "".join(f"<th{' class=num' if n else ''}>{escape(h)}</th>" for h, n in headers)
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=num' if n else ''}>{c}</td>" for c, n in zip(row, numeric, strict=True))
        + "</tr>"
        for row in rows
    )
    tail = ""
    if foot is not None:
        tail = (
            "<tfoot><tr>"
            + "".join(f"<td{' class=num' if n else ''}>{c}</td>" for c, n in zip(foot, numeric, strict=True))
            + "</tr></tfoot>"
        )
    return f"<div class=wide><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>{tail}</table></div>"


def _names(server: Server) -> dict[str, str]:
    """Catalogue id → description, from the server's bill of materials."""
    return {line.item: line.name for line in server.bill_of_materials}


def _summary(plan: Plan) -> str:
    gpus = sum(s.gpu_count for s in plan.servers)
    power = sum(s.power_w for s in plan.servers)
    gap = f"{plan.gap:.2%}" if plan.gap is not None else "no bound"
    bound = money(plan.bound, plan.currency) if plan.bound is not None else "n/a"
    cells = [
        ("Total price", money(plan.total_price, plan.currency), ""),
        ("Currency", plan.currency, ""),
        ("Servers", str(len(plan.servers)), ""),
        ("GPUs", str(gpus), ""),
        ("Status", plan.status.value, f"status-{plan.status.value}"),
        ("Optimality gap", gap, ""),
        ("Proven lower bound", bound, ""),
        ("Full-load power", f"{power:,} W", ""),
    ]
    items = "".join(
        f"<div><dt>{escape(k)}</dt><dd{f' class={c}' if c else ''}>{escape(v)}</dd></div>"
        for k, v, c in cells
    )
    status_text = {
        Status.OPTIMAL: "The solver proved this the cheapest set of servers that runs every copy of every "
        "run at once under the rules below.",
        Status.FEASIBLE: "The search stopped at its time limit: this plan works, and no plan can be cheaper "
        "than the lower bound; the gap says by how much it might still improve.",
        Status.INFEASIBLE: "No set of servers satisfies every rule; see what shaped the answer below.",
    }[plan.status]
    price_list = escape(plan.price_list) if plan.price_list else "not stated"
    return (
        '<section id="summary"><h2>Summary</h2>'
        f'<p class="lead"><strong>{escape(summary_line(plan))}</strong></p>'
        f'<dl class="summary">{items}</dl>'
        f"<p>{escape(status_text)}</p>"
        f"{_site_line(plan)}"
        f"<p>Prices: {price_list}. Solved in {plan.wall_seconds:.2f} s.</p>{_bid(plan)}</section>"
    )


def _site_line(plan: Plan) -> str:
    """The feed and the room the plan was made for."""
    if plan.site is None:
        return ""
    site = plan.site
    limit = f"; at most {site.max_servers} servers" if site.max_servers else ""
    return (
        f"<p>Site: {escape(site.feed)} feed, {site.feed_usable_w:,} W usable per server position; "
        f"room inlet air up to {site.inlet_c:g} °C{escape(limit)}.</p>"
    )


def _bid(plan: Plan) -> str:
    """The runs the customer asked for, as the workload states them."""
    if not plan.runs:
        return ""
    rows = [
        [escape(r.name), escape(r.model), escape(r.method + (f" r{r.lora_rank}" if r.lora_rank else "")),
         f"{r.seq_len:,}", str(r.micro_batch), str(r.concurrent)]
        for r in plan.runs
    ]  # fmt: skip
    headers = [("run", False), ("model", False), ("method", False), ("sequence", True),
               ("micro-batch", True), ("copies at once", True)]  # fmt: skip
    return "<h3>The bid</h3>" + _table(headers, rows)


def _bill(lines: list[LineItem], total_label: str, total: float, currency: str) -> str:
    """A bill of materials as a table: one row per line, the total in the foot."""
    rows = [
        [escape(li.item), escape(li.name), str(li.quantity), escape(money(li.unit_price, currency)),
         escape(money(li.price, currency))]
        for li in lines
    ]  # fmt: skip
    foot = ["", total_label, "", "", escape(money(total, currency))]
    return _table(
        [("item", False), ("description", False), ("qty", True), ("unit price", True), ("price", True)],
        rows, foot,
    )  # fmt: skip


def _nvlink(server: Server, names: dict[str, str]) -> str:
    """How the server's GPUs are joined: bridges, an NVSwitch board, or PCIe only."""
    domains = escape("; ".join(", ".join(map(str, d)) for d in server.nvlink_domains))
    if server.bridge:
        bridge = escape(names.get(server.bridge, server.bridge))
        return f", {server.bridge_count} × {bridge} (NVLink domains: {domains})"
    if server.nvlink_domains:
        return f", one NVLink domain over NVSwitch ({domains})"
    return ", no NVLink bridges (GPUs talk over PCIe)"


def _server(plan: Plan, server: Server) -> str:
    names = _names(server)
    currency = plan.currency
    bom = _bill(server.bill_of_materials, "Server total", server.price, currency)
    share = server.power_w / server.feed_usable_w if server.feed_usable_w else 0.0
    over = " over" if share > 1 else ""
    gpu_name = escape(names.get(server.gpu, server.gpu))
    domains = _nvlink(server, names)
    copies = [a for a in plan.assignments if server.id in {a.server, *(n.server for n in a.nodes)}]
    runs = ", ".join(escape(f"{a.run} #{a.copy_}") for a in copies) or "none"
    return (
        f'<section class="server" id="server-{escape(server.id)}" data-server="{escape(server.id)}">'
        f"<h3>{escape(server.id)}: {server.gpu_count} × {gpu_name}</h3>"
        f'<p class="muted">{escape(server_heading(server, currency))}</p>'
        f"<p>{server.gpu_count} GPUs{domains}. Runs here: {runs}.</p>"
        f'<div class="power"><span><strong>Power</strong> {server.power_w:,} W of '
        f"{server.feed_usable_w:,} W usable on the {escape(server.feed)} feed ({share:.0%}); "
        f"cards capped at {server.gpu_power_cap_w:,} W</span>"
        f'<span class="bar{over}" role="img" aria-label="{share:.0%} of the feed">'
        f'<span style="width:{min(share, 1.0) * 100:.1f}%"></span></span>'
        f"<span><strong>Inlet air</strong> at most {server.max_inlet_c:g} °C (server limit)"
        f"{_room(plan)}</span></div>"
        f"{bom}</section>"
    )


def _fabric(plan: Plan) -> str:
    """The fabric section: what joins the servers of multi-node copies, with its own bill."""
    f = plan.fabric
    if f is None:
        return ""
    bom = _bill(f.bill_of_materials, "Fabric total", f.price, plan.currency)
    return (
        '<section class="fabric" id="fabric"><h3>Fabric</h3>'
        f"<p>{escape(fabric_heading(plan))}.</p>{bom}</section>"
    )


def _room(plan: Plan) -> str:
    return f"; the room guarantees {plan.site.inlet_c:g} °C" if plan.site else ""


def _runs(plan: Plan) -> str:
    styles = run_styles(plan)
    headers = [
        ("run", False), ("copy", True), ("server", False), ("GPUs", False), ("training", False),
        ("optimiser", False), ("offload", False), ("states", True), ("activations", True),
        ("overhead", True), ("total", True), ("free", True), ("host RAM GB", True), ("NVMe GB", True),
        ("bound s", True), ("traffic GB/step", True), ("over", False),
    ]  # fmt: skip
    rows = []
    for a in plan.assignments:
        style = styles[a.run]
        m = a.memory_per_gpu_gb
        swatch = (
            f'<span class="swatch" style="background:{style.colour};color:{text_colour(style.colour)}">'
            f"{escape(style.key)}</span>"
        )
        link = {"nvlink": "NVLink", "pcie": "PCIe"}.get(
            a.link or "", "—" if a.link is None else escape(a.link)
        )
        rows.append([
            swatch + escape(a.run), str(a.copy_), escape(a.server), escape(", ".join(map(str, a.gpus))),
            escape(training_text(a)), escape(a.optimizer.value), escape(a.offload.value), _num(m.states),
            _num(m.activations), _num(m.overhead), _num(m.total), _num(a.free_gb), _num(a.host_ram_gb, 0),
            _num(a.nvme_gb, 0), _num(a.step_seconds, 2), _num(a.traffic_gb_per_step, 2), link,
        ])  # fmt: skip
    table = _table(headers, rows) if rows else "<p>No runs were placed.</p>"
    return (
        '<section id="runs"><h2>Runs</h2>'
        "<p>One row per copy of each run. Training: the strategy, the micro-batch × accumulation, the "
        "activation recomputation and the tensor, pipeline and context degrees ftopt chose (data "
        "parallelism takes the remaining GPUs). Memory is per GPU, in GB: optimiser and model states, "
        "activations, overhead (CUDA context and allocator reserve), their total and what is left free. "
        "Bound s is a lower bound on a step at the workload's sizing MFU (compute and transfer overlapped), "
        "not the speed model's step time; traffic is what each step moves between the copy's GPUs, over "
        "NVLink when they share a bridge and PCIe otherwise.</p>"
        f"{table}</section>"
    )


def _list(items: list[Finding], empty: str) -> str:
    if not items:
        return f'<p class="muted">{escape(empty)}</p>'
    return "".join(
        [
            "<ul>",
            *(f'<li data-kind="{escape(item.kind)}">{escape(item.text)}</li>' for item in items),
            "</ul>",
        ]
    )


def _alternatives(plan: Plan) -> str:
    """The other bids a buyer may weigh: each with its extra cost, what differs and its servers."""
    if not plan.alternatives:
        return ""
    rows = []
    for alt in plan.alternatives:
        servers = "; ".join(server_heading(s, plan.currency) for s in alt.plan.servers)
        differs = "<br>".join(escape(line) for line in alt.differs)
        rows.append(
            f"<tr><td>Option {alt.rank + 1}</td>"
            f"<td class=num>{escape(money(alt.plan.total_price, plan.currency))}</td>"
            f"<td class=num>+{escape(money(alt.price_difference, plan.currency))}</td>"
            f"<td>{differs}</td><td>{escape(servers)}</td></tr>"
        )
    return (
        '<section id="alternatives"><h2>Other options</h2>'
        "<p>Option 1 is the plan above. Each further option is the next cheapest set of servers "
        "that differs from every option before it; each was checked by the independent verifier.</p>"
        "<table><thead><tr><th>option</th><th>price</th><th>more than option 1</th>"
        "<th>what differs</th><th>servers</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></section>"
    )


def render_html(plan: Plan, bids: Frontier | None = None) -> str:
    """The whole plan as one self-contained HTML5 document; with `bids`, the three-bids section."""
    title = f"Fine-tuning servers: {plan.workload}" if plan.workload else "Fine-tuning servers"
    servers = "".join(_server(plan, server) for server in plan.servers)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>"
        f'<p class="muted">Server quote prepared by ftopt · prices: '
        f"{escape(plan.price_list or plan.currency + ', price list not stated')}</p></header>",
        "<main>",
        _summary(plan),
        three_bids_html(bids) if bids is not None else "",
        '<section id="placement" class="diagram"><h2>Placement</h2>'
        "<p>Each server with its two CPU sockets and its GPUs; a GPU's colour and letter name the run "
        "it trains, its bar shows memory used against free, and dashed outlines are NVLink domains. "
        "Hover for details.</p>",
        placement_svg(plan),
        "</section>",
        '<section id="servers"><h2>Servers and bill of materials</h2>',
        servers or "<p>No servers.</p>",
        _fabric(plan),
        "</section>",
        _runs(plan),
        _alternatives(plan),
        '<section id="binding"><h2>What shaped the answer</h2>',
        _list([*plan.binding, *plan.savings], "The solver reported no single rule that shaped the answer."),
        "</section>",
        '<section id="rules"><h2>Rules and defaults applied</h2>',
        _list(plan.notes, "No rules or defaults were reported."),
        "</section>",
        "</main>",
        f"<footer>Total {escape(money(plan.total_price, plan.currency))} for {len(plan.servers)} "
        f"server{'s' if len(plan.servers) != 1 else ''}; prices are indicative "
        f"({escape(plan.price_list or 'price list not stated')}).</footer>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
