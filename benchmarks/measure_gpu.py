"""Measure peak memory and tokens/s of real training steps on this machine's GPU, as calibration points.

Run on a machine with a CUDA GPU, PyTorch and Transformers (PEFT for the LoRA rows); nothing is
downloaded: each model is built from its architecture with random weights. For every configuration
it runs a few optimiser steps on random tokens, reads PyTorch's peak allocated and reserved memory,
times the steps after a warm-up, and writes the results as rows in the shape of
benchmarks/calibration/points.yaml (split held-out, the card and the date in the source):

    python -m benchmarks.measure_gpu --card-id h200-nvl --card-name "NVIDIA H200 NVL" -o measured.yaml
    python -m benchmarks.measure_gpu --card-id h200-nvl --only llama-3.2-1b-lora-2048x2 --steps 8

Copy the models, sources and points of the output into points.yaml and run
`python -m benchmarks.calibration`: the points join the held-out set and must never be used to choose
a constant. The card id must be one ftopt knows (the catalogue or benchmarks/calibration/cards.yaml).

How the runs match ftopt's accounting (stack hf-fsdp, 32-bit AdamW): full fine-tuning keeps FP32
weights and runs the matrix work under BF16 autocast (4 B weights + 4 B gradients + 8 B moments =
ftopt's 16 B per parameter); LoRA keeps the base in BF16 and PEFT's adapters in FP32 (2 B per base
weight, 16 B per adapter weight). The loss is Transformers' own (unchunked). Everything that needs
torch is imported inside the functions that measure, so the rest (the configurations, the rows, the
arguments) is importable and tested without a GPU.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

GIB = 2**30

#: Architectures of the measured models (small enough for one card; same fields as points.yaml's models).
MODELS: dict[str, dict[str, Any]] = {
    "llama-3.2-1b": {
        "layers": 16,
        "hidden": 2048,
        "intermediate": 8192,
        "heads": 32,
        "kv_heads": 8,
        "head_dim": 64,
        "vocab": 128256,
        "tied_embeddings": True,
    },
    "llama-3.2-3b": {
        "layers": 28,
        "hidden": 3072,
        "intermediate": 8192,
        "heads": 24,
        "kv_heads": 8,
        "head_dim": 128,
        "vocab": 128256,
        "tied_embeddings": True,
    },
}


@dataclass(frozen=True)
class Config:
    """One training configuration to measure."""

    model: str
    method: str  # full or lora
    seq_len: int
    micro_batch: int
    gradient_checkpointing: bool = True
    lora_rank: int = 16

    @property
    def id(self) -> str:
        """A stable name for the configuration, used in the point ids."""
        ckpt = "" if self.gradient_checkpointing else "-nockpt"
        return f"{self.model}-{self.method}-{self.seq_len}x{self.micro_batch}{ckpt}"

    @property
    def tokens_per_step(self) -> int:
        """Tokens one optimiser step trains on."""
        return self.seq_len * self.micro_batch


#: What a run without --only measures: both methods, short and long sequences, two micro-batches.
DEFAULT_CONFIGS: tuple[Config, ...] = (
    Config("llama-3.2-1b", "full", 2048, 1),
    Config("llama-3.2-1b", "full", 2048, 4),
    Config("llama-3.2-1b", "full", 8192, 1),
    Config("llama-3.2-1b", "full", 2048, 1, gradient_checkpointing=False),
    Config("llama-3.2-1b", "lora", 2048, 2),
    Config("llama-3.2-1b", "lora", 16384, 1),
    Config("llama-3.2-3b", "full", 4096, 1),
    Config("llama-3.2-3b", "lora", 4096, 2),
    Config("llama-3.2-3b", "lora", 32768, 1),
)


@dataclass(frozen=True)
class Measurement:
    """What one configuration's steps measured."""

    peak_allocated_bytes: int
    peak_reserved_bytes: int
    tokens_per_s: float
    steps: int


def transformers_config(arch: dict[str, Any]) -> dict[str, Any]:
    """The fields of a Transformers LlamaConfig for one of MODELS' architectures."""
    return {
        "model_type": "llama",
        "num_hidden_layers": arch["layers"],
        "hidden_size": arch["hidden"],
        "intermediate_size": arch["intermediate"],
        "num_attention_heads": arch["heads"],
        "num_key_value_heads": arch["kv_heads"],
        "head_dim": arch["head_dim"],
        "vocab_size": arch["vocab"],
        "tie_word_embeddings": arch["tied_embeddings"],
        "max_position_embeddings": 131072,
    }


def point_config(config: Config, card_id: str) -> dict[str, Any]:
    """The configuration block of a point, as benchmarks.calibration recomputes it."""
    fields: dict[str, Any] = {"model": config.model, "method": config.method}
    if config.method != "full":
        fields["lora_rank"] = config.lora_rank
    fields.update(
        seq_len=config.seq_len,
        micro_batch=config.micro_batch,
        card=card_id,
        gpus=1,
        stack="hf-fsdp",
        optimizer="adamw-32bit",
        gradient_checkpointing=config.gradient_checkpointing,
    )
    return fields


def source_key(card_id: str, day: dt.date) -> str:
    """The source id of one machine's measurements on one day."""
    return f"measured-{card_id}-{day.isoformat()}"


