"""Rule on hours with failures: each copy's checkpoint interval, expected interruptions and the
hours they add are re-derived here (docs/design.md, Hours with failures).

- failures: a copy's checkpoint is its run's resumable states (`ftopt.model.memory.checkpoint_bytes`,
  the size the NVMe rule holds), written at once to the data drives of all its servers at their
  catalogue write bandwidth. With the catalogue's interruptions per GPU-hour λ over the copy's G
  GPUs, the mean time between interruptions is M = 1 / (λ G); the interval is √(2 × write × M); the
  share lost is write / interval + (interval / 2 + restart) / M; hours with failures = hours /
  (1 - lost), and the interruptions expected are those hours / M. A plan that states hours must
  state these figures, and they must be these.
- restart: a hardware interruption (the catalogue's hardware share h of them) waits `repair_hours`
  for its server unless a spare takes its place; with N spares listed it waits only when N or more
  of the copy's servers are already in repair, Poisson with mean h λ G × repair. So restart =
  restart_hours + h × P(Poisson ≥ N) × repair_hours, and a copy with spares states its P90 hours
  had it none (`hours_p90_without_spares`, re-derived by the spread rule).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ftopt.model.failures import Reliability
from ftopt.model.memory import checkpoint_bytes
from ftopt.model.plan import Assignment, Node
from ftopt.verify.context import Context, copy_subject
from ftopt.verify.violation import Violation, num

#: The plan rounds hours to 1e-6 and the other figures to 1e-3 (s, h, interruptions): compared within
#: that rounding or one part in a million (the same inputs give the same figures).
RELATIVE = 1e-6
FLOOR = 0.05  # the least goodput the model counts (ftopt.model.failures.LEAST_GOODPUT)


def restart(r: Reliability, gpus: int, spares: int) -> float:
    """Expected hours from an interruption to training again with `spares` hot spares: the restart,
    plus the repair of each hardware interruption that finds no spare free."""
    share, repair = r.hardware_share or 0.0, r.repair_hours or 0.0
    mean = share * r.interruptions_per_gpu_hour * gpus * repair
    free = sum(math.exp(-mean) * mean**k / math.factorial(k) for k in range(spares))
    return r.restart_hours + share * max(1.0 - free, 0.0) * repair


def _failure_terms(ctx: Context, a: Assignment) -> tuple[float, float, float, int] | None:
    """(write hours, interval hours, MTBF hours, GPUs) of the copy, re-derived from the catalogue and
    the plan's servers; None where they cannot be."""
    reliability, run = ctx.catalogue.reliability, ctx.runs.get(a.run)
    profile = ctx.profile(run) if run else None
    if reliability is None or run is None or profile is None:
        return None
    drives = _write_and_gpus(ctx, a)
    if drives is None:
        return None
    write_gbps, gpus = drives
    method = ctx.catalogue.methods.method(run.method)
    gb = checkpoint_bytes(profile.counts, method, a.optimizer, run.lora_rank) / 1e9
    mtbf = 1 / (reliability.interruptions_per_gpu_hour * gpus)
    write_h = gb / write_gbps / 3600
    return write_h, math.sqrt(2 * write_h * mtbf), mtbf, gpus


def goodput(ctx: Context, a: Assignment, spares: int | None = None) -> float | None:
    """The share of the copy's wall-clock time that trains: 1 - write / interval - (interval / 2 +
    restart) / MTBF, at least the floor, with `spares` hot spares (default: those the copy lists);
    None without the figures it needs."""
    terms, reliability = _failure_terms(ctx, a), ctx.catalogue.reliability
    if terms is None or reliability is None:
        return None
    write_h, interval, mtbf, gpus = terms
    held = restart(reliability, gpus, len(a.spares) if spares is None else spares)
    lost = write_h / interval + (interval / 2 + held) / mtbf
    return max(1 - lost, FLOOR)


def _expected(ctx: Context, a: Assignment) -> dict[str, float] | None:
    """The copy's failure figures re-derived from the catalogue and the plan's servers."""
    terms, share, reliability = _failure_terms(ctx, a), goodput(ctx, a), ctx.catalogue.reliability
    if a.hours is None or terms is None or share is None or reliability is None:
        return None
    write_h, interval, mtbf, gpus = terms
    wall = a.hours / share
    return {
        "checkpoint_write_s": write_h * 3600,
        "checkpoint_interval_h": interval,
        "expected_interruptions": wall / mtbf,
        "hours_with_failures": wall,
        "restart_hours": restart(reliability, gpus, len(a.spares)),
    }


def _write_and_gpus(ctx: Context, a: Assignment) -> tuple[float, int] | None:
    """The copy's servers' data-drive write bandwidth (GB/s, all written at once) and its GPUs (a
    single-server copy: its one server's drives); None when a server or drive is unknown or either
    comes to nothing (other rules report those)."""
    write_gbps, gpus = 0.0, 0
    for node in a.nodes or [Node(server=a.server, gpus=a.gpus)]:
        parts = ctx.parts.get(node.server)
        if parts is None or parts.data_drive is None:
            return None
        write_gbps += parts.data_drive.write_gbps * parts.server.data_drive_count
        gpus += len(node.gpus)
    return (write_gbps, gpus) if write_gbps and gpus else None


def _near(stated: float | None, expected: float, rounding: float) -> bool:
    return stated is not None and abs(stated - expected) <= max(RELATIVE * abs(expected), rounding)


ROUNDING = {
    "checkpoint_write_s": 1e-3,
    "checkpoint_interval_h": 1e-3,
    "expected_interruptions": 1e-3,
    "hours_with_failures": 2e-6,
    "restart_hours": 1e-6,
}


def check_failures(ctx: Context) -> Iterator[Violation]:
    """Each copy with hours states its checkpoint write, interval, interruptions and hours with
    failures as re-derived."""
    for a in ctx.plan.assignments:
        expected = _expected(ctx, a)
        if expected is None:
            continue
        for field, value in expected.items():
            stated = getattr(a, field)
            if not _near(stated, value, ROUNDING[field]):
                yield Violation("failures", copy_subject(a), f"{field} {stated}", f"{num(round(value, 6))}")
