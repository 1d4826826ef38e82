"""The examples a new bid may start from: the repository's own files, looked up by name only."""

from __future__ import annotations

from pathlib import Path

import pytest

from ftopt.serve.examples import bundled, example

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_bundled_examples_are_the_repositorys_files() -> None:
    files = {p.stem: p.read_text(encoding="utf-8") for p in EXAMPLES.glob("*.yaml")}
    assert bundled() == dict(sorted(files.items()))


@pytest.mark.parametrize("name", ["../README", "first-project.yaml", "grids/racks-and-horizons", ""])
def test_only_a_listed_name_finds_a_text(name: str) -> None:
    # A request's name is looked up, never joined to a path: nothing outside the list is read.
    assert example(name) is None


def test_a_listed_name_finds_its_text() -> None:
    assert example("first-project") == (EXAMPLES / "first-project.yaml").read_text(encoding="utf-8")
