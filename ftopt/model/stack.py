"""Training stacks and the speed constants: what the software and the wires do, as catalogue data.

Why a stack is data: the same model on the same card trains at 25 % or 60 % of peak depending on
the framework (eager Hugging Face versus compiled torchtune or Megatron), and the frameworks differ
in what they keep in memory (full FP32 logits or a chunked loss, FP32 master weights or pure BF16,
activations offloaded to host RAM or not). Those figures go stale as frameworks improve, so they
live in `ftopt/catalogue/data/stacks.yaml` and `speed.yaml` with their sources, not in code.

A stack's `mfu` is keyed by card class (`Gpu.card_class`: `hbm` for data-centre cards with HBM,
`gddr` for workstation and PCIe cards with GDDR memory, whose bandwidth per FLOP is lower) and by
method (full, lora, qlora).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, model_validator

from ftopt.model.workload import DEFAULT_STACK, METHOD_ID, RolloutEngine

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

CardClass = Literal["hbm", "gddr"]
#: The GPU software platform a card belongs to and a stack targets.
Platform = Literal["cuda", "rocm"]
#: The stack a run trains with when neither the run nor the workload names one, by the platform of
#: the cards the bid allows: Hugging Face with FSDP on NVIDIA (DEFAULT_STACK), and its ROCm build on
#: AMD Instinct. Why by platform: a CUDA stack trains no AMD card, so a bid for AMD-only hardware
#: without `stack:` would otherwise be refused for a choice the buyer never made.
DEFAULT_STACKS: dict[Platform, str] = {"cuda": DEFAULT_STACK, "rocm": "rocm-fsdp"}


def default_stack(platforms: set[str]) -> str:
    """The default stack for cards of these platforms: that platform's when they share one, else
    the CUDA default (mixed or no cards: the NVIDIA cards are the ones it can train)."""
    by_name = {str(platform): stack for platform, stack in DEFAULT_STACKS.items()}
    return by_name.get(next(iter(platforms)), DEFAULT_STACK) if len(platforms) == 1 else DEFAULT_STACK


LinkKind = Literal["nvlink-2", "nvlink-4", "nvswitch", "pcie-socket", "pcie-cross-socket"]


class MethodMfu(BaseModel):
    """Achievable model FLOPs utilisation (share of the dense BF16 peak) per training method."""

    model_config = _FROZEN
    full: float = Field(gt=0, le=1, description="full fine-tuning")
    lora: float = Field(gt=0, le=1, description="LoRA on a BF16 base")
    qlora: float = Field(gt=0, le=1, description="LoRA on an NF4 base, before the dequantisation time")


class Loss(BaseModel):
    """How the loss is computed: peak bytes the logits take per token and vocabulary entry."""

    model_config = _FROZEN
    chunked: bool = Field(description="the output projection and loss run in chunks (no full logits)")
    logit_bytes: float = Field(
        ge=0, le=64, description="peak bytes per token per vocabulary entry (4 = one FP32 copy)"
    )


class Fp8(BaseModel):
    """FP8 training where the stack offers it: the speed-up of the matrix work over BF16."""

    model_config = _FROZEN
    speedup: float = Field(ge=1, le=4, description="step-time gain of FP8 over BF16 on cards with FP8")


class Parallelism(BaseModel):
    """The model-parallel degrees a stack offers beside data parallelism (dp, always offered).

    tp: tensor parallelism (with sequence parallelism on the norms and dropout-free regions, as
    Megatron and torchtitan run it); pp: pipeline parallelism under a 1F1B schedule; cp: context
    parallelism, as ring attention (K/V passed round the ring, overlapped with attention) or as
    DeepSpeed-Ulysses (all-to-all of Q, K, V and the output over the heads, not overlapped).
    """

    model_config = _FROZEN
    tp: bool = Field(default=False, description="tensor parallelism inside an NVLink domain")
    pp: bool = Field(default=False, description="pipeline parallelism (1F1B)")
    cp: Literal["none", "ring", "ulysses"] = Field(default="none", description="context parallelism")


class Stack(BaseModel):
    """A fine-tuning framework as ftopt models it: speed per card class and method, memory habits."""

    model_config = _FROZEN
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.\-]*$", description="lowercase stack id")
    name: str = Field(min_length=1, description="what a person calls it")
    mfu: dict[CardClass, MethodMfu] = Field(description="achievable MFU per card class and method")
    loss: Loss = Field(description="logit accounting of the loss")
    master_weights: Literal["fp32", "bf16"] = Field(
        description="fp32: mixed precision with FP32 master weights; bf16: pure BF16 weights and moments"
    )
    optimizers: tuple[Literal["adamw-32bit", "adamw-8bit", "adamw-8bit-paged"], ...] = Field(
        min_length=1, description="optimiser precisions the stack offers"
    )
    cpu_offload: bool = Field(description="optimiser states can live in host RAM (ZeRO-Offload style)")
    activation_offload: bool = Field(
        description="checkpointed activations go to host RAM by default (offloaded checkpointing)"
    )
    offers_activation_offload: bool = Field(
        default=False,
        description="a run may turn offloaded checkpointing on (`activation_offload: true`), as "
        "torchtune's enable_activation_offloading does",
    )
    fp8: Fp8 | None = Field(default=None, description="FP8 training, if the stack offers it")
    selective_keeps: Literal["layer", "matmuls"] = Field(
        default="layer",
        description="what selective recomputation keeps: the layer but its attention scores (Megatron, "
        "FlashAttention's own), or torchtitan's op-level policy (input, attention and every other "
        "matrix product's output; ftopt.model.activations)",
    )
    qlora_fp32_upcast: bool = Field(
        default=False,
        description="QLoRA runs through PEFT's prepare_model_for_kbit_training, which casts every "
        "non-quantised parameter to FP32, so the base's embeddings, head and norms take 4 B and the "
        "activations are FP32 (twice the BF16 bytes)",
    )
    methods: tuple[Annotated[str, Field(pattern=METHOD_ID)], ...] = Field(
        default=("full", "lora", "qlora"),
        min_length=1,
        description="training methods it has recipes for (ids of methods.yaml)",
    )
    parallelism: Parallelism = Field(
        default_factory=Parallelism, description="model-parallel degrees offered (none: DP/FSDP only)"
    )
    platforms: tuple[Platform, ...] = Field(
        default=("cuda",), min_length=1, description="GPU software platforms it runs on (cuda, rocm)"
    )
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")

    @model_validator(mode="after")
    def _every_class(self) -> Stack:
        # CUDA stacks run on HBM and GDDR cards; the ROCm cards are all HBM (AMD Instinct).
        needed = {"hbm", "gddr"} if "cuda" in self.platforms else {"hbm"}
        missing = needed - set(self.mfu)
        if missing:
            raise ValueError(f"stack {self.id!r}: mfu lacks card classes {sorted(missing)}")
        return self

    def offloads_activations(self, asked: bool) -> bool:
        """Whether a run's checkpointed activations go to host RAM: always where the stack does it by
        default, where the run asks (`asked`) when the stack offers it."""
        return self.activation_offload or (asked and self.offers_activation_offload)

    def runs_on(self, platform: str, card_class: str) -> bool:
        """Whether the stack targets a card's platform and has an MFU for its class."""
        return platform in self.platforms and card_class in self.mfu

    def method_mfu(self, card_class: CardClass, method: str) -> float:
        """The MFU of `method` (full, lora, qlora) on a card of `card_class`."""
        return float(getattr(self.mfu[card_class], method))


