"""The workload file: the runs a customer wants to train at once and the site that must hold them.

Validators that judge one field from its neighbours start their message with `@path: ` (relative
to the model they validate), so that the file loader can point at that field and its line.

Frozen pydantic models with `extra="forbid"`, so a misspelt key is an error rather than a silently
ignored default. Cross-references to the catalogue (model, feed, card and chassis ids) are checked
by `ftopt.model.references.unknown_references`, because the workload is parsed before the catalogue
is chosen.
"""

from __future__ import annotations

import datetime
import math
import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ftopt.errors import did_you_mean, quoted
from ftopt.model.architecture import Architecture
from ftopt.model.spread import CONFIDENCES, DEFAULT_CONFIDENCE, Confidence
from ftopt.model.written import TokenCount, count_value

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

#: GPUs a copy may take, and so the GPU block sizes the solver counts: powers of two up to the
#: largest server, each dividing the next (the buddy property ftopt/solver/cpsat/constraints.py relies on).
GPU_COUNTS = (1, 2, 4, 8)

#: GPUs a multi-node copy may take (issue 14): whole servers of one build, joined by the fabric.
#: Powers of two from 16, so that every server size (2, 4, 8) divides them.
MULTI_NODE_COUNTS = (16, 32, 64)

#: The stack a run trains with when neither the run nor the workload names one: its memory
#: accounting is the one ftopt used before stacks existed.
DEFAULT_STACK = "hf-fsdp"
MAX_TOKENS = 10**15
#: Most jobs one run may have in queue mode (the model holds an interval per job and mode).
MAX_JOBS = 100_000

#: Micro-batches `micro_batch: auto` chooses from (sequences per GPU per forward pass). Beyond 8
#: the matrix work of a fine-tuning sequence (thousands of tokens) is already large enough that a
#: larger micro-batch buys little but memory.
MICRO_BATCHES = (1, 2, 4, 8)
MAX_MICRO_BATCH = 4096
#: Spare servers per multi-node copy: a copy spans at most 64 GPUs (eight 8-GPU servers), and more
#: spares than servers buy nothing the Poisson tail has not already made negligible.
MAX_SPARES = 8


#: How the weights are trained: an id of `ftopt/catalogue/data/methods.yaml`, whose entry
#: (`ftopt.model.methods.TrainingMethod`) says what it means for memory, time and choices. The id is
#: checked against the catalogue's registry (`ftopt.model.references`), not an enum here, so that a
#: method is added by its registry entry alone (docs/contributing/add-a-method.md).
METHOD_ID = r"^[a-z0-9][a-z0-9.\-]*$"
#: The method an RL run's `adapter: none` trains with: every weight (the registry's `full` entry).
FULL_METHOD = "full"


class Algorithm(StrEnum):
    """What the run optimises: supervised next-token loss, or a preference / reinforcement objective.

    A workload names the last three as `method` (`method: grpo` with `adapter: lora`); the run then
    carries the adapter as its method id, so every memory and speed rule of the trained weights reads
    the same field for supervised and RL runs.
    """

    SFT = "sft"
    DPO = "dpo"
    GRPO = "grpo"
    PPO = "ppo"


#: Algorithms that generate their own samples with a rollout engine.
GENERATING = (Algorithm.GRPO, Algorithm.PPO)

#: The `method` values that name an algorithm (and take an `adapter`).
RL_METHODS = tuple(a.value for a in Algorithm if a != Algorithm.SFT)


def _adapter_without_rl(method: Any, given: bool) -> str:
    """What is wrong when a run has `adapter` but its `method` names no RL algorithm: a method that
    is missing or misspelt as an algorithm is the mistake to name, not the adapter."""
    rl = f"{', '.join(RL_METHODS[:-1])} and {RL_METHODS[-1]}"
    if not given:
        return f"@method: method is missing; a run with an adapter names its method ({rl})"
    hint = did_you_mean(method, RL_METHODS) if isinstance(method, str) else ""
    if hint:
        return f"@method: expected {', '.join(RL_METHODS)} with an adapter ({hint}), got {quoted(method)}"
    return f"@adapter: applies to methods {rl}; a supervised run names its training method as method"


def _policy_method(adapter: Any) -> str:
    """The method an RL run's policy trains with: every weight for `adapter: none`, else the adapter
    (an adapter method of the registry, which `ftopt.model.references` checks)."""
    if not isinstance(adapter, str) or adapter == FULL_METHOD:
        raise ValueError(f"@adapter: expected none or an adapter (lora, qlora, …), got {adapter!r}")
    return FULL_METHOD if adapter == "none" else adapter


class Placement(StrEnum):
    """Where a run's rollout engine generates: on the training GPUs (a share of their memory, taking
    turns with training) or on GPUs of its own; `auto` lets the solver choose."""

    COLOCATED = "colocated"
    SEPARATE = "separate"
    AUTO = "auto"


