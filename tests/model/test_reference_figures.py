"""The published reference figures of docs/reference-figures.md (24 rows), reproduced.

Each test names its row and its article (A: the English fine-tuning server guide; B: the German
Qwen3.8-27B sizing note; both described in docs/reference-figures.md) and quotes the sentence the
figure comes from. Every value is computed through ftopt's own functions from the catalogue's
architectures; only the article's printed number appears in the test. States only (no activations,
no overhead), GB = 1e9 bytes.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import ParamCounts, count_params, image_tokens, vision_block_params
from ftopt.model.hardware import Catalogue, Gpu
from ftopt.model.memory import (
    BF16,
    GB,
    checkpoint_bytes,
    frozen_base_bytes,
    model_states,
    states_per_gpu,
    upcast_rest_bytes,
)
from ftopt.model.sizing import CopySetup, RunProfile, Sizing, intended_link, profile_run, size_run
from ftopt.model.traffic import (
    compute_seconds,
    step_flops,
    traffic_bytes_per_step,
    transfer_seconds,
)
from ftopt.model.workload import (
    Offload,
    Optimizer,
    Recompute,
    Run,
    SizingOptions,
    Strategy,
)

FULL, LORA, QLORA = "full", "lora", "qlora"
SPEC = load_catalogue().methods.method  # a method's registry entry, for the model-state functions
A32, A8 = Optimizer.ADAMW_32BIT, Optimizer.ADAMW_8BIT
NONE, CPU = Offload.NONE, Offload.CPU
SINGLE, DDP, FSDP = Strategy.SINGLE, Strategy.DDP, Strategy.FSDP
#: The articles' accounting: model states only, and no planning margin (a margin is ftopt's policy for
#: planning, not part of what an article counts).
STATES_ONLY = SizingOptions(states_only=True, memory_margin=0)

H200 = "h200-nvl"
RTX = "rtx-pro-6000-se"
LLAMA8 = "llama-3.1-8b"
QWEN32 = "qwen3-32b"
LLAMA70 = "llama-3.3-70b"
QWEN27 = "qwen3.8-27b"


def assert_figure(value: float, stated: float, unit: float) -> None:
    """Assert `value` reproduces the article's `stated` figure at the article's own precision.

    `unit` is one unit of the last digit the article prints (0.1 for "458.6", 1 for "about 53 GB",
    0.01 for "1.64 s"). The articles compute from rounded parameter counts (Qwen3-32B as 32.76 B,
    Llama 3.3 70B as 70.55 B) and then round again, so an exact count can land a last digit away
    from the printed figure: 14 × 32,762,123,264 B = 458.67 GB where the article, from 32.76 B, prints
    458.6. One unit of the last stated digit is therefore the tolerance; anything further is a real
    disagreement with the article.
    """
    slack = unit * (1 + 1e-9)  # float noise only, never a second unit
    assert abs(value - stated) <= slack, f"computed {value!r}, article states {stated} (tolerance ±{unit})"


def test_assert_figure_rejects_a_value_two_units_off() -> None:
    """The helper must be able to fail: 458.8 is not 458.6 at 0.1 precision, 458.7 is."""
    assert_figure(458.67, 458.6, 0.1)
    with pytest.raises(AssertionError):
        assert_figure(458.8, 458.6, 0.1)
    with pytest.raises(AssertionError):
        assert_figure(51.9, 53, 1)


# Helpers: everything goes through the catalogue and the project's functions.


def counts_of(catalogue: Catalogue, model_id: str) -> ParamCounts:
    return count_params(catalogue.model(model_id).architecture)


def sized(
    catalogue: Catalogue,
    model_id: str,
    method: str,
    gpu_id: str,
    gpus: int,
    strategy: Strategy,
    optimizer: Optimizer = A32,
    offload: Offload = NONE,
    *,
    as_planned: bool = False,
) -> Sizing:
    """size_run in the articles' accounting (states only, the base as stored: without PEFT's FP32 cast
    of a QLoRA base's other parameters) for one explicit configuration; with `as_planned`, on the
    default stack as plans use it (hf-fsdp counts the cast since 2026-12-05)."""
    run = Run(
        name="reference", model=model_id, method=method, optimizer=optimizer, offload=offload, gpus=gpus
    )
    profile: RunProfile = profile_run(run, catalogue)
    if not as_planned and profile.stack is not None:
        profile = replace(profile, stack=profile.stack.model_copy(update={"qlora_fp32_upcast": False}))
    gpu: Gpu = catalogue.gpu(gpu_id)
    return size_run(CopySetup(profile, gpu, gpus, strategy, optimizer, offload, STATES_ONLY))


# Row 1 — article A: "Llama 3.1 8B, Qwen3-32B and Llama 3.3 70B with 8.03, 32.76 and 70.55 billion
# parameters."
@pytest.mark.parametrize(
    ("model_id", "stated_b"),
    [(LLAMA8, 8.03), (QWEN32, 32.76), (LLAMA70, 70.55)],
)
def test_row01_parameter_counts(catalogue: Catalogue, model_id: str, stated_b: float) -> None:
    """Article A: "... Llama 3.1 8B, Qwen3-32B and Llama 3.3 70B with 8.03, 32.76 and 70.55 billion
    parameters." """
    assert_figure(counts_of(catalogue, model_id).total / 1e9, stated_b, 0.01)


