"""What the roles of a DPO, GRPO or PPO copy hold, as the verifier derives it (ftopt/verify/roles.py
holds the rules that use it, and context.py the copy's re-sizing).

Re-derived here with the verifier's own arithmetic from the workload, the catalogue's architectures
and the rollout constants (data): parameter counts from the architecture, 2 bytes per frozen BF16
weight divided over the training GPUs when sharded, the policy's own states again for PPO's critic,
the configured share of each GPU for the engine. The model layer's role code (ftopt.model.roles,
ftopt.model.rl, ftopt.model.rollout) is not used, so a mistake there shows up here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ftopt.model.architecture import Architecture, ParamCounts, count_params
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import checkpoint_bytes
from ftopt.model.methods import MethodRegistry
from ftopt.model.plan import Assignment
from ftopt.model.rollout import RolloutConstants
from ftopt.model.workload import Algorithm, Optimizer, Run, Strategy

GB = 1e9
BF16_BYTES = 2
TRAINING_ROLES = ("policy", "reference", "reward", "critic")


def needed_roles(methods: MethodRegistry, run: Run) -> set[str]:
    """The roles an RL run's copy must list: those its algorithm declares (methods.yaml), less a
    reference when the policy trains an adapter (its base is the reference) or DPO's log-probabilities
    are precomputed, and less a reward model when none is named."""
    roles = {str(role) for role in methods.algorithm(run.algorithm).roles}
    precomputed = run.algorithm == Algorithm.DPO and run.reference == "precomputed"
    if not methods.method(run.method).full or precomputed:
        roles.discard("reference")
    if run.reward_model is None:
        roles.discard("reward")
    return roles


def model_arch(catalogue: Catalogue, model: object) -> Architecture | None:
    """A catalogue id's or inline model's architecture (None for an id the catalogue lacks)."""
    if isinstance(model, str):
        return catalogue.model(model).architecture if catalogue.has("models", model) else None
    architecture = getattr(model, "architecture", None)
    return architecture if isinstance(architecture, Architecture) else None


def _frozen_gb(arch: Architecture, strategy: Strategy, train_gpus: int) -> float:
    """A frozen BF16 copy of a model per training GPU."""
    total = count_params(arch).total * BF16_BYTES / GB
    return total / train_gpus if strategy == Strategy.FSDP else total


def engine_share_gb(rollout: RolloutConstants, run: Run, card_gb: float, placement: str | None) -> float:
    """What the engine may take per GPU: the run's share of a training GPU when colocated, the
    separate-engine share of its own GPUs otherwise."""
    if placement == "colocated" and run.rollout is not None:
        return run.rollout.memory_fraction * card_gb
    return rollout.separate_memory_fraction * card_gb


@dataclass(frozen=True)
class Expected:
    """Role memory per GPU, GB, as the verifier derives it for one copy."""

    memory: dict[str, float]


def expected_roles(
    catalogue: Catalogue, a: Assignment, run: Run, card_gb: float, policy_states_gb: float, policy_gb: float
) -> Expected:
    """Each needed role's memory per GPU for the copy as placed (training GPUs: those of its policy;
    over several servers, the GPUs the states are sharded over: all under FSDP, a server's under HSDP)."""
    train = len(role_gpus(a, "policy")) or len(a.gpus)
    strategy = a.strategy
    if a.multinode:
        train = train if a.strategy == Strategy.HSDP else a.gpu_count
        strategy = Strategy.FSDP
    memory: dict[str, float] = {"policy": policy_gb}
    needed = needed_roles(catalogue.methods, run)
    arch = model_arch(catalogue, run.model)
    if "reference" in needed and arch is not None:
        memory["reference"] = _frozen_gb(arch, strategy, train)
    reward = model_arch(catalogue, run.reward_model) if run.reward_model is not None else None
    if "reward" in needed and reward is not None:
        memory["reward"] = _frozen_gb(reward, strategy, train)
    if "critic" in needed:
        memory["critic"] = policy_states_gb
    if "rollout" in needed:
        memory["rollout"] = engine_share_gb(catalogue.rollout, run, card_gb, a.placement)
    return Expected(memory)


def role_gpus(a: Assignment, role: str) -> list[int]:
    """The GPUs the copy lists for a role (empty when it lists none)."""
    return next((r.gpus for r in a.roles if r.role == role), [])


def engine_need_gb(rollout: RolloutConstants, arch: Architecture, run: Run, engine_gpus: int) -> float:
    """The least an engine on `engine_gpus` GPUs holds per GPU: its weights over the widest replica
    (the largest power of two dividing its GPUs), its fixed overhead and one whole sequence's KV
    cache (keys and values of every softmax-attention layer in BF16)."""
    width = 1
    while engine_gpus % (2 * width) == 0:
        width *= 2
    weights = count_params(arch).total * BF16_BYTES / GB
    la = arch.linear_attention
    attention_layers = arch.layers if la is None else arch.layers // la.full_attention_every
    assert run.rollout is not None
    tokens = run.rollout.prompt_len + run.rollout.response_len
    kv = 2 * attention_layers * arch.kv_heads * arch.head_dim * BF16_BYTES * tokens / GB
    return (weights + kv) / width + rollout.engine_overhead_gb


def role_disk_gb(catalogue: Catalogue, run: Run, optimizer: Optimizer, counts: ParamCounts) -> float:
    """NVMe an RL copy needs beyond its policy's: the reward model's BF16 weights and, for PPO, the
    critic's checkpoints (the policy's kind, as many as the run keeps)."""
    disk = 0.0
    reward = model_arch(catalogue, run.reward_model) if run.reward_model is not None else None
    if reward is not None:
        disk += count_params(reward).total * BF16_BYTES
    if run.algorithm == Algorithm.PPO:
        disk += run.keep_checkpoints * checkpoint_bytes(
            counts, catalogue.methods.method(run.method), optimizer, run.lora_rank
        )
    return disk / GB
