"""The least deadline extension that still buys a deadline what-if's plan.

The deadline's what-if re-solves the bid with no deadline at all. That plan's price is what easing
the deadline can save, but its hours are not what the saving needs: among plans at that price the
solver picks any, often the slowest (one card at its lowest power setting), so "deadlines +32.8 h"
was stated where +6.4 h bought the same saving. The least extension is found by re-solving the bid
with every deadline loosened: a looser bid never costs more, so the price falls step by step with the
extension and a bisection over the `STEP_H` grid finds the first step at which it reaches the
target. Each re-solve that succeeds also says how late its own plan runs, which is probed next (it
is often the answer). The extension stated is always one a re-solve confirmed at that very
extension; when the time runs out before any, the eased plan's own lateness stands, as before.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.model.result import Result
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.deadline import STEP_H, loosen, loosened_by
from ftopt.solver.cpsat.family import Relaxation

#: A re-solve of one eased bid (the solver's own `solve`, on a share of the what-if budget).
Resolve = Callable[[Relaxation], Result]
#: Whether a re-solved plan buys what the what-if states (the saving's price, or any plan at all).
Enough = Callable[[Plan], bool]


def _steps(hours: float) -> int:
    """Whole `STEP_H` steps in `hours`, rounded up (the grid `loosened_by` rounds to)."""
    return math.ceil(round(hours / STEP_H, 6))


def _loosened(workload: Workload, steps: int) -> Relaxation:
    hours = round(steps * STEP_H, 6)
    return Relaxation(RelaxationId.DEADLINE, f"deadlines +{hours:g} h", loosen(workload, hours))


def least_extension(
    workload: Workload, eased: Plan, enough: Enough, resolve: Resolve, until: float | None = None
) -> tuple[float, Plan]:
    """The fewest hours every deadline must give for a plan `enough` accepts, and that plan.

    `eased` is the no-deadline plan: it meets every deadline loosened by its own lateness, the upper
    end of the search. The bid's own deadlines (0 h) are the lower end: the what-if exists because
    no plan there is enough. Stops when the clock (`time.perf_counter`) passes `until`."""
    hi, best = _steps(loosened_by(workload, eased)), eased
    lo, probe = 0, None
    while hi - lo > 1 and (until is None or time.perf_counter() < until):
        mid = probe if probe is not None and lo < probe < hi else (lo + hi) // 2
        found = resolve(_loosened(workload, mid)).plan
        if found is not None and enough(found):
            hi, best = mid, found
            probe = _steps(loosened_by(workload, found))
        else:
            lo, probe = mid, None
    if best is eased and (until is None or time.perf_counter() < until):
        best = _confirmed(workload, hi, eased, enough, resolve)
    return round(hi * STEP_H, 6), best


def _confirmed(workload: Workload, steps: int, eased: Plan, enough: Enough, resolve: Resolve) -> Plan:
    """The re-solve at the no-deadline plan's own lateness, when the bisection never probed it; that
    plan where the re-solve does not reach the target (the deadline filter holds modes to their
    slowest placement, which a plan's own hours may beat)."""
    found = resolve(_loosened(workload, steps)).plan
    return found if found is not None and enough(found) else eased
