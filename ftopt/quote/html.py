"""The plan as a customer-facing quote: one self-contained HTML file that opens offline.

The shared page shell (`render_page`: inline CSS, no scripts, no external stylesheets, fonts or
images) with an inline SVG placement diagram, so the file can be mailed, archived and printed as it
is. The sections follow the other quote renderers through `render_quote`: the headline and, in
words, whether the bid is proven the cheapest; the runs as asked; the three bids; the placement
diagram; one section per group (identical servers once, with their quantity) with its bill of
materials and its power against the feed; the run table (hours, deadline, energy); TCO; other
options; what shaped the answer; the rules applied; and a technical appendix with the solver's
figures and the per-copy placement. All text is escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ftopt.model.findings import money
from ftopt.model.plan import LineItem, Plan, Server
from ftopt.model.summary import (
    PlanSummary,
    Statement,
    link_words,
    method_words,
    power_basis_words,
    server_link_words,
)
from ftopt.quote.blocks import Block, quote_blocks
from ftopt.quote.frontier import three_bids_html
from ftopt.quote.gantt import schedule_svg
from ftopt.quote.page import page, table
from ftopt.quote.racks import RACK_COLUMNS, rack_rows, racks_note
from ftopt.quote.svg import placement_svg, run_styles, text_colour
from ftopt.quote.view import (
    ALTERNATIVE_COLUMNS,
    HEADROOM_COLUMNS,
    HEADROOM_NOTE,
    SCHEDULE_COLUMNS,
    ServerGroup,
    alternative_rows,
    buyer_lines,
    buyer_notes,
    circuit_share,
    fabric_heading,
    figure_lines,
    group_heading,
    headroom_cell,
    headroom_rows,
    internals,
    power_words,
    price_words,
    run_columns,
    run_rows,
    schedule_note,
    schedule_rows,
    server_groups,
    shaped,
    summary_of,
    supplies_words,
    tco_lines,
)

if TYPE_CHECKING:
    from ftopt.solver.frontier import Frontier


def _num(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def _names(server: Server) -> dict[str, str]:
    """Catalogue id → description, from the server's bill of materials."""
    return {line.item: line.name for line in server.bill_of_materials}


def _summary(plan: Plan, summary: PlanSummary, internals: bool) -> str:
    """The headline, the buyer's details, the key figures, the proof in words, the site, the
    prices and the runs as asked."""
    items = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in figure_lines(summary))
    buyer = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in buyer_lines(summary))
    return (
        '<section id="summary"><h2>Summary</h2>'
        f'<p class="lead"><strong>{escape(summary.headline)}</strong></p>'
        + (f'<dl class="buyer">{buyer}</dl>' if buyer else "")
        + f'<dl class="summary">{items}</dl>'
        f'<p class="proof status-{escape(plan.status.value)}">{escape(summary.proof)}</p>'
        f"{_site_line(plan)}<p>{escape(price_words(plan, summary, internals))}</p>{_bid(plan)}</section>"
    )


def block_html(block: Block) -> str:
    """One block of the quote as a section: title, sentence, table with its closing rows in the foot."""
    rows = [[escape(c) for c in row] for row in block.rows]
    feet = [[escape(c) for c in row] for row in block.foot]
    return (
        f'<section id="{escape(block.id)}" class="block"><h2>{escape(block.title)}</h2>'
        f"<p>{escape(block.note)}</p>{table(list(block.columns), rows, feet=feet)}{block.figure}</section>"
    )


def _site_line(plan: Plan) -> str:
    """The feed and the room the plan was made for."""
    if plan.site is None:
        return ""
    site = plan.site
    limit = f"; at most {site.max_servers} servers" if site.max_servers else ""
    if plan.racks:
        return (
            f"<p>Site: {len(plan.racks)} racks of shared circuits (see Racks); room inlet air up to "
            f"{site.inlet_c:g} °C{escape(limit)}.</p>"
        )
    return (
        f"<p>Site: {escape(site.feed)} feed, {site.feed_usable_w:,} W usable per server position; "
        f"room inlet air up to {site.inlet_c:g} °C{escape(limit)}.</p>"
    )


