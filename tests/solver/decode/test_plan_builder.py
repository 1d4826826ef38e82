"""From servers to the plan document: ids, per-run copy numbers, prices that add up, the notes."""

from __future__ import annotations

from ftopt.model.plan import Status
from ftopt.solver.decode.plan_builder import build_link, build_plan
from ftopt.solver.decode.rent import with_rent
from ftopt.solver.explain.supply import with_supply
from ftopt.solver.search.greedy import greedy_plan
from tests.solver.tiny import SMALL, catalogue, problem


def test_a_plan_numbers_servers_and_copies_and_adds_up() -> None:
    data = problem(SMALL)
    servers = greedy_plan(data)
    assert servers is not None
    plan = build_plan(data, servers, Status.FEASIBLE, 0.0, 1.0, "tiny")
    assert [s.id for s in plan.servers] == [f"s{i}" for i in range(1, len(servers) + 1)]
    assert sorted((a.run, a.copy_) for a in plan.assignments) == [
        ("one", 1),
        ("one", 2),
        ("one", 3),
        ("two", 1),
        ("two", 2),
    ]
    assert abs(plan.total_price - sum(s.price for s in plan.servers)) < 0.01
    assert {n.subject for n in plan.notes} >= {"host", "power", "memory", "step-time"}
    assert plan.workload == "tiny" and plan.gap == 1.0


def test_one_gpu_has_no_link_and_two_pcie_cards_a_pcie_one() -> None:
    build = next(b for b in problem(SMALL).builds if b.gpu_count == 2)
    assert build_link(build, [0]) == (None, None)
    link, gbps = build_link(build, [0, 1])
    assert link == "pcie" and gbps is not None and gbps > 0


def _plan():
    data = problem(SMALL)
    servers = greedy_plan(data)
    assert servers is not None
    return data, build_plan(data, servers, Status.FEASIBLE, 0.0, 1.0, "tiny")


def test_supply_findings_join_the_binding_rules_and_keep_those_there() -> None:
    data, plan = _plan()
    kept = plan.model_copy(update={"binding": plan.binding[:1]})
    supplied = with_supply(kept, data.workload, catalogue())
    assert supplied.binding[: len(kept.binding)] == kept.binding
    assert with_rent(plan, catalogue()).model_copy(update={"rent": plan.rent}) == plan


def test_every_copy_and_server_carries_its_bands_with_their_basis() -> None:
    """Issue 37: memory per GPU, hours and energy carry the band of the copy's stack and method from
    spread.yaml (energy the hours band), and every server's wall power the power band; the JSON keeps
    them (low/high, points, sources, basis), and the model renders one as a quote says it."""
    data, plan = _plan()
    spread = data.catalogue.spread
    assert spread is not None and spread.bands is not None
    for a in plan.assignments:
        run = next(p for p in data.profiles if p.run.name == a.run)
        assert a.bands == spread.copy_bands(run.stack.id if run.stack else None, run.method.id)
        assert a.bands is not None and a.bands.energy == a.bands.hours
        words = a.bands.memory_per_gpu.words(f"{a.memory_per_gpu_gb.total:.1f} GB")
        assert f"{a.bands.memory_per_gpu.points} points" in words
    assert all(s.power_band == spread.bands.power for s in plan.servers)
    record = plan.model_dump(mode="json")["assignments"][0]["bands"]["memory_per_gpu"]
    assert set(record) == {"low", "high", "points", "sources", "basis"}