# Row 2 — article A: "For Llama 3.3 70B the model states ... come to 42.8 GB for QLoRA, 144.4 GB for
# LoRA on a 16-bit base and 1,129 GB for a full fine-tune".
@pytest.mark.parametrize(
    ("method", "stated_gb", "unit"),
    [(QLORA, 42.8, 0.1), (LORA, 144.4, 0.1), (FULL, 1129, 1)],
    ids=["qlora", "lora-bf16-base", "full-adam32"],
)
def test_row02_llama70_states_by_method(
    catalogue: Catalogue, method: str, stated_gb: float, unit: float
) -> None:
    """Article A: "For Llama 3.3 70B the model states, meaning weights, gradients and optimiser
    states, come to 42.8 GB for QLoRA, 144.4 GB for LoRA on a 16-bit base and 1,129 GB for a full
    fine-tune" (rank-16 adapters, 32-bit Adam)."""
    states = model_states(counts_of(catalogue, LLAMA70), SPEC(method), A32, NONE, lora_rank=16)
    assert states.host_bytes == 0
    assert_figure(states.gpu_bytes / GB, stated_gb, unit)


# Row 3 — article A: "a rank-16 LoRA on Llama 3.3 70B trains 207.1 million weights, 0.41 GB of BF16
# gradients per step".
def test_row03_rank16_lora_weights(catalogue: Catalogue) -> None:
    """Article A: "a rank-16 LoRA on Llama 3.3 70B trains 207.1 million weights" (all linear
    layers)."""
    states = model_states(counts_of(catalogue, LLAMA70), SPEC(LORA), A32, NONE, lora_rank=16)
    assert_figure(states.trainable / 1e6, 207.1, 0.1)


def test_row03_rank16_lora_bf16_gradients(catalogue: Catalogue) -> None:
    """Article A: "... 207.1 million weights, 0.41 GB of BF16 gradients per step"."""
    trainable = model_states(counts_of(catalogue, LLAMA70), SPEC(LORA), A32, NONE, 16).trainable
    assert_figure(trainable * BF16 / GB, 0.41, 0.01)


