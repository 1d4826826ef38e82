"""The plan as Markdown, for a bid document or a ticket: the buyer's view, then a technical appendix.

Every text that comes from the workload or a catalogue (bid and run names, item descriptions, the
findings that quote them) goes through `markdown_text`, so a renderer that allows HTML shows a bid
named `<script>…</script>` as text and `*` or `|` never restyle a line or break a table.
"""

from __future__ import annotations

from ftopt.model.findings import money
from ftopt.model.plan import LineItem, Plan
from ftopt.model.summary import PlanSummary
from ftopt.quote.blocks import Block, quote_blocks
from ftopt.quote.escape import markdown_text as md
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


def _row(cells: list[str]) -> str:
    """A table row of plain-text cells, each escaped."""
    return "| " + " | ".join(md(c) for c in cells) + " |"


def _rule(numeric: list[bool]) -> str:
    return "| " + " | ".join("---:" if n else "---" for n in numeric) + " |"


def _head(columns: list[tuple[str, bool]]) -> list[str]:
    """A table's header row and its alignment rule, from (header, numeric) columns."""
    return [_row([h for h, _ in columns]), _rule([numeric for _, numeric in columns])]


def _bill(lines: list[LineItem], currency: str) -> list[str]:
    rows = [_row(["item", "description", "qty", "unit", "price"]), _rule([False, False, True, True, True])]
    rows += [
        _row([li.item, li.name, str(li.quantity), money(li.unit_price, currency), money(li.price, currency)])
        for li in lines
    ]
    return [*rows, ""]


def _bullets(items: list[str]) -> list[str]:
    return [f"- {md(item)}" for item in items]


def _alternatives(summary: PlanSummary) -> list[str]:
    rows = alternative_rows(summary)
    if not rows:
        return []
    lines = [
        "## Other options",
        "",
        "Option 1 is the bid above; each option was checked by the verifier.",
        "",
    ]
    lines += _head(list(ALTERNATIVE_COLUMNS))
    return [*lines, *(_row(row) for row in rows), ""]


def _appendix(plan: Plan) -> list[str]:
    lines = ["## Technical appendix", ""]
    lines += [f"- {md(label)}: {md(value)}" for label, value in internals(plan)]
    lines += [
        "",
        "### Placement per copy",
        "",
        "Memory per GPU in GB; headroom is what stays free after the planning memory margin.",
        "",
    ]
    lines += _head(placement_headers(plan))
    lines += [_row(row) for row in placement_rows(plan)]
    return [*lines, "", md(BOUND_NOTE + ".")]


def _lead(plan: Plan, summary: PlanSummary, internals: bool) -> list[str]:
    """The headline, the buyer's details, the key figures, the proof, the prices, buy or rent."""
    lines = [f"**{md(summary.headline)}**", ""]
    if buyer := buyer_lines(summary):
        lines += [*(f"- {md(label)}: {md(value)}" for label, value in buyer), ""]
    lines += ["## Key figures", "", *(f"- {md(f.label)}: {md(f.value)}" for f in summary.figures), ""]
    lines += [md(summary.proof), "", md(price_words(plan, summary, internals)), ""]
    return lines + ([md(summary.rent.words), ""] if summary.rent is not None else [])


def _headroom(summary: PlanSummary) -> list[str]:
    """Each copy's memory left free against its planning margin (the summary's headroom lines)."""
    if not summary.headroom:
        return []
    lines = ["## Memory headroom", "", md(HEADROOM_NOTE), "", *_head(list(HEADROOM_COLUMNS))]
    return [*lines, *(_row(row) for row in headroom_rows(summary)), ""]


def _schedule(summary: PlanSummary) -> list[str]:
    if not summary.schedule:
        return []
    lines = ["## Schedule", "", md(schedule_note(summary)), "", *_head(list(SCHEDULE_COLUMNS))]
    return [*lines, *(_row(row) for row in schedule_rows(summary)), ""]


