"""`ftopt verify` reads the plan's run summary as strictly as a workload (issue 26): enums and ranges
are checked when the plan is read (exit 2), and each stated field must be the workload's (exit 1);
a plan that names parts the catalogue in use lacks is told to bring its `--catalogue`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import invoke

ROOT = Path(__file__).resolve().parents[2]
FIRST = ROOT / "examples" / "first-project.yaml"
VENDOR = ROOT / "examples" / "vendor"


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("verify") / "plan.json"
    result = invoke("solve", FIRST, "--format", "json", "-o", path, "--time-limit", "5", "--no-what-if")
    assert result.exit_code == 0, result.output
    return json.loads(path.read_text(encoding="utf-8"))


def _verify(tmp_path: Path, plan: dict, field: str, value: object):
    edited = json.loads(json.dumps(plan))
    edited["runs"][0][field] = value
    del edited["summary"]  # the rule under test, not the summary's agreement (tests/cli/test_verify_shape.py)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    return invoke("verify", FIRST, path)


def test_a_plan_stating_another_method_breaks_the_run_summary_rule(tmp_path: Path, plan: dict) -> None:
    """A method id is any registry's id, so a plan's `oops` parses; the verifier names the lie."""
    result = _verify(tmp_path, plan, "method", "oops")
    assert result.exit_code == 1
    assert "run-summary: run llama70b-lora: method oops, the workload states lora" in result.output


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("algorithm", "oops", "runs[0].algorithm: expected"),
        ("method", "", "runs[0].method"),
        ("micro_batch", 12345, "runs[0].micro_batch"),
        ("seq_len", 0, "runs[0].seq_len"),
    ],
)
def test_a_run_summary_outside_the_workloads_values_is_bad_input(
    tmp_path: Path, plan: dict, field: str, value: object, expected: str
):
    result = _verify(tmp_path, plan, field, value)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr


@pytest.mark.parametrize(
    ("field", "value"), [("micro_batch", 8), ("algorithm", "dpo"), ("seq_len", 8192), ("concurrent", 9)]
)
def test_a_run_summary_other_than_the_workloads_is_a_violation(
    tmp_path: Path, plan: dict, field: str, value: object
):
    result = _verify(tmp_path, plan, field, value)
    assert result.exit_code == 1, result.output
    assert (
        f"run-summary: run {plan['runs'][0]['name']}: {field} {value}, the workload states" in result.stdout
    )


def test_the_untouched_plan_is_valid(tmp_path: Path, plan: dict):
    result = _verify(tmp_path, plan, "name", plan["runs"][0]["name"])
    assert result.exit_code == 0, result.output


def test_a_vendor_plan_without_its_catalogue_is_told_to_bring_it(tmp_path: Path):
    path = tmp_path / "vendor.json"
    bid, catalogue = VENDOR / "l4-bid.yaml", VENDOR / "catalogue"
    solved = invoke(
        "solve", bid, "--catalogue", catalogue, "--format", "json", "-o", path, "--time-limit", "5"
    )
    assert solved.exit_code == 0, solved.output
    found = invoke("verify", bid, path)  # the plan's summary names the catalogue: found by its contents
    assert found.exit_code == 0 and f"the catalogue the plan names: {catalogue}" in found.stderr
    record = json.loads(path.read_text(encoding="utf-8"))
    del record["summary"]
    path.write_text(json.dumps(record), encoding="utf-8")
    without = invoke("verify", bid, path)
    assert without.exit_code == 2
    assert "names parts the packaged catalogue lacks: acme-l4-2u, l4" in without.stderr
    assert "verified with the same --catalogue DIR" in without.stderr
    assert invoke("verify", bid, path, "--catalogue", catalogue).exit_code == 0
