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
from ftopt.model.workload import Optimizer, Run, Strategy

GB = 1e9
BF16_BYTES = 2
TRAINING_ROLES = ("policy", "reference", "reward", "critic")


def needed_roles(methods: MethodRegistry, run: Run) -> set[str]:
    """The roles an RL run's copy must list: those its algorithm declares (methods.yaml), less a
    reference when the policy trains an adapter (its base is the reference) or its log-probabilities
    are precomputed (DPO's option), and less a reward model when none is named."""
    roles = {str(role) for role in methods.algorithm(run.algorithm).roles}
    if not methods.method(run.method).full or run.reference == "precomputed":
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
    """Role memory per GPU, GB, as the verifier derives it for one copy, with a colocated copy's two
    phases: what its engine keeps while the policy trains, and the memory while the engine generates
    (both 0 without a colocated engine)."""

    memory: dict[str, float]
    engine_idle_gb: float = 0.0
    generation_gb: float = 0.0

    def peak_gb(self, roles: list[str], colocated: bool) -> float:
        """What one GPU holding `roles` peaks at: their sum, or for a colocated copy's GPU the larger
        of its training phase (the training roles and the idle engine) and its generation phase."""
        training = sum(gb for role, gb in self.memory.items() if role in roles and role != "rollout")
        if not colocated or "rollout" not in roles:
            return training + (self.memory.get("rollout", 0.0) if "rollout" in roles else 0.0)
        return max(training + self.engine_idle_gb, self.generation_gb)


def engine_weights_gb(
    rollout: RolloutConstants, arch: Architecture, run: Run, gpus: int, share_gb: float
) -> float:
    """An engine's weight shard per GPU: over the narrowest power-of-two replica (dividing its GPUs)
    whose shard, overhead and one whole sequence's KV cache fit the share; the widest otherwise."""
    weights = count_params(arch).total * BF16_BYTES / GB
    kv = _sequence_kv_gb(arch, run)
    widths = [w for w in (1, 2, 4, 8, 16, 32, 64) if w <= gpus and gpus % w == 0]
    for width in widths:
        if (weights + kv) / width + rollout.engine_overhead_gb <= share_gb:
            return weights / width
    return weights / widths[-1]


def colocated_phases(
    rollout: RolloutConstants, arch: Architecture, run: Run, engine_gpus: int, share_gb: float, kept_gb: float
) -> tuple[float, float]:
    """A colocated copy's (engine kept while training, generation phase) per GPU, GB, from the
    rollout constants' declared offload behaviour: the engine keeps nothing (asleep), its weights
    or its whole share; while it generates, the training side keeps `kept_gb` (its states, frozen
    models and overhead) or only its overhead share of that when it offloads."""
    idle = {"nothing": 0.0, "everything": share_gb}.get(rollout.engine_in_training)
    if idle is None:
        idle = engine_weights_gb(rollout, arch, run, engine_gpus, share_gb)
    return idle, share_gb + kept_gb


def expected_roles(
    catalogue: Catalogue,
    a: Assignment,
    run: Run,
    card_gb: float,
    policy_states_gb: float,
    policy_gb: float,
    policy_overhead_gb: float = 0.0,
) -> Expected:
    """Each needed role's memory per GPU for the copy as placed (training GPUs: those of its policy;
    over several servers, the GPUs the states are sharded over: all under FSDP, a server's under HSDP)."""
    memory: dict[str, float] = {"policy": policy_gb}
    needed = needed_roles(catalogue.methods, run)
    memory |= _frozen_roles(catalogue, a, run, needed)
    if "critic" in needed:
        memory["critic"] = policy_states_gb
    if "rollout" not in needed:
        return Expected(memory)
    share = engine_share_gb(catalogue.rollout, run, card_gb, a.placement)
    memory["rollout"] = share
    arch = model_arch(catalogue, run.model)
    if a.placement != "colocated" or arch is None:
        return Expected(memory)
    frozen = sum(gb for role, gb in memory.items() if role not in ("policy", "rollout"))
    states = policy_states_gb + frozen if catalogue.rollout.training_in_generation == "states" else 0.0
    engine_gpus = a.gpu_count if a.multinode else len(role_gpus(a, "rollout")) or len(a.gpus)
    idle, generation = colocated_phases(
        catalogue.rollout, arch, run, engine_gpus, share, states + policy_overhead_gb
    )
    return Expected(memory, idle, generation)


def _frozen_roles(catalogue: Catalogue, a: Assignment, run: Run, needed: set[str]) -> dict[str, float]:
    """The frozen reference and reward models' memory per GPU, sharded as the policy's states are
    (over several servers: FSDP over all GPUs, or a server's under HSDP)."""
    train = len(role_gpus(a, "policy")) or len(a.gpus)
    strategy = a.strategy
    if a.multinode:
        train = train if a.strategy == Strategy.HSDP else a.gpu_count
        strategy = Strategy.FSDP
    memory: dict[str, float] = {}
    arch = model_arch(catalogue, run.model)
    if "reference" in needed and arch is not None:
        memory["reference"] = _frozen_gb(arch, strategy, train)
    reward = model_arch(catalogue, run.reward_model) if run.reward_model is not None else None
    if "reward" in needed and reward is not None:
        memory["reward"] = _frozen_gb(reward, strategy, train)
    return memory


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
    return (weights + _sequence_kv_gb(arch, run)) / width + rollout.engine_overhead_gb


def _sequence_kv_gb(arch: Architecture, run: Run) -> float:
    """One whole sequence's KV cache: keys and values of every softmax-attention layer in BF16, GB."""
    la = arch.linear_attention
    attention_layers = arch.layers if la is None else arch.layers // la.full_attention_every
    assert run.rollout is not None
    tokens = run.rollout.prompt_len + run.rollout.response_len
    return 2 * attention_layers * arch.kv_heads * arch.head_dim * BF16_BYTES * tokens / GB


def role_disk_gb(catalogue: Catalogue, run: Run, optimizer: Optimizer, counts: ParamCounts) -> float:
    """NVMe an RL copy needs beyond its policy's: the reward model's BF16 weights and, for PPO, the
    critic's checkpoints (the policy's kind, as many as the run keeps)."""
    disk = 0.0
    reward = model_arch(catalogue, run.reward_model) if run.reward_model is not None else None
    if reward is not None:
        disk += count_params(reward).total * BF16_BYTES
    if "critic" in {str(role) for role in catalogue.methods.algorithm(run.algorithm).roles}:
        disk += run.keep_checkpoints * checkpoint_bytes(
            counts, catalogue.methods.method(run.method), optimizer, run.lora_rank
        )
    return disk / GB