def _bid(plan: Plan) -> str:
    """The runs the customer asked for, as the workload states them."""
    if not plan.runs:
        return ""
    queue = plan.horizon_hours is not None
    rows = [
        [escape(r.name), escape(r.model), escape(method_words(r)),
         f"{r.seq_len:,}", str(r.micro_batch), str(r.jobs if queue and r.jobs is not None else r.concurrent),
         f"{r.train_tokens:,}" if r.train_tokens is not None else "—",
         f"{r.deadline_hours:,.1f}" if r.deadline_hours is not None else "—"]
        for r in plan.runs
    ]  # fmt: skip
    headers = [("run", False), ("model", False), ("method", False), ("sequence", True),
               ("micro-batch", True), ("jobs" if queue else "copies at once", True),
               ("training tokens", True), ("deadline h", True)]  # fmt: skip
    return "<h3>The bid</h3>" + table(headers, rows)


def _bill(lines: list[LineItem], total_label: str, total: float, currency: str) -> str:
    """A bill of materials as a table: one row per line, the total in the foot."""
    rows = [
        [escape(li.item), escape(li.name), str(li.quantity), escape(money(li.unit_price, currency)),
         escape(money(li.price, currency))]
        for li in lines
    ]  # fmt: skip
    foot = ["", escape(total_label), "", "", escape(money(total, currency))]
    headers = [("item", False), ("description", False), ("qty", True), ("unit price", True), ("price", True)]
    return table(headers, rows, foot)


def _nvlink(server: Server, names: dict[str, str]) -> str:
    """How the server's GPUs are joined, in the card maker's words: bridges, an NVSwitch board, an
    all-to-all board (AMD Infinity Fabric), or PCIe only."""
    domains = escape("; ".join(", ".join(map(str, d)) for d in server.nvlink_domains))
    link = escape(server_link_words(server))
    if server.bridge:
        bridge = escape(names.get(server.bridge, server.bridge))
        return f", {server.bridge_count} × {bridge} ({link} domains: {domains})"
    if server.nvlink_domains:
        return f", one {link} domain{' over NVSwitch' if link == 'NVLink' else ''} ({domains})"
    return ", no GPU-to-GPU bridges (GPUs talk over PCIe)"


def _group(plan: Plan, group: ServerGroup) -> str:
    """One group: how many, which servers, what runs there, power and inlet, one bill of materials."""
    server = group.server
    names = _names(server)
    currency = plan.currency
    each = " (each server)" if group.quantity > 1 else ""
    bom = _bill(server.bill_of_materials, f"Server total{each}", server.price, currency)
    gpu_name = escape(names.get(server.gpu, server.gpu))
    members = " ".join(s.id for s in group.servers)
    runs = _runs_here(plan, group)
    total = (
        f"<p><strong>{group.quantity} × {escape(money(server.price, currency))} = "
        f"{escape(money(group.price, currency))}</strong></p>"
        if group.quantity > 1
        else ""
    )
    return (
        f'<section class="server" id="group-{escape(server.id)}" data-servers="{escape(members)}" '
        f'data-quantity="{group.quantity}">'
        f"<h3>{escape(group.label)}: {server.gpu_count} × {gpu_name}</h3>"
        f'<p class="muted">{escape(group_heading(plan, group))}</p>'
        f"<p>{server.gpu_count} GPUs per server{_nvlink(server, names)}. Runs here: {runs}.</p>"
        f"{_power_block(plan, server)}{bom}{total}</section>"
    )


def _runs_here(plan: Plan, group: ServerGroup) -> str:
    """The runs with a copy on a server of the group (a multi-node copy counts on each of its
    servers), each once, in plan order; `none` for an idle group."""
    ids = {s.id for s in group.servers}
    copies = [a for a in plan.assignments if ids & {a.server, *(n.server for n in a.nodes)}]
    return ", ".join(dict.fromkeys(escape(a.run) for a in copies)) or "none"


