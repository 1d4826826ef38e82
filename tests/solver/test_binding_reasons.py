"""Binding reasons from the model, end to end through `ftopt solve`: the JSON carries the relaxation
ids, a deadline-bound bid gets the deadline's reason and what-if and not memory's, and an
impossible bid names the relaxations whose re-solve finds a plan."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from ftopt.cli.main import cli
from tests.solver.cpsat.test_deadline import RUSHED


def _solve(tmp_path: Path, text: str, *args: str) -> tuple[int, str]:
    path = tmp_path / "bid.yaml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["solve", str(path), "--workers", "2", "--time-limit", "20", *args])
    return result.exit_code, result.output


def test_the_json_names_the_deadline_and_its_what_if_by_id(tmp_path: Path) -> None:
    code, output = _solve(tmp_path, RUSHED, "--format", "json")
    assert code == 0, output
    plan = json.loads(output)
    kinds = [f["kind"] for f in plan["binding"]]
    assert "deadline-bound" in kinds and "multi-gpu" not in kinds  # memory fits one card
    [saving] = [s for s in plan["savings"] if s["figures"]["relaxation"] == "deadline"]
    hours = saving["figures"]["extra_hours"]
    assert saving["subject"] == f"deadlines +{hours:g} h" and saving["figures"]["saved"] > 0
    assert all(s["figures"]["relaxation"] for s in plan["savings"])


def test_the_quote_words_the_deadline_what_if(tmp_path: Path) -> None:
    plan = json.loads(_solve(tmp_path, RUSHED, "--format", "json")[1])
    [saving] = [s for s in plan["savings"] if s["figures"]["relaxation"] == "deadline"]
    [bound] = [f for f in plan["binding"] if f["kind"] == "deadline-bound"]
    gpus = bound["figures"]["gpus"]
    code, output = _solve(tmp_path, RUSHED)
    assert code == 0, output
    assert f"the deadline of 8 h, not memory, puts each copy of small-lora on {gpus} × h200-sxm" in output
    hours, saved = saving["figures"]["extra_hours"], saving["figures"]["saved"]
    assert f"deadlines +{hours:g} h would save USD {saved:,.0f}" in output


def test_an_impossible_bid_exits_3_naming_what_would_give_it_a_plan(tmp_path: Path) -> None:
    code, output = _solve(tmp_path, RUSHED.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"))
    assert code == 3, output
    assert "with no server limit the bid has a plan" in output
    assert re.search(
        r"with deadlines \+[0-9.]+ h the bid has a plan, its cheapest at USD [0-9,]+ \(proven\)", output
    )
    assert "with 8-bit Adam" not in output and "an inlet of" not in output  # nothing to ease there


def test_an_impossible_bid_s_problem_details_carry_the_relaxation_ids(tmp_path: Path) -> None:
    path = tmp_path / "bid.yaml"
    path.write_text(RUSHED.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"))
    args = ["solve", str(path), "--workers", "2", "--time-limit", "20"]
    result = CliRunner().invoke(cli, args, env={"FTOPT_ERRORS": "json"})
    assert result.exit_code == 3
    problem = json.loads(result.output)
    ids = [r["figures"].get("relaxation") for r in problem["reasons"] if r["kind"] == "feasible-if"]
    assert set(ids) == {"deadline", "server-limit"}
    assert problem["reasons"][0]["kind"] == "conflict" and problem["reasons"][0]["text"] in problem["detail"]
