"""The combination matrix (issue 26): every pair of features in at least one small workload, and
every bundled example, through every command.

Features: peak, queue, inventory, stock and lead times, racks, vendor catalogue, multi-node, RL,
deadlines (and the frontier), the `tco` objective, alternatives. Nine of them combine freely with
peak: the twelve triples of `affine_plane_triples` hold each of their 36 pairs once. Queue pairs come
in a few queue workloads, and the pairs ftopt does not support yet are data (`UNSUPPORTED`), listed
word for word in the "Combinations not supported" table of docs/reference/commands.md: every command
on them must end in the documented one line and exit 2.

Each workload is solved once (`solve --format json`, which carries the plan and its `summary`); the
other formats are rendered in-process from that plan and summary. The summary's figures (price,
GPUs, owned GPUs, hours, the last job's end) must be what the plan itself holds, and each format's
headline must be the summary's. Then `verify`, `estimate`, `frontier`, `sweep` and
`sweep-report` run on it. Everything goes through click's in-process runner with short limits.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result
from openpyxl import load_workbook

from ftopt.cli.solve import write_plan
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, power_basis_words, spares_words
from ftopt.quote.formats import render
from ftopt.quote.view import headroom_rows
from tests.combinations.fragments import FEATURES, ROOT, Combination, affine_plane_triples
from tests.commands import invoke

TIME_LIMIT = "5"

#: Features that combine with peak (every copy at once): each pair of them in one triple.
WITH_PEAK = ("inventory", "stock", "racks", "vendor", "multinode", "rl", "deadlines", "tco", "alternatives")
#: Queue workloads: with each feature a queue takes, and alone with the one `solve` refuses.
QUEUE_GROUPS = (
    ("queue", "stock", "vendor", "deadlines"),
    ("queue", "multinode", "tco"),
    ("queue", "rl"),
    ("queue", "alternatives"),
    ("queue", "inventory", "racks"),
)
COMBINATIONS = [Combination(t) for t in affine_plane_triples(WITH_PEAK)] + [
    Combination(g) for g in QUEUE_GROUPS
]

#: Every command the matrix runs.
COMMANDS = ("solve", "estimate", "frontier", "verify", "sweep", "sweep-report")

#: Pairs ftopt does not support: the line each refused command ends in (exit 2), and which commands
#: refuse it. `peak` and `queue` are the two modes of one bid: no workload holds both, so no line.
UNSUPPORTED: dict[frozenset[str], tuple[str | None, tuple[str, ...]]] = {
    frozenset({"peak", "queue"}): (None, ()),
}

EXAMPLES = [*sorted((ROOT / "examples").glob("*.yaml")), ROOT / "examples" / "vendor" / "l4-bid.yaml"]
VENDOR_ARGS = ["--catalogue", str(ROOT / "examples" / "vendor" / "catalogue")]


class Case:
    """One workload of the matrix: a combination or a bundled example, and its command flags."""

    def __init__(self, name: str, path: Path | None, combination: Combination | None, catalogue: list[str]):
        self.name, self.path, self.combination, self.catalogue = name, path, combination, catalogue

    def refusal(self, command: str) -> str | None:
        """The documented line `command` ends in on this combination, or None when it must work."""
        if self.combination is None:
            return None
        found = [UNSUPPORTED[p] for p in self.combination.pairs() if p in UNSUPPORTED]
        return next((line for line, commands in found if line and command in commands), None)

    @property
    def unsupported(self) -> str | None:
        """The line of a combination every command refuses (no plan to render or verify)."""
        lines = [self.refusal(command) for command in COMMANDS]
        return lines[0] if all(lines) else None

    @property
    def solve_args(self) -> list[str]:
        alternatives = self.combination is not None and "alternatives" in self.combination.features
        alternatives = alternatives and not self.refusal("solve")
        return [
            *self.catalogue,
            "--time-limit",
            TIME_LIMIT,
            "--no-what-if",
            *(["--alternatives", "1"] * alternatives),
        ]


def _is_queue(path: Path | None) -> bool:
    """Whether a bundled example is a queue bid."""
    return path is not None and "queue" in (yaml.safe_load(path.read_text(encoding="utf-8")) or {})


CASES = [Case(c.name, None, c, c.catalogue_args) for c in COMBINATIONS] + [
    Case(f"example:{p.stem}", p, None, VENDOR_ARGS if p.parent.name == "vendor" else []) for p in EXAMPLES
]
_SOLVED: dict[str, tuple[Path, Path, Plan, PlanSummary]] = {}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("matrix")


def _clean(result: Result) -> None:
    """No traceback, whatever the exit."""
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


def _refused(result: Result, line: str) -> None:
    """The documented refusal: exit 2 and one line that says it."""
    _clean(result)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and line in result.stderr, result.stderr


def workload_of(case: Case, folder: Path) -> Path:
    if case.path is not None:
        return case.path
    assert case.combination is not None
    return case.combination.write(folder)


def solved(case: Case, folder: Path) -> tuple[Path, Path, Plan, PlanSummary]:
    """(workload, plan JSON, plan, its summary) of a supported case, solved once for every test."""
    if case.name not in _SOLVED:
        workload = workload_of(case, folder)
        output = folder / f"{case.name.replace(':', '-')}.plan.json"
        result = invoke("solve", workload, "--format", "json", "-o", output, *case.solve_args)
        _clean(result)
        assert result.exit_code == 0, result.output
        data = json.loads(output.read_text(encoding="utf-8"))
        summary = PlanSummary.model_validate(data.pop("summary"))
        _SOLVED[case.name] = (workload, output, Plan.model_validate(data), summary)
    return _SOLVED[case.name]


def by_name(cases: list[Case]) -> Any:
    return pytest.mark.parametrize("case", cases, ids=[c.name for c in cases])


# --- the matrix covers what it claims ---------------------------------------------------------------


def test_every_pair_of_features_has_a_workload_or_a_documented_refusal():
    covered = set().union(*(c.pairs() for c in COMBINATIONS))
    every = {frozenset({a, b}) for i, a in enumerate(FEATURES) for b in FEATURES[i + 1 :]}
    assert len(every) == 55
    assert every - covered == {frozenset({"peak", "queue"})}
    refused = {p for c in COMBINATIONS for p in c.pairs() if p in UNSUPPORTED}
    assert refused == set(UNSUPPORTED) - {frozenset({"peak", "queue"})}


def test_the_commands_reference_lists_exactly_the_unsupported_pairs():
    text = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    section = text.split("## Combinations not supported", 1)[1].split("\n#", 1)[0]
    found = {}
    for row in (line for line in section.splitlines() if line.startswith("| `")):
        pair, says, commands = [cell.strip() for cell in row.strip("|").split("|")[:3]]
        features = frozenset(re.findall(r"`([a-z]+)`", pair))
        line = says[1:-1] if says.startswith("`") else None
        refused = COMMANDS if commands == "every command" else tuple(re.findall(r"`([a-z-]+)`", commands))
        found[features] = (line, refused)
    assert found == UNSUPPORTED


# --- every command on every case --------------------------------------------------------------------


@by_name(CASES)
def test_solve_gives_a_verified_plan_in_json_and_yaml(case: Case, folder: Path):
    refused = case.refusal("solve")
    if refused:
        features = case.combination.features if case.combination else ()
        flags = ["--alternatives", "1"] if "alternatives" in features else []
        _refused(invoke("solve", workload_of(case, folder), *case.solve_args, *flags), refused)
        if case.unsupported:
            return
    workload, output, plan, summary = solved(case, folder)
    assert plan.status in ("optimal", "feasible")
    again = yaml.safe_load(render(plan, "yaml", summary=summary) or "")
    assert again == json.loads(output.read_text(encoding="utf-8"))
    checked = invoke("verify", workload, output, *case.catalogue)
    _clean(checked)
    assert checked.exit_code == 0 and "all rules hold" in checked.stdout, checked.output
    if "--alternatives" in case.solve_args:
        assert plan.alternatives, "--alternatives 1 found no other bid"


def _headline(fmt: str, text: str) -> str:
    """The headline of a quote: the table's first line, Markdown's bold line, HTML's summary."""
    if fmt == "table":
        return text.splitlines()[0]
    if fmt == "markdown":
        return next(line for line in text.splitlines() if line.startswith("**"))
    section = text.split('<section id="summary">', 1)[1].split("</section>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", " ", section))


