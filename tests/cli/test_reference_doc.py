"""The workload reference and its JSON Schema file are generated, and the committed ones are current."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ftopt.catalogue.schema import workload_schema
from ftopt.cli.reference_doc import MARKDOWN, SCHEMA, main, render_markdown, rendered, write
from ftopt.model.workload import Run, Workload

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "reference"


@pytest.mark.parametrize("name", [MARKDOWN, SCHEMA])
def test_the_committed_files_are_what_the_code_generates(name: str) -> None:
    """A field added, renamed or re-described without `python -m ftopt.cli.reference_doc
    docs/reference` fails here."""
    assert (COMMITTED / name).read_text(encoding="utf-8") == rendered()[name]


def test_every_field_is_documented_with_its_description() -> None:
    text, described = rendered()[MARKDOWN], workload_schema()["$defs"]["Run"]["properties"]
    run = text.split("\n## Run\n", 1)[1].split("\n## ", 1)[0]
    for field in Run.model_fields:
        row = next(line for line in run.splitlines() if line.startswith(f"| `{field}` |"))
        assert described[field]["description"].replace("|", "\\|")[:40] in row
    top = text.split("\n## Workload\n", 1)[1].split("\n## ", 1)[0]
    assert {f"`{f}`" for f in Workload.model_fields} <= set(re.findall(r"^\| (`\w+`) \|", top, re.M))


def test_required_fields_defaults_and_the_registrys_methods_are_stated() -> None:
    run = rendered()[MARKDOWN].split("\n## Run\n", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0][2:]: line for line in run.splitlines() if line.startswith("| `")}
    assert "| required |" in rows["`model`"] and "`4096`" in rows["`seq_len`"]
    assert "`full-8bit`" in rows["`method`"]  # the method names come from the catalogue's registry


def test_the_schema_file_is_the_schema_editors_get_from_ftopt_schema() -> None:
    assert json.loads(rendered()[SCHEMA]) == workload_schema()


def test_a_schema_change_changes_the_page() -> None:
    schema = workload_schema()
    schema["$defs"]["Run"]["properties"]["seq_len"]["description"] = "a new meaning"
    assert "a new meaning" in render_markdown(schema) and "a new meaning" not in rendered()[MARKDOWN]


def test_write_and_main_write_both_files(tmp_path: Path) -> None:
    assert {p.name for p in write(tmp_path)} == {MARKDOWN, SCHEMA}
    assert main([str(tmp_path / "missing")]) == 2
    assert (
        main([str(tmp_path)]) == 0
        and (tmp_path / MARKDOWN).read_text(encoding="utf-8") == rendered()[MARKDOWN]
    )