# Row 4 — article A: "With 32-bit Adam a full 70B fine-tune needs 141.1 GB per H200 NVL ... 8-bit
# Adam, which cuts the states to 88.2 GB per card".
@pytest.mark.parametrize(("optimizer", "stated_gb"), [(A32, 141.1), (A8, 88.2)], ids=["32bit", "8bit"])
def test_row04_full70_on_8_h200(catalogue: Catalogue, optimizer: Optimizer, stated_gb: float) -> None:
    """Article A: "With 32-bit Adam a full 70B fine-tune needs 141.1 GB per H200 NVL, the whole card
    before any activation, so it needs 8-bit Adam, which cuts the states to 88.2 GB per card"."""
    s = sized(catalogue, LLAMA70, FULL, H200, 8, FSDP, optimizer)
    assert_figure(s.states_gb, stated_gb, 0.1)


# Row 5 — article A: "a 70B LoRA at 72.2 GB per card over NVLink" (two H200 NVL) and "A 70B LoRA on
# four bridged H200 NVL holds 36.1 GB per card".
@pytest.mark.parametrize(("gpus", "stated_gb"), [(2, 72.2), (4, 36.1)])
def test_row05_lora70_sharded(catalogue: Catalogue, gpus: int, stated_gb: float) -> None:
    """Article A: "Two H200 NVL with a 2-way bridge hold ... a 70B LoRA at 72.2 GB per card over
    NVLink." and "A 70B LoRA on four bridged H200 NVL holds 36.1 GB per card"."""
    s = sized(catalogue, LLAMA70, LORA, H200, gpus, FSDP)
    assert_figure(s.states_gb, stated_gb, 0.1)
    assert s.link == "nvlink"


# Row 6 — article A: "Eight RTX PRO 6000 Server Edition cards run ... a full 32B fine-tune at 65.5 GB
# per card, over PCIe."
def test_row06_full32_on_8_cards(catalogue: Catalogue) -> None:
    """Article A: "Eight RTX PRO 6000 Server Edition cards run eight QLoRA jobs or a full 32B
    fine-tune at 65.5 GB per card, over PCIe." """
    s = sized(catalogue, QWEN32, FULL, RTX, 8, FSDP, A32)
    assert_figure(s.states_gb, 65.5, 0.1)
    assert s.fits
    assert s.link == "pcie"


# Row 7 — article A: "Two H200 NVL with a 2-way bridge hold an 8B full fine-tune on one card";
# 16 B/param × 8.03 B = 128.5 GB of 141.
def test_row07_full8_fits_one_h200(catalogue: Catalogue) -> None:
    """Article A: "Two H200 NVL with a 2-way bridge hold an 8B full fine-tune on one card" — by the
    article's rule "16 bytes per parameter for full fine-tuning with 32-bit Adam", 128.5 GB of the
    "141 GB on an H200 NVL"."""
    s = sized(catalogue, LLAMA8, FULL, H200, 1, SINGLE, A32)
    assert_figure(s.states_gb, 128.5, 0.1)
    assert_figure(s.card_gb, 141, 1)
    assert s.fits


# Row 8 — article A: "a 70B QLoRA fits one card with about 53 GB left".
def test_row08_qlora70_free_on_96gb(catalogue: Catalogue) -> None:
    """Article A: "On a server with 96 GB cards there is rarely a reason to: a 70B QLoRA fits one
    card with about 53 GB left"."""
    s = sized(catalogue, LLAMA70, QLORA, RTX, 1, SINGLE)
    assert s.fits
    assert_figure(s.free_gb, 53, 1)


def test_row08_as_planned_the_fp32_cast_takes_the_embeddings_and_head_bytes(catalogue: Catalogue) -> None:
    """The article counts the base as stored; a plan on hf-fsdp counts PEFT's FP32 cast of the
    parameters that stay BF16 (embeddings, head, norms: 2 more bytes each), about 4 GB on Llama 3.3
    70B, and still fits the 96 GB card."""
    planned = sized(catalogue, LLAMA70, QLORA, RTX, 1, SINGLE, as_planned=True)
    stored = sized(catalogue, LLAMA70, QLORA, RTX, 1, SINGLE)
    counts = counts_of(catalogue, LLAMA70)
    assert planned.fits
    assert (stored.free_gb - planned.free_gb) * GB == pytest.approx(upcast_rest_bytes(counts), rel=1e-6)
    assert 3.5 < upcast_rest_bytes(counts) / GB < 4.5


