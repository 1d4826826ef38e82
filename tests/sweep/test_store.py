"""The results file stays valid whatever stops a sweep: whole lines, a torn last line cut off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftopt.errors import InputError
from ftopt.sweep.store import ResultsWriter, read_records


def record(key: str, status: str = "optimal") -> str:
    return json.dumps({"key": key, "status": status})


def test_a_torn_last_line_is_ignored_and_cut_off_before_appending(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    path.write_text(record("a") + "\n" + record("b") + "\n" + record("c")[:9], encoding="utf-8")
    assert [r["key"] for r in read_records(path)] == ["a", "b"]
    assert path.read_text().endswith(record("c")[:9])  # reading alone changes nothing
    assert [r["key"] for r in read_records(path, repair=True)] == ["a", "b"]
    with ResultsWriter(path) as writer:
        writer.write(record("c"))
    assert [json.loads(line)["key"] for line in path.read_text().splitlines()] == ["a", "b", "c"]


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    path.write_text(record("a") + "\n" + record("b"), encoding="utf-8")
    assert [r["key"] for r in read_records(path, repair=True)] == ["a", "b"]
    with ResultsWriter(path) as writer:
        writer.write(record("c"))
    assert [r["key"] for r in read_records(path)] == ["a", "b", "c"]


def test_a_damaged_line_inside_the_file_is_an_error_naming_it(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    path.write_text(record("a") + "\nnot json\n" + record("b") + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_records(path)
    assert caught.value.field == "line 2"


def test_the_latest_record_of_a_scenario_wins(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    path.write_text(record("a", "failed") + "\n" + record("b") + "\n" + record("a") + "\n", encoding="utf-8")
    assert [(r["key"], r["status"]) for r in read_records(path)] == [("b", "optimal"), ("a", "optimal")]


def test_two_sweeps_cannot_write_one_file_at_once(tmp_path: Path):
    path = tmp_path / "results.jsonl"
    with ResultsWriter(path), pytest.raises(InputError, match="another sweep"), ResultsWriter(path):
        pass
