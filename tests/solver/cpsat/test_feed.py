"""The feed family alone: its what-if (the next larger feed, by id) and its power-cap lines."""

from __future__ import annotations

from collections.abc import Callable

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.solver.cpsat import feed
from tests.solver.tiny import problem

SMALL_FEED = """
site: {feed: 230v-16a, inlet_c: 27}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: lora-70b, model: llama-3.3-70b, method: lora, seq_len: 4096}]
"""


def test_the_feed_eases_to_the_next_larger_feed_only() -> None:
    data = problem(SMALL_FEED)
    [eased] = feed.relax(data)
    current = data.catalogue.feed("230v-16a").usable_w
    larger = sorted(f.usable_w for f in data.catalogue.feeds if f.usable_w > current)
    assert eased.id == RelaxationId.FEED and eased.catalogue is None
    assert data.catalogue.feed(eased.workload.site.feed).usable_w == larger[0]
    assert eased.words == f"a {eased.workload.site.feed} feed"
    assert eased.workload.runs == data.workload.runs


def test_the_largest_feed_and_a_racked_site_have_nothing_to_ease() -> None:
    largest = max(problem(SMALL_FEED).catalogue.feeds, key=lambda f: f.usable_w).id
    assert feed.relax(problem(SMALL_FEED.replace("230v-16a", largest))) == []


def test_a_capped_server_is_a_binding_line(solve_yaml: Callable[..., Plan]) -> None:
    plan = solve_yaml(SMALL_FEED, time_limit=10)
    lines = feed.explain(problem(SMALL_FEED), plan)
    capped = [s for s in plan.servers if s.gpu_power_cap_w < 600]
    assert capped and [f.subject for f in lines] == [s.id for s in capped]
    assert all(f.kind == FindingKind.POWER_CAP for f in lines)
    assert feed.Feed.add is None and feed.Feed.relax is feed.relax  # it filters builds: no constraints
