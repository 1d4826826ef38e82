"""The plan as terminal tables: the buyer's view (server_groups, runs, options), then a technical appendix.

On a terminal the tables fit its width with rich's box lines; written to a file or a pipe
(`ftopt.cli.plain_console`), tables use ASCII rules and are never cut to a width, so "GPUs" never becomes
"GP…" in a saved quote.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ftopt.model.findings import money
from ftopt.model.plan import LineItem, Plan
from ftopt.model.summary import PlanSummary
from ftopt.quote.blocks import Block, quote_blocks
from ftopt.quote.racks import RACK_COLUMNS, rack_rows, racks_note
from ftopt.quote.roles import role_lines
from ftopt.quote.view import (
    ALTERNATIVE_COLUMNS,
    BOUND_NOTE,
    HEADROOM_COLUMNS,
    HEADROOM_NOTE,
    RENT_COLUMNS,
    SCHEDULE_COLUMNS,
    alternative_rows,
    buyer_lines,
    buyer_notes,
    fabric_heading,
    group_heading,
    headroom_rows,
    internals,
    placement_headers,
    placement_rows,
    price_words,
    rent_rows,
    run_table,
    schedule_note,
    schedule_rows,
    server_groups,
    shaped,
    summary_of,
    tco_lines,
)

#: Width of a console off a terminal: wider than any table, so rich never cuts a cell.
UNBOUNDED_WIDTH = 10_000


def _table(
    console: Console,
    headers: list[tuple[str, bool]],
    title: str | None = None,
    rows: Iterable[Sequence[str]] = (),
) -> Table:
    """A table with (header, numeric) columns and `rows`, styled for the console it goes to."""
    plain = console.width >= UNBOUNDED_WIDTH
    table = Table(title=title, show_edge=False, pad_edge=False, box=box.ASCII if plain else box.HEAVY_HEAD)
    for header, numeric in headers:
        table.add_column(header, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


def bom_table(console: Console, lines: list[LineItem], currency: str) -> Table:
    """A bill of materials with line prices."""
    table = _table(console, [("item", False), ("description", False), ("qty", True), ("unit", True),
                             ("price", True)])  # fmt: skip
    for line in lines:
        table.add_row(line.item, line.name, str(line.quantity), money(line.unit_price, currency),
                      money(line.price, currency))  # fmt: skip
    return table


def block_table(console: Console, block: Block) -> Table:
    """One block of the quote as a table titled by it, its sentence as the caption, totals last."""
    table = _table(console, list(block.columns), block.title.lower())
    table.caption, table.caption_justify = block.note, "left"
    for row in block.rows:
        table.add_row(*row)
    if block.foot:
        table.add_section()
        for row in block.foot:
            table.add_row(*row, style="bold")
    return table


def placement_table(console: Console, plan: Plan) -> Table:
    """Each copy: server, GPUs, strategy and link, optimiser, memory per GPU, host RAM, step time."""
    table = _table(
        console, placement_headers(plan), "placement per copy (memory per GPU, GB)", placement_rows(plan)
    )
    table.caption, table.caption_justify = BOUND_NOTE, "left"
    return table


def runs_table(console: Console, plan: Plan) -> Table:
    """The buyer's run table: one row per run and way of training it."""
    columns, rows = run_table(plan)
    return _table(console, [(c.header, c.numeric) for c in columns], "runs", rows)


def racks_table(console: Console, plan: Plan) -> Table:
    """Units used per rack and the load on each circuit."""
    return _table(console, list(RACK_COLUMNS), "racks", rack_rows(plan))


def alternatives_table(console: Console, summary: PlanSummary) -> Table | None:
    """The next cheapest bids, or None without `--alternatives`."""
    rows = alternative_rows(summary)
    if not rows:
        return None
    return _table(console, list(ALTERNATIVE_COLUMNS), "other options (option 1 is the bid above)", rows)


def schedule_table(console: Console, summary: PlanSummary) -> Table:
    """A queue plan's jobs: run, job, servers, GPUs, start and end hours."""
    return _table(console, list(SCHEDULE_COLUMNS), "schedule", schedule_rows(summary))