def _figures(plan: Plan) -> dict[str, float | int | None]:
    """The headline figures, derived from the plan itself (not from the summary)."""
    last = max((job.end_hours for job in plan.schedule), default=None)
    return {
        "price": plan.total_price,
        "gpus": sum(s.gpu_count for s in plan.servers),
        "gpus_owned": sum(s.gpu_count for s in plan.servers if s.owned),
        "last_job_end_hours": last,
        # at the confidence the plan is checked at (each run's deadline confidence, P90 by default)
        "hours": last if plan.horizon_hours is not None else plan.confident_finish_hours,
    }


def _said(summary: PlanSummary, figure: str) -> str | None:
    """How the headline states a figure, or None when it need not state it."""
    value = getattr(summary, figure)
    if figure == "price":
        return f"{summary.price_to_pay:,.0f}"
    if figure == "gpus":
        return f"{value:,} GPU"
    if figure == "gpus_owned":
        return f"({value:,} of them owned" if value else None
    if value is None or (figure == "hours" and summary.runs_without_hours):
        return None
    return f"{value:,.1f} h"


def _text_in(fmt: str, plan: Plan, summary: PlanSummary, folder: Path) -> str:
    if fmt != "table":
        return render(plan, fmt, summary=summary) or ""
    output = folder / "table.txt"
    write_plan(plan, "table", output, summary=summary)
    return output.read_text(encoding="utf-8")