class RolloutEngine(StrEnum):
    """The inference engine that generates a run's responses. Its fixed work per decode step differs
    between engines (rollout.yaml `decode_step_overhead_ms`); vLLM, which TRL, OpenRLHF and verl's
    examples use, is the default."""

    VLLM = "vllm"
    SGLANG = "sglang"


class Rollout(BaseModel):
    """How a GRPO or PPO run generates: the engine, its placement and memory, and one step's batch."""

    model_config = _FROZEN
    engine: RolloutEngine = Field(default=RolloutEngine.VLLM, description="vllm (default) or sglang")
    placement: Placement = Field(default=Placement.AUTO, description="colocated, separate or auto")
    memory_fraction: float = Field(
        default=0.4,
        gt=0,
        lt=1,
        description="share of each training GPU's memory a colocated engine takes (weights and KV "
        "cache); a separate engine uses its own GPUs' memory (vLLM's default 0.9)",
    )
    prompt_len: int = Field(default=512, gt=0, le=1_048_576, description="prompt tokens per sample")
    response_len: int = Field(default=1024, gt=0, le=1_048_576, description="generated tokens per sample")
    group_size: int = Field(default=8, gt=0, le=4096, description="responses generated per prompt")
    prompts_per_step: int = Field(default=256, gt=0, le=1_000_000, description="prompts per step")

    @property
    def sequences(self) -> int:
        """Samples generated, scored and trained on per step."""
        return self.prompts_per_step * self.group_size


class Optimizer(StrEnum):
    """AdamW with 32-bit or 8-bit (bitsandbytes) moments; paged 8-bit keeps its moments in host RAM."""

    ADAMW_32BIT = "adamw-32bit"
    ADAMW_8BIT = "adamw-8bit"
    ADAMW_8BIT_PAGED = "adamw-8bit-paged"


class Offload(StrEnum):
    """Where the optimiser states live (ZeRO-Offload keeps them in host RAM)."""

    NONE = "none"
    CPU = "cpu"


class Recompute(StrEnum):
    """Activation recomputation (Korthikanti et al.)."""

    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


class Strategy(StrEnum):
    """How a run uses its GPUs."""

    SINGLE = "single"
    DDP = "ddp"
    FSDP = "fsdp"
    HSDP = "hsdp"  # hybrid shard: shard inside a server, replicate across servers (multi-node only)


class InlineModel(BaseModel):
    """A model described in the workload itself rather than taken from the catalogue."""

    model_config = _FROZEN
    name: str = Field(min_length=1, description="display name of the model")
    architecture: Architecture = Field(description="layers, widths, heads and vocabulary")