def headroom_table(console: Console, summary: PlanSummary) -> list[RenderableType]:
    """Each copy's memory left free against its planning margin (the summary's headroom lines)."""
    table = _table(console, list(HEADROOM_COLUMNS), "memory headroom per GPU", headroom_rows(summary))
    return [Text(""), Text(HEADROOM_NOTE), table] if summary.headroom else []


def schedule_and_rates(console: Console, plan: Plan, summary: PlanSummary) -> list[RenderableType]:
    """A queue plan's schedule and the cloud rates behind buy or rent, where the plan has them."""
    parts: list[RenderableType] = []
    if summary.schedule:
        parts += [Text(""), Text(schedule_note(summary)), schedule_table(console, summary)]
    if rates := rent_rows(plan, summary):
        parts += [Text(""), _table(console, list(RENT_COLUMNS), "buy or rent: cloud rates", rates)]
    return parts


def lead(plan: Plan, summary: PlanSummary, internals: bool) -> list[RenderableType]:
    """The headline, the buyer's details, the key figures, the proof and the prices."""
    parts: list[RenderableType] = [Text(summary.headline, style="bold")]
    parts += [Text(f"{label}: {value}") for label, value in buyer_lines(summary)]
    parts += _bullets("key figures:", [f"{f.label}: {f.value}" for f in summary.figures])
    parts += [Text(""), Text(summary.proof), Text(price_words(plan, summary, internals))]
    if summary.rent is not None:
        parts.append(Text(summary.rent.words))
    return parts


def _bullets(title: str, items: list[str]) -> list[RenderableType]:
    return [Text(""), Text(title, style="bold"), *(Text(f"  - {item}") for item in items)]


def appendix(console: Console, plan: Plan) -> list[RenderableType]:
    """The solver's internals and the per-copy placement."""
    parts: list[RenderableType] = [Text(""), Text("technical appendix", style="bold")]
    parts += [Text(f"  {label}: {value}") for label, value in internals(plan)]
    return [*parts, Text(""), placement_table(console, plan)]


def render_table(
    plan: Plan, console: Console, internals: bool = True, summary: PlanSummary | None = None
) -> None:
    """Print the whole quote; without `internals`, no technical appendix (the buyer's view only)."""
    summary = summary_of(plan, summary)
    parts: list[RenderableType] = [*lead(plan, summary, internals), Text("")]
    for block in quote_blocks(plan, summary):
        parts += [block_table(console, block), Text("")]
    parts += _hardware(console, plan)
    parts.append(runs_table(console, plan))
    parts += headroom_table(console, summary)
    parts += schedule_and_rates(console, plan, summary)
    parts += _closing(console, plan, summary)
    parts += appendix(console, plan) if internals else []
    console.print(Group(*parts))


def _hardware(console: Console, plan: Plan) -> list[RenderableType]:
    """What is bought: each server group's bill, the fabric's bill, the racks."""
    parts: list[RenderableType] = []
    for group in server_groups(plan):
        bill = bom_table(console, group.server.bill_of_materials, plan.currency)
        parts += [Text(group_heading(plan, group)), bill, Text("")]
    if plan.fabric is not None:
        bill = bom_table(console, plan.fabric.bill_of_materials, plan.currency)
        parts += [Text(fabric_heading(plan)), bill, Text("")]
    if plan.racks:
        parts += [Text(racks_note(plan)), racks_table(console, plan), Text("")]
    return parts


def _closing(console: Console, plan: Plan, summary: PlanSummary) -> list[RenderableType]:
    """After the tables: roles, TCO, alternatives, what shaped the answer, the rules applied."""
    parts: list[RenderableType] = []
    if roles := role_lines(plan):
        parts += _bullets("roles (memory per GPU):", roles)
    if tco := tco_lines(plan):
        parts += _bullets("total cost of ownership:", [f"{label}: {value}" for label, value in tco])
    if (options := alternatives_table(console, summary)) is not None:
        parts += [Text(""), options]
    if findings := shaped(summary):
        parts += _bullets("what shaped the answer:", [f.text for f in findings])
    parts += _bullets("rules and defaults applied:", [n.text for n in buyer_notes(summary)])
    return parts