def render_markdown(plan: Plan, internals: bool = True, summary: PlanSummary | None = None) -> str:
    """Headline and proof, one section per server group, runs, schedule, TCO, options, findings,
    then (with `internals`) the technical appendix."""
    summary = summary_of(plan, summary)
    title = f"# Fine-tuning servers: {md(plan.workload)}" if plan.workload else "# Fine-tuning servers"
    lines = [title, "", *_lead(plan, summary, internals), *_blocks(plan, summary)]
    lines += [*_site(plan), *_hardware(plan)]
    lines += [*_tables(plan, summary), *_closing(plan, summary)]
    lines += _appendix(plan) if internals else []
    return "\n".join(lines) + "\n"


def block_lines(block: Block) -> list[str]:
    """One block of the quote as a Markdown section: title, sentence, table, its closing rows in bold."""
    lines = [f"## {md(block.title)}", "", md(block.note), "", *_head(list(block.columns))]
    lines += [_row(list(row)) for row in block.rows]
    lines += ["| " + " | ".join(f"**{md(c)}**" if c else "" for c in row) + " |" for row in block.foot]
    return [*lines, ""]


def _blocks(plan: Plan, summary: PlanSummary) -> list[str]:
    return [line for block in quote_blocks(plan, summary) for line in block_lines(block)]


def _site(plan: Plan) -> list[str]:
    """Where the servers stand: one feed per position, or the racks' shared circuits; the inlet."""
    if not plan.site:
        return []
    where = (
        f"{len(plan.racks)} racks of shared circuits (see Racks)"
        if plan.racks
        else f"{plan.site.feed} feed ({plan.site.feed_usable_w:,} W usable per position)"
    )
    return [md(f"Site: {where}, room inlet up to {plan.site.inlet_c:g} °C."), ""]


def _hardware(plan: Plan) -> list[str]:
    """What is bought: a section and bill per server group, the fabric's bill, the racks."""
    lines: list[str] = []
    for group in server_groups(plan):
        lines += [f"## {md(group.label)}", "", md(group_heading(plan, group)), ""]
        lines += _bill(group.server.bill_of_materials, plan.currency)
    if plan.fabric is not None:
        lines += [
            "## Fabric",
            "",
            md(fabric_heading(plan)),
            "",
            *_bill(plan.fabric.bill_of_materials, plan.currency),
        ]
    if plan.racks:
        lines += ["## Racks", "", md(racks_note(plan)), "", *_head(list(RACK_COLUMNS))]
        lines += [*(_row(row) for row in rack_rows(plan)), ""]
    return lines


def _tables(plan: Plan, summary: PlanSummary) -> list[str]:
    """What runs where and when: the runs, a queue's schedule, the cloud rates to rent instead."""
    columns, rows = run_table(plan)
    lines = ["## Runs", "", *_head([(c.header, c.numeric) for c in columns])]
    lines += [*(_row(row) for row in rows), ""]
    lines += _headroom(summary)
    lines += _schedule(summary)
    if rates := rent_rows(plan, summary):
        lines += ["## Buy or rent: cloud rates", "", *_head(list(RENT_COLUMNS))]
        lines += [*(_row(row) for row in rates), ""]
    return lines


def _closing(plan: Plan, summary: PlanSummary) -> list[str]:
    """The sections after the tables: roles, TCO, alternatives, what shaped the answer, the rules."""
    lines: list[str] = []
    if roles := role_lines(plan):
        lines += ["## Roles (memory per GPU)", "", *_bullets(roles), ""]
    if tco := tco_lines(plan):
        lines += ["## Total cost of ownership", "", *_bullets([f"{k}: {v}" for k, v in tco]), ""]
    lines += _alternatives(summary)
    if findings := shaped(summary):
        lines += ["## What shaped the answer", "", *_bullets([f.text for f in findings]), ""]
    lines += ["## Rules and defaults applied", "", *_bullets([n.text for n in buyer_notes(summary)]), ""]
    return lines
