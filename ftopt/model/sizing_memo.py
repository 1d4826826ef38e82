"""One sizing per distinct copy setup, shared by the runs of one bid that differ only in name.

Why: a bid of 5,000 distinct runs has about 1,600 distinct sizing setups once the fields that do not
change a copy's memory or speed are set aside (its name, its copies, its fixed GPU count, which the
caller already passes as the setup's count, and the checkpoints it keeps, which only scale its
NVMe); sizing each run afresh was most of `build_problem` and of `estimate` on such a bid.

A memo is only valid for one catalogue (a run's profile, its cards and its speed ranking all come
from it), so it is opened around one piece of work (`sizing_memo`) and never outlives it: the
problem of one bid, or one `estimate`. Outside a memo every call sizes afresh, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from ftopt.model.memory import GB, checkpoint_bytes, nvme_bytes
from ftopt.model.profile import RunProfile
from ftopt.model.workload import Optimizer


class CopySetup(Protocol):
    """What the memo reads of `ftopt.model.sizing.CopySetup` (which imports this module)."""

    @property
    def profile(self) -> RunProfile: ...
    @property
    def gpu(self) -> Any: ...
    @property
    def gpus(self) -> int: ...
    @property
    def strategy(self) -> Any: ...
    @property
    def optimizer(self) -> Any: ...
    @property
    def offload(self) -> Any: ...
    @property
    def options(self) -> Any: ...


class Sizing(Protocol):
    """What the memo reads of `ftopt.model.sizing.Sizing` (a frozen dataclass)."""

    @property
    def run(self) -> str: ...
    @property
    def optimizer(self) -> Optimizer: ...
    @property
    def nvme_gb(self) -> float: ...


S = TypeVar("S", bound=Sizing)

#: Run fields that change no copy's sizing beyond its name and NVMe (see the module docstring).
NEUTRAL_FIELDS = frozenset({"name", "concurrent", "gpus", "keep_checkpoints"})


class SizingMemo:
    """Chosen sizings by setup, for one catalogue; each hit renamed and its NVMe recomputed for the
    run that asks."""

    def __init__(self) -> None:
        self._sized: dict[Hashable, list[Any]] = {}
        self._run_keys: dict[int, tuple[object, str]] = {}  # id(run) → (the run, held; its key)
        self._cards: dict[int, object] = {}
        self.hits = 0
        self.misses = 0

    def _run_key(self, setup: CopySetup) -> str:
        run = setup.profile.run
        held = self._run_keys.get(id(run))
        if held is None or held[0] is not run:
            held = (run, run.model_dump_json(exclude=set(NEUTRAL_FIELDS)))
            self._run_keys[id(run)] = held
        return held[1]

    def chosen(self, setup: CopySetup, rank_given: bool, domain: int, size: Callable[[], list[S]]) -> list[S]:
        """`size()`'s sizings for this setup, sized once per distinct setup."""
        key = (
            self._run_key(setup),
            id(setup.gpu),
            setup.gpus,
            setup.strategy,
            setup.optimizer,
            setup.offload,
            setup.options,
            domain,
            rank_given,
        )
        found = self._sized.get(key)
        if found is None:
            self.misses += 1
            found = self._sized[key] = size()
            self._cards[id(setup.gpu)] = setup.gpu  # held, so that no other card takes its id
            return found
        self.hits += 1
        return [as_run(s, setup) for s in found]


def as_run(sizing: S, setup: CopySetup) -> S:
    """A sizing made for another run of the same setup, as `size_run` makes it for this one: its
    name, and the NVMe of the checkpoints this run keeps."""
    profile = setup.profile
    run = profile.run
    checkpoint = checkpoint_bytes(profile.counts, profile.method, sizing.optimizer, run.lora_rank)
    nvme = nvme_bytes(checkpoint, run.keep_checkpoints, profile.counts) / GB
    if sizing.run == run.name and sizing.nvme_gb == nvme:
        return sizing
    return replace(sizing, run=run.name, nvme_gb=nvme)  # type: ignore[type-var]


_ACTIVE: ContextVar[SizingMemo | None] = ContextVar("sizing_memo", default=None)


def active_memo() -> SizingMemo | None:
    """The memo open in this context, if any."""
    return _ACTIVE.get()


@contextmanager
def sizing_memo(memo: SizingMemo | None = None) -> Iterator[SizingMemo]:
    """Share sizings among the runs sized inside the block (a fresh memo, or `memo` to go on with one
    that an earlier block filled for the same catalogue)."""
    memo = memo if memo is not None else SizingMemo()
    token = _ACTIVE.set(memo)
    try:
        yield memo
    finally:
        _ACTIVE.reset(token)
