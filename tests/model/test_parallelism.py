"""The training configuration: which ones the run and the stack allow, and what each degree does to
memory per GPU and to the step (ftopt/model/parallelism.py, applied by sizing.py and speed.py)."""

from __future__ import annotations

import pytest

from ftopt.model.hardware import Catalogue
from ftopt.model.parallelism import (
    Degrees,
    TrainingConfig,
    bubble_factor,
    config_choices,
    config_label,
    cp_bytes,
    degree_choices,
    tp_bus_bytes,
)
from ftopt.model.sizing import CopySetup, RunProfile, all_sizings, chosen_sizings, profile_run, size_run
from ftopt.model.speed import SpeedContext, estimate_speed, planning_host, speed_ranker
from ftopt.model.workload import Offload, Optimizer, Recompute, Run, SizingOptions, Strategy

OPTIONS = SizingOptions()
FULL = Recompute.FULL


def profile(catalogue: Catalogue, **fields: object) -> RunProfile:
    run = Run.model_validate({"name": "r", "model": "llama-3.3-70b", "method": "full", **fields})
    return profile_run(run, catalogue)


def config(mb: int = 1, acc: int = 1, recompute: Recompute = FULL, **degrees: int) -> TrainingConfig:
    return TrainingConfig(mb, acc, recompute, Degrees(**degrees))


def test_hugging_face_stacks_offer_data_parallelism_only(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="hf-fsdp", seq_len=131072)
    assert degree_choices(p, 8, 8) == [Degrees(dp=8)]


def test_megatron_splits_within_the_domain_and_only_long_sequences_by_context(catalogue: Catalogue) -> None:
    short = profile(catalogue, stack="megatron", seq_len=4096)
    found = degree_choices(short, 8, 4)
    assert all(d.gpus == 8 for d in found)
    assert {d.cp for d in found} == {1}  # 4,096 tokens: no context parallelism
    assert max(d.tp for d in found) == 4  # a 4-GPU NVLink domain bounds tensor parallelism
    assert max(d.pp for d in found) == 2  # stages across the two domains, not inside one
    pcie = degree_choices(short, 8, 1)
    assert max(d.pp for d in pcie) == 8 and max(d.tp for d in pcie) == 1
    long = profile(catalogue, stack="megatron", seq_len=131072)
    assert max(d.cp for d in degree_choices(long, 8, 8)) == 8


def test_no_model_parallelism_for_qlora_or_offload(catalogue: Catalogue) -> None:
    for fields in ({"method": "qlora"}, {"offload": "cpu"}):
        p = profile(catalogue, stack="megatron", seq_len=131072, **fields)
        assert degree_choices(p, 8, 8) == [Degrees(dp=8)]


def test_an_integer_micro_batch_and_a_fixed_recomputation_are_respected(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="hf-fsdp", micro_batch=3, gradient_checkpointing=False)
    assert {(c.micro_batch, c.recompute) for c in config_choices(p, 8, 4)} == {(3, Recompute.SELECTIVE)}
    auto = profile(catalogue, stack="hf-fsdp", gradient_checkpointing="auto")
    chosen = config_choices(auto, 8, 4)
    assert {c.micro_batch for c in chosen} == {1, 2, 4, 8}
    assert {c.recompute for c in chosen} == {Recompute.FULL, Recompute.SELECTIVE}


def test_global_batch_tokens_fix_the_accumulation(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="megatron", global_batch_tokens=64 * 4096)
    chosen = config_choices(p, 8, 8)
    assert chosen
    assert all(c.tokens_per_step(4096) == 64 * 4096 for c in chosen)
    odd = profile(catalogue, stack="hf-fsdp", global_batch_tokens=3 * 4096)
    assert config_choices(odd, 8, 4) == []  # 3 sequences over 8 replicas


