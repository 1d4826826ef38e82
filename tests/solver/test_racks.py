"""Racks and circuits: the CP-SAT family alone on tiny problems (checked against brute force), and
whole solves of racked sites that the verifier accepts."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from ftopt.model.hardware import Catalogue
from ftopt.model.relaxation import RelaxationId
from ftopt.model.workload import Rack
from ftopt.solver.cpsat import racks as racks_family
from ftopt.solver.cpsat.racks import (
    RackSite,
    ServerKind,
    add_rack_capacity,
    circuits_of,
    exact_placement,
    first_fit,
)
from ftopt.solver.decode.racks import racked
from ftopt.solver.problem.data import build_problem
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan
from tests.solver.conftest import workload_from

FEEDS = {"230v-16a": 2944, "230v-32a": 5888}  # usable watts: V × A × 0.8


def fits(catalogue: Catalogue, racks: list[Rack], kinds: list[ServerKind]) -> bool:
    """The family's answer: whether these servers can stand in these racks."""
    model = cp_model.CpModel()
    counts = {kind: [kinds.count(kind)] for kind in set(kinds)}
    add_rack_capacity(model, RackSite.of(racks, catalogue), counts)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    return solver.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)


def brute_force(racks: list[Rack], kinds: list[ServerKind]) -> bool:
    """Every assignment of servers to circuits, checked rule by rule."""
    circuits = [(r, i) for r, rack in enumerate(racks) for i in range(len(rack.feeds))]
    for choice in itertools.product(circuits, repeat=len(kinds)):
        ok = True
        for r, rack in enumerate(racks):
            mine = [(k, c) for k, c in zip(kinds, choice, strict=True) if c[0] == r]
            ok &= sum(k.units for k, _ in mine) <= rack.units
            for i, feed in enumerate(rack.feeds):
                on = mine if rack.redundant else [(k, c) for k, c in mine if c[1] == i]
                ok &= sum(k.power_w for k, _ in on) <= FEEDS[feed]
        if ok:
            return True
    return False


def rack(name: str, units: int, *feeds: str, redundant: bool = False) -> Rack:
    return Rack(name=name, units=units, feeds=feeds, redundant=redundant)


def test_two_servers_share_a_circuit_within_its_watts(catalogue: Catalogue) -> None:
    kind = ServerKind(2070, 2)
    assert fits(catalogue, [rack("a", 4, "230v-32a")], [kind, kind])  # 4,140 ≤ 5,888 W
    assert not fits(catalogue, [rack("a", 4, "230v-16a")], [kind, kind])  # 4,140 > 2,944 W
    assert fits(catalogue, [rack("a", 4, "230v-16a", "230v-16a")], [kind, kind])  # one per circuit


def test_rack_units_bind(catalogue: Catalogue) -> None:
    kind = ServerKind(1000, 4)
    assert not fits(catalogue, [rack("a", 7, "230v-32a")], [kind, kind])
    assert fits(catalogue, [rack("a", 7, "230v-32a"), rack("b", 4, "230v-16a")], [kind, kind])


def test_a_redundant_rack_is_limited_by_its_weakest_side(catalogue: Catalogue) -> None:
    kind = ServerKind(2070, 2)
    both = [kind, kind]
    assert fits(catalogue, [rack("a", 10, "230v-32a", "230v-32a", redundant=True)], both)
    assert not fits(catalogue, [rack("a", 10, "230v-32a", "230v-16a", redundant=True)], both)
    assert fits(catalogue, [rack("a", 10, "230v-32a", "230v-16a", redundant=True)], [kind])


def test_no_racks_hold_nothing_too_large(catalogue: Catalogue) -> None:
    assert not fits(catalogue, [rack("a", 10, "230v-16a")], [ServerKind(3000, 2)])
    assert not fits(catalogue, [rack("a", 3, "230v-32a")], [ServerKind(1000, 4)])


