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
    restart_hours: float = Field(ge=0, description="from an interruption to training again, hours")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")


@dataclass(frozen=True)
class FailureCost:
    """What interruptions and checkpoints do to one copy's hours."""

    interval_h: float  # Young/Daly checkpoint interval
    write_h: float  # one checkpoint's write
    interruptions: float  # expected over the copy's hours with failures
    goodput: float  # share of the wall-clock time that trains

    @property
    def overhead(self) -> float:
        """Hours added per training hour: 1 / goodput - 1."""
        return 1 / self.goodput - 1


def write_hours(checkpoint_gb: float, write_gbps: float) -> float:
    """Hours to write one checkpoint at the servers' summed data-drive write bandwidth (GB/s)."""
    return checkpoint_gb / write_gbps / SECONDS_PER_HOUR


def failure_cost(
    hours: float, gpus: int, checkpoint_gb: float, write_gbps: float, r: Reliability
) -> FailureCost:
    """The Young/Daly interval, expected interruptions and goodput of a copy that trains `hours`
    failure-free on `gpus` GPUs and writes `checkpoint_gb` at `write_gbps`."""
    mtbf = 1 / (r.interruptions_per_gpu_hour * gpus)
    write = write_hours(checkpoint_gb, write_gbps)
    interval = math.sqrt(2 * write * mtbf)
    lost = (write / interval if interval else 0.0) + (interval / 2 + r.restart_hours) / mtbf
    goodput = max(1 - lost, LEAST_GOODPUT)
    return FailureCost(interval, write, hours / goodput / mtbf, goodput)
