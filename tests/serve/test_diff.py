"""Two versions compared: workload fields by run name, plans by server build, price and hours."""

from __future__ import annotations

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.reading.workload_file import load_workload_text
from ftopt.serve.diff import plan_diff, server_builds, workload_changes
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


def _plan(text: str) -> Plan:
    catalogue = load_catalogue()
    workload = load_workload_text(text, "w", catalogue)
    return solve(workload, catalogue, SolveSettings(time_limit=10, workers=1)).plan_or_raise()


def test_the_plan_diff_names_servers_added_and_removed_and_the_deltas():
    # whole cards: on GPU slices (MIG) four and eight copies fit the same two cards
    base = "site: {feed: 230v-16a, inlet_c: 25}\nhardware: {gpus: [h200-nvl]}\nsizing: {mig: false}\n"
    small = _plan(base + "runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 4}]\n")
    large = _plan(base + "runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 8}]\n")
    diff = plan_diff(small, large)
    assert diff.price_delta == round(large.total_price - small.total_price, 2) > 0
    assert (diff.gpus_before, diff.gpus_after) == (4, 8)
    grown = server_builds(large) - server_builds(small)
    assert diff.added == dict(grown) and sum(diff.added.values()) >= 1
    assert diff.removed == dict(server_builds(small) - server_builds(large))
    assert plan_diff(small, small).added == {} and plan_diff(small, small).price_delta == 0