kinds_st = st.lists(
    st.builds(ServerKind, st.sampled_from([800, 1500, 2070, 3000]), st.sampled_from([1, 2, 4])),
    min_size=1,
    max_size=4,
)
racks_st = st.lists(
    st.tuples(
        st.integers(2, 8), st.lists(st.sampled_from(sorted(FEEDS)), min_size=1, max_size=2), st.booleans()
    ),
    min_size=1,
    max_size=2,
)


def test_the_family_agrees_with_brute_force(catalogue: Catalogue) -> None:
    """Random rooms of one or two racks and up to four servers: feasible exactly when an exhaustive
    assignment of servers to circuits is; both answers must have been met often."""
    seen: Counter[bool] = Counter()

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(kinds=kinds_st, shapes=racks_st)
    def check(kinds: list[ServerKind], shapes: list[tuple[int, list[str], bool]]) -> None:
        racks = [
            rack(f"r{i}", units, *feeds, redundant=redundant and len(feeds) > 1)
            for i, (units, feeds, redundant) in enumerate(shapes)
        ]
        expected = brute_force(racks, kinds)
        assert fits(catalogue, racks, kinds) == expected
        seen[expected] += 1

    check()
    assert seen[True] >= 20 and seen[False] >= 20, seen


def test_circuits_in_the_sites_order(catalogue: Catalogue) -> None:
    racks = [rack("a", 4, "230v-16a", "230v-32a"), rack("b", 4, "230v-32a")]
    assert [(c.rack, c.index, c.usable_w) for c in circuits_of(racks, catalogue)] == [
        (0, 0, 2944),
        (0, 1, 5888),
        (1, 0, 5888),
    ]


TWO_RACKS = """
site:
  racks:
    - {name: a, units: 6, feeds: [230v-32a, 230v-32a]}
    - {name: b, units: 8, feeds: [400v-3p-16a, 400v-3p-16a], redundant: true}
hardware: {gpus: [l40s, rtx-pro-6000-se]}
sizing: {mig: false}  # whole cards, as examples/two-racks.yaml: three servers over both racks
runs:
  - {name: q8-lora, model: qwen3-8b, method: lora, concurrent: 12}
  - {name: l70-lora, model: llama-3.3-70b, method: lora, concurrent: 2}
"""


def solved(catalogue: Catalogue, text: str):
    workload = workload_from(text)
    return workload, solve(workload, catalogue, SolveSettings(time_limit=20, workers=2))


def test_a_two_rack_site_places_every_server_and_verifies(catalogue: Catalogue) -> None:
    workload, result = solved(catalogue, TWO_RACKS)
    plan = result.plan_or_raise()
    assert verify_plan(plan, workload, catalogue) == []
    assert all(s.rack in ("a", "b") and s.circuit is not None for s in plan.servers)
    used = {r.name: r.units_used for r in plan.racks}
    assert (
        used["a"] <= 6
        and used["b"] <= 8
        and sum(used.values())
        == sum(catalogue.chassis_by_id(s.chassis).rack_units or 0 for s in plan.servers)
    )
    # rack a's 6 U cannot hold the three servers (2 + 2 + 4 U): rack b takes some
    assert used["b"] > 0


def test_small_circuits_cap_the_cards(catalogue: Catalogue) -> None:
    """One 16 A circuit per rack: four RTX PRO 6000 at 600 W (3,220 W) do not fit 2,944 W, at 450 W
    they do; the builds are made for each circuit's feed, so the capped build is there."""
    text = """
site:
  racks: [{name: a, units: 4, feeds: [230v-16a]}]
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-4]}
runs: [{name: l70, model: llama-3.3-70b, method: lora}]
"""
    # one copy: with its measured memory margin the 70B LoRA takes all four cards (issue 28)
    _, result = solved(catalogue, text)
    (server,) = result.plan_or_raise().servers
    assert (server.gpu_power_cap_w, server.feed, server.rack, server.circuit) == (450, "230v-16a", "a", 0)


def test_racks_too_small_are_an_impossible_bid_naming_the_racks(catalogue: Catalogue) -> None:
    text = """
site:
  racks: [{name: a, units: 2, feeds: [230v-32a]}]
hardware: {gpus: [l40s]}
runs: [{name: q8, model: qwen3-8b, method: lora, concurrent: 12}]
"""
    _, result = solved(catalogue, text)
    assert result.status == "infeasible"
    assert any("site's racks" in str(reason) for reason in result.reasons)


