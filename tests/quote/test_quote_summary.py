"""Every quote format is a view of one plan summary (issue 26): the headline, the key figures, each
run's algorithm and adapter and a queue plan's schedule appear, the same, in the terminal table,
Markdown, HTML, the xlsx workbook, JSON and YAML, for the bundled peak, queue, owned-server, RL and
vendor-catalogue examples; the buyer's details reach every format; the queue placement diagram names
every job a GPU runs; the HTML quote's three bids are `ftopt frontier`'s own points."""

from __future__ import annotations

import io
import json
import re
from html import escape
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from openpyxl import load_workbook
from rich.console import Console

from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.model.findings import money
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, summarize
from ftopt.quote.escape import markdown_text as md
from ftopt.quote.formats import render
from ftopt.quote.svg import placement_svg, run_styles
from ftopt.quote.table import UNBOUNDED_WIDTH, render_table
from ftopt.quote.xlsx import write_xlsx
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
VENDOR = EXAMPLES / "vendor" / "catalogue"
#: (example, vendor catalogue or None): peak, queue, owned servers, RL (GRPO, DPO), vendor catalogue.
BIDS = {
    "peak": ("deadline.yaml", None),
    "queue": ("monthly-queue.yaml", None),
    "owned": ("owned-servers.yaml", None),
    "grpo": ("grpo-8b.yaml", None),
    "dpo": ("dpo-70b-lora.yaml", None),
    "vendor": ("vendor/l4-bid.yaml", VENDOR),
}


class Formats:
    """One plan rendered in every format, as text (xlsx: every cell's text, sheet by sheet)."""

    def __init__(self, plan: Plan, summary: PlanSummary, folder: Path) -> None:
        out = io.StringIO()
        render_table(
            plan, Console(file=out, width=UNBOUNDED_WIDTH, no_color=True, highlight=False), True, summary
        )
        self.table = out.getvalue()
        self.markdown = render(plan, "markdown", summary=summary) or ""
        self.html = render(plan, "html", summary=summary) or ""
        self.json = json.loads(render(plan, "json", summary=summary) or "")
        self.yaml = yaml.safe_load(render(plan, "yaml", summary=summary) or "")
        path = folder / "quote.xlsx"
        write_xlsx(plan, path, True, summary)
        self.book = load_workbook(path, data_only=True)

    def sheet_rows(self, title: str) -> list[tuple[object, ...]]:
        return list(self.book[title].iter_rows(values_only=True))

    def cells(self) -> set[str]:
        return {str(c) for sheet in self.book.worksheets for row in sheet.iter_rows(values_only=True)
                for c in row if c is not None}  # fmt: skip