# Row 9 — article A: "By our arithmetic that is 112.4 GB for an 8B model, 458.6 GB for a 32B model
# and 987.7 GB for Llama 3.3 70B."
@pytest.mark.parametrize(("model_id", "stated_gb"), [(LLAMA8, 112.4), (QWEN32, 458.6), (LLAMA70, 987.7)])
def test_row09_offload_host_ram(catalogue: Catalogue, model_id: str, stated_gb: float) -> None:
    """Article A: ZeRO-Offload "allocates all the fp32 model states along with the fp16 gradients on
    the CPU memory", 14 bytes per parameter ... "By our arithmetic that is 112.4 GB for an 8B model,
    458.6 GB for a 32B model and 987.7 GB for Llama 3.3 70B." """
    states = model_states(counts_of(catalogue, model_id), SPEC(FULL), A32, CPU, lora_rank=16)
    assert_figure(states.host_bytes / GB, stated_gb, 0.1)


# Row 10 — article A: "a full 70B fine-tune on eight H200 NVL holds about 17.6 GB of weights per card".
def test_row10_full70_offload_weights_per_card(catalogue: Catalogue) -> None:
    """Article A: "in stage 3 'the 16-bit model parameters are partitioned across the processes', so
    a full 70B fine-tune on eight H200 NVL holds about 17.6 GB of weights per card"."""
    states = model_states(counts_of(catalogue, LLAMA70), SPEC(FULL), A32, CPU, lora_rank=16)
    assert_figure(states_per_gpu(states, FSDP, 8) / GB, 17.6, 0.1)
    # and the sizing record agrees, with the host copy undivided ("about 1 TB in host memory")
    s = sized(catalogue, LLAMA70, FULL, H200, 8, FSDP, A32, CPU)
    assert_figure(s.states_gb, 17.6, 0.1)
    assert_figure(s.host_ram_gb, 987.7, 0.1)


# Row 11 — article A: "about 112 GB for an 8B model, 459 GB for a 32B model and 988 GB for a 70B
# model".
@pytest.mark.parametrize(("model_id", "stated_gb"), [(LLAMA8, 112), (QWEN32, 459), (LLAMA70, 988)])
def test_row11_full_checkpoint(catalogue: Catalogue, model_id: str, stated_gb: float) -> None:
    """Article A: "A resumable checkpoint of a full fine-tune stores the 32-bit master weights and
    both Adam moments, 12 bytes per parameter ..., plus the 16-bit weights at 2 bytes. By our
    estimate that is about 112 GB for an 8B model, 459 GB for a 32B model and 988 GB for a 70B
    model"."""
    ckpt = checkpoint_bytes(counts_of(catalogue, model_id), SPEC(FULL), A32, lora_rank=16)
    assert_figure(ckpt / GB, stated_gb, 1)


# Row 12 — article A: "the rank-16 adapter of a 70B model has 207.1 million weights, 0.41 GB in BF16,
# about 3.3 GB with its optimiser states."
def test_row12_lora_checkpoint_weights(catalogue: Catalogue) -> None:
    """Article A: "A LoRA checkpoint is small: the rank-16 adapter of a 70B model has 207.1 million
    weights, 0.41 GB in BF16"."""
    adapter = counts_of(catalogue, LLAMA70).lora_params(16)
    assert_figure(adapter * BF16 / GB, 0.41, 0.01)


def test_row12_lora_checkpoint_with_optimiser(catalogue: Catalogue) -> None:
    """Article A: "... 0.41 GB in BF16, about 3.3 GB with its optimiser states." """
    ckpt = checkpoint_bytes(counts_of(catalogue, LLAMA70), SPEC(LORA), A32, lora_rank=16)
    assert_figure(ckpt / GB, 3.3, 0.1)


