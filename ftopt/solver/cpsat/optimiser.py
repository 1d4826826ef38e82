"""Rule family: a run's optimiser, when the bid fixes it at 32-bit Adam.

The optimiser is chosen where each run is sized (`ftopt.model.sizing`): no constraints here. The
family owns the what-if: 8-bit Adam for every run fixed at 32-bit whose method would pick 8-bit on
its own (its states take a quarter of the memory, so fewer or smaller cards may hold it).
"""

from __future__ import annotations

from ftopt.model.relaxation import RelaxationId
from ftopt.model.workload import Optimizer
from ftopt.solver.cpsat.family import Family, Relaxation
from ftopt.solver.problem.data import ProblemData


def relax(data: ProblemData) -> list[Relaxation]:
    """8-bit Adam for every run fixed at 32-bit whose method offers it."""
    workload, methods = data.workload, data.catalogue.methods
    fixed = [
        r
        for r in workload.runs
        if r.optimizer == Optimizer.ADAMW_32BIT
        and Optimizer.ADAMW_8BIT in methods.method(r.method).offers.auto_optimizers
    ]
    if not fixed:
        return []
    runs = tuple(r.model_copy(update={"optimizer": "auto"}) if r in fixed else r for r in workload.runs)
    words = f"8-bit Adam for {', '.join(r.name for r in fixed)}"
    return [Relaxation(RelaxationId.OPTIMISER, words, workload.model_copy(update={"runs": runs}))]


Optimiser = Family(
    name="optimiser",
    relaxations=(RelaxationId.OPTIMISER,),
    verifier_rules=("optimizer",),
    workload_fields=("runs[].optimizer",),
    catalogue_fields=("methods",),
    relax=relax,
)
