"""The RL-mix benchmark instances (supervised and RL runs in one bid) solve to proven optima that verify,
and the committed timing report covers every RL-mix and seed instance. No timing is asserted here."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.rl_mix import MARKDOWN, instances
from ftopt import SolveSettings, Status, load_catalogue, load_workload, solve, verify_plan

RLMIX = [path for tier, path in instances() if tier == "rlmix"]


def test_rl_mix_instances_are_committed_and_reported() -> None:
    assert len(RLMIX) >= 2
    report = MARKDOWN.read_text(encoding="utf-8")
    assert all(f"| {path.stem} |" in report for _, path in instances())


@pytest.mark.parametrize("path", RLMIX, ids=lambda p: p.stem)
def test_rl_mix_instance_is_proven_optimal_and_verifies(path: Path) -> None:
    catalogue = load_catalogue()
    workload = load_workload(path, catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert plan.status == Status.OPTIMAL
    assert verify_plan(plan, workload, catalogue) == []
    rl_runs = {run.name for run in workload.runs if run.rollout is not None or run.algorithm != "sft"}
    assert rl_runs and all(a.roles for a in plan.assignments if a.run in rl_runs)
