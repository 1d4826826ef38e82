"""Rule family: each run's deadline, the hours its every copy must finish within.

The deadline filters the ways a run may train where its modes are made (a mode too slow at the
run's deadline confidence is left out), so the family has no constraints. It owns the what-if: the
bid without deadlines, re-solved; where that plan is cheaper, the deadline is what priced the bid,
and `loosened_by` says by how many hours each deadline must give for that plan (it meets every
deadline loosened that much, and no dearer plan meets a looser bid, so the saving holds for
"+N h" exactly when the re-solve is proven). Infeasible bids get their deadline reason before
any search (`ftopt.solver.explain.reasons`).
"""

from __future__ import annotations

import math

from ftopt.model.plan import Plan
from ftopt.model.relaxation import RelaxationId
from ftopt.model.workload import Workload
from ftopt.solver.cpsat.family import Family, Relaxation
from ftopt.solver.problem.data import ProblemData

#: A "+N h" what-if is stated to a tenth of an hour, rounded up so that the eased plan meets it.
STEP_H = 0.1


def relax(data: ProblemData) -> list[Relaxation]:
    """The bid with no run bound by a deadline (queue bids keep theirs: they place jobs in time)."""
    workload = data.workload
    if workload.queue is not None or not any(r.deadline_hours is not None for r in workload.runs):
        return []
    runs = tuple(r.model_copy(update={"deadline_hours": None}) for r in workload.runs)
    return [Relaxation(RelaxationId.DEADLINE, "no deadline", workload.model_copy(update={"runs": runs}))]


def loosened_by(workload: Workload, eased: Plan) -> float:
    """Hours every deadline must give for the eased plan to meet it: the most any run's copies need
    beyond its deadline, at the run's deadline confidence, rounded up to `STEP_H`."""
    late = 0.0
    runs = {r.name: r for r in workload.runs}
    for a in eased.assignments:
        run = runs.get(a.run)
        hours = a.hours_at(run.deadline_confidence) if run is not None else None
        if run is not None and run.deadline_hours is not None and hours is not None:
            late = max(late, hours - run.deadline_hours)
    return math.ceil(round(late / STEP_H, 6)) * STEP_H


def loosen(workload: Workload, hours: float) -> Workload:
    """The bid with every deadline `hours` later: the workbench's "ease" of a deadline saving."""
    runs = tuple(
        r.model_copy(update={"deadline_hours": round(r.deadline_hours + hours, 3)})
        if r.deadline_hours is not None
        else r
        for r in workload.runs
    )
    return workload.model_copy(update={"runs": runs})


Deadline = Family(
    name="deadline",
    relaxations=(RelaxationId.DEADLINE,),
    verifier_rules=("deadline",),
    workload_fields=("runs[].deadline_hours", "runs[].deadline_confidence"),
    relax=relax,
)
