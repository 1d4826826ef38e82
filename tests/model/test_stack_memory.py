"""Memory follows the run's stack, and a run without a stack is sized as the default stack's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import GB
from ftopt.model.sizing import CopySetup, Sizing, all_sizings, profile_run, size_run
from ftopt.model.workload import Offload, Optimizer, Run, SizingOptions, Strategy, Workload

SINGLE, NONE = Strategy.SINGLE, Offload.NONE


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def sized(
    catalogue: Catalogue,
    stack: str,
    method: str = "full",
    optimizer: Optimizer = Optimizer.ADAMW_32BIT,
    **fields: object,
) -> Sizing:
    run = Run.model_validate(
        {"name": "r", "model": "llama-3.1-8b", "method": method, "stack": stack, **fields}
    )
    profile = profile_run(run, catalogue)
    return size_run(
        CopySetup(profile, catalogue.gpu("h200-nvl"), 1, SINGLE, optimizer, NONE, SizingOptions())
    )


def test_a_run_without_stack_is_sized_as_the_default_stack(catalogue: Catalogue) -> None:
    run = Run(name="r", model="llama-3.1-8b", method="full")
    profile = profile_run(run, catalogue)
    assert profile.stack is not None and profile.stack.id == "hf-fsdp"
    legacy = replace(profile, stack=None)
    gpu = catalogue.gpu("h200-nvl")
    assert all_sizings(profile, gpu, SizingOptions()) == all_sizings(legacy, gpu, SizingOptions())


def test_pure_bf16_stack_holds_eight_bytes_per_parameter(catalogue: Catalogue) -> None:
    params = catalogue.model("llama-3.1-8b").params.total
    assert sized(catalogue, "hf-fsdp").states_gb * GB == pytest.approx(16 * params)
    assert sized(catalogue, "torchtune").states_gb * GB == pytest.approx(8 * params)
    assert sized(catalogue, "torchtune", optimizer=Optimizer.ADAMW_8BIT).states_gb * GB == pytest.approx(
        6 * params
    )


def test_paged_optimiser_moves_its_moments_to_host_ram(catalogue: Catalogue) -> None:
    params = catalogue.model("llama-3.1-8b").params.total
    eight = sized(catalogue, "hf-fsdp", optimizer=Optimizer.ADAMW_8BIT)
    paged = sized(catalogue, "hf-fsdp", optimizer=Optimizer.ADAMW_8BIT_PAGED)
    assert (eight.states_gb - paged.states_gb) * GB == pytest.approx(2 * params)
    assert (paged.host_ram_gb - eight.host_ram_gb) * GB == pytest.approx(2 * params)


def test_chunked_loss_needs_less_activation_memory(catalogue: Catalogue) -> None:
    full_logits = sized(catalogue, "hf-fsdp", "lora", seq_len=8192)
    chunked = sized(catalogue, "torchtune", "lora", seq_len=8192)
    vocab = catalogue.model("llama-3.1-8b").architecture.vocab
    # hf-fsdp's unchunked loss holds 12 B per logit entry, torchtune's chunked loss 2
    assert (full_logits.activations_gb - chunked.activations_gb) * GB == pytest.approx(8192 * vocab * 10)


def test_offloaded_checkpointing_moves_layer_inputs_to_host(catalogue: Catalogue) -> None:
    unsloth = sized(catalogue, "unsloth", "lora", seq_len=16384)
    arch = catalogue.model("llama-3.1-8b").architecture
    assert unsloth.host_ram_gb * GB == pytest.approx(arch.layers * 2 * 16384 * arch.hidden)
    no_checkpointing = sized(catalogue, "unsloth", "lora", seq_len=16384, gradient_checkpointing=False)
    assert no_checkpointing.host_ram_gb == 0


def test_a_run_turns_offloaded_checkpointing_on_where_the_stack_offers_it(catalogue: Catalogue) -> None:
    """torchtune keeps the checkpointed layer inputs on the card unless the run asks
    (`activation_offload: true`, its enable_activation_offloading): then they wait in host RAM, the
    card holds that much less and the host that much more, as Unsloth does by default."""
    arch = catalogue.model("llama-3.1-8b").architecture
    inputs = arch.layers * 2 * 16384 * arch.hidden  # one BF16 layer input per layer
    kept = sized(catalogue, "torchtune", "lora", seq_len=16384)
    offloaded = sized(catalogue, "torchtune", "lora", seq_len=16384, activation_offload=True)
    assert kept.host_ram_gb == 0
    assert offloaded.host_ram_gb * GB == pytest.approx(inputs)
    assert (kept.activations_gb - offloaded.activations_gb) * GB == pytest.approx(inputs)
    assert not catalogue.stack("hf-fsdp").offloads_activations(True)
    assert catalogue.stack("unsloth").offloads_activations(False)


def test_offloaded_checkpointing_needs_full_recomputation() -> None:
    """Without full recomputation there are no checkpointed inputs to move, so the flag is refused
    instead of promising memory it would not save."""
    fields = {"name": "r", "model": "m", "method": "lora", "activation_offload": True}
    assert Run.model_validate({**fields, "gradient_checkpointing": "full"}).activation_offload
    for setting in (False, "selective", "auto"):
        with pytest.raises(ValueError, match="activation_offload"):
            Run.model_validate({**fields, "gradient_checkpointing": setting})


def test_auto_choices_follow_the_stack(catalogue: Catalogue) -> None:
    run = Run(
        name="r", model="llama-3.1-8b", method="full", stack="megatron", optimizer="auto", offload="auto"
    )
    options = all_sizings(profile_run(run, catalogue), catalogue.gpu("h200-nvl"), SizingOptions())
    assert {s.optimizer for s in options} == {Optimizer.ADAMW_32BIT}
    unsloth = run.model_copy(update={"stack": "unsloth"})
    options = all_sizings(profile_run(unsloth, catalogue), catalogue.gpu("h200-nvl"), SizingOptions())
    assert {s.offload for s in options} == {Offload.NONE}
    assert Optimizer.ADAMW_8BIT_PAGED not in {s.optimizer for s in options}


def test_runs_inherit_the_workload_stack() -> None:
    workload = Workload.model_validate(
        {
            "stack": "torchtune",
            "runs": [
                {"name": "a", "model": "m", "method": "lora"},
                {"name": "b", "model": "m", "method": "lora", "stack": "unsloth"},
            ],
        }
    )
    assert [r.stack for r in workload.runs] == ["torchtune", "unsloth"]
    assert (
        Workload.model_validate({"runs": [{"name": "a", "model": "m", "method": "lora"}]}).runs[0].stack
        == "hf-fsdp"
    )


def test_dataset_tokens_times_epochs_is_train_tokens() -> None:
    run = Run.model_validate(
        {"name": "a", "model": "m", "method": "lora", "dataset_tokens": 1_500_000, "epochs": 2.5}
    )
    assert run.train_tokens == 3_750_000
    assert (
        Run.model_validate({"name": "a", "model": "m", "method": "lora", "train_tokens": 7}).train_tokens == 7
    )


def test_pure_bf16_stack_holds_adapters_in_bf16(catalogue: Catalogue) -> None:
    counts = catalogue.model("llama-3.1-8b").params
    adapter = counts.lora_params(16)
    base = counts.total * 2
    assert sized(catalogue, "hf-fsdp", "lora").states_gb * GB == pytest.approx(base + 16 * adapter)
    assert sized(catalogue, "torchtune", "lora").states_gb * GB == pytest.approx(base + 8 * adapter)