def _positive_count(value: Any) -> bool:
    """A number of tokens or epochs: above zero, at most MAX_TOKENS, and no boolean (YAML's `true`)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and 0 < value <= MAX_TOKENS


def _rollout_seq_len(method: str, data: dict[str, Any]) -> None:
    """A generating run (GRPO, PPO) trains on prompt plus response, so its seq_len comes from its
    rollout; giving seq_len as well is an error. A rollout the field's own validation will refuse
    is left to it, which names the bad key."""
    if "seq_len" in data:
        raise ValueError(f"@seq_len: {method} trains on rollout.prompt_len + response_len; set those")
    rollout = data.get("rollout") if data.get("rollout") is not None else {}
    if not isinstance(rollout, dict):
        return
    data["rollout"] = rollout
    try:
        shape = Rollout.model_validate(rollout)
    except ValueError:
        return
    data["seq_len"] = shape.prompt_len + shape.response_len


class Run(BaseModel):
    """One fine-tuning run, of which `concurrent` copies train at the same time."""

    model_config = _FROZEN
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$", description="unique run name")
    model: str | InlineModel = Field(description="catalogue model id or an inline architecture")
    method: str = Field(
        min_length=1,
        description="a training method of the catalogue's registry (methods.yaml: full, lora, qlora, "
        "...); or dpo, grpo, ppo with `adapter: none` or an adapter method (the adapter becomes the "
        "method, the algorithm its own field)",
    )
    optimizer: Optimizer | Literal["auto"] = Field(default="auto", description="AdamW precision")
    offload: Offload | Literal["auto"] = Field(default=Offload.NONE, description="optimiser offload")
    lora_rank: int = Field(default=16, gt=0, le=4096, description="LoRA rank on all linear layers")
    seq_len: int = Field(default=4096, gt=0, le=1_048_576, description="tokens per sequence")
    micro_batch: int | Literal["auto"] = Field(
        default="auto",
        description="sequences per GPU per forward pass: auto (ftopt chooses, see MICRO_BATCHES) or 1-4096",
    )
    gradient_checkpointing: bool | Literal["auto", "none", "selective", "full"] = Field(
        default=True,
        description="activation recomputation: true = full, false = selective (FlashAttention's own), "
        "none, selective, full, or auto (ftopt chooses)",
    )
    global_batch_tokens: TokenCount | None = Field(
        default=None,
        gt=0,
        le=MAX_TOKENS,
        description="tokens per optimiser step; then micro_batch × accumulation × dp × seq_len must equal it",
    )
    concurrent: int = Field(default=1, gt=0, le=100_000, description="copies running at once")
    gpus: int | Literal["auto"] = Field(
        default="auto", description="GPUs per copy: auto, 1, 2, 4, 8, or 16, 32, 64 over several servers"
    )
    keep_checkpoints: int = Field(default=3, ge=0, le=1000, description="resumable checkpoints kept")
    train_tokens: TokenCount | None = Field(
        default=None,
        gt=0,
        le=MAX_TOKENS,
        description="tokens one copy trains on: dataset tokens × epochs (or give dataset_tokens and epochs); "
        "written as 2000000000, 2_000_000_000, 2e9, 2B, 500M or 1.5T",
    )
    deadline_hours: float | None = Field(
        default=None, gt=0, le=1_000_000, description="wall-clock hours the copy must finish within"
    )
    deadline_confidence: Confidence | None = Field(
        default=None,
        description="0.5 or 0.9: the deadline holds for the copy's P50 or P90 hours; overrides the "
        "workload's",
    )
    spares: int = Field(
        default=0,
        ge=0,
        le=MAX_SPARES,
        strict=True,
        description="hot spare servers per copy that spans several servers (same build, on its fabric): "
        "a broken server's share restarts on a spare instead of waiting for its repair; a copy the "
        f"solver places on one server gets none (0 to {MAX_SPARES}, default 0)",
    )
    stack: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9.\-]*$",
        description="training stack id (hf-deepspeed, hf-fsdp, torchtune, megatron, unsloth); "
        "overrides the workload's",
    )
    precision: Literal["bf16", "fp8"] = Field(
        default="bf16", description="matrix precision; fp8 needs a stack and card that offer it"
    )
    activation_offload: bool = Field(
        default=False,
        description="offloaded checkpointing: each checkpointed layer input waits in host RAM instead of "
        "on the card (less GPU memory, more host RAM); needs gradient_checkpointing true and a stack "
        "that offers it (torchtune; Unsloth always offloads)",
    )
    algorithm: Algorithm = Field(
        default=Algorithm.SFT, description="sft, or dpo, grpo, ppo (written as `method` in a workload)"
    )
    reference: Literal["model", "precomputed"] = Field(
        default="model",
        description="dpo: `precomputed` log-probabilities drop the frozen reference model from the GPUs",
    )
    reward_model: str | InlineModel | None = Field(
        default=None, description="grpo, ppo: catalogue id or inline architecture of a reward model"
    )
    rollout: Rollout | None = Field(default=None, description="grpo, ppo: the generation engine and batch")
    jobs: int | None = Field(
        default=None,
        gt=0,
        le=MAX_JOBS,
        description="queue mode: how many times the run is trained within the horizon, each on its "
        "train_tokens (default 1)",
    )
    release_hours: float | None = Field(
        default=None,
        ge=0,
        le=1_000_000,
        description="queue mode: hours from the start of the horizon before which its jobs may not start",
    )

    @model_validator(mode="before")
    @classmethod
    def _dataset_times_epochs(cls, data: Any) -> Any:
        """`dataset_tokens` × `epochs` is the other spelling of `train_tokens`; both at once is an error."""
        if not isinstance(data, dict) or not ({"dataset_tokens", "epochs"} & data.keys()):
            return data
        data = dict(data)
        dataset, epochs = data.pop("dataset_tokens", None), data.pop("epochs", None)
        try:
            dataset = count_value(dataset)
        except ValueError as exc:
            raise ValueError(f"@dataset_tokens: {exc}") from None
        if "train_tokens" in data:
            raise ValueError("@train_tokens: give train_tokens or dataset_tokens with epochs, not both")
        if dataset is None or epochs is None:
            given, missing = ("dataset_tokens", "epochs") if epochs is None else ("epochs", "dataset_tokens")
            raise ValueError(f"@{given}: dataset_tokens and epochs go together; {missing} is missing")
        for name, value in (("dataset_tokens", dataset), ("epochs", epochs)):
            if not _positive_count(value):
                raise ValueError(f"@{name}: expected a positive number, got {value!r}")
        data["train_tokens"] = max(1, round(dataset * epochs))
        return data

    @model_validator(mode="before")
    @classmethod
    def _algorithm_from_method(cls, data: Any) -> Any:
        """`method: dpo|grpo|ppo` with `adapter` is how a workload names an RL run; the run keeps the
        algorithm apart and the adapter as its method. Generating runs train on prompt plus response."""
        if not isinstance(data, dict):
            return data
        method = data.get("method")
        if not isinstance(method, str) or method not in RL_METHODS:
            if "adapter" in data:
                raise ValueError(_adapter_without_rl(method, "method" in data))
            return data
        data = dict(data)
        adapter = _policy_method(data.pop("adapter", "none"))
        if "algorithm" in data:
            raise ValueError("@algorithm: give the algorithm as method, not both")
        data["algorithm"], data["method"] = method, adapter
        if method in {a.value for a in GENERATING}:
            _rollout_seq_len(method, data)
        return data

    @field_validator("micro_batch", mode="before")
    @classmethod
    def _micro_batch_range(cls, value: Any) -> Any:
        """auto or a whole number of sequences; a boolean is neither (YAML's `true` is no count)."""
        if value == "auto" and isinstance(value, str):
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_MICRO_BATCH:
            raise ValueError(f"expected auto or an integer from 1 to {MAX_MICRO_BATCH}, got {quoted(value)}")
        return value

    @field_validator("gradient_checkpointing", mode="before")
    @classmethod
    def _recompute_setting(cls, value: Any) -> Any:
        if isinstance(value, bool) or value in ("auto", "none", "selective", "full"):
            return value
        raise ValueError(f"expected true, false, auto, none, selective or full, got {quoted(value)}")

    @model_validator(mode="after")
    def _global_batch_whole_sequences(self) -> Run:
        if self.global_batch_tokens is not None and self.global_batch_tokens % self.seq_len:
            raise ValueError(
                f"@global_batch_tokens: {self.global_batch_tokens} is not a whole number of "
                f"{self.seq_len}-token sequences"
            )
        return self

    @field_validator("gpus")
    @classmethod
    def _power_of_two(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value not in GPU_COUNTS + MULTI_NODE_COUNTS:
            raise ValueError(f"expected auto or one of {', '.join(map(str, GPU_COUNTS + MULTI_NODE_COUNTS))}")
        return value

    @model_validator(mode="after")
    def _spares_need_several_servers(self) -> Run:
        """Spares stand in for a server of a copy over several servers; a run that can only train on
        one server (gpus 1-8, or CPU offload, which multi-node copies never use) has nothing to spare."""
        if not self.spares:
            return self
        if isinstance(self.gpus, int) and self.gpus in GPU_COUNTS:
            raise ValueError(
                "@spares: applies to copies over several servers (gpus auto, 16, 32 or 64), "
                f"not gpus {self.gpus}"
            )
        if self.offload == Offload.CPU:
            raise ValueError("@spares: copies with offload cpu train on one server; they take no spares")
        return self

    @model_validator(mode="after")
    def _offload_runs_32bit_adam(self) -> Run:
        """Whether the method offers CPU offload at all is its registry entry's to say
        (`ftopt.model.references`); the optimiser it runs is DeepSpeed's, whatever the method."""
        if self.offload == Offload.CPU and self.optimizer in (
            Optimizer.ADAMW_8BIT,
            Optimizer.ADAMW_8BIT_PAGED,
        ):
            raise ValueError(
                "@optimizer: offload cpu runs DeepSpeed's 32-bit CPU Adam; use adamw-32bit or auto"
            )
        return self

    @model_validator(mode="after")
    def _offloaded_activations_are_checkpoints(self) -> Run:
        """Offloaded checkpointing moves the layer inputs that full recomputation keeps; without full
        recomputation there is nothing it would move, so the flag would promise memory it does not
        save."""
        if self.activation_offload and self.gradient_checkpointing not in (True, "full"):
            raise ValueError(
                "@activation_offload: offloads the checkpointed layer inputs, so it needs "
                f"gradient_checkpointing true (or full), not {quoted(self.gradient_checkpointing)}"
            )
        return self

    @model_validator(mode="after")
    def _roles_match_algorithm(self) -> Run:
        """Each RL field belongs to the algorithms that have the role it describes."""
        if self.rollout is not None and self.algorithm not in GENERATING:
            raise ValueError(f"@rollout: applies to methods grpo and ppo, not {self.algorithm_label}")
        if self.algorithm in GENERATING and self.rollout is None:
            raise ValueError(
                "@rollout: grpo and ppo need a rollout (placement, prompt_len, response_len, ...)"
            )
        if self.reward_model is not None and self.algorithm not in GENERATING:
            raise ValueError(f"@reward_model: applies to methods grpo and ppo, not {self.algorithm_label}")
        if self.reference != "model" and self.algorithm != Algorithm.DPO:
            raise ValueError("@reference: precomputed applies to method dpo only")
        return self

    @property
    def algorithm_label(self) -> str:
        """The method as the workload names it: full, lora, qlora, or dpo, grpo, ppo."""
        return self.method if self.algorithm == Algorithm.SFT else self.algorithm.value

    @property
    def job_count(self) -> int:
        """Jobs of the run in queue mode (1 when `jobs` is not given)."""
        return self.jobs or 1

    @property
    def model_id(self) -> str:
        """The catalogue id, or the inline model's name."""
        return self.model if isinstance(self.model, str) else self.model.name

    @property
    def recompute(self) -> Recompute:
        """The recomputation the run fixes, or full under `auto` (the safe default where nothing
        chooses). true means full recomputation, false FlashAttention's own (selective)."""
        return self.recompute_choices[0]

    @property
    def recompute_choices(self) -> tuple[Recompute, ...]:
        """What ftopt may choose from: the fixed setting, or under `auto` selective and full."""
        setting = self.gradient_checkpointing
        if setting is True:
            return (Recompute.FULL,)
        if setting is False:
            return (Recompute.SELECTIVE,)
        if setting == "auto":
            return (Recompute.FULL, Recompute.SELECTIVE)
        return (Recompute(setting),)

    @property
    def micro_batch_choices(self) -> tuple[int, ...]:
        """What ftopt may choose from: the fixed micro-batch, or under `auto` MICRO_BATCHES."""
        return MICRO_BATCHES if self.micro_batch == "auto" else (int(self.micro_batch),)


class Energy(BaseModel):
    """What a kWh costs, the room's PUE, and the share of a server's years spent training (the TCO)."""

    model_config = _FROZEN
    price_per_kwh: float = Field(
        default=0.08,
        ge=0,
        le=100,
        description="electricity price per kWh in the price list's currency; default 0.08 USD, the order "
        "of US industrial averages (EIA Electric Power Monthly table 5.6.B, 2024: 7.7-8.3 ¢/kWh in the "
        "Middle Atlantic and North Central divisions)",
    )
    pue: float = Field(
        default=1.58,
        ge=1,
        le=5,
        description="power usage effectiveness of the room; default 1.58, the industry average of the "
        "Uptime Institute Global Data Center Survey 2023",
    )
    utilisation: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="share of a server's years its GPUs draw training power (the TCO only; a run's "
        "energy counts its training hours); default 0.8, an assumption for checkpoints, evaluation, "
        "restarts and idle time",
    )
    years: float = Field(
        default=4.0,
        gt=0,
        le=20,
        description="years the hardware is written off over for tco; default 4, an assumption "
        "(typical server depreciation)",
    )


#: Rack units a rack may offer: 52U is about the tallest standard cabinet; 60 leaves room.
MAX_RACK_UNITS = 60
#: Circuits one rack may bring: a rack PDU pair per phase set rarely exceeds a handful.
MAX_RACK_FEEDS = 16
MAX_RACKS = 1000


class Rack(BaseModel):
    """A rack of the room: its height and the circuits that feed it.

    Each server in the rack draws from one of `feeds` (a circuit of that feed type); the servers on
    one circuit share its usable watts (the feed's derated figure, 80 % by default). A redundant
    rack has A and B sides: every circuit must carry the whole rack alone when the other fails.
    """

    model_config = _FROZEN
    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$", description="rack name")
    units: int = Field(gt=0, le=MAX_RACK_UNITS, description="rack units free for GPU servers")
    feeds: tuple[str, ...] = Field(
        min_length=1, max_length=MAX_RACK_FEEDS, description="feed id of each circuit into the rack"
    )
    redundant: bool = Field(
        default=False, description="A+B feeds: each circuit must carry the whole rack alone"
    )
    liquid_kw: float | None = Field(
        default=None,
        gt=0,
        le=1000,
        description="heat the rack's liquid loop removes (its CDU or manifold share), kW; None: no "
        "liquid loop, so liquid-cooled servers cannot stand in it",
    )

    @model_validator(mode="after")
    def _redundant_needs_two(self) -> Rack:
        if self.redundant and len(self.feeds) < 2:
            raise ValueError("@feeds: a redundant rack needs at least two circuits (an A and a B side)")
        return self


class Site(BaseModel):
    """Where the servers will stand: the feed at each position, or racks of circuits, and the inlet.

    `feed` alone means one server per feed and no limit on rack space (ftopt's first site model);
    `racks` replaces it with racks of limited height whose circuits several servers share.
    """

    model_config = _FROZEN
    feed: str = Field(default="400v-3p-16a", description="feed id at each server position")
    inlet_c: float = Field(default=25.0, ge=-10, le=60, description="warmest inlet temperature, °C")
    coolant_c: float | None = Field(
        default=None,
        gt=0,
        le=70,
        description="the facility's coolant supply temperature, °C; None: no liquid cooling on site",
    )
    max_servers: int | None = Field(default=None, gt=0, le=10_000, description="server positions")
    delivery_weeks: float | None = Field(
        default=None,
        ge=0,
        le=520,
        description="weeks until the servers must be delivered: parts whose price entry gives a longer "
        "lead_weeks are left out",
    )

    policy: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="site policies that rule families add (`ftopt schema` lists them): each key is "
        "a field a family's data file declares, checked against it when the workload is read",
    )

    racks: tuple[Rack, ...] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_RACKS,
        description="racks with their units and circuits; instead of feed (one server per feed)",
    )

    @field_validator("racks")
    @classmethod
    def _unique_rack_names(cls, racks: tuple[Rack, ...] | None) -> tuple[Rack, ...] | None:
        seen: set[str] = set()
        for index, rack in enumerate(racks or ()):
            if rack.name in seen:
                raise ValueError(f"@[{index}].name: rack name {quoted(rack.name)} is used twice")
            seen.add(rack.name)
        return racks

    @model_validator(mode="after")
    def _racks_or_feed(self) -> Site:
        if self.racks is not None and "feed" in self.model_fields_set:
            raise ValueError("@feed: give feed (one server per feed) or racks, not both")
        return self

    @property
    def feed_ids(self) -> tuple[str, ...]:
        """Every feed id the site names: the one feed, or each rack's circuits (in order, once)."""
        if self.racks is None:
            return (self.feed,)
        return tuple(dict.fromkeys(f for rack in self.racks for f in rack.feeds))


