"""The independent verifier's check of every returned plan, as the solver calls it.

Why a module of its own: a plan the verifier rejects is ftopt's bug, never an answer, so the solver
raises `UnverifiedPlanError` naming every violation; the verifier itself (ftopt/verify) shares no
code with the solver and is imported only when a plan is checked.
"""

from __future__ import annotations

from ftopt.errors import UnverifiedPlanError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload


def verify(plan: Plan, workload: Workload, catalogue: Catalogue, what: str = "the solver's plan") -> None:
    """Re-check the plan with code that shares nothing with the solver; a failure is ftopt's bug."""
    from ftopt.verify import verify_plan  # the verifier is optional at import time for the solver

    violations = verify_plan(plan, workload, catalogue)
    if violations:
        lines = "; ".join(str(v) for v in violations)
        raise UnverifiedPlanError(f"internal error: {what} fails verification: {lines}")