class MethodMargin(BaseModel):
    """Planning memory margin per training method: the share a copy's memory per GPU is raised by."""

    model_config = _FROZEN
    full: float = Field(ge=0, le=1, description="full fine-tuning")
    lora: float = Field(ge=0, le=1, description="LoRA")
    qlora: float = Field(ge=0, le=1, description="QLoRA")


#: A stack and method's own cross-validated error sets its margin only when at least this many independent
#: sources measured it; fewer take the pooled error of every stack (issue 28).
MIN_SOURCES = 3
#: Margins cover 95 % of a bucket's held-out memory points (its shortfall percentile) while the pooled
#: figure that does is at most this share; beyond it covering 95 % would price every plan for its worst
#: points, and the median error is planned with instead (benchmarks/calibration/margins.py).
COVER_CAP = 0.25
#: The caching allocator's reserve where the catalogue has no fitted figure (a catalogue without
#: margins.yaml, or one whose margins record no fit points): ftopt's historical 5 %.
LEGACY_ALLOCATOR_RESERVE = 0.05


class MarginBucket(BaseModel):
    """The cross-validated memory error of one stack and method (or of all of them, pooled): each of its
    points predicted without its own source (benchmarks/calibration/cv.py)."""

    model_config = _FROZEN
    stack: str = Field(description="stack id, or 'all' for the pooled bucket")
    method: str = Field(description="full, lora or qlora, or 'all' for the pooled bucket")
    sources: tuple[str, ...] = Field(description="the calibration sources that measured it")
    points: tuple[str, ...] = Field(description="the calibration point ids")
    error: float = Field(ge=0, description="the median cross-validated error |ftopt / published - 1|")
    cover_95: float = Field(
        default=0.0,
        ge=0,
        description="the margin that covers 95 % of the points (nearest rank of the shortfalls): what "
        "ftopt plans with while the pooled figure is at most 25 %, else the median error is",
    )

    def planned(self, covering: bool) -> float:
        """The figure margins are set from: what covers 95 % of the points under the coverage rule,
        else the median error (MemoryMargins.covering)."""
        return self.cover_95 if covering else self.error

    def basis(self) -> str:
        """Where the margin comes from, in words the plan and quote print."""
        count = f"{len(self.sources)} source{'s' if len(self.sources) != 1 else ''}"
        if self.stack == "all":
            return f"pooled cross-validated error of all stacks, {count}"
        return f"cross-validated error of {self.stack}/{self.method}, {count}"


