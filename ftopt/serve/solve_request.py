"""What one solve is asked for: the version's workload text and the knobs a user may set.

Why a module of its own: the queue (`jobs`), the operations (`bids`) and the worker's code
(`answer`) all pass it, and the queue must not import the solver, so a worker process can lower its
priority before OR-Tools is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SolveRequest:
    """What a solve was asked for: the version's workload text and the knobs a user may set."""

    workload: str
    time_limit: float = 30.0
    what_if: bool = True
    frontier: bool = True
    alternatives: int = 0
    solver_workers: int = 1
    #: The version's number, which the quote names as its revision (None: the text as it is).
    revision: int | None = None
    #: The files kept beside the bid, (name, bytes): the seller's logo the quote embeds.
    files: tuple[tuple[str, bytes], ...] = ()

    def settings(self) -> dict[str, Any]:
        """The knobs, as stored with the solve."""
        return {
            "time_limit": self.time_limit,
            "what_if": self.what_if,
            "frontier": self.frontier,
            "alternatives": self.alternatives,
        }
