"""`ftopt sweep` and `ftopt sweep-report` end to end: files, reruns, errors, Ctrl-C, reports."""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from rich.console import Console

from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.cli.sweep import SweepProgress
from ftopt.model.plan import Plan
from ftopt.sweep.report import breakdown, item_kinds
from tests.sweep.support import ROOT, SIX, WORKLOAD, lines, write


def sweep(*args: str):
    return CliRunner().invoke(cli, ["sweep", str(WORKLOAD), *args])


def test_a_sweep_writes_one_line_per_scenario_and_a_rerun_skips_them(tmp_path: Path):
    grid, output = write(tmp_path, SIX), tmp_path / "results.jsonl"
    result = sweep("--grid", str(grid), "-o", str(output), "--jobs", "2")
    assert result.exit_code == 0, result.output
    records = lines(output)
    assert len(records) == 6 and len({r["key"] for r in records}) == 6
    assert "6 scenarios, 0 already in" in result.stderr
    assert {"scenario", "status", "total_price", "bound", "gap", "servers", "makespan_hours"} <= records[
        0
    ].keys()
    before = output.read_bytes()
    again = sweep("--grid", str(grid), "-o", str(output), "--jobs", "2")
    assert again.exit_code == 0, again.output
    assert "6 already in" in again.stderr and "nothing new" in again.stderr
    assert output.read_bytes() == before


def test_a_bad_grid_is_one_line_and_exit_2(tmp_path: Path):
    grid = write(tmp_path, "zip:\n  scale: [1, 2]\n  site.feed: [230v-16a]\n")
    result = sweep("--grid", str(grid), "-o", str(tmp_path / "r.jsonl"))
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"ftopt: {grid}:3: zip.site.feed: expected 2 values like zip.scale "
        "(zip lists are taken together), got 1"
    )
    assert not (tmp_path / "r.jsonl").exists()


def test_ray_without_the_package_is_one_line_and_exit_2(tmp_path: Path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    result = sweep("--grid", str(write(tmp_path, SIX)), "-o", str(tmp_path / "r.jsonl"), "--ray", "auto")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "ftopt: --ray needs the ray package: pip install 'ftopt[ray]' (or run without --ray)"
    )


def test_results_of_another_bid_are_not_mixed_in(tmp_path: Path):
    grid, output = write(tmp_path, "cross:\n  site.inlet_c: [25]\n"), tmp_path / "results.jsonl"
    assert sweep("--grid", str(grid), "-o", str(output), "--jobs", "1").exit_code == 0
    other = tmp_path / "other.yaml"
    other.write_text(WORKLOAD.read_text().replace("seq_len: 4096", "seq_len: 2048", 1))
    result = CliRunner().invoke(cli, ["sweep", str(other), "--grid", str(grid), "-o", str(output)])
    assert result.exit_code == 2
    assert "holds results of another workload or price list" in result.stderr
    assert len(lines(output)) == 1


def test_ctrl_c_leaves_a_valid_file_that_a_rerun_completes(tmp_path: Path):
    grid = write(
        tmp_path, "cross:\n  runs.llama8b-qlora.concurrent: [" + ", ".join(map(str, range(1, 21))) + "]\n"
    )
    output = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "ftopt.cli.main", "sweep", str(WORKLOAD), "--grid", str(grid)]
    command += ["-o", str(output), "--jobs", "1"]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not output.exists() or output.read_text().count("\n") < 3):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    stopped = lines(output)  # every line parses
    assert 3 <= len(stopped) < 20
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{len(stopped)} already in" in done.stderr
    final = lines(output)
    assert len(final) == len({r["key"] for r in final}) == 20


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    output = folder / "results.jsonl"
    grid = write(folder, SIX)
    result = sweep("--grid", str(grid), "-o", str(output), "--jobs", "2")
    assert result.exit_code == 0, result.output
    return output


def report(results: Path, *args: str):
    return CliRunner().invoke(cli, ["sweep-report", str(results), *args])


def test_the_html_report_is_self_contained_with_a_chart_per_swept_parameter(results: Path, tmp_path: Path):
    target = tmp_path / "sweep.html"
    result = report(results, "--format", "html", "-o", str(target))
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    for path in ("site.feed", "scale", "site.max_servers"):
        assert f"price (USD) by {path}" in page
    assert "Cost by component kind" in page
    assert page.count("<tr>") == 1 + 6  # header and one row per scenario
    assert "makespan" not in page  # no plan carries one yet
    charts = [page[i : page.index("</svg>", i) + 6] for i in range(len(page)) if page.startswith("<svg", i)]
    assert len(charts) == 4  # three parameters and the breakdown
    for chart in charts:
        ET.fromstring(chart)  # well-formed: a browser draws it