class AllocatorReserve(BaseModel):
    """The caching allocator's reserve (reserved − allocated, as a share of allocated), fitted on the
    calibration's fit points that report both peaks."""

    model_config = _FROZEN
    share: float = Field(ge=0, le=1, description="the median (reserved − allocated) / allocated")
    sources: tuple[str, ...] = Field(description="fit calibration sources it was chosen from")
    points: tuple[str, ...] = Field(description="calibration point ids reporting both peaks")


class MemoryMargins(BaseModel):
    """margins.yaml: planning memory margins per stack and method from the held-out calibration error,
    where they come from, and the allocator reserve (derived by `python -m benchmarks.calibration
    --write-margins`)."""

    model_config = _FROZEN
    margins: dict[str, MethodMargin] = Field(
        description="margin per stack id and method: the cross-validated error (own bucket or pooled)"
    )
    pooled: MarginBucket | None = Field(default=None, description="every stack's cross-validated error")
    buckets: tuple[MarginBucket, ...] = Field(
        default=(), description="cross-validated error per stack, method"
    )
    allocator_reserve: AllocatorReserve | None = Field(default=None, description="fitted reserve")

    def covering(self) -> bool:
        """Whether margins cover 95 % of the held-out points: the pooled figure that does is at most
        COVER_CAP (else they are the median error)."""
        return self.pooled is not None and self.pooled.cover_95 <= COVER_CAP

    def of(self, stack_id: str, method: str) -> float:
        """The margin of a stack and method; 0 for a stack the file does not name."""
        margin = self.margins.get(stack_id)
        return float(getattr(margin, method)) if margin else 0.0

    def basis(self, stack_id: str, method: str) -> str:
        """Where the margin of a stack and method comes from: its own cross-validated error when at least
        MIN_SOURCES sources measured it, else the pooled error."""
        own = next((b for b in self.buckets if (b.stack, b.method) == (stack_id, method)), None)
        if own is not None and len(own.sources) >= MIN_SOURCES:
            return own.basis()
        if self.pooled is not None:
            return self.pooled.basis()
        return "margins.yaml" if stack_id in self.margins else "no calibration for this stack"

    def reserve(self) -> float:
        """The allocator reserve to plan with: the share fitted on the calibration's fit points, else
        (a file that records none) the historical constant."""
        if self.allocator_reserve is not None:
            return self.allocator_reserve.share
        return LEGACY_ALLOCATOR_RESERVE


class BusBandwidth(BaseModel):
    """Measured all-reduce bus bandwidth (nccl-tests `busbw`, GB/s) per link kind, large messages."""

    model_config = _FROZEN
    nvlink_2: float = Field(gt=0, description="two cards on a 2-way NVLink bridge")
    nvlink_4: float = Field(gt=0, description="cards on a 4-way NVLink bridge")
    nvswitch: float = Field(gt=0, description="SXM modules on one NVSwitch board, NVLink 900 GB/s")
    pcie_socket: float = Field(gt=0, description="PCIe peers under one CPU socket")
    pcie_cross_socket: float = Field(gt=0, description="PCIe peers across the two sockets")

    def of(self, kind: LinkKind) -> float:
        """Bus bandwidth of one link kind."""
        return float(getattr(self, kind.replace("-", "_")))


class CpuAdam(BaseModel):
    """ZeRO-Offload's CPU Adam step: bound by host memory bandwidth and by cores."""

    model_config = _FROZEN
    bytes_per_param: float = Field(gt=0, description="host memory bytes one parameter update touches")
    dimm_mts: float = Field(gt=0, description="DDR5 transfer rate, MT/s, of the planned platform")
    stream_efficiency: float = Field(gt=0, le=1, description="share of peak DRAM bandwidth reached")
    params_per_core_s: float = Field(gt=0, description="parameter updates per second per core")


