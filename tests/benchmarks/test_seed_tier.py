"""CI smoke test of the benchmark suite: the seed-sized tier solves to its known optima.

Each benchmarks/instances/seed-NN.yaml is solved as a user's bid would be (time limit 20 s, two
workers); the plan must be proven optimal, cost exactly the price recorded in
benchmarks/instances/known_optima.json (written by `python -m benchmarks.generate` from proven
optimal solves), and cost no more than first-fit decreasing, whose plan the verifier accepts (peers'
invariant "optimised cost ≤ baseline cost"). No timing is asserted: wall time belongs in
benchmarks/results.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.baselines.ffd import first_fit_decreasing
from ftopt import Catalogue, SolveSettings, Status, load_catalogue, load_workload, solve, verify_plan

ROOT = Path(__file__).resolve().parents[2]

INSTANCES = ROOT / "benchmarks" / "instances"
SEED_TIER = sorted(INSTANCES.glob("seed-*.yaml"))
KNOWN = json.loads((INSTANCES / "known_optima.json").read_text())


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def test_seed_tier_is_committed() -> None:
    assert len(SEED_TIER) >= 5, "run `python -m benchmarks.generate --tiers seed`"
    missing = [p.stem for p in SEED_TIER if p.stem not in KNOWN]
    assert not missing, f"no known optimum recorded for {missing}"


@pytest.mark.parametrize("path", SEED_TIER, ids=lambda p: p.stem)
def test_seed_instance_solves_to_known_optimum(path: Path, catalogue: Catalogue) -> None:
    workload = load_workload(path, catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert plan.status == Status.OPTIMAL
    assert plan.total_price == pytest.approx(KNOWN[path.stem]["price"], abs=0.01)
    assert sum(s.price for s in plan.servers) == pytest.approx(plan.total_price, abs=0.05)
    assert sum(1 for _ in plan.assignments) == workload.total_copies
    ffd = first_fit_decreasing(workload, catalogue)
    assert verify_plan(ffd.plan, workload, catalogue) == []
    assert plan.total_price <= ffd.price + 0.01
