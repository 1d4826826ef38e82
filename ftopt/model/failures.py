"""Hours with failures: checkpoints, interruptions and the work lost to them (issue 28, item 5).

Why a separate factor: a copy's speed model gives its hours on a machine that never fails. A large
run is interrupted (Meta's Llama 3 405B pre-training saw 419 unexpected interruptions in 54 days on
16,384 GPUs), so it writes checkpoints and, after each interruption, restarts and redoes the work
since the last one. With interruptions at a rate λ per GPU-hour, a copy on G GPUs fails on average
every M = 1 / (λ G) hours; writing one checkpoint takes δ hours (its size over the write bandwidth
of its servers' data drives). Young's and Daly's first-order optimum writes one every
τ = √(2 δ M) hours; the share of time lost is then δ / τ (writing) + (τ / 2 + R) / M (half an
interval redone and a restart of R hours per interruption), and the goodput is one minus that.
Hours with failures = hours / goodput: a factor of its own, so that other spreads (P50/P90 of the
speed model) multiply onto the same base hours.

Spare servers: most interruptions are hardware (78 % for Llama 3) and take a server out until it is
repaired or replaced. A copy without a spare waits for that repair before it restarts; a copy with N
hot spares on its fabric restarts on a spare at once and waits only when the failure finds N of its
servers already in repair. Servers in repair at once are Poisson with mean h λ G × repair hours (the
copy's server failure rate times the repair time), so R = restart + h × P(Poisson ≥ N) × repair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

#: Goodput below which a copy is taken never to finish: its checkpoints and restarts eat the run.
LEAST_GOODPUT = 0.05
SECONDS_PER_HOUR = 3600


class Reliability(BaseModel):
    """How often training is interrupted and how long a restart takes (reliability.yaml)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)
    interruptions_per_gpu_hour: float = Field(gt=0, description="unexpected interruptions per GPU-hour")
    restart_hours: float = Field(
        ge=0, description="from an interruption to training again, hours, when no repair is waited for"
    )
    hardware_share: float | None = Field(
        default=None, ge=0, le=1, description="share of interruptions that take a server out until repaired"
    )
    repair_hours: float | None = Field(default=None, ge=0, description="to repair or replace a server, hours")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")


@dataclass(frozen=True)
class FailureCost:
    """What interruptions and checkpoints do to one copy's hours."""

    interval_h: float  # Young/Daly checkpoint interval
    write_h: float  # one checkpoint's write
    interruptions: float  # expected over the copy's hours with failures
    goodput: float  # share of the wall-clock time that trains
    restart_h: float = 0.0  # expected hours from an interruption to training again (repairs waited for)

    @property
    def overhead(self) -> float:
        """Hours added per training hour: 1 / goodput - 1."""
        return 1 / self.goodput - 1


def write_hours(checkpoint_gb: float, write_gbps: float) -> float:
    """Hours to write one checkpoint at the servers' summed data-drive write bandwidth (GB/s)."""
    return checkpoint_gb / write_gbps / SECONDS_PER_HOUR


def repair_wait_share(r: Reliability, gpus: int, spares: int = 0) -> float:
    """The share of a copy's hardware interruptions that wait for a repair: those that find at least
    `spares` of its servers already in repair (Poisson, mean h λ G × repair hours). Without a spare
    every one waits: the copy's own server is out and nothing takes its place."""
    if not r.hardware_share or not r.repair_hours:
        return 0.0
    mean = r.hardware_share * r.interruptions_per_gpu_hour * gpus * r.repair_hours
    below = sum(math.exp(-mean) * mean**i / math.factorial(i) for i in range(spares))
    return max(1.0 - below, 0.0)


def restart_hours(r: Reliability, gpus: int, spares: int = 0) -> float:
    """Expected hours from an interruption to training again: the restart itself, plus the repair for
    the hardware interruptions no spare covers (`repair_wait_share`)."""
    wait = (r.hardware_share or 0.0) * repair_wait_share(r, gpus, spares) * (r.repair_hours or 0.0)
    return r.restart_hours + wait


def failure_cost(
    hours: float, gpus: int, checkpoint_gb: float, write_gbps: float, r: Reliability, spares: int = 0
) -> FailureCost:
    """The Young/Daly interval, expected interruptions and goodput of a copy that trains `hours`
    failure-free on `gpus` GPUs, writes `checkpoint_gb` at `write_gbps` and has `spares` hot spare
    servers (0: every hardware interruption waits for its server's repair)."""
    mtbf = 1 / (r.interruptions_per_gpu_hour * gpus)
    write = write_hours(checkpoint_gb, write_gbps)
    interval = math.sqrt(2 * write * mtbf)
    restart = restart_hours(r, gpus, spares)
    lost = (write / interval if interval else 0.0) + (interval / 2 + restart) / mtbf
    goodput = max(1 - lost, LEAST_GOODPUT)
    return FailureCost(interval, write, hours / goodput / mtbf, goodput, restart)