class OwnedServer(BaseModel):
    """Servers the customer owns, described as a plan's server is (so one can be pasted from a plan)."""

    model_config = _FROZEN
    count: int = Field(default=1, gt=0, le=10_000, description="how many such servers are owned")
    chassis: str = Field(description="chassis id")
    gpu: str = Field(description="card id")
    gpu_count: int = Field(gt=0, le=64)
    cpu: str = Field(description="CPU id")
    cpu_count: int = Field(gt=0, le=8)
    dimm: str = Field(description="DIMM id")
    dimm_count: int = Field(gt=0, le=256)
    data_drive: str = Field(description="data drive id")
    data_drive_count: int = Field(ge=0, le=64)
    boot_drive: str = Field(description="boot drive id")
    bridge: str | None = Field(default=None, description="NVLink bridge id, if bridged")
    bridge_count: int = Field(default=0, ge=0, le=64)
    nic: str | None = Field(
        default=None, description="fabric NIC id (owned servers are used without a fabric)"
    )
    nic_count: int = Field(default=0, ge=0, le=64)


class Queue(BaseModel):
    """Queue mode: every job must run some time within the horizon, not all at once."""

    model_config = _FROZEN
    horizon_hours: float = Field(
        gt=0, le=1_000_000, description="hours from the start of the horizon by which every job ends"
    )


