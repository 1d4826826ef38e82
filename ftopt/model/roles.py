"""The roles of a preference or RL run and the memory each holds per GPU.

Why roles: a DPO, GRPO or PPO copy is several models at once. The policy trains as a supervised run
would; a frozen reference scores the same sequences (with an adapter, the base model with the adapter
switched off is the reference and costs nothing); a frozen reward model scores responses; PPO trains
a critic of the policy's shape; and a rollout engine generates. Each holds its own weights (and, for
the trained ones, gradients and optimiser states) on the GPUs it is placed on.

The frozen models are sharded like the policy (FSDP divides them over the training GPUs, DDP keeps a
whole copy on each). Their forward passes run between the policy's steps, so their activations
never coincide with the policy's and are not counted; the critic's update likewise runs after the
policy's and reuses the same activation memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.architecture import ParamCounts
from ftopt.model.memory import BF16, GB, States, checkpoint_bytes, model_states
from ftopt.model.methods import Role as Role  # declared with the algorithms that hold it
from ftopt.model.methods import TrainingAlgorithm, TrainingMethod
from ftopt.model.profile import RunProfile
from ftopt.model.workload import Offload, Optimizer, Run, Strategy


@dataclass(frozen=True)
class RoleMemory:
    """One role of a copy: how many of the copy's GPUs hold it (the training GPUs come first, a
    separate engine's last) and what it takes on each, GB."""

    role: Role
    gpus: int
    first: int  # index of its first GPU among the copy's
    memory_gb: float


def has_reference(run: Run, method: TrainingMethod, algorithm: TrainingAlgorithm) -> bool:
    """A frozen reference takes memory of its own only when the algorithm declares one, the policy
    trains all its weights (an adapter's base is the reference) and its log-probabilities are not
    precomputed (the workload allows that for DPO only)."""
    return Role.REFERENCE in algorithm.roles and method.full and run.reference != "precomputed"


def frozen_bytes_per_gpu(params: int, strategy: Strategy, gpus: int) -> float:
    """A frozen BF16 model on the training GPUs: sharded under FSDP, whole on each GPU otherwise."""
    total = params * BF16
    return total / gpus if strategy == Strategy.FSDP else total


def reference_gb(profile: RunProfile, strategy: Strategy, gpus: int) -> float:
    """The reference model per training GPU, GB (0 when the base or precomputed figures serve): a
    frozen copy of the policy's model."""
    held = has_reference(profile.run, profile.method, profile.algorithm)
    return frozen_bytes_per_gpu(profile.counts.total, strategy, gpus) / GB if held else 0.0


def reward_gb(reward: ParamCounts | None, strategy: Strategy, gpus: int) -> float:
    """The reward model per training GPU, GB (0 without one: a rule-based reward)."""
    return 0.0 if reward is None else frozen_bytes_per_gpu(reward.total, strategy, gpus) / GB


def critic_states(profile: RunProfile, optimizer: Optimizer, offload: Offload) -> States | None:
    """The critic of an algorithm that declares one (PPO): a second trainable model of the policy's
    shape, trained the policy's way (its own frozen base under an adapter, since its value head and
    adapter differ from the policy's), with the master weights of the run's stack."""
    if Role.CRITIC not in profile.algorithm.roles:
        return None
    master = profile.stack.master_weights if profile.stack else "fp32"
    run = profile.run
    return model_states(
        profile.counts, profile.method, optimizer, offload, run.lora_rank, master_weights=master
    )


def extra_disk_gb(profile: RunProfile, optimizer: Optimizer) -> float:
    """NVMe beyond the policy's: the reward model's BF16 weights, and a critic's checkpoints (as
    many as the policy keeps, each like the policy's)."""
    run, reward = profile.run, profile.reward_counts
    disk = 0.0 if reward is None else reward.total * BF16
    if Role.CRITIC in profile.algorithm.roles:
        disk += run.keep_checkpoints * checkpoint_bytes(
            profile.counts, profile.method, optimizer, run.lora_rank
        )
    return disk / GB


def critic_gb(states: States | None, strategy: Strategy, gpus: int) -> float:
    """The critic's states per training GPU, GB."""
    if states is None:
        return 0.0
    return (states.gpu_bytes / gpus if strategy == Strategy.FSDP else states.gpu_bytes) / GB
