"""Slice modes and sliced builds: small copies share a card's MIG instances, and nothing else does."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.solver.problem.builds import enumerate_builds
from ftopt.solver.problem.data import build_problem
from ftopt.solver.problem.slices import offered_slices
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan
from tests.solver.conftest import workload_from

#: Eight 8B QLoRA copies (about 20 GB each) and one 70B LoRA, on RTX PRO 6000 cards.
BID = """
site: {feed: 230v-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs:
  - {name: small, model: llama-3.1-8b, method: qlora, seq_len: 2048, gradient_checkpointing: true,
     concurrent: 8}
"""
BIG = "  - {name: big, model: llama-3.3-70b, method: lora, seq_len: 4096}\n"


def test_sliced_builds_are_the_unbridged_server_in_each_uniform_layout() -> None:
    catalogue = load_catalogue()
    builds = enumerate_builds(catalogue, workload_from(BID)).builds
    sliced = [b for b in builds if b.mig is not None]
    assert {(b.mig.name, b.mig_count) for b in sliced if b.mig} == {("1g.24gb", 4), ("2g.48gb", 2)}
    for b in sliced:
        whole = next(w for w in builds if w.mig is None and w.key == b.key.rsplit("/mig", 1)[0])
        assert b.fixed_price == whole.fixed_price and b.slots == b.gpu_count * b.mig_count
        assert [b.slot_card(s) for s in range(b.mig_count + 1)][-1] == (1, 0)  # the next card's first


def test_only_single_gpu_copies_that_fit_an_instance_get_slice_modes() -> None:
    data = build_problem(workload_from(BID + BIG), load_catalogue())
    small = [m for m in data.modes if m.run == 0 and m.mig]
    assert {m.mig for m in small} == {"1g.24gb", "2g.48gb"}
    assert all(m.gpus == 1 and m.sizing.fits and m.sizing.card_gb in (24, 48) for m in small)
    assert not [m for m in data.modes if m.run == 1 and m.mig]  # 141 GB of frozen base: no slice holds it


def test_twenty_copies_take_fewer_cards_than_copies_and_verify() -> None:
    catalogue = load_catalogue()
    workload = workload_from(BID.replace("concurrent: 8", "concurrent: 20"))
    plan = solve(workload, catalogue, SolveSettings(time_limit=10, workers=2)).plan_or_raise()
    assert verify_plan(plan, workload, catalogue) == []
    assert sum(s.gpu_count for s in plan.servers) < 20
    assert all(a.mig is not None and a.gpus == [a.mig.card] for a in plan.assignments)
    instances = {(a.server, a.mig.card, a.mig.profile, a.mig.index) for a in plan.assignments if a.mig}
    assert len(instances) == 20  # one copy per instance


def test_forbidding_slices_or_a_queue_plans_one_whole_card_per_copy() -> None:
    catalogue = load_catalogue()
    whole = workload_from(BID + "sizing: {mig: false}\n")
    assert not [b for b in enumerate_builds(catalogue, whole).builds if b.mig]
    plan = solve(whole, catalogue, SolveSettings(time_limit=10, workers=2)).plan_or_raise()
    assert sum(s.gpu_count for s in plan.servers) >= 8 and not any(a.mig for a in plan.assignments)
    queued = workload_from(
        BID.replace("concurrent: 8", "jobs: 2, train_tokens: 1000000") + "queue: {horizon_hours: 100}\n"
    )
    assert not [b for b in enumerate_builds(catalogue, queued).builds if b.mig]


def test_a_copy_on_a_slice_draws_its_compute_share_of_the_cards_power() -> None:
    catalogue = load_catalogue()
    timed = BID.replace("concurrent: 8", "concurrent: 4, train_tokens: 2000000000")
    plans = {
        mig: solve(
            workload_from(timed + f"sizing: {{mig: {mig}}}\n"), catalogue, SolveSettings(time_limit=10)
        )
        for mig in ("true", "false")
    }
    sliced, whole = plans["true"].plan_or_raise(), plans["false"].plan_or_raise()
    assert plans["true"].verified and plans["false"].verified
    (cap,) = {s.gpu_power_cap_w for p in (sliced, whole) for s in p.servers}  # one power setting
    per_hour = {
        a.mig.profile if a.mig else "whole": a.energy_kwh / a.hours
        for p in (sliced, whole)
        for a in p.assignments
        if a.energy_kwh and a.hours
    }
    shares = {"1g.24gb": 0.25, "2g.48gb": 0.5}
    assert set(per_hour) - {"whole"} and cap
    for profile, kw in per_hour.items():
        if profile != "whole":
            assert kw == pytest.approx(per_hour["whole"] * shares[profile], rel=1e-3)


def test_offered_slices_are_each_card_and_profile_once_in_a_stable_order() -> None:
    catalogue = load_catalogue()
    builds = enumerate_builds(catalogue, workload_from(BID)).builds
    offered = offered_slices(builds)
    keys = [(gpu.id, mig.name) for gpu, mig in offered]
    assert keys == sorted({(b.gpu.id, b.mig.name) for b in builds if b.mig is not None})
    assert keys == [("rtx-pro-6000-se", "1g.24gb"), ("rtx-pro-6000-se", "2g.48gb")]
    assert offered_slices(b for b in builds if b.mig is None) == []


def test_slices_are_sized_only_at_one_gpu_and_only_where_a_whole_card_holds_the_copy(monkeypatch) -> None:
    """The 70B LoRA needs several cards: no slice of a card is sized for it, and the 8B QLoRA's slices
    are sized at one GPU alone (issue 38: a third of the build of 5,000 runs went to slice sizings
    thrown away), with the same slice modes as before."""
    import ftopt.solver.problem.data as data_module

    asked: list[tuple[str, object]] = []
    real = data_module.slice_modes

    def spy(run, profile, slices, *rest):  # type: ignore[no-untyped-def]
        asked.append((profile.run.name, profile.run.gpus))
        return real(run, profile, slices, *rest)

    monkeypatch.setattr(data_module, "slice_modes", spy)
    data = build_problem(workload_from(BID + BIG), load_catalogue())
    assert asked == [("small", 1)]
    assert not [m for m in data.modes if m.run == 1 and m.mig]
    assert {m.mig for m in data.modes if m.run == 0 and m.mig} == {"1g.24gb", "2g.48gb"}