class Seller(BaseModel):
    """Who sells: the name and address the quote is headed with, and a logo beside them."""

    model_config = _FROZEN
    name: str = Field(min_length=1, max_length=200, description="the seller's company name")
    address: str | None = Field(default=None, min_length=1, max_length=500, description="postal address")
    logo: str | None = Field(
        default=None,
        min_length=1,
        max_length=300,
        pattern=r"(?i)^[^\x00]*\.(png|jpe?g|svg)$",
        description="a PNG, JPEG or SVG file, its path relative to the bid's file",
    )


class Customer(BaseModel):
    """Who the quote is for: a company, and the person it is addressed to."""

    model_config = _FROZEN
    name: str = Field(min_length=1, max_length=200, description="the customer's company name")
    contact: str | None = Field(
        default=None, min_length=1, max_length=200, description="the person, e-mail or phone it goes to"
    )


class ServiceLine(BaseModel):
    """A service sold with the servers (installation, warranty, support): a price per server or per
    bid, and per year when `years` is given."""

    model_config = _FROZEN
    name: str = Field(min_length=1, max_length=200, description="what the service is")
    price: float = Field(ge=0, le=1e9, description="its price, per server or per bid, per year with years")
    per: Literal["server", "bid"] = Field(default="bid", description="per server bought, or once per bid")
    years: float | None = Field(default=None, gt=0, le=20, description="years it runs: price is per year")