# Row 13 — article A: "about 0.83 GB per card per step. At 64 GB/s per direction on PCIe Gen5 that
# is around 13 ms".
def _ddp_lora70_traffic(catalogue: Catalogue) -> float:
    trainable = model_states(counts_of(catalogue, LLAMA70), SPEC(LORA), A32, NONE, 16).trainable
    return traffic_bytes_per_step(DDP, 2, SPEC(LORA), trainable, weight_bytes=0.0)


def test_row13_ddp_allreduce_bytes(catalogue: Catalogue) -> None:
    """Article A: "the ZeRO paper counts 2Ψ of data movement for the all-reduce, about 0.83 GB per
    card per step"."""
    assert_figure(_ddp_lora70_traffic(catalogue) / GB, 0.83, 0.01)


def test_row13_ddp_allreduce_time_pcie(catalogue: Catalogue) -> None:
    """Article A: "At 64 GB/s per direction on PCIe Gen5 that is around 13 ms, by our arithmetic."
    (RTX PRO 6000 Server Edition cards, no NVLink.)"""
    link, gbps = intended_link(catalogue.gpu(RTX), 2)
    assert link == "pcie"
    assert gbps is not None
    seconds = transfer_seconds(_ddp_lora70_traffic(catalogue), gbps)
    assert_figure(seconds * 1000, 13, 1)


# Row 14 — article A: "On two cards each card receives about 141 GB per forward and backward pass, on
# four about 212 GB. That is at least 2.2 and 3.3 seconds per pass over PCIe and about 0.3 seconds
# over a 2-way NVLink bridge at 450 GB/s".
def _fsdp_lora70_traffic(catalogue: Catalogue, gpus: int) -> float:
    counts = counts_of(catalogue, LLAMA70)
    trainable = model_states(counts, SPEC(LORA), A32, NONE, 16).trainable
    return traffic_bytes_per_step(FSDP, gpus, SPEC(LORA), trainable, frozen_base_bytes(counts, SPEC(LORA)))


@pytest.mark.parametrize(("gpus", "stated_gb"), [(2, 141), (4, 212)])
def test_row14_fsdp_lora70_received(catalogue: Catalogue, gpus: int, stated_gb: float) -> None:
    """Article A: "for a 70B LoRA the weights of the frozen base cross the link on every pass. On
    two cards each card receives about 141 GB per forward and backward pass, on four about
    212 GB." (2·W·(N−1)/N, W the BF16 base.)"""
    assert_figure(_fsdp_lora70_traffic(catalogue, gpus) / GB, stated_gb, 1)


@pytest.mark.parametrize(("gpus", "stated_s"), [(2, 2.2), (4, 3.3)])
def test_row14_fsdp_lora70_time_pcie(catalogue: Catalogue, gpus: int, stated_s: float) -> None:
    """Article A: "That is at least 2.2 and 3.3 seconds per pass over PCIe"."""
    link, gbps = intended_link(catalogue.gpu(RTX), gpus)
    assert link == "pcie"
    assert gbps is not None
    assert_figure(transfer_seconds(_fsdp_lora70_traffic(catalogue, gpus), gbps), stated_s, 0.1)


def test_row14_fsdp_lora70_time_nvlink_2way(catalogue: Catalogue) -> None:
    """Article A: "... and about 0.3 seconds over a 2-way NVLink bridge at 450 GB/s"."""
    link, gbps = intended_link(catalogue.gpu(H200), 2)
    assert link == "nvlink"
    assert gbps is not None
    assert_figure(transfer_seconds(_fsdp_lora70_traffic(catalogue, 2), gbps), 0.3, 0.1)


