"""The training methods and algorithms ftopt plans for, each declared once as catalogue data.

Why a registry: what a method means for memory, time, traffic and the choices `auto` may make used
to be `if method == FULL` branches spread over the sizing, speed, fabric, role and verifier modules,
so a new method touched a dozen of them. Here a method (how the weights train: full, LoRA, QLoRA,
DoRA, …) and an algorithm (what the run optimises: SFT, DPO, GRPO, PPO) each declare what the rules
ask of them, and the rules read the declaration. The figures live in
`ftopt/catalogue/data/methods.yaml` with their sources and reach the code through `Catalogue.methods`;
a vendor's `--catalogue DIR` may replace an entry. The workload names a method by its id, which
`ftopt.model.references` checks against this registry: a method is added by its entry alone.

A method declares
- its trainable parameters (`trains`: all, or an adapter of rank r on every linear layer, plus for
  DoRA a magnitude per output feature),
- its model states (`base`: how the frozen base is stored; the bytes per parameter per optimiser
  follow the ZeRO accounting of `ftopt/model/memory.py`),
- what it offers (`offers`: what `optimizer: auto` chooses from, CPU offload, model parallelism),
- its step phases (forward, backward, optimiser) and what they cost beyond the plain matrix work
  (`step_time_factor`, a working copy of the widest linear layer).
An algorithm declares its roles (`ftopt/model/roles.py`), its step phases (generation for RL) and the
sequences one sample holds (DPO's pair).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ftopt.model.architecture import ParamCounts
from ftopt.model.stack import MethodMfu
from ftopt.model.workload import FULL_METHOD, METHOD_ID, Algorithm, Optimizer

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Phase(StrEnum):
    """One phase of a training step."""

    GENERATION = "generation"  # the rollout engine samples responses (GRPO, PPO)
    SCORING = "scoring"  # frozen reference and reward forward passes
    FORWARD = "forward"
    BACKWARD = "backward"
    OPTIMIZER = "optimizer"


class Role(StrEnum):
    """A model an RL copy holds (`ftopt/model/roles.py` sizes each on the copy's GPUs)."""

    POLICY = "policy"
    REFERENCE = "reference"
    REWARD = "reward"
    CRITIC = "critic"
    ROLLOUT = "rollout"


class Offers(BaseModel):
    """What a method lets a run choose."""

    model_config = _FROZEN
    auto_optimizers: tuple[Optimizer, ...] = Field(
        min_length=1, description="what `optimizer: auto` may choose from (the stack may offer fewer)"
    )
    optimizers: tuple[Optimizer, ...] | None = Field(
        default=None,
        min_length=1,
        description="the optimisers a run of the method may name at all (None: any its stack offers); "
        "a method defined by its optimiser states (full fine-tune with 8-bit moments) fixes them here",
    )
    cpu_offload: bool = Field(description="the optimiser states may live in host RAM (ZeRO-Offload)")
    model_parallel: bool = Field(description="tensor, pipeline and context parallelism may split it")
    sharded: bool = Field(
        default=True,
        description="FSDP and ZeRO-3 may shard its weights over the GPUs; false where the frozen base is "
        "kept in buffers they leave whole on every GPU (GPTQ's packed integers), so it trains data "
        "parallel (DDP) and on one server only",
    )

    @model_validator(mode="after")
    def _auto_within_allowed(self) -> Offers:
        """What `auto` chooses is something the method allows at all."""
        if self.optimizers is not None and not set(self.auto_optimizers) <= set(self.optimizers):
            raise ValueError("offers.auto_optimizers must be among offers.optimizers")
        return self

    def allows(self, optimizer: Optimizer | str) -> bool:
        """Whether a run of the method may name this optimiser."""
        return self.optimizers is None or optimizer in self.optimizers


class TrainingMethod(BaseModel):
    """How the weights train: one entry of methods.yaml."""

    model_config = _FROZEN
    id: str = Field(pattern=METHOD_ID, description="the workload's `method` (or an RL run's `adapter`) value")
    label: str = Field(
        min_length=1, max_length=40, description="its name in quotes and tables (`LoRA` in `LoRA r16`)"
    )
    trains: Literal["all", "adapter"] = Field(description="all weights, or a low-rank adapter")
    base: Literal["bf16", "nf4", "gptq"] = Field(
        description="how the base weights are stored: BF16, or 4-bit linear layers, NF4 (QLoRA, "
        "bitsandbytes) or GPTQ (a GPTQ-quantised checkpoint)"
    )
    magnitude: bool = Field(
        default=False, description="a trainable magnitude per output feature of each adapted layer (DoRA)"
    )
    working_copy: bool = Field(
        default=False,
        description="the widest linear layer is materialised in BF16 while it works (QLoRA's "
        "dequantisation, DoRA's W + BA for its column norms)",
    )
    projected_states: bool = Field(
        default=False,
        description="trains: all only: the optimiser's moments of each adapted linear layer live in a "
        "rank-r projection of its gradient, with the projector (GaLore); r is the run's rank",
    )
    dequant_bytes_per_param: float | None = Field(
        default=None,
        gt=0,
        le=100,
        description="a 4-bit base's expansion cost per weight and pass, as bytes moved at the card's "
        "memory bandwidth; None: speed.yaml's qlora_dequant_bytes_per_param (bitsandbytes' NF4)",
    )
    calibrated_as: str | None = Field(
        default=None,
        description="whose stack MFU and memory margin it reads, until it has calibration points of its own",
    )
    step_time_factor: float = Field(
        default=1.0, ge=1, le=4, description="measured step time over the calibrated method's"
    )
    offers: Offers
    phases: tuple[Phase, ...] = Field(min_length=1, description="the phases of one step")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")

    @property
    def full(self) -> bool:
        """Every weight receives gradients and optimiser states (so its gradients cross the links)."""
        return self.trains == "all"

    @property
    def four_bit(self) -> bool:
        """Whether the base's linear layers are stored in 4 bits (NF4 or GPTQ), so each is turned back
        into a 16-bit matrix before its product."""
        return self.base != "bf16"

    @property
    def ranked(self) -> bool:
        """Whether the run's rank shapes its memory (an adapter's rank, or the projection's), so the
        quote states it (`LoRA r16`, `GaLore r128`)."""
        return not self.full or self.projected_states

    @property
    def calibration(self) -> str:
        """The method whose measured MFU and memory margin this one reads."""
        return self.calibrated_as or self.id

    def trainable(self, counts: ParamCounts, rank: int) -> int:
        """Parameters that receive gradients: all, or the adapter (and DoRA's magnitudes)."""
        if self.full:
            return counts.total
        return counts.lora_params(rank) + (counts.adapted_outputs if self.magnitude else 0)


class TrainingAlgorithm(BaseModel):
    """What a run optimises: one entry of methods.yaml's `algorithms`."""

    model_config = _FROZEN
    id: Algorithm
    label: str = Field(min_length=1, max_length=40, description="its name in quotes and tables")
    roles: tuple[Role, ...] = Field(min_length=1, description="the models a copy may hold")
    phases: tuple[Phase, ...] = Field(min_length=1, description="the phases of one step")
    sequences_per_sample: int = Field(default=1, ge=1, le=16, description="DPO's pair: 2")
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")

    @property
    def generates(self) -> bool:
        """Whether a rollout engine samples its training data."""
        return Phase.GENERATION in self.phases


#: The methods with calibration points of their own: each has an MFU per stack (stacks.yaml) and a
#: memory margin (margins.yaml); any other method names one of them as `calibrated_as`.
CALIBRATED = tuple(MethodMfu.model_fields)


def _listed_once(kind: str, ids: list[str], known: set[str]) -> None:
    """Every known id of `kind` is listed, none twice."""
    missing = sorted(known - set(ids))
    if missing or len(ids) != len(set(ids)):
        raise ValueError(f"every {kind} once: missing {missing}, listed {ids}")


class MethodRegistry(BaseModel):
    """methods.yaml: every training method and algorithm, by id."""

    model_config = _FROZEN
    methods: tuple[TrainingMethod, ...] = Field(min_length=1)
    algorithms: tuple[TrainingAlgorithm, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _every_id_once(self) -> MethodRegistry:
        """Each method and algorithm has exactly one entry (lookups assume it), `full` among the
        methods (an RL run's `adapter: none`), and every method reads calibration points that exist:
        its own, or those of the calibrated method it names."""
        _listed_once("method", [m.id for m in self.methods], {FULL_METHOD, *CALIBRATED})
        _listed_once("algorithm", [str(a.id) for a in self.algorithms], {str(a) for a in Algorithm})
        for m in self.methods:
            if m.calibrated_as is not None and self.method(m.calibrated_as).calibrated_as is not None:
                raise ValueError(f"method {m.id}: calibrated_as must name a calibrated method, not a chain")
            if m.calibration not in CALIBRATED:
                raise ValueError(
                    f"method {m.id}: has no calibration points of its own; calibrated_as must name "
                    f"one of {', '.join(CALIBRATED)}"
                )
        return self

    @property
    def ids(self) -> tuple[str, ...]:
        """Every method id, in the registry's order (what a workload's `method` may name)."""
        return tuple(m.id for m in self.methods)

    def method(self, method_id: str) -> TrainingMethod:
        """The entry of a method id; the workload's ids are checked against `ids` before any rule
        asks (`ftopt.model.references`), so an unknown id here is a caller's bug."""
        found = next((m for m in self.methods if m.id == method_id), None)
        if found is None:
            raise KeyError(f"method {method_id!r} is not in the registry ({', '.join(self.ids)})")
        return found

    def algorithm(self, algorithm_id: Algorithm | str) -> TrainingAlgorithm:
        """The entry of an algorithm id."""
        return next(a for a in self.algorithms if a.id == algorithm_id)
