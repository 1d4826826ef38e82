"""Fixtures for solver tests: the packaged catalogue and a helper that solves inline YAML."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import yaml

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return load_catalogue()


def workload_from(text: str) -> Workload:
    """A workload from inline YAML (tests only; files go through ftopt.reading.workload_file)."""
    return Workload.model_validate(yaml.safe_load(text))


@pytest.fixture(scope="session")
def solve_yaml(catalogue: Catalogue) -> Callable[..., Plan]:
    def run(text: str, time_limit: float = 20.0) -> Plan:
        return solve(
            workload_from(text), catalogue, SolveSettings(time_limit=time_limit, workers=2)
        ).plan_or_raise()

    return run