# Row 15 — article B: "Der BF16-Checkpoint ... besteht aus 18 Safetensors-Teilen, die zusammen
# 55,6 GB ergeben, bei 2 Byte je Parameter nach unserer Zählung etwa 27,8 Milliarden Parameter."
def test_row15_qwen27_parameters(catalogue: Catalogue) -> None:
    """Article B: "... bei 2 Byte je Parameter nach unserer Zählung etwa 27,8 Milliarden Parameter."
    (about 27.8 billion parameters)."""
    assert_figure(counts_of(catalogue, QWEN27).total / 1e9, 27.8, 0.1)


def test_row15_qwen27_bf16_checkpoint(catalogue: Catalogue) -> None:
    """Article B: "Der BF16-Checkpoint auf der Dateiseite besteht aus 18 Safetensors-Teilen, die
    zusammen 55,6 GB ergeben" (55.6 GB of BF16 safetensors)."""
    counts = counts_of(catalogue, QWEN27)
    assert_figure(frozen_base_bytes(counts, SPEC(LORA)) / GB, 55.6, 0.1)


# Row 16 — article B: "Für 27,8 Milliarden Parameter sind das 444,8 GB, nach der Zählung von 18 Byte
# in der Dokumentation von Hugging Face 500,4 GB."
@pytest.mark.parametrize(
    ("fp32_grad_buffer", "stated_gb"), [(False, 444.8), (True, 500.4)], ids=["16B", "18B"]
)
def test_row16_qwen27_full_states(catalogue: Catalogue, fp32_grad_buffer: bool, stated_gb: float) -> None:
    """Article B: "Für 27,8 Milliarden Parameter sind das 444,8 GB, nach der Zählung von 18 Byte in
    der Dokumentation von Hugging Face 500,4 GB." (16 B/param ZeRO, 18 B/param Hugging Face.)"""
    states = model_states(
        counts_of(catalogue, QWEN27), SPEC(FULL), A32, NONE, 16, fp32_grad_buffer=fp32_grad_buffer
    )
    assert_figure(states.gpu_bytes / GB, stated_gb, 0.1)


# Row 17 — article B: "Vier H200 NVL, 564 GB. Bei vollständigem Sharding hält jede Karte 111,2 GB
# Zustände und hat etwa 30 GB für Aktivierungen ... Mit 8-Bit-Adam sinken die Zustände auf 69,5 GB je
# Karte, und der freie Platz wächst auf etwa 72 GB."
@pytest.mark.parametrize(("optimizer", "stated_gb"), [(A32, 111.2), (A8, 69.5)], ids=["32bit", "8bit"])
def test_row17_qwen27_on_4_h200_states(catalogue: Catalogue, optimizer: Optimizer, stated_gb: float) -> None:
    """Article B: "Bei vollständigem Sharding hält jede Karte 111,2 GB Zustände" and "Mit 8-Bit-Adam
    sinken die Zustände auf 69,5 GB je Karte"."""
    s = sized(catalogue, QWEN27, FULL, H200, 4, FSDP, optimizer)
    assert_figure(s.states_gb, stated_gb, 0.1)


@pytest.mark.parametrize(("optimizer", "stated_free"), [(A32, 30), (A8, 72)], ids=["32bit", "8bit"])
def test_row17_qwen27_on_4_h200_free(catalogue: Catalogue, optimizer: Optimizer, stated_free: float) -> None:
    """Article B: "... und hat etwa 30 GB für Aktivierungen" and "der freie Platz wächst auf etwa
    72 GB" (free of the 141 GB card)."""
    s = sized(catalogue, QWEN27, FULL, H200, 4, FSDP, optimizer)
    assert s.fits
    assert_figure(s.free_gb, stated_free, 1)


# Row 18 — article B: "Acht RTX PRO 6000 Server Edition, 768 GB. Jede Karte hält 55,6 GB und hat etwa
# 40 GB frei".
def test_row18_qwen27_on_8_rtx_states(catalogue: Catalogue) -> None:
    """Article B: "Acht RTX PRO 6000 Server Edition, 768 GB. Jede Karte hält 55,6 GB"."""
    s = sized(catalogue, QWEN27, FULL, RTX, 8, FSDP, A32)
    assert_figure(s.states_gb, 55.6, 0.1)


