"""Rule on hours at a confidence: each copy's P50 and P90 hours are re-derived here (docs/design.md,
Hours at a confidence), and the deadline rule holds each copy to them.

- spread: a copy's hours at confidence q are its hours as the speed model re-derives them (the
  deadline rule's), × 1 / goodput (the failures rule's goodput on the plan's own servers' drives:
  checkpoints, lost work, restarts), × its run's stack's factor at q in the catalogue's spread data
  (the pooled factors for a stack the data do not name). A plan that states hours must state these;
  a copy with spares states its P90 hours with the goodput it would have without them, too.
"""

from __future__ import annotations

from collections.abc import Iterator

from ftopt.model.plan import Assignment
from ftopt.model.workload import Run
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.failures import goodput
from ftopt.verify.violation import Violation, num

#: The plan rounds these hours to 1e-6 and builds them from the failure overhead rounded to 1e-6.
RELATIVE = 1e-5


def factor(ctx: Context, run: Run, confidence: float | None) -> float:
    """The run's stack's spread factor at `confidence`: its own entry, else the pooled one (1 without
    spread data or without a confidence: bare hours)."""
    spread = ctx.catalogue.spread
    if spread is None or confidence is None:
        return 1.0
    factors = spread.stacks.get(run.stack or "", spread.pooled)
    return factors.p50 if confidence == 0.5 else factors.p90


def confident_hours(
    ctx: Context, a: Assignment, run: Run, hours: float, confidence: float | None, spares: int | None = None
) -> float:
    """`hours` of the copy at `confidence`: with failures on its servers' drives (with `spares` hot
    spares; default those it lists), × the spread factor (the bare hours without a confidence)."""
    if confidence is None:
        return hours
    return hours / (goodput(ctx, a, spares) or 1.0) * factor(ctx, run, confidence)


def check_spread(ctx: Context) -> Iterator[Violation]:
    """Each copy with hours states its P50 and P90 hours as re-derived from its stated hours."""
    if ctx.catalogue.spread is None:
        return
    for a in ctx.plan.assignments:
        run = ctx.runs.get(a.run)
        if run is None or a.hours is None:
            continue
        for field, confidence, spares in _stated(a):
            expected = confident_hours(ctx, a, run, a.hours, confidence, spares)
            stated = getattr(a, field)
            if stated is None or abs(stated - expected) > max(RELATIVE * expected, 2e-6):
                yield Violation("spread", copy_subject(a), f"{field} {stated}", f"{num(round(expected, 6))}")


def _stated(a: Assignment) -> list[tuple[str, float, int | None]]:
    """(field, confidence, spares) of the hours a copy states: P50 and P90, and a copy with spares
    its P90 without them (what the spares buy)."""
    stated: list[tuple[str, float, int | None]] = [("hours_p50", 0.5, None), ("hours_p90", 0.9, None)]
    return stated + ([("hours_p90_without_spares", 0.9, 0)] if a.spares else [])