class QuoteDetails(BaseModel):
    """The commercial side of a quote: who sells and who buys, its number and validity, the discount,
    the seller's margin, tax, shipping, services and payment terms.

    Why in the workload: the presales engineer writes them once beside the bid, and every format
    of the quote shows the same ones. None of them changes the solver's objective: the cheapest plan
    is the same with or without them; they change what the buyer reads and pays. With a margin the
    catalogue's prices are the seller's cost and every price the buyer reads is the sell price.
    Bids written before these fields (`customer` as a name, `reference`, a quoted date) still read.
    """

    model_config = _FROZEN
    number: str | None = Field(default=None, min_length=1, max_length=100, description="quote number")
    revision: int | None = Field(default=None, ge=0, le=100_000, description="the quote's revision")
    date: datetime.date | None = Field(
        default=None, description="the quote's date; lead times count from it to delivery dates"
    )
    seller: Seller | None = None
    customer: Customer | None = Field(
        default=None, description="who the quote is for (a name, or name and contact)"
    )
    reference: str | None = Field(
        default=None, min_length=1, max_length=100, description="the customer's reference"
    )
    valid_until: datetime.date | None = Field(default=None, description="last day the quote holds")
    discount_percent: float = Field(
        default=0.0, ge=0, lt=100, description="discount on the hardware's sell price, percent"
    )
    margin_percent: float | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="the seller's margin on cost: catalogue prices are costs, sold at cost × (1 + margin)",
    )
    tax_percent: float = Field(default=0.0, ge=0, le=100, description="tax or VAT on the whole, percent")
    shipping: float = Field(default=0.0, ge=0, le=1e9, description="shipping, once per bid")
    services: tuple[ServiceLine, ...] = Field(default=(), max_length=50, description="services sold with it")
    payment_terms: str | None = Field(default=None, min_length=1, max_length=500, description="payment terms")
    currency: str | None = Field(
        default=None,
        pattern=r"^[A-Z]{3}$",
        description="ISO 4217 code; must be the catalogue prices' currency",
    )
    notes: str | None = Field(default=None, min_length=1, max_length=2000, description="terms or remarks")

    @field_validator("customer", mode="before")
    @classmethod
    def _customer_as_name(cls, value: Any) -> Any:
        """`customer: ACME Labs`, as bids were written before contacts: the customer's name."""
        return {"name": value} if isinstance(value, str) else value

    @field_validator("date", "valid_until", mode="before")
    @classmethod
    def _date_as_written(cls, value: Any) -> Any:
        """A YAML date (`2027-01-31`, unquoted) or the same date quoted, as bids were written before."""
        if isinstance(value, datetime.datetime):
            return value.date()
        if isinstance(value, str):
            if not _DATE.fullmatch(value):
                raise ValueError(f"expected a date YYYY-MM-DD, got {quoted(value)}")
            try:  # a date as text, here already: strict validation (verify) takes only dates
                return datetime.date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"expected a date YYYY-MM-DD, got {quoted(value)}") from None
        return value


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class HardwareLimits(BaseModel):
    """Optional restrictions of the catalogue: only these cards, only these chassis."""

    model_config = _FROZEN
    gpus: tuple[str, ...] | None = Field(default=None, min_length=1, description="allowed card ids")
    chassis: tuple[str, ...] | None = Field(default=None, min_length=1, description="allowed chassis")