def test_row18_qwen27_on_8_rtx_free(catalogue: Catalogue) -> None:
    """Article B: "Jede Karte hält 55,6 GB und hat etwa 40 GB frei"."""
    s = sized(catalogue, QWEN27, FULL, RTX, 8, FSDP, A32)
    assert_figure(s.free_gb, 40, 1)


# Row 19 — article B: "Das ZeRO-Offload-Papier hält die 16-Bit-Parameter auf der GPU und 14 Byte je
# Parameter im Hauptspeicher, hier etwa 389 GB. Jede Karte hält dann 13,9 GB Gewichte".
def test_row19_qwen27_offload_host_ram(catalogue: Catalogue) -> None:
    """Article B: "... und 14 Byte je Parameter im Hauptspeicher, hier etwa 389 GB." (four RTX PRO
    6000 Server Edition)."""
    s = sized(catalogue, QWEN27, FULL, RTX, 4, FSDP, A32, CPU)
    assert_figure(s.host_ram_gb, 389, 1)


def test_row19_qwen27_offload_weights_per_card(catalogue: Catalogue) -> None:
    """Article B: "Jede Karte hält dann 13,9 GB Gewichte" (four cards, ZeRO-3 with optimiser
    offload)."""
    s = sized(catalogue, QWEN27, FULL, RTX, 4, FSDP, A32, CPU)
    assert_figure(s.states_gb, 13.9, 0.1)


# Row 20 — article B: "Nach unserer Rechnung empfängt jede Karte je Vorwärts- und Rückwärtsdurchlauf
# in BF16 auf vier Karten etwa 125 GB und auf acht etwa 146 GB."
@pytest.mark.parametrize(("gpus", "stated_gb"), [(4, 125), (8, 146)])
def test_row20_qwen27_fsdp_traffic(catalogue: Catalogue, gpus: int, stated_gb: float) -> None:
    """Article B: "... empfängt jede Karte ... auf vier Karten etwa 125 GB und auf acht etwa
    146 GB." with "Unsere Rechnung: 3 × 55,6 GB × (N − 1) / N empfangen je Karte"."""
    counts = counts_of(catalogue, QWEN27)
    traffic = traffic_bytes_per_step(FSDP, gpus, SPEC(FULL), counts.total, counts.total * BF16)
    assert_figure(traffic / GB, stated_gb, 1)


# Row 21 — article B: "Rechnen: 6 × 27,8 Milliarden × 8.192 Token je Karte beim dichten
# BF16-Spitzenwert von NVIDIA, 835,5 TFLOPS für die H200 NVL und 503,8 für die RTX PRO 6000
# Workstation Edition".
@pytest.mark.parametrize(
    ("tflops", "stated_s"), [(835.5, 1.64), (503.8, 2.71)], ids=["h200-nvl", "rtx-pro-6000-ws"]
)
def test_row21_qwen27_compute_time(catalogue: Catalogue, tflops: float, stated_s: float) -> None:
    """Article B: "Rechnen: 6 × 27,8 Milliarden × 8.192 Token je Karte beim dichten
    BF16-Spitzenwert von NVIDIA, 835,5 TFLOPS für die H200 NVL und 503,8 für die RTX PRO 6000
    Workstation Edition" — full fine-tuning, no recomputation, at the peak (MFU 1.0)."""
    run = Run(name="q", model=QWEN27, method=FULL, seq_len=8192, gradient_checkpointing=False)
    assert run.recompute != Recompute.FULL  # the article's 6·P·tokens has no recomputation term
    counts = counts_of(catalogue, QWEN27)
    flops = step_flops(
        counts.active, run.seq_len * run.micro_batch_choices[0], SPEC(run.method), run.recompute
    )
    assert_figure(compute_seconds(flops, tflops, mfu=1.0), stated_s, 0.01)