def test_tensor_parallelism_splits_replicated_states_and_activations(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="megatron")
    gpu = catalogue.gpu("h200-sxm")
    plain = size_run(
        CopySetup(p, gpu, 4, Strategy.DDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS), config=config(dp=4)
    )
    split = size_run(
        CopySetup(p, gpu, 4, Strategy.DDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS),
        config=config(dp=1, tp=4),
    )
    assert split.states_gb == pytest.approx(plain.states_gb / 4)
    assert split.activations_gb == pytest.approx(plain.activations_gb / 4)


def test_fsdp_shards_over_the_ranks_that_hold_the_same_weights(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="megatron", seq_len=32768)
    gpu = catalogue.gpu("b200-sxm")
    sizes = [
        size_run(CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS), config=c)
        for c in (config(dp=8), config(dp=2, cp=4), config(dp=1, tp=2, pp=4))
    ]
    assert {round(s.states_gb, 6) for s in sizes} == {round(sizes[0].states_gb, 6)}


def test_context_parallelism_splits_activations_and_logits(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="megatron", seq_len=131072)
    gpu = catalogue.gpu("b200-sxm")
    one = size_run(
        CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS), config=config(dp=8)
    )
    eight = size_run(
        CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS),
        config=config(dp=1, cp=8),
    )
    assert eight.activations_gb == pytest.approx(one.activations_gb / 8)
    assert eight.states_gb == pytest.approx(one.states_gb)


def test_the_first_pipeline_stage_holds_pp_micro_batches_of_its_layers(catalogue: Catalogue) -> None:
    """Under 1F1B with m ≥ pp the first stage keeps pp micro-batches of L/pp layers: a whole model's
    worth of one micro-batch's stored activations, the same as without a pipeline."""
    p = profile(catalogue, stack="megatron")
    gpu = catalogue.gpu("h200-sxm")
    plain = size_run(
        CopySetup(p, gpu, 4, Strategy.DDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS), config=config(dp=4)
    )
    piped = size_run(
        CopySetup(p, gpu, 4, Strategy.DDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS),
        config=config(1, 12, dp=1, pp=4),
    )
    few = size_run(
        CopySetup(p, gpu, 4, Strategy.DDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS),
        config=config(1, 2, dp=1, pp=4),
    )
    assert piped.states_gb == pytest.approx(plain.states_gb / 4)
    assert few.activations_gb < piped.activations_gb <= plain.activations_gb


def test_bubble_and_collective_sizes() -> None:
    assert bubble_factor(config(1, 12, pp=4)) == pytest.approx(15 / 12)
    assert bubble_factor(config(1, 1, pp=1)) == 1.0


def test_tensor_parallel_bytes_follow_the_four_all_reduces_per_layer(catalogue: Catalogue) -> None:
    arch = catalogue.model("llama-3.3-70b").architecture
    c = config(2, 1, Recompute.SELECTIVE, tp=4)
    activation = 2 * 4096 * arch.hidden * 2  # b·s·h BF16
    assert tp_bus_bytes(arch, 4096, c) == pytest.approx(arch.layers * 4 * 2 * 3 / 4 * activation)
    assert tp_bus_bytes(arch, 4096, config(tp=1)) == 0.0


def test_the_ring_passes_every_other_ranks_k_and_v(catalogue: Catalogue) -> None:
    """Ring attention: per layer the cp−1 other blocks of K and V forward, again with their gradients
    backward (three times the forward's bytes)."""
    arch = catalogue.model("llama-3.3-70b").architecture
    k = arch.kv_heads * arch.head_dim
    forward = 7 * (131072 / 8) * 2 * k * 2  # 7 blocks of K and V, BF16
    assert cp_bytes(arch, 131072, config(cp=8), "ring") == pytest.approx(arch.layers * 3 * forward)
    assert cp_bytes(arch, 131072, config(cp=1), "ring") == 0.0


