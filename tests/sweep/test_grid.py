"""The grid file: cross × zip expansion, stable scenario keys, and one-line errors for bad grids."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.errors import InputError
from ftopt.reading.workload_file import load_workload
from ftopt.sweep.grid import load_grid, scenario_key
from tests.sweep.support import WORKLOAD, write


@pytest.fixture(scope="module")
def workload():
    return load_workload(WORKLOAD, load_catalogue())


def test_cross_is_a_product_and_zip_goes_row_by_row(tmp_path: Path, workload):
    grid = load_grid(
        write(
            tmp_path,
            """\
            cross:
              site.feed: [230v-16a, 230v-32a]
              site.inlet_c: [20, 30]
            zip:
              scale: [1, 3]
              runs.llama8b-qlora.concurrent: [2, 5]
            """,
        ),
        workload,
    )
    scenarios = grid.scenarios()
    assert len(grid) == len(scenarios) == 8
    assert grid.paths == ["site.feed", "site.inlet_c", "scale", "runs.llama8b-qlora.concurrent"]
    assert scenarios[0] == {
        "site.feed": "230v-16a",
        "site.inlet_c": 20,
        "scale": 1,
        "runs.llama8b-qlora.concurrent": 2,
    }
    # zip rows stay together: scale 3 always with 5 copies, never with 2
    pairs = {(s["scale"], s["runs.llama8b-qlora.concurrent"]) for s in scenarios}
    assert pairs == {(1, 2), (3, 5)}
    assert len({tuple(s.values()) for s in scenarios}) == 8


def test_zip_alone_and_cross_alone(tmp_path: Path, workload):
    only_zip = load_grid(write(tmp_path, "zip:\n  scale: [1, 2, 4]\n"), workload)
    assert only_zip.scenarios() == [{"scale": 1}, {"scale": 2}, {"scale": 4}]
    only_cross = load_grid(write(tmp_path, "cross:\n  site.max_servers: [null, 2]\n"), workload)
    assert only_cross.scenarios() == [{"site.max_servers": None}, {"site.max_servers": 2}]


def test_the_key_depends_on_the_values_not_on_their_order():
    assert scenario_key({"a": 1, "b": "x"}) == scenario_key({"b": "x", "a": 1})
    assert scenario_key({"a": 1}) != scenario_key({"a": 2})
    assert scenario_key({"a": 1}) != scenario_key({"b": 1})


@pytest.mark.parametrize(
    ("text", "field", "expected", "line"),
    [
        ("cross:\n  site.fed: [a]\n", "cross.site.fed", "(did you mean 'site.feed'?)", 2),
        ("cross:\n  runs.nobody.seq_len: [1]\n", "cross.runs.nobody.seq_len", "unknown run 'nobody'", 2),
        ("cross:\n  runs.llama8b-qlora.copies: [1]\n", "", "unknown run field 'copies'", 2),
        ("cross:\n  runs.llama8b-qlora.seqlen: [1]\n", "", "(did you mean 'seq_len'?)", 2),
        ("cross:\n  runs.llama8b-qlor.seq_len: [1]\n", "", "(did you mean 'llama8b-qlora'?)", 2),
        ("zip:\n  scale: [1, 2]\n  site.feed: [230v-16a]\n", "zip.site.feed", "expected 2 values", 3),
        ("cross:\n  scale: [1]\nzip:\n  scale: [2]\n", "zip.scale", "already swept under cross", 4),
        ("cross:\n  scale: [0]\n", "cross.scale", "expected positive numbers", 2),
        ("cross:\n  scale: []\n", "cross.scale", "non-empty list", 2),
        ("cross:\n  prices: [missing.yaml]\n", "cross.prices", "price list 'missing.yaml' not found", 2),
        ("cross: {}\n", "", "at least one field to sweep", None),
        ("crosss:\n  scale: [1]\n", "crosss", "unknown field", 2),
        ("cross:\n  scale: 2\n", "cross.scale", "expected a valid list", 2),
    ],
)
def test_a_bad_grid_is_one_error_naming_file_field_and_line(
    tmp_path: Path, workload, text: str, field: str, expected: str, line: int | None
):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_grid(path, workload)
    error = caught.value
    assert error.file == str(path)
    if field:
        assert error.field == field
    assert expected in error.expected
    assert error.line == line


def test_the_help_for_an_unknown_path_lists_every_kind_of_path(tmp_path: Path, workload):
    """Not only the section the typo was in: the knobs, the hardware limits and the runs too."""
    path = write(tmp_path, "cross:\n  site.fed: [a]\n")
    with pytest.raises(InputError) as caught:
        load_grid(path, workload)
    listed = caught.value.expected
    for kind in ("prices", "scale", "hardware.gpus", "hardware.chassis", "sizing.mfu", "site.racks"):
        assert kind in listed
    assert "runs.NAME.FIELD (NAME: llama70b-lora, llama8b-qlora)" in listed


def test_fields_the_workload_lacks_yet_are_accepted_by_the_grid(tmp_path: Path, workload):
    # issue 16 names them; until the workload has them, each scenario records the validation error
    grid = load_grid(
        write(tmp_path, "cross:\n  runs.llama8b-qlora.deadline_hours: [24]\n  objective: [price]\n"), workload
    )
    assert len(grid) == 1


def test_price_lists_are_found_relative_to_the_grid(tmp_path: Path, workload):
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "cheap.yaml").write_text("prices: []\n")
    grid = load_grid(write(tmp_path, "cross:\n  prices: [lists/cheap.yaml]\n"), workload)
    assert grid.price_file("lists/cheap.yaml") == tmp_path / "lists" / "cheap.yaml"
