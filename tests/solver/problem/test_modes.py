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
