"""Rules on GPU slices (MIG): sliced cards carry a layout the vendor lists, and each copy on a slice
names an instance that exists, on its own, single-GPU and single-server.

Why here and not in memory.py: whether a copy fits its slice is the ordinary memory rule, run on
the card the slice amounts to (`Context.card`); what only slices add is the layout of each card
(NVIDIA's MIG user guide lists the valid combinations: a free packing of compute and memory slices
would admit layouts the driver refuses) and the instance a copy names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ftopt.model.plan import Assignment, MigCard
from ftopt.verify.context import Context, Parts, copy_subject
from ftopt.verify.violation import Violation


def check_mig_layouts(ctx: Context) -> Iterator[Violation]:
    """Each sliced card is a card of its server, listed once, of a model that supports MIG, and
    split into a combination of instances the vendor lists for that card."""
    for p in ctx.parts.values():
        s = p.server
        cards = Counter(c.card for c in s.mig)
        for card in s.mig:
            problem = _layout_problem(p, card, cards[card.card])
            if problem:
                yield Violation("mig-layout", f"server {s.id} GPU {card.card}", *problem)


def _layout_problem(p: Parts, card: MigCard, listed: int) -> tuple[str, str] | None:
    """What is wrong with one sliced card's layout, as (found, expected); None when it is valid."""
    s, gpu = p.server, p.gpu
    if not 0 <= card.card < s.gpu_count:
        return f"GPU {card.card}", f"the server has GPUs 0–{s.gpu_count - 1}"
    if listed > 1:
        return f"listed {listed} times", "each sliced card once"
    if gpu is not None and gpu.mig is None:
        return f"{gpu.id} split into {', '.join(card.profiles)}", f"{gpu.id} has no GPU slices (MIG)"
    if gpu is not None and gpu.mig is not None and not gpu.mig.valid(card.profiles):
        return f"layout {' + '.join(card.profiles)}", f"a layout NVIDIA lists for {gpu.id}"
    return None


def check_mig_slices(ctx: Context) -> Iterator[Violation]:
    """A copy on a slice trains on one GPU of one server, an instance its card's layout has, alone;
    a copy on whole GPUs takes no sliced card."""
    for a in ctx.plan.assignments:
        parts = ctx.parts.get(a.server)
        if parts is None:
            continue
        layouts = {c.card: c.profiles for c in parts.server.mig}
        problem = _slice_problem(a, layouts) if a.mig else _whole_problem(a, layouts)
        if problem:
            yield Violation("mig-slice", copy_subject(a), *problem)


def _slice_problem(a: Assignment, layouts: dict[int, list[str]]) -> tuple[str, str] | None:
    """What is wrong with a copy's slice, as (found, expected); None when it is valid."""
    assert a.mig is not None
    m = a.mig
    if a.multinode or a.gpus != [m.card]:
        return f"GPUs {a.gpus} for slice on GPU {m.card}", f"GPUs [{m.card}] only: a slice has no peer link"
    profiles = layouts.get(m.card)
    if profiles is None:
        return f"slice {m.profile} on GPU {m.card}", "a card the server lists as sliced"
    count = profiles.count(m.profile)
    if not m.index < count:
        return f"instance {m.index} of {m.profile}", f"the card has {count} of {m.profile}"
    return None


def _whole_problem(a: Assignment, layouts: dict[int, list[str]]) -> tuple[str, str] | None:
    """A copy on whole GPUs must not take a sliced card."""
    sliced = [g for g in a.gpus if g in layouts]
    if sliced:
        return f"whole GPUs {sliced}", "cards that are not split into slices"
    return None
