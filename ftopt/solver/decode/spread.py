"""Each copy's hours at P50 and P90: its hours with failures × its stack's spread factors.

Why a module of its own: the plan builder places copies; the spread is a figure laid over each
placed copy from two inputs only, the catalogue's spread table and the stack each run's speed
assumes (`SpreadInput`), and the failures module asks it for the P90 a copy would have without
its spares.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ftopt.model.plan import Assignment
from ftopt.model.sizing import RunProfile
from ftopt.model.spread import FigureBands, Spread, SpreadFactors, hours_at_confidence


@dataclass(frozen=True)
class SpreadInput:
    """The catalogue's spread table (None without spread data), each run's stack and method, by
    run name."""

    spread: Spread | None
    stacks: dict[str, str | None]
    methods: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, spread: Spread | None, profiles: list[RunProfile]) -> SpreadInput:
        """The input for a bid's runs: dicts, so a copy's stack and method are found without a scan."""
        stacks = {p.run.name: p.stack.id if p.stack else None for p in profiles}
        return cls(spread, stacks, {p.run.name: p.method.id for p in profiles})

    def factors(self, run: str) -> SpreadFactors | None:
        """The spread factors of the run's stack (None without spread data)."""
        return None if self.spread is None else self.spread.of(self.stacks.get(run))

    def bands(self, run: str) -> FigureBands | None:
        """The bands of the run's copies' memory, hours and energy (spread.yaml's, by stack and method)."""
        if self.spread is None or run not in self.methods:
            return None
        return self.spread.copy_bands(self.stacks.get(run), self.methods[run])


def with_spread(spread: SpreadInput, a: Assignment) -> Assignment:
    """The copy with its hours at P50 and P90 (ftopt.model.spread): its hours with failures (its
    servers' chosen drives: at most what the deadline check bounded them by) × its stack's spread
    factors; and the bands of its memory, hours and energy."""
    factors = spread.factors(a.run)
    if a.hours is None or factors is None:
        return a.model_copy(update={"bands": spread.bands(a.run)})
    return a.model_copy(
        update={
            "hours_p50": round(hours_at_confidence(a.hours, a.failure_overhead, factors, 0.5), 6),
            "hours_p90": round(hours_at_confidence(a.hours, a.failure_overhead, factors, 0.9), 6),
            "spread_basis": factors.basis,
            "bands": spread.bands(a.run),
        }
    )


def p90_without_spares(spread: SpreadInput, a: Assignment, bare_overhead: float) -> float | None:
    """A copy with spares: its hours at P90 with the failure overhead it would have without them
    (what the spares buy, as the quote states it); None for a copy without spares or spread data."""
    factors = spread.factors(a.run)
    if not a.spares or factors is None or a.hours is None:
        return None
    return round(hours_at_confidence(a.hours, bare_overhead, factors, 0.9), 6)