class SizingOptions(BaseModel):
    """Switches of the memory model; the defaults are what a real plan needs."""

    model_config = _FROZEN
    states_only: bool = Field(default=False, description="count model states only, as sizing tables do")
    fp32_grad_buffer: bool = Field(
        default=False,
        description="count 18 B/param for full fine-tuning (Hugging Face) instead of 16",
    )
    flash_attention: bool = Field(default=True, description="no s² attention scores stored")
    mfu: float = Field(
        default=0.4,
        ge=0.01,
        le=1,
        description="model FLOPs utilisation for step time; at least 1 %: below that no real run goes, "
        "and a tiny positive share (5e-324) makes the step time infinite",
    )
    cuda_context_gb: float = Field(
        default=1.0, ge=0, le=1000, description="CUDA context and NCCL buffers per GPU"
    )
    allocator_reserve: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="caching-allocator reserve (reserved − allocated), share of states and activations; "
        "default: the share fitted on the calibration's fit points (margins.yaml)",
    )
    memory_margin: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="planning margin on memory per GPU (0.1 = a copy must fit with 10 % to spare); "
        "default: the stack and method's margin derived from the calibration (margins.yaml)",
    )
    mig: bool = Field(
        default=True,
        description="allow GPU slices (MIG): a single-GPU copy may train on an instance of a card that "
        "supports them; false plans whole cards only",
    )


def _no_queue_fields(at: str, run: Run) -> None:
    """Outside queue mode a run has no jobs and no release time: nothing would schedule them."""
    for name in ("jobs", "release_hours"):
        if getattr(run, name) is not None:
            raise ValueError(f"{at}.{name}: applies in queue mode only; add queue: {{horizon_hours: H}}")