def test_row21_h200_peak_in_catalogue(catalogue: Catalogue) -> None:
    """Article B: "835,5 TFLOPS für die H200 NVL" — the catalogue's card carries the article's peak, so
    size_run's step time matches the 1.64 s."""
    run = Run(name="q", model=QWEN27, method=FULL, seq_len=8192, gradient_checkpointing=False)
    gpu = catalogue.gpu(H200)
    assert_figure(gpu.bf16_dense_tflops, 835.5, 0.1)
    options = SizingOptions(states_only=True, mfu=1.0)
    s = size_run(CopySetup(profile_run(run, catalogue), gpu, 4, FSDP, A32, NONE, options))
    assert_figure(s.compute_seconds, 1.64, 0.01)


# Row 22 — article B: "Der Vision-Encoder hat laut config.json 27 Blöcke der Breite 1.152 mit einer
# MLP-Breite von 4.304, nach unserer Rechnung etwa 0,4 Milliarden Parameter in Attention- und
# MLP-Gewichten".
def test_row22_qwen27_vision_tower(catalogue: Catalogue) -> None:
    """Article B: "Der Vision-Encoder hat laut config.json 27 Blöcke der Breite 1.152 mit einer
    MLP-Breite von 4.304, nach unserer Rechnung etwa 0,4 Milliarden Parameter in Attention- und
    MLP-Gewichten, unter 2 Prozent des Modells." """
    vision = catalogue.model(QWEN27).architecture.vision
    assert vision is not None
    assert (vision.layers, vision.hidden, vision.intermediate) == (27, 1152, 4304)
    blocks = vision_block_params(vision) * vision.layers
    assert_figure(blocks / 1e9, 0.4, 0.1)
    assert blocks < 0.02 * counts_of(catalogue, QWEN27).total  # "unter 2 Prozent des Modells"


# Row 23 — article B: "Qwen3.8-27B hat ein Vokabular von 248.320 Token und eine eigene, nicht geteilte
# Ausgabeschicht, diese beiden allein sind 2,54 Milliarden Parameter und 5,1 GB."
def test_row23_qwen27_embeddings_params(catalogue: Catalogue) -> None:
    """Article B: "Qwen3.8-27B hat ein Vokabular von 248.320 Token und eine eigene, nicht geteilte
    Ausgabeschicht, diese beiden allein sind 2,54 Milliarden Parameter" """
    assert_figure(counts_of(catalogue, QWEN27).embeddings / 1e9, 2.54, 0.01)


def test_row23_qwen27_embeddings_bytes(catalogue: Catalogue) -> None:
    """Article B: "... diese beiden allein sind 2,54 Milliarden Parameter und 5,1 GB." (kept in BF16
    under QLoRA)."""
    counts = counts_of(catalogue, QWEN27)
    assert_figure(counts.embeddings * BF16 / GB, 5.1, 0.1)


# Row 24 — article B: "Bei einer Patch-Größe von 16 Pixeln wird ein Bild mit 1.024 × 1.024 Pixeln in
# 4.096 Patches zerlegt, die der Merger des Encoders je zwei mal zwei zusammenfasst ..., zu 1.024
# Bild-Token."
def test_row24_image_tokens(catalogue: Catalogue) -> None:
    """Article B: "Bei einer Patch-Größe von 16 Pixeln wird ein Bild mit 1.024 × 1.024 Pixeln in
    4.096 Patches zerlegt, die der Merger des Encoders je zwei mal zwei zusammenfasst
    (spatial_merge_size 2 in der config.json), zu 1.024 Bild-Token." """
    vision = catalogue.model(QWEN27).architecture.vision
    assert vision is not None
    assert image_tokens(1024, 1024, vision.patch, 1) == 4096  # patches before merging
    assert image_tokens(1024, 1024, vision.patch, vision.spatial_merge) == 1024