@pytest.fixture(scope="module", params=list(BIDS))
def quoted(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    example, vendor = BIDS[request.param]
    catalogue = load_catalogue(overlay=vendor) if vendor else load_catalogue()
    workload = load_workload(EXAMPLES / example, catalogue)
    settings = SolveSettings(time_limit=20, workers=2, what_if=False)
    plan = solve(workload, catalogue, settings, workload_name=workload.name).plan_or_raise()
    summary = summarize(plan, workload, catalogue)
    return request.param, plan, summary, Formats(plan, summary, tmp_path_factory.mktemp(request.param))


def test_every_format_states_the_summarys_headline(quoted) -> None:
    _, plan, s, f = quoted
    assert s.headline in f.table
    assert md(s.headline) in f.markdown
    assert escape(s.headline) in f.html
    assert s.headline in f.cells()
    assert f.json["summary"]["headline"] == f.yaml["summary"]["headline"] == s.headline
    assert f.json["total_price"] == s.price == plan.total_price


def test_every_format_lists_the_key_figures(quoted) -> None:
    """Price, GPUs, owned GPUs, hours, the last job's end, the catalogue: each format shows each."""
    _, _, s, f = quoted
    labels = {fig.label for fig in s.figures}
    assert {"Price", "GPUs", "Servers", "Catalogue", "Trained at once"} <= labels
    xlsx = {(row[0], row[1]) for row in f.sheet_rows("Summary") if len(row) > 1}
    for fig in s.figures:
        assert f"{fig.label}: {fig.value}" in f.table
        assert f"- {md(fig.label)}: {md(fig.value)}" in f.markdown
        assert f"<dt>{escape(fig.label)}</dt><dd>{escape(fig.value)}</dd>" in f.html
        assert (fig.label, fig.value) in xlsx
    assert f.json["summary"]["figures"] == [fig.model_dump() for fig in s.figures]
    total = next(row for row in f.sheet_rows("Summary") if row[0] == "Total")[8]
    assert total == pytest.approx(s.price)  # the cached value a preview shows


def test_every_format_names_each_runs_algorithm_and_adapter(quoted) -> None:
    _, _, s, f = quoted
    runs = {row[0]: row[2] for row in f.sheet_rows("Runs")[1:]}
    for run in s.runs:
        assert re.search(rf"{re.escape(run.name)}\s*\|[^\n]*\|\s*{re.escape(run.method)}\s*\|", f.table)
        assert re.search(
            rf"\| {re.escape(md(run.name))} \| [^|\n]* \| {re.escape(md(run.method))} \|", f.markdown
        )
        assert f"<td>{escape(run.method)}</td>" in f.html
        assert runs[run.name] == run.method
    assert [r["method"] for r in f.json["summary"]["runs"]] == [r.method for r in s.runs]


def test_rl_runs_are_not_quoted_as_their_adapter(quoted) -> None:
    """GRPO and DPO printed as "full" or "lora r32" in every format but JSON."""
    name, _, s, f = quoted
    if name not in ("grpo", "dpo"):
        pytest.skip("not an RL bid")
    word = name.upper()
    assert all(r.method.startswith(f"{word}, ") for r in s.runs)
    for text in (f.table, f.markdown, f.html, " ".join(f.cells())):
        assert f"{word}, " in text


def test_a_queue_quote_shows_its_schedule_in_every_format(quoted) -> None:
    """The terminal table and Markdown left the schedule out."""
    name, plan, s, f = quoted
    if name != "queue":
        assert not s.schedule and "Schedule" not in f.book.sheetnames
        return
    assert len(s.schedule) == len(plan.schedule) > 0
    xlsx = {(r[0], r[1]) for r in f.sheet_rows("Schedule")[1:]}
    for job in s.schedule:
        cells = [
            job.run,
            str(job.job),
            job.servers,
            job.gpus,
            f"{job.start_hours:,.1f}",
            f"{job.end_hours:,.1f}",
        ]
        assert re.search(r"\s*\|\s*".join(map(re.escape, cells)), f.table)
        assert "| " + " | ".join(md(c) for c in cells) + " |" in f.markdown
        assert "".join(f"<td{' class=num' if i in (1, 4, 5) else ''}>{escape(c)}</td>"
                       for i, c in enumerate(cells)) in f.html  # fmt: skip
        assert (job.run, job.job) in xlsx
    assert len(f.json["summary"]["schedule"]) == len(s.schedule)
    assert s.together in f.table and md(s.together) in f.markdown


def test_buy_or_rent_is_the_same_in_every_format(quoted) -> None:
    """The cloud rates were in HTML and xlsx only; a rent of some runs stood against buying all."""
    _, plan, s, f = quoted
    if s.rent is None:
        return
    assert s.rent.words in f.table and md(s.rent.words) in f.markdown and escape(s.rent.words) in f.html
    if not s.rent.comparable:
        assert "Buy or rent" not in f.book.sheetnames and "cloud rates" not in f.table + f.markdown
        return
    assert plan.rent is not None
    xlsx = {(r[0], r[1]) for r in f.sheet_rows("Buy or rent")[1:]}
    for rate in plan.rent.sources:
        cost = money(rate.gpu_hours * rate.usd_per_gpu_hour, plan.currency)
        assert re.search(rf"{re.escape(rate.card)}\s*\|\s*{rate.kind}\s*\|[^\n]*{re.escape(cost)}", f.table)
        assert f"| {md(rate.card)} | {md(rate.kind)} |" in f.markdown and md(cost) in f.markdown
        assert escape(cost) in f.html and (rate.card, rate.kind) in xlsx


def test_a_queue_placement_names_every_job_each_gpu_runs() -> None:
    """Every GPU showed the first job only, and the legend gave 12 GPUs to a 4-GPU server."""
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "monthly-queue.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    svg = placement_svg(plan)
    keys = {run: style.key for run, style in run_styles(plan).items()}
    assert set(keys) == {r.name for r in plan.runs}
    for server in plan.servers:
        for gpu in range(server.gpu_count):
            jobs = sorted((j for j in plan.schedule if j.server == server.id and gpu in j.gpus),
                          key=lambda j: j.start_hours)  # fmt: skip
            found = re.search(rf'data-server="{server.id}" data-gpu="{gpu}"[^>]*data-jobs="([^"]*)"', svg)
            assert found is not None and found[1].split() == [f"{keys[j.run]}{j.job}" for j in jobs]
    total = sum(s.gpu_count for s in plan.servers)
    for run in plan.runs:
        legend = re.search(rf"<title>{re.escape(run.name)} \((\d+) GPUs?, (\d+) jobs?\)</title>", svg)
        assert legend is not None and int(legend[1]) <= total
        assert int(legend[2]) == sum(1 for j in plan.schedule if j.run == run.name)


def test_buyer_details_reach_every_format(tmp_path: Path) -> None:
    bid = yaml.safe_load((EXAMPLES / "first-project.yaml").read_text(encoding="utf-8"))
    bid["quote"] = {"customer": "ACME Labs", "reference": "Q-2026-117", "valid_until": "2027-01-31",
                    "discount_percent": 12.5, "notes": "Prices exclude VAT."}  # fmt: skip
    workload = tmp_path / "quoted.yaml"
    workload.write_text(yaml.safe_dump(bid), encoding="utf-8")
    runner = CliRunner()
    base = ["solve", str(workload), "--workers", "2", "--no-what-if", "--time-limit", "20"]
    texts = {}
    for fmt in ("table", "markdown", "html", "json", "yaml"):
        done = runner.invoke(cli, [*base, "--format", fmt])
        assert done.exit_code == 0, done.output
        texts[fmt] = done.stdout
    done = runner.invoke(cli, [*base, "--format", "xlsx", "-o", str(tmp_path / "q.xlsx")])
    assert done.exit_code == 0, done.output
    book = load_workbook(tmp_path / "q.xlsx", data_only=True)
    texts["xlsx"] = " ".join(str(c) for row in book["Summary"].iter_rows(values_only=True) for c in row if c)
    summary = json.loads(texts["json"])["summary"]
    assert summary["buyer"]["customer"] == {"name": "ACME Labs", "contact": None}
    to_pay = summary["price_to_pay"]
    assert to_pay == pytest.approx(summary["price"] * 0.875, abs=0.01)
    for fmt, text in texts.items():
        for words in ("ACME Labs", "Q-2026-117", "2027-01-31", "Prices exclude VAT.", "12.5 %"):
            assert words in text, (fmt, words)
    assert summary["commercial"]["total"] == to_pay  # no tax, services or shipping: the total is that
    pay = [row for row in book["Summary"].iter_rows(values_only=True) if row[0] == "Price to pay"][-1][8]
    assert pay == pytest.approx(to_pay, abs=0.01)


def test_the_schema_and_the_reader_know_the_quote_block(tmp_path: Path) -> None:
    schema = json.loads(CliRunner().invoke(cli, ["schema"]).stdout)
    assert set(schema["$defs"]["QuoteDetails"]["properties"]) >= {
        "customer", "reference", "valid_until", "discount_percent", "notes", "number", "revision", "seller",
        "margin_percent", "tax_percent", "shipping", "services", "payment_terms", "currency"}  # fmt: skip
    bid = yaml.safe_load((EXAMPLES / "first-project.yaml").read_text(encoding="utf-8"))
    bid["quote"] = {"customer": "ACME", "discount_percent": 120}
    workload = tmp_path / "bad.yaml"
    workload.write_text(yaml.safe_dump(bid), encoding="utf-8")
    done = CliRunner().invoke(cli, ["solve", str(workload)])
    assert done.exit_code == 2 and "quote.discount_percent" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.output


def test_a_vendor_quote_names_its_catalogue_in_every_format(tmp_path: Path) -> None:
    """Vendor-catalogue quotes called the prices indicative and never named the catalogue."""
    runner = CliRunner()
    base = ["solve", str(EXAMPLES / "vendor" / "l4-bid.yaml"), "--catalogue", str(VENDOR), "--workers", "2",
            "--no-what-if", "--no-frontier"]  # fmt: skip
    digest = load_catalogue(overlay=VENDOR).origin.content_hash
    assert digest
    for fmt in ("table", "markdown", "html", "json"):
        done = runner.invoke(cli, [*base, "--format", fmt])
        assert done.exit_code == 0, done.output
        assert digest in done.stdout and "indicative" not in done.stdout.replace("indicative assum", ""), fmt
    done = runner.invoke(cli, [*base, "--format", "xlsx", "-o", str(tmp_path / "v.xlsx")])
    cells = [str(c) for row in load_workbook(tmp_path / "v.xlsx")["Summary"].iter_rows(values_only=True)
             for c in row if c]  # fmt: skip
    assert any(digest in c for c in cells)


def test_the_quotes_three_bids_are_the_frontiers_own_points(tmp_path: Path) -> None:
    """The quote's "fastest" (66.3 h) was slower than `ftopt frontier`'s (54.5 h) on the same bid,
    and its knee differed: the quote searched a smaller frontier under its own budget."""
    runner = CliRunner()
    bid = str(EXAMPLES / "deadline.yaml")
    common = ["--workers", "2", "--time-limit", "20"]
    found = runner.invoke(cli, ["frontier", bid, "--format", "json", *common])
    assert found.exit_code == 0, found.output
    points = json.loads(found.stdout)["points"]
    page = tmp_path / "q.html"
    done = runner.invoke(cli, ["solve", bid, "--format", "html", "-o", str(page), "--no-what-if", *common])
    assert done.exit_code == 0, done.output
    rows = dict(re.findall(r"<tr><td>(cheapest|knee|fastest)</td><td class=num>[^<]*</td><td class=num>"
                           r"[^<]*</td><td class=num>([\d.,]+)</td>", page.read_text()))  # fmt: skip
    fastest = min(p["makespan_hours"] for p in points)
    cheapest = min(points, key=lambda p: (p["total_price"], p["makespan_hours"]))["makespan_hours"]
    assert float(rows["fastest"].replace(",", "")) == pytest.approx(fastest, abs=0.05)
    assert float(rows["cheapest"].replace(",", "")) == pytest.approx(cheapest, abs=0.05)
    assert f"{len(points)}-point frontier" in page.read_text()


def test_a_plan_file_with_its_summary_still_verifies(tmp_path: Path) -> None:
    """JSON carries the summary beside the plan; `ftopt verify` reads the plan and re-derives it."""
    runner = CliRunner()
    bid = str(EXAMPLES / "monthly-queue.yaml")
    plan_file = tmp_path / "plan.json"
    done = runner.invoke(cli, ["solve", bid, "--format", "json", "-o", str(plan_file), "--no-what-if"])
    assert done.exit_code == 0, done.output
    data = json.loads(plan_file.read_text(encoding="utf-8"))
    assert data["summary"]["mode"] == "queue"
    checked = runner.invoke(cli, ["verify", bid, str(plan_file)])
    assert checked.exit_code == 0, checked.output
    catalogue = load_catalogue()
    workload = load_workload(Path(bid), catalogue)
    result = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, what_if=False))
    assert summarize(result, workload, catalogue) == summarize(result.plan_or_raise(), workload, catalogue)