def _queue_job_fields(at: str, run: Run, horizon_hours: float) -> None:
    """A queue run's jobs are trained one after another: jobs, not concurrent; train_tokens, which
    gives a job its length; and a release time that leaves room before its deadline or the horizon."""
    if "concurrent" in run.model_fields_set:
        raise ValueError(
            f"{at}.concurrent: in queue mode give jobs (trained one after another), not concurrent"
        )
    if run.spares:
        raise ValueError(f"{at}.spares: queue mode plans copies on one server each; spares do not apply")
    if run.train_tokens is None:
        raise ValueError(f"{at}.train_tokens: queue mode needs each run's train_tokens (a job's length)")
    end = min(run.deadline_hours or math.inf, horizon_hours)
    if (run.release_hours or 0.0) >= end:
        raise ValueError(
            f"{at}.release_hours: {run.release_hours:g} h leaves no time before "
            f"{'its deadline' if end == run.deadline_hours else 'the horizon'} ({end:g} h)"
        )


def _inherit(run: Run, stack: str, confidence: float) -> Run:
    """The run with the workload's stack and deadline confidence where it names none."""
    update: dict[str, Any] = {}
    if run.stack is None:
        update["stack"] = stack
    if run.deadline_confidence is None:
        update["deadline_confidence"] = confidence
    return run.model_copy(update=update) if update else run


class Workload(BaseModel):
    """A whole bid: runs, site, optional hardware limits and sizing switches."""

    model_config = _FROZEN
    name: str | None = Field(default=None, description="bid name")
    site: Site = Field(default_factory=Site, description="feed, inlet temperature, positions")
    hardware: HardwareLimits = Field(default_factory=HardwareLimits, description="restrictions")
    runs: tuple[Run, ...] = Field(min_length=1, description="the runs to hold at the same time")
    sizing: SizingOptions = Field(default_factory=SizingOptions, description="memory-model switches")
    stack: str = Field(
        default=DEFAULT_STACK,
        pattern=r"^[a-z0-9][a-z0-9.\-]*$",
        description="training stack id for runs that name none (default hf-fsdp; rocm-fsdp when every "
        "allowed card is AMD's, chosen when the file is read against the catalogue)",
    )
    objective: Literal["price", "tco"] = Field(
        default="price", description="price: cheapest hardware; tco: hardware plus energy over the years"
    )
    energy: Energy = Field(default_factory=Energy, description="electricity price, PUE, utilisation")
    inventory: tuple[OwnedServer, ...] = Field(
        default=(),
        max_length=1000,
        description="servers the customer owns: free to use, checked like bought ones, marked owned",
    )
    queue: Queue | None = Field(
        default=None,
        description="queue mode: buy for every run's jobs within horizon_hours rather than for every "
        "copy at once; deadline_hours then count from the start of the horizon",
    )
    quote: QuoteDetails | None = Field(
        default=None,
        description="the commercial side every quote format shows: number, seller, customer, validity, "
        "discount, margin, tax, shipping, services, payment terms",
    )
    deadline_confidence: Confidence = Field(
        default=DEFAULT_CONFIDENCE,
        description="0.5 or 0.9: deadlines hold for each copy's P50 or P90 hours (the speed model's "
        "held-out spread, with failures), and a queue schedules its jobs on them; default 0.9",
    )

    @model_validator(mode="before")
    @classmethod
    def _runs_inherit_stack(cls, data: Any) -> Any:
        """A run without `stack` (or `deadline_confidence`) takes the workload's, so each run carries its
        own after loading."""
        if not isinstance(data, dict) or not isinstance(data.get("runs"), list | tuple):
            return data
        stack = data.get("stack", DEFAULT_STACK)
        confidence = data.get("deadline_confidence", DEFAULT_CONFIDENCE)
        if confidence not in CONFIDENCES or isinstance(confidence, bool):
            confidence = DEFAULT_CONFIDENCE  # the field's own validation names the bad value
        runs = []
        for run in data["runs"]:
            if isinstance(run, dict):
                inherited = {"stack": stack, "deadline_confidence": confidence}
                run = {**run, **{k: v for k, v in inherited.items() if run.get(k) is None}}
            elif isinstance(run, Run):
                run = _inherit(run, stack, confidence)
            runs.append(run)
        return {**data, "runs": runs}

    @field_validator("runs")
    @classmethod
    def _unique_names(cls, runs: tuple[Run, ...]) -> tuple[Run, ...]:
        seen: set[str] = set()
        for index, run in enumerate(runs):
            if run.name in seen:
                raise ValueError(
                    f"@[{index}].name: run name {quoted(run.name)} is used twice; names must be unique"
                )
            seen.add(run.name)
        return runs

    @model_validator(mode="after")
    def _queue_fields(self) -> Workload:
        """`jobs` and `release_hours` mean something only in queue mode, `concurrent` only outside it;
        a job needs train_tokens (its duration) and a window the horizon holds."""
        for index, run in enumerate(self.runs):
            at = f"@runs[{index}]"
            if self.queue is None:
                _no_queue_fields(at, run)
            else:
                _queue_job_fields(at, run, self.queue.horizon_hours)
        return self

    @property
    def total_copies(self) -> int:
        """All copies of all runs: what must run at the same time."""
        return sum(run.concurrent for run in self.runs)
