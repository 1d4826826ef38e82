"""Modes: the sizings that fit a card, dominated ones pruned, and where each may go."""

from __future__ import annotations

from ftopt.model.workload import Strategy
from ftopt.solver.problem.modes import compatible, prune_dominated, required_domain
from tests.solver.tiny import HEAVY, SMALL, catalogue, problem


def test_modes_fit_their_card_and_go_only_to_builds_of_that_card() -> None:
    data = problem(SMALL)
    for mode in data.modes:
        assert mode.sizing.fits
        for build in data.builds:
            same_slicing = mode.mig == (build.mig.name if build.mig else None)
            assert compatible(mode, build) == (mode.gpus <= build.slots and same_slicing)
    heavy = problem(HEAVY)
    h200 = next(b for b in heavy.builds if b.gpu.id == "h200-nvl")
    assert not any(compatible(m, h200) for m in data.modes)


def test_pruning_keeps_a_mode_no_other_beats() -> None:
    data = problem(SMALL)
    doubled = [*data.modes, *data.modes]
    assert len(prune_dominated(doubled)) == len(prune_dominated(data.modes))


def test_only_sharded_modes_on_nvlink_cards_need_a_domain() -> None:
    data = problem(SMALL)
    rtx = catalogue().gpu("rtx-pro-6000-se")
    assert all(required_domain(rtx, m.sizing) == 0 for m in data.modes)  # no NVLink on this card
    h200 = catalogue().gpu("h200-nvl")
    sharded = next(m for m in data.modes if m.sizing.strategy == Strategy.FSDP or m.gpus > 1)
    if sharded.sizing.strategy == Strategy.FSDP:
        assert required_domain(h200, sharded.sizing) == min(sharded.gpus, max(h200.nvlink.bridge_sizes))


#: One 8B LoRA on two cards with a token budget on RTX PRO 6000 cards: a deadline the failures decide.
TIMED = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: lora, model: llama-3.1-8b, method: lora, gpus: 2, train_tokens: 200000000}]
"""


def test_a_failure_overhead_by_hand() -> None:
    """1.97e-5 interruptions per GPU-hour on 2 GPUs: M = 25,380.7 h; a 1.8 GB/s write of the
    checkpoint; overhead = 1 / (1 - δ/τ - (τ/2 + R)/M) - 1 with τ = √(2 δ M) and R the restart of
    a server without spares (`restart_hours`: repair waits included)."""
    import math

    from ftopt.model.failures import restart_hours
    from ftopt.model.memory import GB, checkpoint_bytes
    from ftopt.solver.problem.modes import failure_overhead

    data = problem(TIMED)
    profile, mode = data.profiles[0], data.modes[0]
    gb = checkpoint_bytes(profile.counts, profile.method, mode.sizing.optimizer, profile.run.lora_rank) / GB
    mtbf = 1 / (1.97e-5 * mode.gpus)
    assert mode.gpus == 2 and math.isclose(mtbf, 25380.71, rel_tol=1e-6)
    write = gb / 1.8 / 3600
    tau = math.sqrt(2 * write * mtbf)
    reliability = catalogue().reliability
    assert reliability is not None
    restart = restart_hours(reliability, 2, 0)
    by_hand = 1 / (1 - write / tau - (tau / 2 + restart) / mtbf) - 1
    found = failure_overhead(profile, mode.sizing, catalogue(), 100.0, 1.8)
    assert found is not None and math.isclose(found, by_hand, rel_tol=1e-9)
    assert 1e-5 < found < 1e-2  # one server: rare interruptions, a small overhead
    slower = failure_overhead(profile, mode.sizing, catalogue(), 100.0, 0.9)
    assert slower is not None and slower > found  # a slower drive costs more: the bound is safe
    assert failure_overhead(profile, mode.sizing, catalogue(), 100.0, None) is None


def test_a_single_server_deadline_counts_failures_at_the_slowest_drives() -> None:
    """A deadline between the P90 hours without failures and with them at the slowest drives the
    card's builds carry drops the mode: single-server copies' failures count."""
    from dataclasses import replace

    from ftopt.solver.problem.modes import (
        confident_hours,
        held_hours,
        meets_deadline,
        mode_hours,
        slowest_writes,
    )

    data = problem(TIMED)
    card = catalogue().gpu("rtx-pro-6000-se")
    writes = slowest_writes(data.builds)
    every = [t.drive.write_gbps * t.count for b in data.builds for t in (b.disk, *b.disk_upgrades)]
    assert writes == {"rtx-pro-6000-se": min(every)}
    profile, mode = data.profiles[0], data.modes[0]
    hours = mode_hours(profile, mode, card, catalogue())
    assert hours is not None
    bare = confident_hours(profile, catalogue(), hours)
    held = held_hours(profile, mode.sizing, catalogue(), hours, writes[card.id])
    assert bare < held
    run = profile.run.model_copy(update={"deadline_hours": (bare + held) / 2})
    tight = replace(profile, run=run)
    assert meets_deadline(tight, mode, card, catalogue(), None, writes[card.id]) == []
    assert meets_deadline(tight, mode, card, catalogue(), None, None) != []  # without failures: kept
