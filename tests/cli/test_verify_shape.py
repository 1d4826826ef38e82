"""`ftopt verify` refuses a damaged plan with exit 2 naming the field, and finds the catalogue a plan
names (issue 36, items 5 and 8).

Before: 258 of 840 plans with a summary field, a copy's headroom, micro-batch, tokens per second or
spread basis set to null, "oops" or a list passed as valid (exit 0), since the summary was dropped
unread and null is a legal value of those figures in older plans. Here a real plan, as
`ftopt solve --format json` writes it (summary included), is damaged one field at a time.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ftopt.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
#: Two runs with train_tokens, one of them due: every copy states hours, failures and spread.
WORKLOAD = ROOT / "examples" / "deadline.yaml"
DAMAGE: tuple[Any, ...] = (None, "oops", [1])
COPY_FIELDS = ("headroom_gb", "micro_batch", "tokens_per_s", "spread_basis")


def ftopt(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def plan_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("plan") / "plan.json"
    result = ftopt("solve", str(WORKLOAD), "--format", "json", "-o", str(out))
    assert result.exit_code == 0, result.output
    record: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return record


def _leaves(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[str | int, ...]]:
    """Every field under `loc`: mappings' keys and the first item of each list, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*loc, key)
            yield from _leaves(item, (*loc, key))
    elif isinstance(value, list) and value:
        yield from _leaves(value[0], (*loc, 0))


def _set(record: dict[str, Any], loc: tuple[str | int, ...], value: Any) -> dict[str, Any] | None:
    """A copy of `record` with the field at `loc` set to `value`; None when it holds it already."""
    damaged = copy.deepcopy(record)
    parent: Any = damaged
    for part in loc[:-1]:
        parent = parent[part]
    if parent[loc[-1]] == value:
        return None
    parent[loc[-1]] = value
    return damaged


def _path(loc: tuple[str | int, ...]) -> str:
    """The field path as errors print it: `summary.runs[0].hours`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _mutations(record: dict[str, Any]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    for loc in _leaves(record["summary"], ("summary",)):
        yield from ((loc, v) for v in DAMAGE)
    for i in range(len(record["assignments"])):
        for field in COPY_FIELDS:
            yield from ((("assignments", i, field), v) for v in DAMAGE)


def test_every_damaged_field_is_refused_with_exit_2_naming_it(plan_record, tmp_path: Path) -> None:
    assert ftopt("verify", str(WORKLOAD), _write(tmp_path, plan_record)).exit_code == 0
    tried, wrong = 0, []
    for loc, value in _mutations(plan_record):
        damaged = _set(plan_record, loc, value)
        if damaged is None:
            continue
        tried += 1
        result = ftopt("verify", str(WORKLOAD), _write(tmp_path, damaged))
        named = any(_related(_path(loc), _field(line)) for line in result.stderr.splitlines())
        if result.exit_code != 2 or "Traceback" in result.output or not named:
            wrong.append((_path(loc), value, result.exit_code, result.stderr[-300:]))
    assert tried >= 250  # the summary's fields and four figures of each copy, three ways each
    assert wrong == []


def _write(tmp_path: Path, record: dict[str, Any]) -> str:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")
    return str(path)


def _related(damaged: str, named: str) -> bool:
    """Whether an error names the damaged field, a field inside it (`[1]`'s item) or the one holding it."""
    return damaged.startswith(named) or named.startswith(damaged)


def _field(line: str) -> str:
    """The field an error line names: `ftopt: FILE:LINE: FIELD: expected …`."""
    parts = line.split(": ")
    return parts[2] if len(parts) > 3 else "\0"


def test_every_damaged_field_of_one_plan_is_reported_at_once(plan_record, tmp_path: Path) -> None:
    damaged = copy.deepcopy(plan_record)
    damaged["assignments"][0]["tokens_per_s"] = None
    damaged["assignments"][1]["spread_basis"] = "oops"
    damaged["summary"]["price"] = "oops"
    result = ftopt("verify", str(WORKLOAD), _write(tmp_path, damaged))
    assert result.exit_code == 2
    fields = [_field(line) for line in result.stderr.splitlines()]
    assert fields == ["assignments[0].tokens_per_s", "assignments[1].spread_basis", "summary.price"]


def test_a_summary_that_disagrees_with_the_plan_is_refused(plan_record, tmp_path: Path) -> None:
    damaged = copy.deepcopy(plan_record)
    damaged["summary"]["headline"] = "USD 1 for everything"
    result = ftopt("verify", str(WORKLOAD), _write(tmp_path, damaged))
    assert result.exit_code == 2
    assert "summary.headline: the plan's own figures give" in result.stderr


VENDOR = ROOT / "examples" / "vendor"


def test_a_vendor_plan_verifies_without_its_catalogue_option(tmp_path: Path, monkeypatch) -> None:
    """The plan names its catalogue (directory and sha256 of its files); verify finds it there."""
    monkeypatch.chdir(ROOT)
    plan = tmp_path / "l4.json"
    bid, catalogue = "examples/vendor/l4-bid.yaml", "examples/vendor/catalogue"
    solved = ftopt("solve", bid, "--catalogue", catalogue, "--format", "json", "-o", str(plan))
    assert solved.exit_code == 0, solved.output
    result = ftopt("verify", "examples/vendor/l4-bid.yaml", str(plan))
    assert result.exit_code == 0, result.output
    assert "verifying with the catalogue the plan names: examples/vendor/catalogue" in result.stderr


def test_a_vendor_plan_whose_catalogue_is_elsewhere_says_how_to_pass_it(tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(VENDOR, tmp_path / "vendor")
    monkeypatch.chdir(tmp_path)
    plan = tmp_path / "l4.json"
    args = (
        "solve",
        "vendor/l4-bid.yaml",
        "--catalogue",
        "vendor/catalogue",
        "--format",
        "json",
        "-o",
        str(plan),
    )
    assert ftopt(*args).exit_code == 0
    (tmp_path / "vendor" / "catalogue" / "prices.yaml").write_text("prices: []\n", encoding="utf-8")
    result = ftopt("verify", "vendor/l4-bid.yaml", str(plan))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "summary.catalogue.directory" in result.stderr and "pass it with --catalogue DIR" in result.stderr
    other = ftopt("verify", "vendor/l4-bid.yaml", str(plan), "--catalogue", "vendor/catalogue")
    assert other.exit_code == 2 and "summary.catalogue.content_hash" in other.stderr