class SpeedConstants(BaseModel):
    """The speed model's measured and assumed constants (speed.yaml)."""

    model_config = _FROZEN
    bus_bandwidth_gbps: BusBandwidth = Field(description="measured all-reduce bus bandwidth per link")
    nvswitch_reference_gbps: float = Field(
        default=900.0,
        gt=0,
        description="NVLink rate (GB/s per GPU, both ways) the NVSwitch busbw was measured at",
    )
    pcie_reference_gbps: float = Field(
        gt=0, description="PCIe rate (both ways) the PCIe busbw was measured at"
    )
    overlap: float = Field(ge=0, le=1, description="share of communication hidden behind compute")
    step_overhead_s: float = Field(ge=0, description="fixed time per optimiser step (launch, data, sync)")
    offload_pcie_efficiency: float = Field(gt=0, le=1, description="share of PCIe peak reached by copies")
    cpu_adam: CpuAdam = Field(description="CPU Adam throughput constants")
    qlora_dequant_bytes_per_param: float = Field(
        ge=0, description="memory traffic per NF4 weight per pass: read NF4, write and read BF16"
    )
    hbm_efficiency: float = Field(gt=0, le=1, description="share of peak memory bandwidth reached")
    host_power_w_per_gpu: float = Field(ge=0, description="host power attributed to each GPU")
    network_bus_bandwidth_gbps: dict[int, float] = Field(
        default_factory=dict,
        description="measured multi-node all-reduce bus bandwidth per NIC port, GB/s, by port line rate "
        "in Gb/s (nccl-tests, NCCL_ALGO=RING)",
    )
    network_line_rate_share: float = Field(
        gt=0,
        le=1,
        description="share of a NIC port's line rate a ring all-reduce reaches, for port rates "
        "network_bus_bandwidth_gbps does not list",
    )
    power_exponent: dict[CardClass, float] = Field(
        default_factory=dict,
        description="compute speed at a power cap = (cap / full power) ** exponent, per card class; a "
        "class left out trains at full speed under any cap",
    )
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")


class RolloutConstants(BaseModel):
    """Constants of the rollout model (ftopt/catalogue/data/rollout.yaml, `Catalogue.rollout`), each
    with its source: what a vLLM-style engine takes and how fast it decodes, like the speed constants
    a catalogue item of its own."""

    model_config = _FROZEN
    separate_memory_fraction: float = Field(gt=0, lt=1, description="memory share of an engine's own GPU")
    engine_overhead_gb: float = Field(ge=0, description="CUDA graphs and the engine's activations per GPU")
    decode_bandwidth_efficiency: float = Field(gt=0, le=1, description="HBM peak share decode reads at")
    prefill_mfu: float = Field(gt=0, le=1, description="share of BF16 peak prefill and scoring passes reach")
    switch_fixed_s: float = Field(ge=0, description="fixed cost of one training-generation switch")
    switch_pcie_efficiency: float = Field(gt=0, le=1, description="PCIe peak share of the switch copies")
    engine_in_training: Literal["nothing", "weights", "everything"] = Field(
        default="everything",
        description="what a colocated engine keeps on its GPUs while the policy trains: nothing (sleep "
        "mode: weights offloaded or dropped, KV cache discarded), its weights, or everything (no sleep)",
    )
    training_in_generation: Literal["states", "nothing"] = Field(
        default="states",
        description="what the training side keeps on a colocated copy's GPUs while its engine generates: "
        "its model states and frozen models (activations freed), or nothing (all offloaded to host RAM)",
    )
    max_num_seqs: int = Field(default=1_000_000, ge=1, description="sequences one replica schedules at once")
    response_mean_share: float = Field(
        default=1.0, gt=0, le=1, description="mean response length over the run's response_len (the cap)"
    )
    decode_step_overhead_ms: dict[RolloutEngine, NonNegativeFloat] = Field(
        default_factory=dict,
        description="fixed time of one decode step beyond its reads (scheduling, sampling, kernel "
        "launches), per engine; an engine left out pays none",
    )
    tp_allreduce_latency_us: float = Field(
        default=0.0, ge=0, description="fixed time of one tensor-parallel all-reduce in a decode step"
    )
    sources: tuple[str, ...] = Field(default=(), description="where the figures come from")

    def step_overhead_s(self, engine: RolloutEngine) -> float:
        """The engine's fixed time per decode step, in seconds (none for an engine the file leaves out)."""
        return self.decode_step_overhead_ms.get(engine, 0.0) / 1e3
