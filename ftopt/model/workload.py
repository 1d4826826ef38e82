"""The workload file: the runs a customer wants to train at once and the site that must hold them.

Validators that judge one field from its neighbours start their message with `@path: ` (relative
to the model they validate), so that the file loader can point at that field and its line.

Frozen pydantic models with `extra="forbid"`, so a misspelt key is an error rather than a silently
ignored default. Cross-references to the catalogue (model, feed, card and chassis ids) are checked
by `ftopt.model.references.unknown_references`, because the workload is parsed before the catalogue
is chosen.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ftopt.model.architecture import Architecture

_FROZEN = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

#: GPUs a copy may take, and so the GPU block sizes the solver counts: powers of two up to the
#: largest server, each dividing the next (the buddy property ftopt/solver/constraints.py relies on).
GPU_COUNTS = (1, 2, 4, 8)


class Method(StrEnum):
    """How the weights are trained."""

    FULL = "full"
    LORA = "lora"
    QLORA = "qlora"


class Optimizer(StrEnum):
    """AdamW with 32-bit or 8-bit (bitsandbytes) moments."""

    ADAMW_32BIT = "adamw-32bit"
    ADAMW_8BIT = "adamw-8bit"


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


class InlineModel(BaseModel):
    """A model described in the workload itself rather than taken from the catalogue."""

    model_config = _FROZEN
    name: str = Field(min_length=1, description="display name of the model")
    architecture: Architecture = Field(description="layers, widths, heads and vocabulary")


class Run(BaseModel):
    """One fine-tuning run, of which `concurrent` copies train at the same time."""

    model_config = _FROZEN
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$", description="unique run name")
    model: str | InlineModel = Field(description="catalogue model id or an inline architecture")
    method: Method = Field(description="full, lora or qlora")
    optimizer: Optimizer | Literal["auto"] = Field(default="auto", description="AdamW precision")
    offload: Offload | Literal["auto"] = Field(default=Offload.NONE, description="optimiser offload")
    lora_rank: int = Field(default=16, gt=0, le=4096, description="LoRA rank on all linear layers")
    seq_len: int = Field(default=4096, gt=0, le=1_048_576, description="tokens per sequence")
    micro_batch: int = Field(default=1, gt=0, le=4096, description="sequences per GPU per step")
    gradient_checkpointing: bool = Field(default=True, description="recompute activations fully")
    concurrent: int = Field(default=1, gt=0, le=100_000, description="copies running at once")
    gpus: int | Literal["auto"] = Field(default="auto", description="GPUs per copy: auto, 1, 2, 4, 8")
    keep_checkpoints: int = Field(default=3, ge=0, le=1000, description="resumable checkpoints kept")

    @field_validator("gpus")
    @classmethod
    def _power_of_two(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value not in GPU_COUNTS:
            raise ValueError(f"expected auto or one of {', '.join(map(str, GPU_COUNTS))}")
        return value

    @model_validator(mode="after")
    def _offload_needs_full(self) -> Run:
        if self.offload == Offload.CPU and self.method != Method.FULL:
            raise ValueError("@offload: cpu applies to method full only (adapters have no large states)")
        if self.offload == Offload.CPU and self.optimizer == Optimizer.ADAMW_8BIT:
            raise ValueError(
                "@optimizer: offload cpu runs DeepSpeed's 32-bit CPU Adam; use adamw-32bit or auto"
            )
        return self

    @property
    def model_id(self) -> str:
        """The catalogue id, or the inline model's name."""
        return self.model if isinstance(self.model, str) else self.model.name

    @property
    def recompute(self) -> Recompute:
        """Gradient checkpointing means full recomputation; otherwise FlashAttention's own."""
        return Recompute.FULL if self.gradient_checkpointing else Recompute.SELECTIVE


class Site(BaseModel):
    """Where the servers will stand: the feed at each position and the room's warmest inlet."""

    model_config = _FROZEN
    feed: str = Field(default="400v-3p-16a", description="feed id at each server position")
    inlet_c: float = Field(default=25.0, ge=-10, le=60, description="warmest inlet temperature, °C")
    max_servers: int | None = Field(default=None, gt=0, le=10_000, description="server positions")


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
    mfu: float = Field(default=0.4, gt=0, le=1, description="model FLOPs utilisation for step time")
    cuda_context_gb: float = Field(
        default=1.0, ge=0, le=1000, description="CUDA context and NCCL buffers per GPU"
    )
    allocator_reserve: float = Field(
        default=0.05, ge=0, le=1, description="caching-allocator fragmentation, share of the rest"
    )


class Workload(BaseModel):
    """A whole bid: runs, site, optional hardware limits and sizing switches."""

    model_config = _FROZEN
    name: str | None = Field(default=None, description="bid name")
    site: Site = Field(default_factory=Site, description="feed, inlet temperature, positions")
    hardware: HardwareLimits = Field(default_factory=HardwareLimits, description="restrictions")
    runs: tuple[Run, ...] = Field(min_length=1, description="the runs to hold at the same time")
    sizing: SizingOptions = Field(default_factory=SizingOptions, description="memory-model switches")

    @field_validator("runs")
    @classmethod
    def _unique_names(cls, runs: tuple[Run, ...]) -> tuple[Run, ...]:
        seen: set[str] = set()
        for index, run in enumerate(runs):
            if run.name in seen:
                raise ValueError(
                    f"@[{index}].name: run name {run.name!r} is used twice; names must be unique"
                )
            seen.add(run.name)
        return runs

    @property
    def total_copies(self) -> int:
        """All copies of all runs: what must run at the same time."""
        return sum(run.concurrent for run in self.runs)
