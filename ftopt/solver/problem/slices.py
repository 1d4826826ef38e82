"""Slice modes: the ways one copy of a run may train on one GPU slice (MIG instance).

Why a mode per slice profile: a server of sliced cards (builds.py, `sliced_builds`) offers every
instance of every card as a place for one single-GPU copy, so a copy that fits a 24 GB instance
takes a quarter of an RTX PRO 6000 instead of the whole card. The copy is sized and timed on the
card one instance amounts to (`ftopt.model.mig.slice_card`: the profile's memory, its shares of
compute and bandwidth, no NVLink), so memory, deadlines and speed read a slice as they read a card.
Only single-GPU copies go on slices: an instance has no peer link to another GPU.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.mig import MigProfile, slice_card
from ftopt.model.sizing import RunProfile
from ftopt.model.speed import speed_ranker
from ftopt.model.workload import SizingOptions
from ftopt.solver.problem.builds import Build
from ftopt.solver.problem.modes import Mode, fitting_modes, mark_slower, meets_deadline, prune_dominated


def offered_slices(builds: Iterable[Build]) -> list[tuple[Gpu, MigProfile]]:
    """Each (card, profile) some sliced build offers, in a stable order."""
    found = {(b.gpu.id, b.mig.name): (b.gpu, b.mig) for b in builds if b.mig is not None}
    return [found[key] for key in sorted(found)]


def slice_modes(
    run_index: int,
    profile: RunProfile,
    slices: list[tuple[Gpu, MigProfile]],
    sizing_options: SizingOptions,
    catalogue: Catalogue,
    caps: Mapping[str, int] | None = None,
    writes: Mapping[str, float] | None = None,
) -> list[Mode]:
    """The undominated single-GPU modes of one run on each offered slice that holds a copy and meets
    the run's deadline (its cards at the lowest power setting their builds give, `caps`, its
    checkpoints at the slowest drives they carry, `writes`)."""
    found: list[Mode] = []
    for gpu, mig in slices:
        card = slice_card(gpu, mig)
        fitting = [
            replace(m, mig=mig.name)
            for m in fitting_modes(
                run_index, profile, card, sizing_options, None, speed_ranker(profile, card, catalogue)
            )
            if m.gpus == 1
        ]
        timely = [
            kept
            for m in fitting
            for kept in meets_deadline(
                profile, m, card, catalogue, (caps or {}).get(gpu.id), (writes or {}).get(gpu.id)
            )
        ]
        found += mark_slower(timely, profile, catalogue, card)
    return prune_dominated(found)
