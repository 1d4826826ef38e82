"""`--alternatives`: the next cheapest bids whose server sets differ, each a verified plan."""

from __future__ import annotations

from collections import Counter

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan, Status
from ftopt.model.summary import summarize
from ftopt.reading.workload_file import load_workload
from ftopt.solver.problem.data import build_problem
from ftopt.solver.search.alternatives import next_cheapest
from ftopt.solver.search.alternatives import server_set as alternative_set
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan
from tests.cli.test_solve import run
from tests.examples.test_examples import EXAMPLES
from tests.solver.conftest import workload_from
from tests.solver.tiny import SHARING


def server_set(plan: Plan) -> Counter[tuple[str, str, int, int, float]]:
    return Counter((s.chassis, s.gpu, s.gpu_count, s.ram_gb, s.nvme_tb) for s in plan.servers)


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def test_alternatives_are_dearer_in_order_all_different_and_verified(catalogue: Catalogue) -> None:
    workload = load_workload(EXAMPLES / "several-teams.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, alternatives=3)).plan_or_raise()
    assert [a.rank for a in plan.alternatives] == [1, 2, 3]
    prices = [plan.total_price, *(a.plan.total_price for a in plan.alternatives)]
    assert prices == sorted(prices) and prices[1] > prices[0]
    sets = [server_set(plan), *(server_set(a.plan) for a in plan.alternatives)]
    assert all(sets[i] != sets[j] for i in range(len(sets)) for j in range(i))
    for alt in plan.alternatives:
        assert verify_plan(alt.plan, workload, catalogue) == []
        assert alt.price_difference == pytest.approx(alt.plan.total_price - plan.total_price, abs=0.01)
        assert alt.differs and all(line[0] in "+−" for line in alt.differs)
        # its own proof: optimal only at gap 0 against its search's bound, never the plan's price
        assert alt.plan.gap is not None and alt.plan.bound is not None
        assert alt.plan.bound <= alt.plan.total_price + 0.005
        assert (alt.plan.status == Status.OPTIMAL) == (alt.proven_next and alt.plan.gap == 0)
    lines = summarize(plan).alternatives
    assert [(line.status, line.gap) for line in lines] == [
        (a.plan.status.value, a.plan.gap) for a in plan.alternatives
    ]


def test_the_first_alternative_is_no_dearer_than_any_plan_without_the_optimums_chassis(
    catalogue: Catalogue,
) -> None:
    # Any plan without the optimum's chassis has another server set, so it costs no less than option 2.
    workload = load_workload(EXAMPLES / "first-project.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, alternatives=1)).plan_or_raise()
    (first,) = plan.alternatives
    left_out = plan.servers[0].chassis  # one chassis of the optimum: any plan without it differs
    others = tuple(c.id for c in catalogue.chassis if c.id != left_out)
    limited = workload.model_copy(
        update={"hardware": workload.hardware.model_copy(update={"chassis": others})}
    )
    without = solve(limited, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert first.plan.total_price <= without.total_price
    assert first.proven_next


def test_a_bid_with_one_possible_server_set_has_no_alternative(catalogue: Catalogue) -> None:
    workload = load_workload(EXAMPLES / "full-70b.yaml", catalogue)
    # The generic classes only: the Dell XE7740 class would hold the same eight H200 NVL too.
    only = workload.hardware.model_copy(update={"chassis": ("gpu-server-2", "gpu-server-4", "gpu-server-8")})
    workload = workload.model_copy(update={"hardware": only})
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2, alternatives=2)).plan_or_raise()
    assert plan.alternatives == []


def test_cli_writes_alternatives_in_json_and_as_options_in_html(tmp_path) -> None:
    import json

    result = run("examples/first-project.yaml", "--format", "json", "--no-what-if", "--alternatives", "2")
    assert result.exit_code == 0, result.output
    alternatives = json.loads(result.stdout)["alternatives"]
    assert [a["rank"] for a in alternatives] == [1, 2]
    assert alternatives[0]["plan"]["total_price"] <= alternatives[1]["plan"]["total_price"]
    page = tmp_path / "quote.html"
    html = run(
        "examples/first-project.yaml",
        "--format",
        "html",
        "-o",
        str(page),
        "--no-what-if",
        "--no-frontier",
        "--alternatives",
        "1",
    )
    assert html.exit_code == 0, html.output
    assert 'id="alternatives"' in page.read_text(encoding="utf-8")


def test_next_cheapest_walks_server_sets_in_price_order(catalogue: Catalogue) -> None:
    workload = load_workload(EXAMPLES / "several-teams.yaml", catalogue)
    data, settings = build_problem(workload, catalogue), SolveSettings(time_limit=20, workers=2)
    optimum = solve(workload, catalogue, settings).plan_or_raise().total_price
    # With nothing offered yet, the first plan found is the optimum itself, then the next set.
    found, timed_out = next_cheapest(data, settings, [], 2, seconds=20)
    assert not timed_out and len(found) == 2
    assert found[0].price_cents == round(optimum * 100) < found[1].price_cents
    assert alternative_set(found[0].servers) != alternative_set(found[1].servers)
    assert next_cheapest(data, settings, [], 2, seconds=0) == ([], True)  # no time: none, and says so


def test_an_alternative_is_proven_next_only_when_its_servers_cost_what_its_model_proved(
    catalogue: Catalogue,
) -> None:
    """On SHARING the count model prices light copies on heavy servers optimistically, so its next
    optima decode to dearer servers: such an alternative is the best found, with its gap, never
    "proven next" (before, it was claimed proven beside a feasible status and a gap)."""
    settings = SolveSettings(time_limit=20, workers=2, alternatives=3)
    plan = solve(workload_from(SHARING), catalogue, settings).plan_or_raise()
    assert plan.alternatives, "SHARING must offer alternatives"
    assert any(a.plan.gap for a in plan.alternatives), "the example must exercise an inexact alternative"
    for alt in plan.alternatives:
        assert not alt.proven_next or (alt.plan.status == Status.OPTIMAL and not alt.plan.gap)
