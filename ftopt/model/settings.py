"""The public types a caller of `ftopt.solve` sets and receives while it runs: the knobs of a solve
(`SolveSettings`) and each new incumbent reported on the way (`Progress`).

Why here and not beside the search: callers (the command line, a sweep, a library user) build these
without touching the solver's internals, and the layers below the search (the problem, decoding,
the frontier) pass them on; a public type lives in the model layer, which every layer may import.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Progress:
    """A new incumbent: its price, the bound, and the time since the solve began."""

    price: float
    bound: float
    seconds: float

    @property
    def gap(self) -> float:
        """Relative gap to the bound."""
        return (self.price - self.bound) / self.price if self.price else 0.0


@dataclass(frozen=True)
class SolveSettings:
    """The few knobs a user sets."""

    time_limit: float = 60.0
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)  # one per core: measured best
    deterministic: bool = False
    log: bool = False
    what_if: bool = False  # re-solve once per relaxation to report savings (whatif.py)
    verify: bool = True  # re-check the plan with the independent verifier before returning it
    alternatives: int = 0  # the next cheapest bids whose server sets differ (alternatives.py)
