"""The peak strategy: an unfinished plan with its proof, or the status and reasons why there is none."""

from __future__ import annotations

import time

from ftopt.model.plan import Status
from ftopt.solver.problem.data import build_problem
from ftopt.solver.search.peak import PeakSearch, search_peak
from ftopt.solver.search.run import run_model
from ftopt.solver.solve import SolveSettings
from tests.solver.conftest import workload_from
from tests.solver.explain.test_reasons import TOO_BIG
from tests.solver.tiny import SHARING, SMALL, catalogue


def _ask(seconds: float = 10.0) -> PeakSearch:
    now = time.perf_counter()
    return PeakSearch(SolveSettings(time_limit=seconds, workers=1), now + seconds, now)


def test_the_peak_search_returns_a_proven_plan_not_yet_finished() -> None:
    """The finish step (rent, explanations, verifier) is the solve's, for peak and queue alike: the
    strategy's plan carries its proof and the servers its alternatives are cut from, nothing else."""
    found = search_peak(workload_from(SMALL), catalogue(), _ask())
    assert found.status == Status.OPTIMAL and found.proven and found.plan is not None
    assert found.plan.gap == 0 and found.servers is not None and found.data is not None
    assert found.plan.rent is None and found.plan.binding == [] and found.plan.budget is None
    assert len(found.plan.servers) == len(found.servers)


def test_an_impossible_bid_comes_back_with_its_reasons_and_no_plan() -> None:
    found = search_peak(workload_from(TOO_BIG), catalogue(), _ask())
    assert found.status == Status.INFEASIBLE and found.plan is None and not found.proven
    assert [r.subject for r in found.reasons] == ["huge"]


def test_light_copies_sharing_a_heavy_server_are_priced_exactly_and_the_plan_proven() -> None:
    """On SHARING the optimistic model (light copies need only GPUs) finds a plan whose heavy server
    needs more disk than its configuration bought, so its optimum is only a bound below the plan;
    the sized model, counting each configuration's room, proves the plan's price."""
    data = build_problem(workload_from(SHARING), catalogue())
    settings = SolveSettings(time_limit=10, workers=1)
    optimistic = run_model(data, settings, time.perf_counter() + 10)
    assert optimistic is not None and optimistic.proven
    assert optimistic.price_cents > optimistic.objective  # what the bound alone could not close
    found = search_peak(workload_from(SHARING), catalogue(), _ask())
    assert found.status == Status.OPTIMAL and found.proven and found.plan is not None
    assert found.plan.bound == found.plan.total_price > optimistic.objective / 100
