"""A method added as the docs say (docs/contributing/add-a-method.md): GaLore, full-parameter training
whose optimiser moments live in a rank-r projection of each linear layer's gradient, is one entry of
methods.yaml (with the registry's `projected_states` field), its stack's list and its calibration
points. These tests show that the rules read the entry: its memory terms against the paper's
mr + 2nr and against the published 7B run, its choices, its speed and its label."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.errors import InputError
from ftopt.model.hardware import Catalogue
from ftopt.model.memory import model_states
from ftopt.model.sizing import profile_run
from ftopt.model.summary import summarize
from ftopt.model.workload import Offload, Optimizer, Run
from ftopt.reading.workload_file import load_workload_text
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def test_the_entry_declares_projected_states_and_what_it_offers(catalogue: Catalogue) -> None:
    method = catalogue.methods.method("galore")
    assert method.full and method.projected_states and method.ranked and method.calibration == "full"
    assert method.offers.allows(Optimizer.ADAMW_8BIT) and not method.offers.allows(Optimizer.ADAMW_8BIT_PAGED)
    assert not method.offers.cpu_offload and not method.offers.model_parallel
    assert any("arxiv.org/abs/2403.03507" in s for s in method.sources)
    assert "galore" in catalogue.stack("hf-fsdp").methods


def test_its_states_are_the_papers_mr_plus_2nr_on_llama_3_1_8b(catalogue: Catalogue) -> None:
    """Llama 3.1 8B at rank 128, pure BF16, 8-bit moments: weights and gradients 4 B a parameter, then
    per decoder layer q, o 4096², k, v 4096 × 1024, gate, up, down 4096 × 14336: moments 128 rows of the
    longer side (1 B each, two of them), projector 128 rows of the shorter side (2 B), and two full
    8-bit moments for the embeddings, head and norms: 32.1 + 0.49 + 0.18 + 2.1 = 34.9 GB, against
    80.3 GB for 8-bit AdamW's 10 B a parameter with FP32 master weights."""
    run = Run(name="r", model="llama-3.1-8b", method="galore", lora_rank=128)
    counts = profile_run(run, catalogue).counts
    long_per_layer = 4096 + 4096 + 4096 + 4096 + 3 * 14336
    short_per_layer = 4096 + 4096 + 1024 + 1024 + 3 * 4096
    assert counts.long_sides == 32 * long_per_layer
    assert counts.lora_per_rank - counts.long_sides == 32 * short_per_layer
    others = counts.total - counts.linear
    expected = 4 * counts.total + 2 * (others + 128 * counts.long_sides) + 2 * 128 * counts.lora_per_rank
    expected -= 2 * 128 * counts.long_sides  # the projector spans the shorter sides only
    method = catalogue.methods.method("galore")
    states = model_states(counts, method, Optimizer.ADAMW_8BIT, Offload.NONE, 128, master_weights="bf16")
    assert states.gpu_bytes == expected
    adam8 = model_states(
        counts, catalogue.methods.method("full-8bit"), Optimizer.ADAMW_8BIT, Offload.NONE, 128
    )
    assert states.gpu_bytes / 1e9 == pytest.approx(34.9, abs=0.05) and adam8.gpu_bytes / 1e9 > 80


def test_the_published_7b_run_is_near_the_calibration_goal() -> None:
    """The held-out points of benchmarks/calibration/points.yaml (GaLore issue 6: Llama-2 7B, rank 32,
    8-bit, pure BF16, 28 GB; the same run's 8-bit AdamW row, 42 GB): the AdamW row within ±15 %, the
    GaLore row a recorded miss on the safe side (1.16 with the fitted allocator reserve; held out, so
    nothing is tuned to it)."""
    from benchmarks.calibration import run_calibration

    outcomes = {o.id: o for o in run_calibration() if o.id.startswith("galore-lf-7b")}
    assert set(outcomes) == {"galore-lf-7b-mem", "galore-lf-7b-adam8-mem"}
    adam8, galore = outcomes["galore-lf-7b-adam8-mem"], outcomes["galore-lf-7b-mem"]
    assert adam8.within_goal and adam8.known_miss is None
    assert galore.ratio is not None and 1.15 < galore.ratio < 1.2 and galore.known_miss


def _workload(extra: str) -> str:
    return (
        "runs:\n  - name: r\n    model: llama-3.1-8b\n    method: galore\n    lora_rank: 128\n"
        f"{extra}    train_tokens: 10000000\n"
        "site:\n  feed: 230v-32a\n  inlet_c: 25\nhardware:\n  gpus: [h200-nvl]\n"
    )


def test_a_paged_optimiser_or_cpu_offload_is_an_input_error_at_its_line(catalogue: Catalogue) -> None:
    with pytest.raises(InputError) as caught:
        load_workload_text(_workload("    optimizer: adamw-8bit-paged\n"), "w.yaml", catalogue)
    assert caught.value.field == "runs[0].optimizer" and caught.value.line == 6
    with pytest.raises(InputError, match="cpu applies to methods"):
        load_workload_text(_workload("    offload: cpu\n"), "w.yaml", catalogue)


def test_a_bid_with_it_is_verified_and_quoted_with_its_rank(catalogue: Catalogue) -> None:
    workload = load_workload_text(_workload(""), "w.yaml", catalogue)
    settings = SolveSettings(time_limit=20, workers=2, what_if=False)
    plan = solve(workload, catalogue, settings).plan_or_raise()
    assert plan.runs[0].method == "galore" and plan.runs[0].lora_rank == 128
    assert summarize(plan, workload, catalogue).runs[0].method == "GaLore r128"
    # the verifier re-derives the projected states on its own: a copy stating 5 GB more is caught
    a = plan.assignments[0]
    more = a.memory_per_gpu_gb.model_copy(update={"states": a.memory_per_gpu_gb.states + 5})
    wrong = plan.model_copy(update={"assignments": [a.model_copy(update={"memory_per_gpu_gb": more})]})
    assert "state-split" in {v.rule for v in verify_plan(wrong, workload, catalogue)}