def to_points(config: Config, measured: Measurement, card_id: str, day: dt.date) -> list[dict[str, Any]]:
    """A memory point (peak allocated, GiB) and a throughput point (tokens/s) for one configuration."""
    source, fields = source_key(card_id, day), point_config(config, card_id)
    reserved = measured.peak_reserved_bytes / GIB
    return [
        {
            "id": f"gpu-{config.id}-mem",
            "kind": "memory",
            "source": source,
            "split": "held-out",
            "published": round(measured.peak_allocated_bytes / GIB, 2),
            "unit": "GiB",
            "includes": "allocated",
            "config": fields,
            "note": f"torch.cuda.max_memory_allocated; max_memory_reserved was {reserved:.2f} GiB.",
        },
        {
            "id": f"gpu-{config.id}-speed",
            "kind": "throughput",
            "source": source,
            "split": "held-out",
            "published": round(measured.tokens_per_s),
            "unit": "tokens/s",
            "config": fields,
            "note": f"mean over {measured.steps} timed steps after the warm-up.",
        },
    ]


def render(rows: list[dict[str, Any]], configs: Sequence[Config], sources: dict[str, str]) -> str:
    """The YAML to merge into points.yaml: the models used, the source and the points."""
    models = {c.model: MODELS[c.model] for c in configs}
    body = {"models": models, "sources": sources, "points": rows}
    return yaml.safe_dump(body, sort_keys=False, width=110, allow_unicode=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line arguments; --only picks configurations by id (see Config.id)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.measure_gpu", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--card-id", required=True, help="ftopt's id of this card (catalogue or calibration cards)"
    )
    parser.add_argument(
        "--card-name", default=None, help="the card as nvidia-smi names it (default: asked of torch)"
    )
    parser.add_argument("--steps", type=int, default=5, help="timed optimiser steps per configuration")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    parser.add_argument("--only", action="append", default=None, help="configuration id; repeatable")
    parser.add_argument("-o", "--out", type=Path, default=None, help="write the YAML here (default: stdout)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.warmup < 0:
        parser.error("--steps must be at least 1 and --warmup at least 0")
    known = {c.id for c in DEFAULT_CONFIGS}
    unknown = sorted(set(args.only or ()) - known)
    if unknown:
        parser.error(f"unknown configuration {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return args


def selected(only: Sequence[str] | None) -> list[Config]:
    """The configurations to measure: all defaults, or those named."""
    return [c for c in DEFAULT_CONFIGS if not only or c.id in only]


def measure(config: Config, steps: int, warmup: int) -> Measurement:  # pragma: no cover - needs a GPU
    """Build the model with random weights, train `warmup + steps` steps on random tokens, and read
    the peak memory and the rate of the timed steps."""
    import time

    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    fields = transformers_config(MODELS[config.model])
    fields.pop("model_type")
    hf_config = LlamaConfig(**fields, attn_implementation="sdpa")
    dtype = torch.float32 if config.method == "full" else torch.bfloat16
    model = AutoModelForCausalLM.from_config(hf_config, torch_dtype=dtype).cuda()
    if config.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if config.method == "lora":
        from peft import LoraConfig, get_peft_model

        model.enable_input_require_grads()
        model = get_peft_model(model, LoraConfig(r=config.lora_rank, target_modules="all-linear"))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
    tokens = torch.randint(0, hf_config.vocab_size, (config.micro_batch, config.seq_len), device="cuda")

    def step() -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    measured = Measurement(
        peak_allocated_bytes=torch.cuda.max_memory_allocated(),
        peak_reserved_bytes=torch.cuda.max_memory_reserved(),
        tokens_per_s=steps * config.tokens_per_step / elapsed,
        steps=steps,
    )
    return measured


def versions() -> str:  # pragma: no cover - needs the GPU stack
    """The library versions the measurements were taken with."""
    import importlib.metadata as md

    found = []
    for name in ("torch", "transformers", "peft"):
        try:
            found.append(f"{name} {md.version(name)}")
        except md.PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - needs a GPU
    """Measure the selected configurations and write their points."""
    args = parse_args(argv)
    try:
        import torch
    except ModuleNotFoundError:
        print(
            "measure_gpu needs torch and transformers (and peft for LoRA) on a CUDA machine", file=sys.stderr
        )
        return 2
    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to measure", file=sys.stderr)
        return 2
    card_name = args.card_name or torch.cuda.get_device_name(0)
    day = dt.date.today()
    rows: list[dict[str, Any]] = []
    configs = selected(args.only)
    for config in configs:
        try:
            measured = measure(config, args.steps, args.warmup)
        except torch.cuda.OutOfMemoryError:
            print(f"{config.id}: out of memory, skipped", file=sys.stderr)
            torch.cuda.empty_cache()
            continue
        rows += to_points(config, measured, args.card_id, day)
        peak = measured.peak_allocated_bytes / GIB
        print(f"{config.id}: {peak:.2f} GiB, {measured.tokens_per_s:,.0f} tokens/s")
    text = f"measured with benchmarks/measure_gpu.py on one {card_name} ({versions()}), {day.isoformat()}"
    out = render(rows, configs, {source_key(args.card_id, day): text})
    if args.out:
        args.out.write_text(out, encoding="utf-8")
    else:
        print(out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