@by_name(CASES)
def test_the_summary_holds_the_plans_own_figures(case: Case, folder: Path):
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    for figure, value in _figures(plan).items():
        if value is None:
            assert getattr(summary, figure) is None, figure
        else:
            assert getattr(summary, figure) == pytest.approx(value, abs=0.01), figure
    assert summary.mode == ("queue" if plan.horizon_hours is not None else "peak")
    for line in summary.runs:  # each run's P50/P90 and failure figures are its copies' own
        copies = [a for a in plan.assignments if a.run == line.name]
        for field in ("hours_p50", "hours_p90"):
            stated = [getattr(a, field) for a in copies if getattr(a, field) is not None]
            assert getattr(line, field) == (max(stated) if stated else None), (line.name, field)
        with_failures = [a.hours_with_failures for a in copies if a.hours_with_failures is not None]
        assert (line.failures.hours_with_failures if line.failures else None) == max(
            with_failures, default=None
        )
        assert (line.spares.servers if line.spares else ()) == tuple(s for a in copies for s in a.spares)
    spare_ids = {s for a in plan.assignments for s in a.spares}  # the spares are the plan's own servers
    assert summary.spares == len(spare_ids)
    if case.combination is not None:  # the multinode fragment asks for one spare outside queue mode
        features = case.combination.features
        assert summary.spares == ("multinode" in features and "queue" not in features)
    assert summary.spares_price == pytest.approx(sum(s.price for s in plan.servers if s.id in spare_ids))


@by_name(CASES)
@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_every_quote_format_states_the_summarys_headline(case: Case, folder: Path, fmt: str):
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    headline = _headline(fmt, _text_in(fmt, plan, summary, folder))
    assert summary.headline in headline, f"{fmt}: {headline!r}"
    for figure in ("price", "gpus", "gpus_owned", "hours", "last_job_end_hours"):
        said = _said(summary, figure)
        assert said is None or said in summary.headline, f"{figure}: {said!r} not in {summary.headline!r}"
    text = html.unescape(_text_in(fmt, plan, summary, folder))
    for line in summary.runs:  # the run table states the summary's P90 and hours with failures
        for value in (line.hours_p90, line.failures.hours_with_failures if line.failures else None):
            assert value is None or f"{value:,.1f}" in text, (fmt, line.name, value)
        if line.spares:  # and the spares, what they cost and the P90 hours they save
            assert line.spares.hours_p90_without is not None
            assert f"{line.spares.hours_p90_without:,.1f} h at P90 without" in text, (fmt, line.name)
            assert f"{len(line.spares.servers)} per copy ({', '.join(line.spares.servers)})" in text
    if summary.spares:
        assert "Spare servers" in text and spares_words(summary) in text, fmt


#: The queue bids among the cases: queue combinations and the bundled queue examples.
QUEUES = [c for c in CASES if ("queue" in c.combination.features if c.combination else _is_queue(c.path))]


@by_name(QUEUES)
def test_a_queue_schedules_each_job_on_its_hours_at_its_runs_confidence(case: Case, folder: Path):
    """Queue × confidence: each job lasts its copy's hours at its run's deadline confidence (P90 by
    default, failures included), never its bare hours; the summary's P90 (or P50) finish is the
    schedule's last end when every run is held at it."""
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    confidence = {r.name: r.deadline_confidence for r in plan.runs}
    copies = {(a.run, a.copy_): a for a in plan.assignments}
    assert plan.schedule and set(confidence.values()) <= {0.5, 0.9}
    for job in plan.schedule:
        a = copies[job.run, job.job]
        held = a.hours_p50 if confidence[job.run] == 0.5 else a.hours_p90
        assert held is not None and a.hours is not None and held != pytest.approx(a.hours, rel=1e-3)
        assert job.end_hours - job.start_hours == pytest.approx(held, abs=2e-6), (job.run, job.job)
    held_at = set(confidence.values())
    if held_at == {0.9}:
        assert summary.queue_finish_p90 == pytest.approx(summary.last_job_end_hours, abs=1e-5)
    if held_at == {0.5}:
        assert summary.queue_finish_p50 == pytest.approx(summary.last_job_end_hours, abs=1e-5)
    assert summary.queue_finish_p50 is not None and summary.queue_finish_p90 is not None
    assert summary.queue_finish_p50 < summary.queue_finish_p90