def _power_block(plan: Plan, server: Server) -> str:
    """A server's draw against its feed (words and a bar, marked when over) and its inlet limit."""
    share = circuit_share(server)
    over = " over" if share > 1 else ""
    return (
        f'<div class="power"><span><strong>Power</strong> {server.power_w:,} W at the wall of '
        f"{server.feed_usable_w:,} W usable on the {escape(server.feed)} feed ({share:.0%}) per server; "
        f"{escape(power_words(plan, server))}"
        + (f"; {escape(power_basis_words(server))}" if power_basis_words(server) else "")
        + (f"; supplies {escape(supplies_words(server))}" if server.psu_count else "")
        + "</span>"
        f'<span class="bar{over}" role="img" aria-label="{share:.0%} of the feed">'
        f'<span style="width:{min(share, 1.0) * 100:.1f}%"></span></span>'
        f"<span><strong>Inlet air</strong> at most {server.max_inlet_c:g} °C (server limit)"
        f"{_room(plan)}</span></div>"
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


def _racks(plan: Plan) -> str:
    """The racks section: units used and the load on each circuit, when the site has racks."""
    if not plan.racks:
        return ""
    rows = [[escape(cell) for cell in row] for row in rack_rows(plan)]
    return (
        f'<section class="racks" id="racks"><h3>Racks</h3><p>{escape(racks_note(plan))}</p>'
        f"{table(list(RACK_COLUMNS), rows)}</section>"
    )


def _room(plan: Plan) -> str:
    return f"; the room guarantees {plan.site.inlet_c:g} °C" if plan.site else ""


def _swatch(plan: Plan, run: str) -> str:
    style = run_styles(plan).get(run)
    if style is None:
        return ""
    return (
        f'<span class="swatch" style="background:{style.colour};color:{text_colour(style.colour)}">'
        f"{escape(style.key)}</span>"
    )


def _runs(plan: Plan) -> str:
    """The buyer's run table: one row per run and way of training it (`run_columns`)."""
    columns, rows = run_columns(plan), []
    for row in run_rows(plan):
        cells = [escape(c.cell(row)) for c in columns]
        cells[0] = _swatch(plan, row.name) + cells[0]
        if row.deadline_met is False:
            cells = [f'<span class="late">{c}</span>' for c in cells]
        rows.append(cells)
    headers = [(c.header, c.numeric) for c in columns]
    body = table(headers, rows) if rows else "<p>No runs were placed.</p>"
    return (
        '<section id="runs"><h2>Runs</h2>'
        "<p>Copies of a run trained the same way share a row: the GPUs each copy gets, how it trains, "
        "its speed, the hours to train its tokens, its deadline and whether it is met, and the energy of "
        "all its copies. The per-copy placement is in the technical appendix.</p>"
        f"{body}</section>"
    )


def _tco(plan: Plan) -> str:
    lines = tco_lines(plan)
    if not lines:
        return ""
    rows = [[escape(k), escape(v)] for k, v in lines]
    return (
        '<section id="tco"><h2>Total cost of ownership</h2>'
        + table([("", False), ("", False)], rows)
        + "</section>"
    )


def _placement(plan: Plan) -> str:
    """Each copy: its GPUs, memory per GPU, host RAM, step time and traffic (technical appendix)."""
    headers = [
        ("run", False), ("copy", True), ("server", False), ("GPUs", False), ("strategy", False),
        ("optimiser", False), ("offload", False), ("states", True), ("activations", True),
        ("overhead", True), ("total", True), ("free", True), ("headroom (margin)", True),
        ("host RAM GB", True), ("NVMe GB", True), ("bound s", True), ("traffic GB/step", True),
        ("over", False),
    ]  # fmt: skip
    rows = []
    for a in plan.assignments:
        m = a.memory_per_gpu_gb
        link = escape(link_words(plan, a) or "—")
        rows.append([
            _swatch(plan, a.run) + escape(a.run), str(a.copy_), escape(a.server),
            escape(a.gpus_text), escape(a.strategy.value), escape(a.optimizer.value),
            escape(a.offload.value), _num(m.states), _num(m.activations), _num(m.overhead), _num(m.total),
            _num(a.free_gb), escape(headroom_cell(a)), _num(a.host_ram_gb, 0), _num(a.nvme_gb, 0),
            _num(a.step_seconds, 2),
            _num(a.traffic_gb_per_step, 2), link,
        ])  # fmt: skip
    body = table(headers, rows) if rows else "<p>No runs were placed.</p>"
    return (
        '<section id="placement-per-copy"><h3>Placement per copy</h3>'
        "<p>Memory is per GPU, in GB: optimiser and model states, activations, overhead (CUDA context "
        "and allocator reserve), their total, what is left free, and the headroom: what stays free once "
        "the memory is raised by the planning margin ftopt sizes with (in brackets). Bound s is a lower "
        "bound on a step at the workload's sizing MFU (compute and transfer overlapped), not the speed "
        "model's step time behind tokens/s; traffic is what each step moves between the copy's GPUs, over "
        "the cards' own link (the link column: NVLink, AMD Infinity Fabric) when they share one and PCIe "
        f"otherwise.</p>{body}</section>"
    )


def _list(items: tuple[Statement, ...], empty: str) -> str:
    if not items:
        return f'<p class="muted">{escape(empty)}</p>'
    return "".join(
        [
            "<ul>",
            *(f'<li data-kind="{escape(item.kind)}">{escape(item.text)}</li>' for item in items),
            "</ul>",
        ]
    )


def _alternatives(summary: PlanSummary) -> str:
    """The other bids a buyer may weigh: each with its extra cost, hours, what differs and its servers."""
    rows = alternative_rows(summary)
    if not rows:
        return ""
    cells = [[escape(c) for c in row[:4]] + ["<br>".join(escape(d) for d in alt.differs), escape(row[5])]
             for row, alt in zip(rows, summary.alternatives, strict=True)]  # fmt: skip
    return (
        '<section id="alternatives"><h2>Other options</h2>'
        "<p>Option 1 is the plan above. Each further option is the next cheapest set of servers "
        "that differs from every option before it; each was checked by the independent verifier.</p>"
        f"{table(list(ALTERNATIVE_COLUMNS), cells)}</section>"
    )


def _appendix(plan: Plan) -> str:
    """The solver's figures behind the proof, and where each copy sits."""
    rows = [[escape(k), escape(v)] for k, v in internals(plan)]
    return (
        '<section id="appendix" class="appendix"><h2>Technical appendix</h2>'
        "<p>The solver's own figures: its proven lower bound on the price, the gap between the bid and "
        "that bound, the time it took, and the catalogue prices that are assumptions.</p>"
        f"{table([('figure', False), ('value', False)], rows)}{_placement(plan)}</section>"
    )


def _rent(plan: Plan, summary: PlanSummary) -> str:
    """Buy or rent: the plan's GPU-hours at the cheapest published cloud rates, with their sources,
    when the rent covers the same runs and hours as the purchase; otherwise why it cannot."""
    rent, compared = plan.rent, summary.rent
    if compared is None:
        return ""
    if rent is None or not compared.comparable:
        return f'<section id="rent"><h2>Buy or rent</h2><p>{escape(compared.words)}</p></section>'
    rows = [
        [
            escape(s.card),
            escape(s.kind),
            f'<a href="{escape(s.url)}">{escape(s.provider)}</a>: {escape(s.offer)}'
            + (" (nearest product)" if s.match == "nearest" else ""),
            _num(s.gpu_hours),
            f"{s.usd_per_gpu_hour:,.3f}",
            escape(money(s.gpu_hours * s.usd_per_gpu_hour, plan.currency)),
            escape(s.read),
        ]
        for s in rent.sources
    ]
    rows_html = table(
        [("card", False), ("kind", False), ("rate from", False), ("GPU-hours", True), ("per GPU-hour", True),
         ("cost", True), ("read", False)],
        rows,
    )  # fmt: skip
    committed = (
        f" At committed rates {escape(money(rent.committed_cost, plan.currency))}."
        if rent.committed_cost is not None
        else " No committed rate is published for every card."
    )
    horizon = (
        f" Renting the horizon's jobs every {plan.horizon_hours:,g} h costs as much as buying these servers "
        f"after <strong>{rent.break_even_months:,.1f} months</strong> (energy not counted)."
        if rent.break_even_months is not None and plan.horizon_hours
        else ""
    )
    return (
        '<section id="rent"><h2>Buy or rent</h2>'
        f"<p>{escape(compared.words)}{committed}{horizon} Cloud rates change often; "
        f"ftopt read these on {escape(rent.read_by_ftopt)}.</p>" + rows_html + "</section>"
    )


def _headroom(summary: PlanSummary) -> str:
    """Each copy's memory left free against its planning margin (the summary's headroom lines)."""
    if not summary.headroom:
        return ""
    rows = [[escape(cell) for cell in row] for row in headroom_rows(summary)]
    return (
        f'<section id="headroom"><h2>Memory headroom</h2><p>{escape(HEADROOM_NOTE)}</p>'
        + table(list(HEADROOM_COLUMNS), rows)
        + "</section>"
    )


def _schedule(plan: Plan, summary: PlanSummary) -> str:
    """A queue plan's Gantt chart of GPUs over the horizon and its jobs as a table (the rows every
    format lists); nothing for a plan without a schedule."""
    if not plan.schedule:
        return ""
    rows = [[escape(cell) for cell in row] for row in schedule_rows(summary)]
    return (
        '<section id="schedule" class="diagram"><h2>Schedule</h2>'
        f"<p>{escape(schedule_note(summary))} One lane per GPU, one bar per job in its run's colour and "
        "letter. Hover for the hours.</p>"
        + schedule_svg(plan)
        + table(list(SCHEDULE_COLUMNS), rows)
        + "</section>"
    )


def render_html(
    plan: Plan,
    bids: Frontier | None = None,
    internals: bool = True,
    summary: PlanSummary | None = None,
    logo: str = "",
    bids_cost: Frontier | None = None,
) -> str:
    """The whole plan as one self-contained HTML5 document; with `bids`, the three-bids section (with
    `bids_cost`, the same bids at cost: the seller's copy adds cost and margin per bid); without
    `internals`, no technical appendix; `logo`, a data: URI, heads it beside the seller."""
    summary = summary_of(plan, summary)
    title = f"Fine-tuning servers: {plan.workload}" if plan.workload else "Fine-tuning servers"
    servers = "".join(_group(plan, group) for group in server_groups(plan))
    footer = (
        f"<footer>{escape(summary.headline)}. Catalogue: {escape(summary.catalogue.words)} "
        f"({escape(plan.price_list or 'price list not stated')}).</footer>"
    )
    body = [
        _summary(plan, summary, internals),
        *(block_html(block) for block in quote_blocks(plan, summary)),
        three_bids_html(bids, bids_cost) if bids is not None else "",
        '<section id="placement" class="diagram"><h2>Placement</h2>'
        "<p>Each server with its two CPU sockets and its GPUs; a GPU's colour and letter name the run "
        "it trains, its bar shows memory used against free, and dashed outlines are the GPUs each "
        "scale-up link joins (NVLink, AMD Infinity Fabric). "
        "Hover for details.</p>",
        placement_svg(plan),
        "</section>",
        _schedule(plan, summary),
        '<section id="servers"><h2>Servers and bill of materials</h2>',
        "<p>Identical servers are one group, listed once with how many to buy.</p>",
        servers or "<p>No servers.</p>",
        _fabric(plan),
        _racks(plan),
        "</section>",
        _runs(plan),
        _headroom(summary),
        _tco(plan),
        _rent(plan, summary),
        _alternatives(summary),
        '<section id="binding"><h2>What shaped the answer</h2>',
        _list(shaped(summary), "The solver reported no single rule that shaped the answer."),
        "</section>",
        '<section id="rules"><h2>Rules and defaults applied</h2>',
        _list(buyer_notes(summary), "No rules or defaults were reported."),
        "</section>",
        _appendix(plan) if internals else "",
        footer,
    ]
    subtitle = "Server quote prepared by ftopt · " + escape(summary.catalogue.words)
    return page(title, _letterhead(summary, logo) + "\n".join(body), subtitle)


def _letterhead(summary: PlanSummary, logo: str) -> str:
    """The seller's logo, name and address, and the quote's number and revision, when the bid gives them."""
    b = summary.buyer
    if b is None or (b.seller is None and b.number is None):
        return ""
    image = f'<img class="logo" src="{escape(logo)}" alt="logo">' if logo else ""
    seller = ""
    if b.seller is not None:
        address = f"<br>{escape(b.seller.address)}" if b.seller.address else ""
        seller = f"<p><strong>{escape(b.seller.name)}</strong>{address}</p>"
    number = ""
    if b.number is not None:
        revision = f", revision {b.revision}" if b.revision is not None else ""
        number = f"<p>Quote {escape(b.number)}{escape(revision)}</p>"
    return f'<div class="letterhead">{image}{seller}{number}</div>'
