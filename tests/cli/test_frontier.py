"""`ftopt frontier` end to end, and the HTML quote's three bids."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ftopt.cli.frontier import frontier_command
from ftopt.cli.main import cli

EXAMPLE = "examples/deadline.yaml"


def run(*args: str):
    return CliRunner().invoke(cli, [*args, "--workers", "2"])


def _without_deadline(tmp_path: Path) -> str:
    path = tmp_path / "open.yaml"
    path.write_text(re.sub(r"deadline_hours: \d+", "# no deadline", Path(EXAMPLE).read_text()))
    return str(path)


def test_the_workloads_own_deadline_bounds_the_frontier():
    result = run("frontier", EXAMPLE, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    hours = [p["makespan_hours"] for p in data["points"]]
    assert hours and max(hours) <= 66 and data["confidence"] == 0.9  # the example's 66 h at P90


def test_json_points_are_proven_sorted_and_monotone(tmp_path: Path):
    result = run("frontier", _without_deadline(tmp_path), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    points = data["points"]
    assert len(points) >= 3 and data["stopped"] == "infeasible"
    assert {"makespan_hours", "total_price", "tco", "status", "servers", "gap", "plan"} <= points[0].keys()
    hours = [p["makespan_hours"] for p in points]
    prices = [p["total_price"] for p in points]
    assert hours == sorted(hours) and prices == sorted(prices, reverse=True)
    assert all(p["status"] == "optimal" for p in points)
    # the time axis is drawn at P90: the plan's longest P90 hours, not its bare makespan
    fastest = points[0]["plan"]
    p90 = max(a["hours_p90"] for a in fastest["assignments"] if a["hours_p90"] is not None)
    assert p90 == pytest.approx(points[0]["makespan_hours"], abs=1e-4)
    assert fastest["makespan_hours"] < points[0]["makespan_hours"]


def test_points_limit_and_table():
    result = run("frontier", "examples/full-70b-offload.yaml", "--points", "2")
    assert result.exit_code == 0, result.output
    assert "Frontier: price against makespan (2 points)" in result.stdout


def test_html_page_has_an_inline_svg_chart(tmp_path: Path):
    out = tmp_path / "frontier.html"
    result = run("frontier", _without_deadline(tmp_path), "--format", "html", "-o", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert page.count("<svg") == 1 and "<script" not in page and "knee" in page
    assert page.count("<circle") >= 3


def test_without_train_tokens_exit_2_with_one_line():
    result = run("frontier", "examples/first-project.yaml")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert "the frontier needs train_tokens" in result.stderr


def test_an_impossible_deadline_exits_3_naming_the_run(tmp_path: Path):
    text = re.sub(r"deadline_hours: \d+", "deadline_hours: 5", Path(EXAMPLE).read_text())
    (tmp_path / "w.yaml").write_text(text)
    result = run("solve", str(tmp_path / "w.yaml"))
    assert result.exit_code == 3
    assert "run llama70b-lora must finish within 5 h; the fastest ftopt can reach is" in result.stderr


def test_the_quote_shows_three_bids_unless_switched_off(tmp_path: Path):
    out = tmp_path / "q.html"
    result = run("solve", EXAMPLE, "--format", "html", "-o", str(out), "--no-what-if")
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert 'id="three-bids"' in page and all(f"<td>{b}</td>" in page for b in ("cheapest", "knee", "fastest"))
    result = run("solve", EXAMPLE, "--format", "html", "-o", str(out), "--no-what-if", "--no-frontier")
    assert result.exit_code == 0 and 'id="three-bids"' not in out.read_text()
    result = run("solve", "examples/first-project.yaml", "--format", "html", "-o", str(out), "--no-what-if")
    assert result.exit_code == 0 and 'id="three-bids"' not in out.read_text()  # no train_tokens


def test_a_queue_frontier_prices_against_the_last_jobs_end():
    """Issue 26: the frontier ran on a queue bid instead of refusing it; its time is the last job's end."""
    queue = Path(__file__).resolve().parents[2] / "examples" / "monthly-queue.yaml"
    result = CliRunner().invoke(
        cli, ["frontier", str(queue), "--format", "json", "--points", "2", "--time-limit", "3"]
    )
    assert result.exit_code == 0, result.output
    points = json.loads(result.stdout)["points"]
    assert len(points) == 2
    for point in points:
        ends = [job["end_hours"] for job in point["plan"]["schedule"]]
        assert point["makespan_hours"] == pytest.approx(max(ends), abs=1e-3)
        assert max(ends) <= point["plan"]["horizon_hours"]
    fast, slow = points
    assert fast["makespan_hours"] < slow["makespan_hours"] and fast["total_price"] > slow["total_price"]


def test_the_quotes_frontier_spends_only_what_the_time_limit_left_and_says_when_cut(monkeypatch):
    """--time-limit bounds the whole `solve`: the three bids get what the plan's solve left of it."""
    from ftopt.catalogue import load_catalogue
    from ftopt.quote.bids import quote_bids
    from ftopt.quote.frontier import three_bids_html
    from ftopt.reading.workload_file import load_workload
    from ftopt.solver.solve import SolveSettings, solve

    catalogue = load_catalogue()
    workload = load_workload(EXAMPLE, catalogue)
    settings = SolveSettings(time_limit=30, what_if=False)
    plan = solve(workload, catalogue, settings).plan_or_raise()
    spent = quote_bids(workload, catalogue, settings, budget_s=0.0, plan=plan)
    assert spent is None  # nothing left: no solve started, no bids claimed
    full = quote_bids(workload, catalogue, settings, budget_s=30.0, plan=plan)
    assert full is not None and full.stopped != "budget"
    # the quote's own plan is the cheapest bid: never a dearer plan for the same deadlines
    assert full.cheapest().total_price == plan.total_price and full.cheapest().reused
    assert "time limit ended this frontier" not in three_bids_html(full)
    full.stopped = "budget"
    assert "time limit ended this frontier" in three_bids_html(full)


def test_a_queue_frontiers_table_and_quote_name_the_last_jobs_end_not_the_makespan(tmp_path: Path):
    """A queue's time axis is the last job's end: the table, the chart and the quote's bids say so."""
    queue = Path(__file__).resolve().parents[2] / "examples" / "monthly-queue.yaml"
    result = CliRunner().invoke(cli, ["frontier", str(queue), "--points", "2", "--time-limit", "3"])
    assert result.exit_code == 0, result.output
    assert "last job's end h" in result.stdout and "makespan h" not in result.stdout
    out = tmp_path / "q.html"
    args = ["solve", str(queue), "--format", "html", "-o", str(out), "--no-what-if", "--time-limit", "8"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert 'id="three-bids"' in page and "last job&#x27;s end h" in page and "makespan h" not in page


def test_the_command_refuses_a_missing_workload_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(frontier_command, [str(tmp_path / "none.yaml")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.stderr.splitlines()) == 1 and "none.yaml" in result.stderr
