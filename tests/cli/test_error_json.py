"""With FTOPT_ERRORS=json the command line's error is one JSON object with the fields of the
workbench API's problem details (RFC 9457): a script reads both the same way."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ftopt.cli.main import cli
from ftopt.errors import InfeasibleError, problem

API_FIELDS = {"type", "title", "status", "detail", "instance"}


def test_a_bad_field_is_problem_details_naming_the_file_field_and_line(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: x\nruns:\n  - {name: r, model: llama-3.1-8b, method: lora, seq_len: -4}\n")
    result = CliRunner().invoke(cli, ["solve", str(path)], env={"FTOPT_ERRORS": "json"})
    assert result.exit_code == 2
    found = json.loads(result.stderr)
    assert found.keys() >= API_FIELDS and found["exit_code"] == 2 and found["status"] == 400
    assert found["type"] == "urn:ftopt:problem:invalid-input" and found["instance"] == str(path)
    assert found["detail"].startswith(f"ftopt: {path}:3: runs[0].seq_len: ")
    [entry] = found["errors"]
    assert (entry["field"], entry["pointer"], entry["line"]) == ("runs[0].seq_len", "#/runs/0/seq_len", 3)


def test_without_the_variable_the_error_stays_one_line(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("runs: 7\n")
    result = CliRunner().invoke(cli, ["solve", str(path)], env={"FTOPT_ERRORS": ""})
    assert result.exit_code == 2 and result.stderr.startswith("ftopt: ") and "{" not in result.stderr


def test_an_impossible_bid_is_its_own_kind_without_fields():
    found = problem(InfeasibleError(["site inlet 60 °C rules out every card"]))
    assert found["type"] == "urn:ftopt:problem:infeasible" and found["exit_code"] == 3
    assert "errors" not in found and found["detail"].startswith("ftopt: no plan exists: ")
