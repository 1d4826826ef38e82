"""`ftopt verify WORKLOAD.yaml PLAN.json`: exit 0 for a valid plan, 1 for violations, 2 for bad input.

The command object is invoked directly (registering it in the `ftopt` group is main.py's business).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

import ftopt.cli.verify as verify_module
from ftopt.cli.verify import verify
from ftopt.model.hardware import Catalogue
from tests.verify.conftest import Case, solve_case


def run(*args: str) -> Result:
    return CliRunner().invoke(verify, list(args))


def one_error_line(result: Result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("ftopt: ")
    return lines[0]


@pytest.fixture
def solved() -> Callable[[str], Case]:
    """The verifier tests' solved cases (each solved once per session)."""
    return solve_case


@pytest.fixture
def files(tmp_path: Path, solved):
    """Writes a case's workload (YAML) and plan (JSON, optionally edited) and returns their paths."""

    def write(name: str, plan_text: str | None = None, overlay: dict[str, float] | None = None):
        c = solved(name)
        workload = tmp_path / "workload.yaml"
        workload.write_text(yaml.safe_dump(c.workload.model_dump(mode="json")), encoding="utf-8")
        plan = tmp_path / "plan.json"
        plan.write_text(plan_text if plan_text is not None else c.json, encoding="utf-8")
        args = [str(workload), str(plan)]
        prices = overlay if overlay is not None else _overlay(c.catalogue)
        if prices:
            path = tmp_path / "prices.yaml"
            entries = [
                {"item": i, "amount": a, "currency": "USD", "date": "2026-12", "source": "test"}
                for i, a in prices.items()
            ]
            path.write_text(yaml.safe_dump({"prices": entries}), encoding="utf-8")
            args += ["--prices", str(path)]
        return args

    return write


def _overlay(catalogue: Catalogue) -> dict[str, float]:
    return {p.item: p.amount for p in catalogue.prices if p.source == "test overlay"}


def test_valid_plan_exits_0(files) -> None:
    result = run(*files("first-project"))
    assert result.exit_code == 0, result.output
    assert result.stdout == "plan is valid: 1 server, 2 copies, all rules hold\n"
    assert result.stderr == ""


def test_valid_plan_with_a_price_list_exits_0(files) -> None:
    result = run(*files("nvl-llama70-lora-2way"))
    assert result.exit_code == 0, result.output
    assert result.stdout == "plan is valid: 1 server, 4 copies, all rules hold\n"


def test_broken_plan_exits_1_with_one_line_per_violation(files, solved) -> None:
    data = json.loads(solved("first-project").json)
    data["servers"][0]["ram_gb"] = 700
    data["total_price"] += 1
    result = run(*files("first-project", json.dumps(data)))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "server-fields: server s1: ram_gb 700, 24 × 32 GB (ddr5-32gb) = 768 GB",
        "host-ram: server s1: 700 GB, needs ≥ 768 GB (2 × 384 GB GPU memory)",
        "total-price: plan: 81,841.00, its servers sum to 81,840.00",
    ]
    assert result.stderr == "ftopt: plan is not valid: 3 violations of 3 rules\n"


def test_plan_priced_from_another_price_list_exits_1(files) -> None:
    result = run(*files("first-project", overlay={"rtx-pro-6000-se": 9000.0}))
    assert result.exit_code == 1
    assert result.stdout.startswith("bill-of-materials: server s1: rtx-pro-6000-se at 13,250.00 each")


def test_malformed_json_exits_2_naming_file_and_line(files) -> None:
    args = files("first-project", '{\n  "status": "optimal",\n  "servers": [,]\n}\n')
    line = one_error_line(run(*args), 2)
    assert line.startswith(f"ftopt: {args[1]}:3: not valid JSON: ")


def test_missing_field_exits_2_naming_the_field(files, solved) -> None:
    data = json.loads(solved("first-project").json)
    del data["servers"][0]["gpu"]
    args = files("first-project", json.dumps(data, indent=2))
    line = one_error_line(run(*args), 2)
    assert line.startswith(f"ftopt: {args[1]}:")
    assert line.endswith(": servers[0].gpu: required field is missing")


def test_wrong_type_exits_2_naming_the_field(files, solved) -> None:
    data = json.loads(solved("first-project").json)
    data["assignments"][1]["gpus"] = "two"
    args = files("first-project", json.dumps(data, indent=2))
    line = one_error_line(run(*args), 2)
    assert "assignments[1].gpus: " in line


def test_unknown_field_exits_2(files, solved) -> None:
    data = json.loads(solved("first-project").json)
    data["servers"][0]["gpu_modle"] = "h200-nvl"
    line = one_error_line(run(*files("first-project", json.dumps(data, indent=2))), 2)
    assert line.endswith("servers[0].gpu_modle: unknown field")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2]", "expected a JSON object with status, servers and assignments"),
        ('{"total_price": NaN}', "not valid JSON: NaN is not a number a plan may hold"),
        ("", "not valid JSON: Expecting value (column 1)"),
    ],
)
def test_not_a_plan_exits_2(files, text: str, expected: str) -> None:
    args = files("first-project", text)
    assert one_error_line(run(*args), 2).startswith(f"ftopt: {args[1]}")
    assert one_error_line(run(*args), 2).endswith(expected)


def test_missing_plan_file_exits_2(files, tmp_path: Path) -> None:
    workload = files("first-project")[0]
    line = one_error_line(run(workload, str(tmp_path / "nope.json")), 2)
    assert line.startswith(f"ftopt: {tmp_path / 'nope.json'}: cannot read the file")


def test_bad_workload_exits_2(files, tmp_path: Path) -> None:
    args = files("first-project")
    Path(args[0]).write_text("runs:\n  - name: x\n    model: llama-9b\n    method: lora\n", encoding="utf-8")
    line = one_error_line(run(*args), 2)
    assert "runs[0].model: unknown model 'llama-9b'" in line


def test_bad_price_list_exits_2(files, tmp_path: Path) -> None:
    prices = tmp_path / "bad-prices.yaml"
    prices.write_text("prices: [{item: nothing-like-it, amount: 1}]\n", encoding="utf-8")
    result = run(*files("first-project"), "--prices", str(prices))
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()  # every missing field of the entry at once
    assert [line.split(": ")[2] for line in lines] == [
        "prices[0].currency",
        "prices[0].date",
        "prices[0].source",
    ]
    assert all(line.startswith(f"ftopt: {prices}:1: ") for line in lines)


def test_failure_inside_the_verifier_is_one_line_not_a_traceback(files, monkeypatch) -> None:
    def explode(*_: object) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(verify_module, "verify_plan", explode)
    args = files("first-project")
    line = one_error_line(run(*args), 1)
    assert line == f"ftopt: {args[1]}: could not verify the plan (RuntimeError: boom)"


def test_command_is_named_verify() -> None:
    assert verify.name == "verify"
    assert verify.callback is not None and verify.callback.__name__ == "verify"


def test_a_finding_figure_of_the_wrong_type_exits_2_naming_file_field_and_line(files, solved) -> None:
    data = json.loads(solved("first-project").json)
    data["notes"][0]["figures"]["reserve_gb"] = "lots"
    args = files("first-project", json.dumps(data, indent=2))
    line = one_error_line(run(*args), 2)
    assert line.startswith(f"ftopt: {args[1]}:")
    assert ": notes[0].figures.reserve_gb: expected a valid number, got 'lots'" in line