def test_a_chassis_without_a_height_is_left_out_and_says_why(catalogue: Catalogue) -> None:
    chassis = tuple(
        c.model_copy(update={"rack_units": None}) if c.id == "gpu-server-4" else c for c in catalogue.chassis
    )
    fields = {name: getattr(catalogue, name) for name in type(catalogue).model_fields}
    without = Catalogue.model_validate({**fields, "chassis": chassis})
    workload = workload_from(
        """
site: {racks: [{name: a, units: 10, feeds: [230v-32a]}]}
hardware: {gpus: [l40s]}
runs: [{name: q8, model: qwen3-8b, method: lora, concurrent: 3}]
"""
    )
    plan = solve(workload, without, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert {s.chassis for s in plan.servers} != {"gpu-server-4"}
    assert verify_plan(plan, workload, without) == []


def test_first_fit_failing_falls_back_to_the_exact_placement(catalogue: Catalogue) -> None:
    """Two 2,944 W circuits and 5,800 W of servers: hungriest first puts 1,200 + 1,100 on circuit 0,
    then 900 + 900 + 900 on circuit 1, and 800 fits neither; 1,200 + 900 + 800 | 1,100 + 900 + 900
    does. The placement must find it (the model proved the counts fit)."""
    racks = [rack("a", 40, "230v-16a", "230v-16a")]
    kinds = [ServerKind(w, 1) for w in (1200, 1100, 900, 900, 900, 800)]
    assert first_fit(RackSite.of(racks, catalogue), kinds) is None
    assert brute_force(racks, kinds)
    places = exact_placement(RackSite.of(racks, catalogue), kinds)
    assert places is not None
    loads: Counter[tuple[int, int]] = Counter()
    for kind, place in zip(kinds, places, strict=True):
        loads[place] += kind.power_w
    assert max(loads.values()) <= FEEDS["230v-16a"]


def test_a_placed_server_takes_its_circuits_feed(catalogue: Catalogue) -> None:
    workload, result = solved(catalogue, TWO_RACKS)
    server, racks = result.plan_or_raise().servers[0], workload.site.racks or []
    moved = racked(build_problem(workload, catalogue), server, (1, 0))
    feed = catalogue.feed(racks[1].feeds[0])
    assert (moved.rack, moved.circuit, moved.feed, moved.feed_usable_w) == (
        racks[1].name,
        0,
        feed.id,
        feed.usable_w,
    )


def test_the_racks_ease_their_units_and_their_circuits_under_two_ids(catalogue: Catalogue) -> None:
    data = build_problem(workload_from(TWO_RACKS), catalogue)
    taller, wider = racks_family.relax(data)
    assert (taller.id, wider.id) == (RelaxationId.RACK_UNITS, RelaxationId.CIRCUIT)
    assert [r.units for r in taller.workload.site.racks or ()] == [
        6 * racks_family.TALLER,
        8 * racks_family.TALLER,
    ]
    largest = max(catalogue.feeds, key=lambda f: f.usable_w).id
    assert {f for r in wider.workload.site.racks or () for f in r.feeds} == {largest}
    assert [len(r.feeds) for r in wider.workload.site.racks or ()] == [2, 2]  # as many circuits


def test_a_rack_too_short_is_freed_by_the_rack_units_relaxation_alone(catalogue: Catalogue) -> None:
    short = TWO_RACKS.replace("units: 6", "units: 3").replace("units: 8", "units: 4")  # halved
    workload, result = solved(catalogue, short)
    assert result.plan is None
    data = build_problem(workload, catalogue)
    eased = {
        r.id: solve(r.workload, catalogue, SolveSettings(time_limit=20, workers=2))
        for r in racks_family.relax(data)
    }
    assert eased[RelaxationId.RACK_UNITS].plan is not None
    assert eased[RelaxationId.CIRCUIT].plan is None  # wider circuits do not make a short rack taller