def test_the_progress_bar_counts_done_running_and_failed():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=160, color_system=None)
    with SweepProgress(console) as bar:
        bar.start(10, 4)
        bar.running(2)
        bar.done("optimal")
        bar.done("failed")
    text = out.getvalue()
    assert "6/10 done" in text and "2 running" in text and "1 failed" in text and "scenarios/s" in text


def test_the_csv_report_breaks_each_price_down_by_component_kind(results: Path):
    result = report(results, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 6
    kinds = ["gpus", "cpus", "memory", "drives", "chassis", "bridges", "other"]
    for row in rows:
        if row["status"] == "infeasible":
            assert row["total_price"] == "" and "max_servers" in row["note"]
            continue
        parts = sum(float(row[f"cost_{k}"] or 0) for k in kinds)
        assert parts == pytest.approx(float(row["total_price"]))
        assert float(row["cost_gpus"]) > 0 and row["cost_other"] == ""


def test_breakdown_classes_every_line_by_its_catalogue_kind(results: Path):
    kinds = item_kinds(load_catalogue())
    for record in (json.loads(line) for line in results.read_text().splitlines()):
        if record["plan"]:
            assert set(breakdown(record, kinds)) <= {"GPUs", "CPUs", "memory", "drives", "chassis", "bridges"}


def test_the_markdown_report_has_a_price_range_per_swept_value(results: Path):
    result = report(results, "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "## Price against `site.feed`" in result.stdout
    assert "| 230v-16a | 2 | 1 | 162,284 | 162,284 | 162,284 |" in result.stdout


def test_a_missing_results_file_is_one_line_and_exit_2(tmp_path: Path):
    result = report(tmp_path / "nothing.jsonl")
    assert (
        result.exit_code == 2
        and result.stderr.startswith("ftopt: ")
        and "no such results file" in result.stderr
    )


@pytest.mark.parametrize("command", ["sweep", "sweep-report"])
def test_help_imports_neither_the_solver_nor_ray_nor_openpyxl(command: str):
    probe = (
        "import sys\nfrom ftopt.cli.main import cli\n"
        "try:\n    cli(sys.argv[1:], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('ortools', 'ray', 'openpyxl') if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, command, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_a_queue_sweep_records_and_reports_the_last_jobs_end_not_the_longest_job(tmp_path: Path):
    """Issue 26: a queue's time is its last job's end (as its headline and frontier say); the sweep
    recorded the longest job's hours and the report called them the makespan."""
    queue = ROOT / "examples" / "monthly-queue.yaml"
    grid = ROOT / "examples" / "grids" / "queue-horizons.yaml"
    output = tmp_path / "queue.jsonl"
    result = CliRunner().invoke(
        cli, ["sweep", str(queue), "--grid", str(grid), "-o", str(output), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    records = lines(output)
    # --time-limit is the whole sweep's (60 s over four scenarios): a long horizon may stop at a gap
    assert len(records) == 4 and all(r["status"] in ("optimal", "feasible") for r in records)
    assert all(r["proven"] == (r["status"] == "optimal" and not r["gap"]) for r in records)
    for record in records:
        ends = [job["end_hours"] for job in record["plan"]["schedule"]]
        assert record["makespan_hours"] == pytest.approx(max(ends))
        assert record["horizon_hours"] == record["scenario"]["queue.horizon_hours"] >= max(ends)
    report = CliRunner().invoke(cli, ["sweep-report", str(output), "--format", "markdown"])
    assert report.exit_code == 0 and "last job's end h" in report.stdout and "makespan" not in report.stdout


def test_a_sweep_records_the_hours_deadlines_are_held_to_as_the_frontier_does(tmp_path: Path):
    """The quote and the frontier state hours at the deadline confidence (P90 by default); a sweep
    recorded the bare hours and called them the makespan, half of what the quote of the same plan says."""
    bid = ROOT / "examples" / "deadline.yaml"
    grid = tmp_path / "grid.yaml"
    grid.write_text("cross:\n  site.inlet_c: [25, 30]\n", encoding="utf-8")
    output = tmp_path / "deadline.jsonl"
    result = CliRunner().invoke(
        cli, ["sweep", str(bid), "--grid", str(grid), "-o", str(output), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    records = lines(output)
    assert records and all(r["plan"] for r in records)
    for record in records:
        plan = Plan.model_validate(record["plan"])
        assert record["makespan_hours"] == pytest.approx(plan.confident_finish_hours)
        assert plan.makespan_hours is not None and record["makespan_hours"] > plan.makespan_hours
        assert record["deadline_confidences"] == [0.9]
    report = CliRunner().invoke(cli, ["sweep-report", str(output), "--format", "markdown"])
    assert report.exit_code == 0 and "makespan at P90 h" in report.stdout


def test_the_time_limit_bounds_the_whole_sweep_and_each_record_says_its_share(tmp_path: Path):
    """`--time-limit` was each scenario's: six scenarios at 60 s each could take six minutes. It is
    now the sweep's: each scenario is searched for the limit × the scenarios at once ÷ the scenarios,
    and each record carries that share, the budget, how it was shared, its status and whether it is
    proven (optimal at gap 0)."""
    from ftopt.sweep.runner import MIN_SCENARIO_S, SCENARIO_SEARCH_SHARE, scenario_share

    assert scenario_share(60, 6, 2) == 20 * SCENARIO_SEARCH_SHARE  # its slot, less the worker's part
    assert scenario_share(60, 1, 4) == 60 * SCENARIO_SEARCH_SHARE  # never more than the limit's share
    assert scenario_share(1, 1000, 1) == MIN_SCENARIO_S
    grid, output = write(tmp_path, SIX), tmp_path / "results.jsonl"
    result = sweep("--grid", str(grid), "-o", str(output), "--jobs", "2", "--time-limit", "3")
    assert result.exit_code in (0, 4), result.output  # 4: the budget ran out before some scenarios
    records = lines(output)
    assert len(records) == 6
    solved = [r for r in records if r["status"] != "not-run"]
    assert solved and (result.exit_code == 4) == (len(solved) < 6)
    for record in solved:  # a share of what was left when its turn came, never more than its slot's
        assert 0.1 <= record["time_limit_s"] <= SCENARIO_SEARCH_SHARE and record["budget_s"] == 3
        assert record["sharing"].startswith("one budget of 3 s for the whole sweep: 6 scenarios, 2 at once")
        assert record["proven"] == (record["status"] == "optimal" and not record["gap"])
    for record in records:
        if record["status"] == "not-run":
            assert record["error"].startswith("not run: budget spent (--time-limit 3 s for the whole sweep)")
            assert record["total_price"] is None and record["budget_s"] == 3
    again = sweep("--grid", str(grid), "-o", str(output), "--jobs", "2", "--time-limit", "60")
    assert again.exit_code == 0, again.output  # the rerun solves what the budget left out, only that
    assert f"6 scenarios, {len(solved)} already in" in again.stderr
    assert {r["key"] for r in lines(output) if r["status"] != "not-run"} == {r["key"] for r in records}


def _wall(args: list[str]) -> tuple[float, int]:
    """Wall seconds and exit code of `ftopt ARGS` in a process of its own, as a user runs it."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ftopt.cli.main", *args], capture_output=True, check=False)
    return time.perf_counter() - started, done.returncode


#: Seconds a sweep may end past its limit beyond the floor: the last scenario's solve past its own
#: limit and the pool's shutdown (benchmarks/time-limit.md measures them unloaded).
SWEEP_SLACK_S = 3.0


def test_a_sweep_process_ends_within_its_limit_and_the_process_floor(tmp_path: Path):
    """Six scenarios of a 40-run bid at `--time-limit 4`: each scenario's build and verifier ran
    beside its share of the limit and every one ran, so the sweep took 11.3 s (44 s at limit 10 under
    load). The budget now counts from the process's start, each scenario searches at most its share
    of what is left, and none starts once it is spent. The floor is what a process of ftopt costs (a
    one-run solve at the least limit), measured here under the same load."""
    data = yaml.safe_load((ROOT / "benchmarks" / "instances" / "large-02.yaml").read_text(encoding="utf-8"))
    for i, run in enumerate(data["runs"]):
        run.setdefault("train_tokens", (100_000_000, 300_000_000, 1_000_000_000)[i % 3])
    bid = tmp_path / "bid.yaml"
    bid.write_text(yaml.safe_dump(data), encoding="utf-8")
    grid = write(tmp_path, "cross:\n  site.inlet_c: [22, 25, 27]\n  scale: [1, 2]\n")
    floor, _ = _wall(["solve", str(WORKLOAD), "--time-limit", "0.1", "--quiet"])
    output = tmp_path / "results.jsonl"
    wall, code = _wall(["sweep", str(bid), "--grid", str(grid), "-o", str(output), "--jobs", "1",
                        "--time-limit", "4", "--quiet"])  # fmt: skip
    records = lines(output)
    assert len(records) == 6 and code == (4 if any(r["status"] == "not-run" for r in records) else 0)
    assert wall <= 4 + floor + SWEEP_SLACK_S, (wall, floor)
