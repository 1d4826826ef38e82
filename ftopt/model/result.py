"""What `ftopt.solve` returns: a status, the plan when there is one, the proof and the reasons.

Why a result and not a plan-or-exception: a sweep, a notebook or a service wants every outcome as
data (an impossible bid is an answer, not a crash), with the solver's own figures: price, bound,
gap and how long each phase took. `plan_or_raise` gives the exception style to callers who want it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ftopt.errors import InfeasibleError, NoPlanInTimeError
from ftopt.model.findings import Finding
from ftopt.model.plan import Plan, Status


class PhaseTimings(BaseModel):
    """Seconds spent in each phase, measured by the solver itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    build: float = Field(default=0.0, description="builds, training modes and configurations")
    search: float = Field(default=0.0, description="CP-SAT: price stage, tie-break stage, decoding")
    explain: float = Field(default=0.0, description="binding rules, what-if re-solves, reasons")
    verify: float = Field(default=0.0, description="the independent verifier")
    alternatives: float = Field(default=0.0, description="the next cheapest bids (--alternatives)")
    total: float = Field(default=0.0, description="the whole call")


class Result(BaseModel):
    """The outcome of one solve."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    status: Status
    plan: Plan | None = Field(default=None, description="the plan, when status is optimal or feasible")
    price: float | None = Field(default=None, description="the plan's total price")
    bound: float | None = Field(default=None, description="proven lower bound on the price")
    gap: float | None = Field(default=None, description="(price − bound) / price")
    reasons: tuple[Finding, ...] = Field(default=(), description="why there is no plan")
    verified: bool = Field(default=False, description="whether the independent verifier checked the plan")
    timings: PhaseTimings = Field(default_factory=PhaseTimings)

    @property
    def has_plan(self) -> bool:
        """Whether the solve produced a plan."""
        return self.plan is not None

    def plan_or_raise(self) -> Plan:
        """The plan, or `InfeasibleError` / `NoPlanInTimeError` when there is none."""
        if self.plan is not None:
            return self.plan
        if self.status == Status.INFEASIBLE:
            raise InfeasibleError(
                [r.text for r in self.reasons], [r.model_dump(mode="json") for r in self.reasons]
            )
        raise NoPlanInTimeError("; ".join(r.text for r in self.reasons) or "no plan found in time")
