"""A run resolved against the catalogue: its model's architecture and counts, its stack, its method
and algorithm entries, and its memory margin.

Why a module of its own: the rules of every other model module (parallelism, roles, sizing, speed,
RL) take a run's profile as their one parameter object instead of its run, method, algorithm,
model, counts and stack one by one, and a profile that lived beside the sizing rules would make
those modules import each other. `ftopt.model.sizing.profile_run` builds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ftopt.model.architecture import Architecture, ParamCounts, count_params
from ftopt.model.methods import TrainingAlgorithm, TrainingMethod
from ftopt.model.stack import LEGACY_ALLOCATOR_RESERVE, RolloutConstants, Stack
from ftopt.model.workload import Run


@dataclass(frozen=True)
class RunProfile:
    """A run together with its model's architecture, parameter counts and training stack.

    Without a stack (None) memory follows ftopt's historical accounting, which is hf-fsdp's.
    """

    run: Run
    model_name: str
    arch: Architecture
    stack: Stack | None = None
    memory_margin: float = 0.0  # the stack and method's planning margin (margins.yaml)
    reward_arch: Architecture | None = None  # an RL run's reward model, if it has one
    method: TrainingMethod = field(kw_only=True)  # the run's method entry (methods.yaml)
    algorithm: TrainingAlgorithm = field(kw_only=True)  # the run's algorithm entry (methods.yaml)
    rollout: RolloutConstants = field(kw_only=True)  # the catalogue's rollout constants (rollout.yaml)
    # where memory_margin comes from (MemoryMargins.basis), and the allocator reserve to plan with
    margin_basis: str = field(default="no calibration", kw_only=True)
    allocator_reserve: float = field(default=LEGACY_ALLOCATOR_RESERVE, kw_only=True)

    @cached_property
    def counts(self) -> ParamCounts:
        """Exact parameter counts of the run's model."""
        return count_params(self.arch)

    @cached_property
    def reward_counts(self) -> ParamCounts | None:
        """Exact parameter counts of the reward model (None without one)."""
        return None if self.reward_arch is None else count_params(self.reward_arch)