@by_name(CASES)
@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "xlsx"])
def test_every_format_names_each_copys_link_as_the_summary_does(case: Case, folder: Path, fmt: str):
    """The summary names every multi-GPU copy's link in its card maker's words (an AMD board's
    Infinity Fabric is not "nvlink"), and each format prints those words, never the plan's bare kind."""
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    assert [(k.run, k.copy_number) for k in summary.links] == [
        (a.run, a.copy_) for a in plan.assignments if a.link
    ]
    words = {k.words for k in summary.links}
    if fmt == "xlsx":
        path = folder / f"{case.name.replace(':', '-')}.links.xlsx"
        write_plan(plan, "xlsx", path, summary=summary)
        assert words <= _cells(path)
        return
    text = html.unescape(_text_in(fmt, plan, summary, folder))
    for said in words:  # the run table's training cell: "fsdp, adamw-32bit, over Infinity Fabric"
        assert f"over {said}" in text, (fmt, said)
    assert "over nvlink" not in text and "over pcie" not in text


@by_name(CASES)
@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "xlsx"])
def test_every_format_states_both_power_figures_where_a_vendor_maximum_is_published(
    case: Case, folder: Path, fmt: str
):
    """Each server's draw is the larger of its parts' estimate and the vendor's published maximum
    (scaled to its cards); where both exist, every format states both and which one was planned."""
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    for s in plan.servers:
        assert s.parts_power_w is not None
        assert s.power_w == max(s.parts_power_w, s.vendor_max_w or 0)
        assert s.power_basis == ("vendor maximum" if s.power_w > s.parts_power_w else "parts")
    servers = [s for s in plan.servers if s.vendor_max_w is not None]
    if fmt == "xlsx":
        path = folder / f"{case.name.replace(':', '-')}.power.xlsx"
        write_plan(plan, "xlsx", path, summary=summary)
        cells = _cells(path)
        for s in servers:
            assert {str(s.parts_power_w), str(s.vendor_max_w), s.power_basis} <= cells
        return
    text = html.unescape(_text_in(fmt, plan, summary, folder))
    for s in servers:
        assert power_basis_words(s) in text, (fmt, s.id)


@pytest.mark.parametrize(
    ("example", "said"),
    [
        ("amd-70b-full", "Infinity Fabric"),
        ("amd-mi355x-70b-full", "Infinity Fabric"),
        ("hgx-full-70b", "NVLink"),
    ],
)
def test_an_eight_gpu_boards_link_is_named_by_the_cards_maker(example: str, said: str, folder: Path):
    case = next(c for c in CASES if c.name == f"example:{example}")
    _, _, _, summary = solved(case, folder)
    assert {k.words for k in summary.links} == {said}
    assert {k.kind for k in summary.links} == {"nvlink"}  # the same kind: one scale-up domain


def _cells(path: Path) -> set[str]:
    book = load_workbook(path, data_only=True)  # the cached values a preview shows
    return {str(c.value) for sheet in book.worksheets for row in sheet.iter_rows() for c in row if c.value}


@by_name(CASES)
def test_the_headroom_lines_hold_every_copy_of_the_plan(case: Case, folder: Path):
    """One headroom line per copy (identical copies once), its figures the plan's own, and no copy
    left with less free than its margin (issue 28: the measured headroom)."""
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    said = {(h.run, h.free_gb, h.memory_gb, h.headroom_gb) for h in summary.headroom}
    held = {(a.run, a.free_gb, a.memory_per_gpu_gb.total, a.headroom_gb) for a in plan.assignments}
    assert said == held
    for h in summary.headroom:
        assert h.free_percent == pytest.approx(100 * h.free_gb / h.memory_gb, abs=0.06)
        assert h.margin_percent is not None and h.basis
        assert h.free_percent >= h.margin_percent - 0.1, h.words


