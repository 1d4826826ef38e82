"""`ftopt schema`: the JSON Schema an editor completes and checks workload and grid files with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ftopt.catalogue.schema import workload_schema
from ftopt.cli.main import cli
from ftopt.cli.schema import schema_command

jsonschema = pytest.importorskip("jsonschema")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def schema(*args: str) -> dict:
    result = CliRunner().invoke(cli, ["schema", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def errors(schema_: dict, data: object) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema_)
    return [e.message for e in validator.iter_errors(data)]


WORKLOADS = [*EXAMPLES.glob("*.yaml"), EXAMPLES / "vendor" / "l4-bid.yaml"]


@pytest.mark.parametrize("path", sorted(str(p.relative_to(EXAMPLES)) for p in WORKLOADS))
def test_every_example_workload_passes_the_schema(path: str) -> None:
    """An editor must not flag a file ftopt accepts (dataset_tokens with epochs included)."""
    data = yaml.safe_load((EXAMPLES / path).read_text())
    assert errors(schema(), data) == []


def test_the_schema_flags_a_misspelt_field_and_a_wrong_type() -> None:
    workload = {"runs": [{"name": "a", "model": "qwen3-8b", "method": "lora", "seq_lenn": 4096}]}
    assert any("seq_lenn" in message for message in errors(schema(), workload))
    workload = {"runs": [{"name": "a", "model": "qwen3-8b", "method": "lora"}], "site": {"inlet_c": "warm"}}
    assert errors(schema(), workload)


def test_the_schema_describes_racks() -> None:
    site = schema()["$defs"]["Site"]["properties"]
    assert "racks" in site
    rack = schema()["$defs"]["Rack"]["properties"]
    assert set(rack) == {"name", "units", "feeds", "redundant", "liquid_kw"}
    assert "coolant_c" in site


def test_grid_schema_accepts_the_example_grid_and_refuses_an_unknown_path() -> None:
    grid = schema("--grid")
    example = yaml.safe_load((EXAMPLES / "grids" / "feeds-and-rooms.yaml").read_text())
    assert errors(grid, example) == []
    assert errors(grid, {"cross": {"runs.chat.concurrent": [1, 2], "hardware.gpus": [["l40s"]]}}) == []
    assert errors(grid, {"cross": {"site.fed": ["230v-16a"]}})
    assert errors(grid, {"cross": {"runs.chat.concurrentt": [1]}})


def test_the_command_prints_the_schema_the_workbench_builds_its_form_from() -> None:
    """One schema: `ftopt schema` prints `workload_schema()`, which the workbench's form reads too."""
    result = CliRunner().invoke(schema_command, [])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(json.dumps(workload_schema()))
