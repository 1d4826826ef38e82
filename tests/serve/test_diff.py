"""Two versions compared: workload fields by run name, plans by server build, price and hours."""

from __future__ import annotations

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.model.summary import PlanSummary, summarize
from ftopt.reading.workload_file import load_workload_text
from ftopt.serve.diff import PlanDiff, plan_diff, server_builds, workload_changes
from ftopt.solver.solve import SolveSettings, solve


def test_runs_are_compared_by_name_not_by_position():
    before = {
        "name": "b",
        "runs": [{"name": "a", "model": "m1"}, {"name": "z", "model": "m2", "concurrent": 1}],
    }
    after = {
        "name": "b",
        "runs": [{"name": "z", "model": "m2", "concurrent": 3}, {"name": "n", "model": "m3"}],
    }
    changes = {c.path: (c.before, c.after, c.kind) for c in workload_changes(before, after)}
    assert changes == {
        "runs[a]": ("present", None, "removed"),
        "runs[a].model": ("m1", None, "removed"),
        "runs[n]": (None, "present", "added"),
        "runs[n].model": (None, "m3", "added"),
        "runs[z].concurrent": (1, 3, "changed"),
    }
    assert workload_changes(before, before) == []


def _solved(text: str) -> tuple[Plan, PlanSummary]:
    catalogue = load_catalogue()
    workload = load_workload_text(text, "w", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=10, workers=1)).plan_or_raise()
    return plan, summarize(plan, workload, catalogue)


def _diff(before: tuple[Plan, PlanSummary], after: tuple[Plan, PlanSummary]) -> PlanDiff:
    return plan_diff(before[0], after[0], (before[1], after[1]))


def test_the_plan_diff_names_servers_added_and_removed_and_the_deltas():
    # whole cards: on GPU slices (MIG) four and eight copies fit the same two cards
    base = "site: {feed: 230v-16a, inlet_c: 25}\nhardware: {gpus: [h200-nvl]}\nsizing: {mig: false}\n"
    small, s_small = _solved(base + "runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 4}]\n")
    large, s_large = _solved(base + "runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 8}]\n")
    diff = _diff((small, s_small), (large, s_large))
    assert diff.price_delta == round(large.total_price - small.total_price, 2) > 0
    assert (diff.gpus_before, diff.gpus_after) == (4, 8)
    grown = server_builds(large) - server_builds(small)
    assert diff.added == dict(grown) and sum(diff.added.values()) >= 1
    assert diff.removed == dict(server_builds(small) - server_builds(large))
    same = _diff((small, s_small), (small, s_small))
    assert same.added == {} and same.price_delta == 0


def test_the_plan_diff_states_what_the_two_quotes_state():
    """A discount given in version 2 lowers the price the buyer reads though the plan is the same;
    the hours are the quotes' hours, with the slowest run's P90 beside them."""
    base = (
        "site: {feed: 230v-16a, inlet_c: 25}\nhardware: {gpus: [h200-nvl]}\n"
        "runs: [{name: q, model: llama-3.1-8b, method: qlora, train_tokens: 200000000}]\n"
    )
    before = _solved(base)
    after = _solved(base + "quote: {discount_percent: 10}\n")
    diff = _diff(before, after)
    assert before[0].total_price == after[0].total_price and diff.added == diff.removed == {}
    assert diff.price_delta == round(-0.1 * before[0].total_price, 2) < 0
    spread = before[1].hours_p50_p90
    assert spread is not None and (diff.hours_before, diff.hours_p90_before) == (
        before[1].hours_model,
        spread[1],
    )
    assert diff.hours_p90_before > diff.hours_before and diff.hours_p90_delta == 0