@by_name(CASES)
@pytest.mark.parametrize("fmt", ["table", "markdown", "html", "xlsx"])
def test_every_format_states_each_copys_headroom(case: Case, folder: Path, fmt: str):
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    if fmt == "xlsx":
        path = folder / f"{case.name.replace(':', '-')}.headroom.xlsx"
        write_plan(plan, "xlsx", path, summary=summary)
        cells = _cells(path)
        for h in summary.headroom:
            assert {h.run, h.copies, str(h.free_gb), str(h.memory_gb), str(h.basis)} <= cells, h.words
        return
    text = html.unescape(_text_in(fmt, plan, summary, folder))
    for row in headroom_rows(summary):
        line = next((ln for ln in text.splitlines() if all(cell in ln for cell in row)), None)
        if fmt == "html":  # one table row: its cells between tags
            line = next((r for r in text.split("<tr>") if all(f">{cell}<" in r for cell in row)), None)
        assert line is not None, f"{fmt}: {row}"


@by_name(CASES)
def test_the_workbook_lists_every_run_and_server(case: Case, folder: Path):
    if case.unsupported:
        pytest.skip("refused: see test_solve_gives_a_verified_plan_in_json_and_yaml")
    _, _, plan, summary = solved(case, folder)
    path = folder / f"{case.name.replace(':', '-')}.xlsx"
    write_plan(plan, "xlsx", path, summary=summary)
    book = load_workbook(path, data_only=True)  # the cached values a preview shows
    cells = {str(c.value) for sheet in book.worksheets for row in sheet.iter_rows() for c in row if c.value}
    assert {r.name for r in plan.runs} <= cells
    assert {s.gpu for s in plan.servers} <= cells
    assert summary.headline in cells or any(summary.headline in c for c in cells)
    assert not summary.spares or spares_words(summary) in cells  # the spares' key figure


@by_name(CASES)
def test_estimate_sizes_every_run(case: Case, folder: Path):
    workload = workload_of(case, folder)
    result = invoke("estimate", workload, "--format", "json", *case.catalogue)
    if case.refusal("estimate"):
        _refused(result, case.refusal("estimate") or "")
        return
    _clean(result)
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)["runs"]
    _, _, plan, _ = solved(case, folder)
    assert [r["run"] for r in runs] == [r.name for r in plan.runs]
    assert all(r["options"] for r in runs)


@by_name(CASES)
def test_the_frontier_prices_against_time(case: Case, folder: Path):
    workload = workload_of(case, folder)
    args = ["frontier", workload, "--format", "json", "--points", "2", "--time-limit", "3", *case.catalogue]
    result = invoke(*args)
    if case.refusal("frontier"):
        _refused(result, case.refusal("frontier") or "")
        return
    _clean(result)
    _, _, plan, _ = solved(case, folder)
    if all(r.train_tokens is None for r in plan.runs):
        _refused(result, "train_tokens")
        return
    assert result.exit_code == 0, result.output
    points = json.loads(result.stdout)["points"]
    assert points and all(p["status"] in ("optimal", "feasible") for p in points)
    hours = [p["makespan_hours"] for p in points]
    assert hours == sorted(hours)
    cheapest = points[-1]  # the workload as written, then ever tighter deadlines
    if plan.status == "optimal" and cheapest["status"] == "optimal":
        value = "tco" if plan.tco is not None and plan.tco.objective == "tco" else "total_price"
        mine = plan.tco.total if value == "tco" and plan.tco else plan.total_price
        assert cheapest[value] == pytest.approx(mine, abs=0.01)


@by_name(CASES)
def test_a_sweep_and_its_reports(case: Case, folder: Path):
    workload = workload_of(case, folder)
    name = case.name.replace(":", "-")
    grid = folder / f"{name}.grid.yaml"
    grid.write_text("cross:\n  scale: [1]\n", encoding="utf-8")  # the workload as written
    results = folder / f"{name}.jsonl"
    args = ["sweep", workload, "--grid", grid, "-o", results, "--jobs", "1", "--time-limit", TIME_LIMIT]
    result = invoke(*args, *case.catalogue)
    if case.refusal("sweep"):
        _refused(result, case.refusal("sweep") or "")
        return
    _clean(result)
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    _, _, plan, _ = solved(case, folder)
    assert record["status"] in ("optimal", "feasible"), record["error"]
    if record["status"] == plan.status == "optimal":
        assert record["total_price"] == pytest.approx(plan.total_price, abs=0.01)
    for fmt in ("html", "markdown", "csv"):
        report = invoke("sweep-report", results, "--format", fmt)
        _clean(report)
        assert report.exit_code == 0, report.output
    rows = list(csv.DictReader(io.StringIO(invoke("sweep-report", results, "--format", "csv").stdout)))
    if record["plan"]:  # every part classed (none as "other"), the parts adding up to the price
        costs = {k: float(v or 0) for k, v in rows[0].items() if k.startswith("cost_")}
        assert costs["cost_other"] == 0
        assert sum(costs.values()) == pytest.approx(float(rows[0]["total_price"]), abs=0.01)
