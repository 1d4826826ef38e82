"""The buyer's quote in every format: server groups with quantities, the run table, alternatives, the proof
in words with the solver's figures in an appendix, power wording true to the card, escaped text and
plain tables when the output is not a terminal."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from markdown_it import MarkdownIt
from openpyxl import load_workbook
from rich.console import Console

from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.model.plan import Plan, Status
from ftopt.model.summary import summarize
from ftopt.model.workload import QuoteDetails
from ftopt.quote.html import render_html
from ftopt.quote.markdown import render_markdown
from ftopt.quote.table import UNBOUNDED_WIDTH, render_table
from ftopt.quote.view import RUN_COLUMNS, id_ranges, margin_basis_short, run_rows, server_groups
from ftopt.quote.xlsx import write_xlsx
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve
from tests.cli.plans import sixteen_servers
from tests.quote.test_html import Page

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def solved(path: Path, **settings: object) -> Plan:
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    run = SolveSettings(time_limit=20, workers=2, what_if=False, **settings)  # type: ignore[arg-type]
    return solve(workload, catalogue, run, workload_name=workload.name).plan_or_raise()


def table_text(plan: Plan) -> str:
    out = io.StringIO()
    render_table(plan, Console(file=out, width=UNBOUNDED_WIDTH, no_color=True, highlight=False))
    return out.getvalue()


@pytest.fixture(scope="module")
def first() -> Plan:
    """The first project with one alternative: one server whose cards the 16 A feed caps at 450 W."""
    return solved(EXAMPLES / "first-project.yaml", alternatives=1)


@pytest.fixture(scope="module")
def deadline() -> Plan:
    return solved(EXAMPLES / "deadline.yaml")


def test_server_ids_are_written_as_ranges() -> None:
    assert id_ranges(["s1", "s2", "s3", "s5", "s7", "s8"]) == "s1–s3, s5, s7, s8"
    assert id_ranges(["s1"]) == "s1" and id_ranges(["a", "s2", "s3", "s4"]) == "a, s2–s4"


def test_identical_servers_are_one_group_with_a_quantity_in_every_format(first: Plan, tmp_path: Path) -> None:
    one = first.model_copy(
        update={
            "servers": first.servers[-1:],
            "assignments": [a for a in first.assignments if a.server == first.servers[-1].id],
        }
    )  # the first project's four-card server alone
    many = sixteen_servers(one)
    (group,) = server_groups(many)
    assert group.quantity == 16 and group.ids == "s1–s16"
    bill = group.server.bill_of_materials[0].name
    table, markdown, html = table_text(many), render_markdown(many), render_html(many)
    for text in (table, markdown):
        assert text.count(bill) == 1, "one bill of materials, not sixteen"
        assert "16 servers (s1–s16)" in text
    sections = Page(html).find("section", "server")
    assert [(s.attrs["data-quantity"], len(s.attrs["data-servers"].split())) for s in sections] == [
        ("16", 16)
    ]
    write_xlsx(many, tmp_path / "many.xlsx")
    book = load_workbook(tmp_path / "many.xlsx")
    assert "s1–s16" in book.sheetnames and "s2" not in book.sheetnames


def test_the_run_table_has_speed_hours_the_deadline_and_whether_it_is_met(deadline: Plan) -> None:
    rows = run_rows(deadline)
    assert sum(len(r.copies) for r in rows) == len(deadline.assignments)
    timed = next(r for r in rows if r.run is not None and r.run.deadline_hours is not None)
    assert timed.first.hours is not None and timed.deadline_met is True
    headers = [c.header for c in RUN_COLUMNS]
    for header in ("method", "GPUs per copy", "training", "tokens/s per copy", "hours", "P50 h", "P90 h",
                   "deadline h", "deadline met", "energy kWh"):  # fmt: skip
        assert header in headers
    markdown = render_markdown(deadline)
    a = timed.first
    assert a.hours_p50 is not None and a.hours_p90 is not None
    hours = f"| {a.hours:,.1f} | {a.hours_p50:,.1f} | {a.hours_p90:,.1f} |"
    assert f"{hours} {timed.run.deadline_hours:,.1f} at P90 | yes |" in markdown
    # met on the P90 hours: a deadline between the bare hours and the P90 hours is missed
    between = [
        r.model_copy(update={"deadline_hours": (a.hours + a.hours_p90) / 2}) if r.deadline_hours else r
        for r in deadline.runs
    ]
    assert [
        r.deadline_met
        for r in run_rows(deadline.model_copy(update={"runs": between}))
        if r.deadline_met is not None
    ] == [False]
    late_runs = [
        r.model_copy(update={"deadline_hours": 1.0}) if r.deadline_hours else r for r in deadline.runs
    ]
    late = deadline.model_copy(update={"runs": late_runs})
    assert [r.deadline_met for r in run_rows(late) if r.deadline_met is not None] == [False]
    assert Page(render_html(late)).find("span", "late")
    assert "| no |" in render_markdown(late)


def test_alternatives_reach_every_format(first: Plan, tmp_path: Path) -> None:
    (alt,) = first.alternatives
    price = f"{alt.plan.total_price:,.0f}"
    assert price in table_text(first) and "other options" in table_text(first)
    assert "## Other options" in render_markdown(first) and price in render_markdown(first)
    assert Page(render_html(first)).find("section", id="alternatives")
    write_xlsx(first, tmp_path / "q.xlsx")
    assert load_workbook(tmp_path / "q.xlsx")["Options"]["B2"].value == alt.plan.total_price
    for fmt in ("json", "yaml"):
        result = CliRunner().invoke(
            cli, ["solve", str(EXAMPLES / "first-project.yaml"), "--no-what-if", "--alternatives", "1",
                  "--workers", "2", "--format", fmt],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout) if fmt == "json" else yaml.safe_load(result.stdout)
        assert [a["plan"]["total_price"] for a in data["alternatives"]] == [alt.plan.total_price]


def test_alternatives_are_quoted_at_the_buyers_discount_with_their_hours(tmp_path: Path) -> None:
    """A buyer reads option 1 at the discounted price in the headline: the other options must be at
    the same discount (and say how long they take), in every format, as the summary states them."""
    first = solved(EXAMPLES / "deadline.yaml", alternatives=1)
    workload = load_workload(EXAMPLES / "deadline.yaml", load_catalogue())
    discounted = workload.model_copy(update={"quote": QuoteDetails(discount_percent=20)})
    summary = summarize(first, discounted)
    (line,) = summary.alternatives
    (alt,) = first.alternatives
    assert line.price_to_pay == pytest.approx(alt.plan.total_price * 0.8)
    assert line.more_to_pay == pytest.approx(line.price_to_pay - summary.price_to_pay)
    assert line.hours is not None and line.hours_p90 is not None and line.hours_p90 >= line.hours
    to_pay, undiscounted = f"{line.price_to_pay:,.0f}", f"{alt.plan.total_price:,.0f}"
    out = io.StringIO()
    render_table(first, Console(file=out, width=UNBOUNDED_WIDTH, no_color=True), summary=summary)
    texts = {
        "table": out.getvalue(),
        "markdown": render_markdown(first, summary=summary),
        "html": render_html(first, summary=summary),
    }
    for fmt, text in texts.items():
        options = html.unescape(re.sub(r"<[^>]+>", " ", text[text.lower().index("other options") :]))
        options = options[: options.lower().find("rules and defaults")]
        assert to_pay in options and f"{line.hours_p90:,.1f} h at P90" in options, fmt
        assert undiscounted not in options, fmt
    write_xlsx(first, tmp_path / "d.xlsx", summary=summary)
    sheet = load_workbook(tmp_path / "d.xlsx")["Options"]
    assert [c.value for c in sheet[2]][1:3] == [line.price_to_pay, line.more_to_pay]


def _before_appendix(text: str, marker: str) -> str:
    return text[: text.index(marker)]


def test_the_buyer_reads_the_proof_in_words_and_the_solvers_figures_in_the_appendix(first: Plan) -> None:
    html = render_html(first)
    markdown, table = render_markdown(first), table_text(first)
    for text, marker in (
        (html, 'id="appendix"'),
        (markdown, "## Technical appendix"),
        (table, "technical appendix"),
    ):
        buyer = _before_appendix(text, marker)
        assert "the cheapest set of servers the catalogue allows" in buyer
        for internal in ("proven lower bound", "optimality gap", "solve time", "solved in"):
            assert internal not in buyer.lower()
        assert "cx7-400g-osfp" not in buyer  # the assumed-price list is an internal
        appendix = text[text.index(marker) :]
        assert (
            "proven lower bound" in appendix and "optimality gap" in appendix and "cx7-400g-osfp" in appendix
        )


def test_an_unproven_bid_says_so_with_its_distance_from_the_bound(first: Plan) -> None:
    unproven = first.model_copy(
        update={"status": Status.FEASIBLE, "bound": first.total_price * 0.9, "gap": 0.1}
    )
    for text in (render_markdown(unproven), table_text(unproven), Page(render_html(unproven)).all_text):
        assert "stopped at its time limit before it could prove it the lowest price" in text
        assert "at most 10.0% above the cheapest possible one" in text
        assert "the cheapest set of servers the catalogue allows" not in text


def test_cards_are_called_capped_only_below_their_rating(first: Plan, tmp_path: Path) -> None:
    texts = (table_text(first), render_markdown(first), Page(render_html(first)).all_text)
    assert all("cards capped at 450 W" in t for t in texts)
    bid = yaml.safe_load((EXAMPLES / "hgx-full-70b.yaml").read_text(encoding="utf-8"))
    bid["hardware"] = {"gpus": ["b200-sxm"]}
    path = tmp_path / "b200.yaml"
    path.write_text(yaml.safe_dump(bid), encoding="utf-8")
    b200 = solved(path)
    assert {s.gpu for s in b200.servers} == {"b200-sxm"} and b200.servers[0].gpu_power_cap_w == 1000
    for text in (table_text(b200), render_markdown(b200), Page(render_html(b200)).all_text):
        assert "cards at 1,000 W" in text and "capped" not in text


def test_the_markdown_quote_does_not_let_a_bid_name_run_as_html(first: Plan) -> None:
    nasty = "<script>alert(1)</script> *bold* [link](http://x.invalid) a|b"
    runs = [r.model_copy(update={"name": nasty}) for r in first.runs[:1]] + first.runs[1:]
    copies = [
        a.model_copy(update={"run": nasty}) if a.run == first.runs[0].name else a for a in first.assignments
    ]
    plan = first.model_copy(update={"workload": nasty, "runs": runs, "assignments": copies})
    markdown = render_markdown(plan)
    assert "<script" not in markdown
    shown = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    assert "<script" not in shown and "<strong>bold" not in shown and "<a href" not in shown
    assert "&lt;script&gt;alert(1)&lt;/script&gt; *bold* [link](http://x.invalid) a|b" in shown
    # the name stays one table cell: its `|` does not split it
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt; *bold* [link](http://x.invalid) a|b</td>" in shown


def test_the_html_quote_escapes_a_script_in_the_bid_name(first: Plan) -> None:
    html = render_html(first.model_copy(update={"workload": "<script>alert(1)</script>"}))
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_saved_table_is_plain_and_whole(tmp_path: Path) -> None:
    target = tmp_path / "quote.txt"
    args = ["solve", str(EXAMPLES / "first-project.yaml"), "--no-what-if", "--workers", "2"]
    for result, text in (
        (CliRunner().invoke(cli, [*args, "-o", str(target)]), None),
        (piped := CliRunner().invoke(cli, args), piped.stdout),
    ):
        assert result.exit_code == 0, result.output
        text = text if text is not None else target.read_text(encoding="utf-8")
        assert "…" not in text and "\x1b[" not in text
        assert not set(text) & set("━┃╇│┡┩")  # ASCII rules, no box drawing
        assert "NVMe data drive 3.84 TB (PCIe Gen5 U.2/E3.S, TLC, read-intensive)" in text
        assumed = sum(1 for price in load_catalogue().prices if price.assumption)
        assert "tokens/s per copy" in text and f"assumed prices: {assumed}: " in text


def test_a_tco_bid_shows_its_tco_and_the_runs_energy_cost(deadline: Plan) -> None:
    assert deadline.tco is not None
    tco = deadline.model_copy(update={"tco": deadline.tco.model_copy(update={"objective": "tco"})})
    total = f"{deadline.tco.total:,.2f}"
    markdown, table, html = render_markdown(tco), table_text(tco), Page(render_html(tco)).all_text
    for text in (markdown, table, html):
        assert "lowest total cost of ownership" in text and total in text and "energy cost" in text
    assert "## Total cost of ownership" in markdown and "energy cost" not in render_markdown(deadline)


def test_no_internals_hands_the_buyer_a_quote_without_the_appendix(tmp_path: Path) -> None:
    args = ["solve", str(EXAMPLES / "first-project.yaml"), "--no-what-if", "--workers", "2", "--no-internals"]
    runner = CliRunner()
    for fmt, marker in (("table", "technical appendix"), ("markdown", "Technical appendix"),
                        ("html", 'id="appendix"')):  # fmt: skip
        without = runner.invoke(cli, [*args, "--format", fmt])
        with_it = runner.invoke(cli, [*args[:-1], "--format", fmt])
        assert without.exit_code == 0 == with_it.exit_code, without.output
        assert marker not in without.stdout and marker in with_it.stdout
        assert "cx7-400g-osfp" not in without.stdout and "USD 128,420" in without.stdout
        assert "the cheapest set of servers the catalogue allows" in without.stdout
    target = tmp_path / "buyer.xlsx"
    assert runner.invoke(cli, [*args, "--format", "xlsx", "-o", str(target)]).exit_code == 0
    assert {"Technical", "Placement"}.isdisjoint(load_workbook(target).sheetnames)
    plan = json.loads(runner.invoke(cli, [*args, "--format", "json"]).stdout)
    assert plan["bound"] == 128420 and plan["gap"] == 0  # the plan document keeps every field


def test_the_quote_shows_wall_draw_circuit_share_supplies_and_hours_with_failures(deadline: Plan) -> None:
    markdown, html = render_markdown(deadline), render_html(deadline)
    text = table_text(deadline)
    for server in deadline.servers:
        share = f"{server.power_w / server.feed_usable_w:.0%} of the {server.feed} circuit"
        supplies = f"{server.psu_count} × {server.psu_watts:,} W, {server.psu_redundancy}"
        for shown in (markdown, html, text):
            assert f"{server.power_w:,} W at the wall" in shown and share in shown and supplies in shown
    timed = next(a for a in deadline.assignments if a.hours_with_failures is not None)
    assert f"every {timed.checkpoint_interval_h:,.1f} h" in markdown
    assert f"| {timed.hours_with_failures:,.1f} |" in markdown


def test_servers_that_differ_only_in_their_slice_layout_are_one_bill(first: Plan) -> None:
    """A GPU-slice layout is a setting, not a thing to buy: one group, each server's layout listed."""
    from ftopt.model.plan import MigCard
    from ftopt.quote.view import group_heading

    server = first.servers[0]
    sliced = server.model_copy(update={"id": "s2", "mig": [MigCard(card=0, profiles=["3g.48gb", "3g.48gb"])]})
    plan = first.model_copy(update={"servers": [server, sliced]})
    groups = server_groups(plan)
    assert len(groups) == 1 and groups[0].quantity == 2
    heading = group_heading(plan, groups[0])
    assert "slices per server: s1: whole cards; s2: GPU 0 split 2 × 3g.48gb (MIG)" in heading


def test_a_margins_basis_is_shortened_for_its_cell_whether_it_says_cross_validated_or_held_out() -> None:
    """Plans now say "cross-validated error of STACK/METHOD" (the leave-one-source-out error);
    plans written before 2026-12-05 said "held-out error of" for the same figure: both shorten alike."""
    assert (
        margin_basis_short("cross-validated error of hf-fsdp/qlora, 5 sources") == "hf-fsdp/qlora, 5 sources"
    )
    assert margin_basis_short("held-out error of hf-fsdp/qlora, 5 sources") == "hf-fsdp/qlora, 5 sources"
    assert margin_basis_short("pooled cross-validated error of all stacks, 9 sources") == "pooled, 9 sources"
