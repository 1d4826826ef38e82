"""Binding reasons from the model, end to end through `ftopt solve`: the JSON carries the relaxation
ids, a deadline-bound bid gets the deadline's reason and what-if and not memory's, and an
impossible bid names the relaxations whose re-solve finds a plan."""

from __future__ import annotations

import json
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
    code, output = _solve(tmp_path, RUSHED)
    assert code == 0, output
    assert "the deadline of 8 h, not memory, puts each copy of small-lora on 2 × h200-sxm" in output
    assert "deadlines +5.5 h would save USD 309,448" in output


def test_an_impossible_bid_exits_3_naming_what_would_give_it_a_plan(tmp_path: Path) -> None:
    code, output = _solve(tmp_path, RUSHED.replace("inlet_c: 25}", "inlet_c: 25, max_servers: 1}"))
    assert code == 3, output
    assert "with no server limit the bid has a plan" in output
    assert "with deadlines +5.5 h the bid has a plan" in output