def test_ring_attention_hides_its_exchange_where_ulysses_does_not(catalogue: Catalogue) -> None:
    ring = profile(catalogue, stack="megatron", seq_len=131072)
    ulysses = profile(catalogue, stack="hf-deepspeed", seq_len=131072)
    gpu = catalogue.gpu("b200-sxm")
    host = planning_host(catalogue, 8, catalogue.speed)
    speeds = []
    for p in (ring, ulysses):
        assert p.stack is not None and catalogue.speed is not None
        c = config(dp=1, cp=8)
        s = size_run(
            CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_8BIT, Offload.NONE, OPTIONS), config=c
        )
        plain = size_run(
            CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_8BIT, Offload.NONE, OPTIONS),
            config=config(dp=8),
        )
        split, whole = (
            estimate_speed(p, x, gpu, SpeedContext(p.stack, catalogue.speed, host)) for x in (s, plain)
        )
        assert whole.parallel_seconds == 0.0
        speeds.append(split.parallel_seconds)
    assert speeds[0] < speeds[1]


def test_auto_chooses_the_largest_micro_batch_that_fits_within_the_measured_headroom(
    catalogue: Catalogue,
) -> None:
    """The issue's case: 70B full on 8 × H200 NVL with 8-bit Adam. Without a margin micro-batch 2 fits
    and is faster; with the stack's measured margin it would leave less than the measured error
    free, so auto keeps micro-batch 1 (issue 28: auto chooses within the headroom)."""
    p = profile(catalogue, stack="hf-fsdp")
    assert p.memory_margin > 0
    gpu = catalogue.gpu("h200-nvl")
    ranker = speed_ranker(p, gpu, catalogue)
    loose_options = SizingOptions(memory_margin=0.0)
    loose_setup = CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_8BIT, Offload.NONE, loose_options)
    (loose,) = chosen_sizings(loose_setup, ranker)
    assert loose.fits and loose.config is not None and loose.config.micro_batch == 2
    assert loose.total_gb * (1 + p.memory_margin) > loose.card_gb
    bigger = size_run(loose_setup, config=config(4, dp=8))
    assert not bigger.fits
    setup = CopySetup(p, gpu, 8, Strategy.FSDP, Optimizer.ADAMW_8BIT, Offload.NONE, OPTIONS)
    (chosen,) = chosen_sizings(setup, ranker)
    assert chosen.fits and chosen.config is not None and chosen.config.micro_batch == 1
    assert chosen.headroom_gb >= 0 and chosen.memory_margin == p.memory_margin
    host = planning_host(catalogue, 8, catalogue.speed)
    assert p.stack is not None and catalogue.speed is not None
    fast, slow = (
        estimate_speed(p, s, gpu, SpeedContext(p.stack, catalogue.speed, host)) for s in (loose, chosen)
    )
    assert fast.tokens_per_s > slow.tokens_per_s


def test_a_copy_that_fits_nowhere_reports_its_least_memory(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="megatron", seq_len=131072)
    gpu = catalogue.gpu("l40s")
    (least,) = chosen_sizings(
        CopySetup(p, gpu, 2, Strategy.FSDP, Optimizer.ADAMW_32BIT, Offload.NONE, OPTIONS)
    )
    assert not least.fits
    assert least.config is not None and least.config.micro_batch == 1


def test_every_sizing_states_a_configuration_over_its_gpus(catalogue: Catalogue) -> None:
    p = profile(catalogue, stack="megatron", seq_len=32768)
    for gpu in catalogue.gpus:
        for s in all_sizings(p, gpu, OPTIONS, speed_ranker(p, gpu, catalogue)):
            assert s.config is not None and s.config.degrees.gpus == s.gpus


def test_the_label_names_only_what_is_not_one() -> None:
    assert config_label(config(2, dp=8)) == "mb 2, full"
    assert config_label(config(1, 12, Recompute.SELECTIVE, tp=2, pp=4)) == "mb 1×12, selective, tp 2 pp 4"
