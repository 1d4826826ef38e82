"""The public types of a solve live in the model layer and are the ones the library and the solver use."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ftopt
from ftopt.model.settings import Progress, SolveSettings
from ftopt.solver import solve as solve_module
from ftopt.solver.search import run


def test_the_library_exports_the_model_layers_types() -> None:
    assert ftopt.SolveSettings is SolveSettings is solve_module.SolveSettings is run.SolveSettings
    assert ftopt.Progress is Progress is solve_module.Progress


def test_a_progress_reports_its_gap_to_the_bound() -> None:
    assert Progress(price=200.0, bound=150.0, seconds=1.0).gap == pytest.approx(0.25)
    assert Progress(price=0.0, bound=0.0, seconds=0.1).gap == 0.0


def test_settings_verify_by_default_and_are_frozen() -> None:
    settings = SolveSettings(time_limit=5)
    assert settings.verify and not settings.what_if and settings.alternatives == 0 and settings.workers >= 1
    with pytest.raises(AttributeError):
        settings.time_limit = 10  # type: ignore[misc]


def test_the_settings_module_imports_nothing_of_the_solver() -> None:
    tree = ast.parse(Path(ftopt.model.settings.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in imported if m and m.startswith("ftopt")}
