"""A method added as the docs say (docs/contributing/add-a-method.md): LoRA on a GPTQ-quantised base,
the way Qwen's Q-LoRA recipe trains its Int4 checkpoints, is one entry of methods.yaml (base `gptq`,
`offers.sharded` false) and its stacks' lists. These tests show that the rules read the entry: the
base's bytes as AutoGPTQ stores them, no FP32 cast, data parallel only, and a solved, verified bid
quoting its label."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.fabric import multinode_strategies
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import GB
from ftopt.model.sizing import CopySetup, Sizing, all_sizings, profile_run, size_run
from ftopt.model.speed import dequant_seconds
from ftopt.model.summary import summarize
from ftopt.model.workload import Offload, Optimizer, Run, SizingOptions, Strategy
from ftopt.reading.workload_file import load_workload_text
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def sized(catalogue: Catalogue, method: str) -> Sizing:
    run = Run(name="r", model="llama-3.1-8b", method=method, stack="hf-fsdp")
    setup = CopySetup(
        profile_run(run, catalogue),
        catalogue.gpu("h200-nvl"),
        1,
        Strategy.SINGLE,
        Optimizer.ADAMW_32BIT,
        Offload.NONE,
        SizingOptions(),
    )
    return size_run(setup)


def test_a_gptq_base_is_stored_in_four_bits_and_never_cast(catalogue: Catalogue) -> None:
    """The linear layers as GPTQ stores them (4 bits, an FP16 scale and a 4-bit zero per group of
    128), the rest in BF16 and, unlike QLoRA on the Transformers stacks, not cast to FP32: PEFT's
    preparation skips its cast for GPTQ models, so the activations are LoRA's."""
    counts = catalogue.model("llama-3.1-8b").params
    rest = counts.total - counts.linear
    lora, gptq, qlora = (sized(catalogue, m) for m in ("lora", "gptq-lora", "qlora"))
    base = counts.linear * (0.5 + 2.5 / 128) + rest * 2
    assert (lora.states_gb - gptq.states_gb) * GB == pytest.approx(counts.total * 2 - base)
    assert gptq.activations_gb == lora.activations_gb
    assert qlora.activations_gb > gptq.activations_gb  # the cast widens QLoRA's


def test_its_expansion_costs_its_own_figure_per_weight_and_pass(catalogue: Catalogue) -> None:
    """AutoGPTQ's expansion of a weight on every pass costs 15 B of memory traffic where
    bitsandbytes' costs 2.5 (methods.yaml, chosen on Qwen's table): six times QLoRA's time."""
    assert catalogue.speed is not None
    gpu = catalogue.gpu("h200-nvl")

    def seconds(method: str) -> float:
        run = Run(name="r", model="llama-3.1-8b", method=method, stack="hf-fsdp")
        return dequant_seconds(profile_run(run, catalogue), gpu, catalogue.speed)

    assert catalogue.speed.qlora_dequant_bytes_per_param == 2.5
    assert seconds("gptq-lora") == pytest.approx(6 * seconds("qlora"))
    assert seconds("lora") == 0


def test_a_base_that_cannot_be_sharded_trains_data_parallel_on_one_server(catalogue: Catalogue) -> None:
    """GPTQ's packed weights are buffers, which FSDP and ZeRO-3 leave whole: over several GPUs a copy
    replicates (DDP) and never spans servers; QLoRA may shard."""

    def strategies(method: str) -> set[Strategy]:
        run = Run(name="r", model="llama-3.3-70b", method=method, stack="hf-fsdp", gpus=2)
        options = all_sizings(profile_run(run, catalogue), catalogue.gpu("h200-nvl"), SizingOptions())
        return {s.strategy for s in options}

    assert strategies("gptq-lora") == {Strategy.DDP}
    assert strategies("qlora") == {Strategy.DDP, Strategy.FSDP}
    assert multinode_strategies(catalogue.methods.method("gptq-lora")) == ()
    assert multinode_strategies(catalogue.methods.method("qlora"))


def test_a_bid_with_it_is_verified_and_quoted_with_its_rank(catalogue: Catalogue) -> None:
    text = """\
runs:
  - name: qwen-gptq
    model: qwen3-8b
    method: gptq-lora
    lora_rank: 64
    seq_len: 8192
    concurrent: 2
"""
    workload = load_workload_text(text, "w.yaml", catalogue)
    settings = SolveSettings(time_limit=20, workers=2, what_if=False)
    plan = solve(workload, catalogue, settings).plan_or_raise()
    assert verify_plan(plan, workload, catalogue) == []
    assert summarize(plan, workload, catalogue).runs[0].method == "GPTQ LoRA r64"
    assert all(a.strategy in (Strategy.SINGLE, Strategy.DDP) for a in plan.assignments)
