"""What the solver offers before it searches, as a library caller may ask for it: whether each run
fits some allowed build alone, and the price of the first-fit plan every solve starts from.

Why public: the benchmarks draw bids whose runs each fit somewhere (the same test as the solver's
precheck) and set every plan against the solver's own first fit (which a plan never exceeds); they
read them here rather than reaching into the problem data and the greedy search.
"""

from __future__ import annotations

from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload
from ftopt.solver.decode.bills import fabric_price
from ftopt.solver.decode.layout import price_of
from ftopt.solver.problem.data import build_problem
from ftopt.solver.problem.modes import compatible
from ftopt.solver.search.greedy import greedy_plan


def runs_fitting(workload: Workload, catalogue: Catalogue) -> list[bool]:
    """Per run, whether some allowed build holds one copy of it (on one server or over several)."""
    data = build_problem(workload, catalogue)
    return [
        any(compatible(data.modes[m], b) for m in data.modes_of(r) for b in data.builds)
        or data.has_multinode(r)
        for r in range(len(workload.runs))
    ]


def first_fit_price(workload: Workload, catalogue: Catalogue) -> float | None:
    """The price of the solver's first-fit decreasing plan (each new server the cheapest per GPU,
    the cheapest of its passes, with its multi-node copies' fabric), or None when it places not
    every copy. A peak bid's plan is never dearer than this."""
    data = build_problem(workload, catalogue)
    plan = greedy_plan(data)
    return price_of(plan) + fabric_price(catalogue, plan) if plan else None
