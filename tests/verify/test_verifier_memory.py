"""Rules on how each copy trains: strategy, optimiser, offload, GPU count, memory and reported figures."""

from __future__ import annotations

from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Offload, Optimizer, Strategy
from ftopt.verify import memory
from tests.verify.conftest import Case


def test_replicating_70b_lora_on_96_gb_cards_does_not_fit(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_assignment("llama70b-lora", 1, strategy=Strategy.DDP))
    memory = [str(v) for v in violations if v.rule == "gpu-memory"]
    assert len(memory) == 1
    assert memory[0].startswith("gpu-memory: run llama70b-lora copy 1: ")
    assert "on 2 × rtx-pro-6000-se (ddp, adamw-32bit, offload none)" in memory[0]
    assert memory[0].endswith("card holds 96 GB")


def test_reported_memory_off(solved) -> None:
    c = solved("first-project")
    a = c.assignment("llama70b-lora", 1)
    memory = a.memory_per_gpu_gb.model_copy(update={"total": a.memory_per_gpu_gb.total + 0.5})
    plan = c.with_assignment("llama70b-lora", 1, memory_per_gpu_gb=memory)
    assert c.rules(plan) == {"sizing-report"}


def test_reported_memory_within_rounding(solved) -> None:
    c = solved("first-project")
    a = c.assignment("llama70b-lora", 1)
    memory = a.memory_per_gpu_gb.model_copy(update={"total": a.memory_per_gpu_gb.total + 0.004})
    assert c.verify(c.with_assignment("llama70b-lora", 1, memory_per_gpu_gb=memory)) == []


def test_reported_host_ram_of_offload_off(solved) -> None:
    c = solved("offload")
    plan = c.with_assignment("l8-offload", 2, host_ram_gb=0.0)
    assert c.rules(plan) == {"sizing-report"}


def test_single_strategy_on_two_gpus(solved) -> None:
    c = solved("first-project")
    assert "strategy" in c.rules(c.with_assignment("llama70b-lora", 1, strategy=Strategy.SINGLE))


def test_sharding_a_method_whose_weights_are_not_sharded(solved) -> None:
    """GPTQ LoRA's base sits in buffers FSDP leaves whole on every GPU: a plan that shards it claims
    memory the run cannot save."""
    c = solved("first-project")
    assert c.assignment("llama70b-lora", 1).strategy == Strategy.FSDP
    workload = c.with_run("llama70b-lora", method="gptq-lora")
    (strategy,) = [str(v) for v in c.verify(workload=workload) if v.rule == "strategy"]
    assert strategy.endswith("fsdp for gptq-lora, ddp only (its weights cannot be sharded)"), strategy


def test_replication_on_one_gpu(solved) -> None:
    c = solved("first-project")
    assert "strategy" in c.rules(c.with_assignment("llama8b-qlora", 1, strategy=Strategy.DDP))


def test_optimizer_the_run_does_not_allow(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert {a.optimizer.value for a in c.plan.assignments} == {"adamw-8bit"}
    workload = c.with_run("q32-full", optimizer="adamw-32bit")
    assert c.rules(workload=workload) == {"optimizer"}


def test_auto_keeps_adapters_on_32_bit_moments(solved) -> None:
    c = solved("first-project")
    assert "optimizer" in c.rules(c.with_assignment("llama70b-lora", 1, optimizer=Optimizer.ADAMW_8BIT))


def test_offload_for_an_adapter_run(solved) -> None:
    c = solved("first-project")
    assert "offload" in c.rules(c.with_assignment("llama70b-lora", 1, offload=Offload.CPU))


def test_offload_with_8_bit_adam(solved) -> None:
    c = solved("offload")
    violations = c.verify(c.with_assignment("l8-offload", 1, optimizer=Optimizer.ADAMW_8BIT))
    assert [str(v) for v in violations if v.rule == "offload"] == [
        "offload: run l8-offload copy 1: offload cpu with full, adamw-8bit, "
        "CPU offload needs method full and adamw-32bit"
    ]


def test_offload_the_run_does_not_allow(solved) -> None:
    c = solved("offload")
    assert "offload" in c.rules(workload=c.with_run("l8-offload", offload="none"))


def test_gpu_count_differs_from_the_runs_fixed_count(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(workload=c.with_run("q32-full", gpus=8))
    assert [str(v) for v in violations] == [
        "gpu-count: run q32-full copy 1: 4 GPUs, run (gpus 8) allows 8",
        "gpu-count: run q32-full copy 2: 4 GPUs, run (gpus 8) allows 8",
    ]


def test_three_gpus_is_no_gpu_count(solved) -> None:
    c = solved("first-project")
    assert "gpu-count" in c.rules(c.with_assignment("llama70b-lora", 1, gpus=[0, 1, 3]))


# --- the planning memory margin (issue 19) ---------------------------------------------------------


def test_plans_state_each_copys_margin_and_headroom(solved) -> None:
    c = solved("first-project-measured")
    qlora = c.assignment("llama8b-qlora", 1)
    margin = c.catalogue.margins.of("hf-fsdp", "qlora") if c.catalogue.margins else 0.0
    assert margin > 0
    assert qlora.memory_margin == round(margin, 3)
    card = qlora.memory_per_gpu_gb.total + qlora.free_gb
    assert qlora.headroom_gb is not None
    assert abs(qlora.headroom_gb - (card - qlora.memory_per_gpu_gb.total * (1 + margin))) <= 0.02


def test_a_stated_margin_that_is_not_the_runs(solved) -> None:
    c = solved("first-project-measured")
    plan = c.with_assignment("llama8b-qlora", 1, memory_margin=0.0)
    assert c.rules(plan) == {"memory-margin"}


def test_a_stated_headroom_that_is_off(solved) -> None:
    c = solved("first-project-measured")
    a = c.assignment("llama8b-qlora", 1)
    assert a.headroom_gb is not None
    plan = c.with_assignment("llama8b-qlora", 1, headroom_gb=a.headroom_gb + 1.0)
    assert c.rules(plan) == {"memory-margin"}


def test_a_plan_without_margin_fields_is_held_to_the_fit_only(solved) -> None:
    c = solved("first-project-measured")
    plan = c.with_assignment("llama8b-qlora", 1, memory_margin=None, headroom_gb=None)
    assert c.verify(plan) == []


def test_a_copy_that_fits_only_without_the_workloads_margin(solved) -> None:
    """micro_batch auto fills the 70B LoRA's four cards up to its measured margin (18 %, pooled): with
    the 50 % a workload asks for, the same placement no longer fits, and the stated margin is not the
    workload's."""
    c = solved("first-project-measured")
    measured = c.assignment("llama70b-lora", 1).memory_margin
    assert measured is not None and 0 < measured < 0.5
    strict = c.workload.model_copy(
        update={"sizing": c.workload.sizing.model_copy(update={"memory_margin": 0.5})}
    )
    violations = [str(v) for v in c.verify(workload=strict) if v.subject == "run llama70b-lora copy 1"]
    assert any(
        v.startswith("gpu-memory: run llama70b-lora copy 1: ") and "margin 0.5" in v for v in violations
    )
    assert any(
        v.startswith(f"memory-margin: run llama70b-lora copy 1: memory_margin {measured}") for v in violations
    )


# --- the margin's basis and a workload margin below the measured error (issue 28) ------------------


def test_plans_state_each_margins_basis_as_the_catalogue_derives_it(solved) -> None:
    c = solved("first-project-measured")
    assert c.catalogue.margins is not None
    for run, stack, method in (("llama70b-lora", "hf-fsdp", "lora"), ("llama8b-qlora", "hf-fsdp", "qlora")):
        basis = c.assignment(run, 1).memory_margin_basis
        assert basis == c.catalogue.margins.basis(stack, method)
        assert basis.startswith(
            ("cross-validated error of hf-fsdp/", "pooled cross-validated error of all stacks, ")
        )
        assert basis.endswith(" sources")


def test_a_stated_basis_that_is_not_the_catalogues(solved) -> None:
    c = solved("first-project-measured")
    plan = c.with_assignment("llama8b-qlora", 1, memory_margin_basis="my own guess")
    assert c.rules(plan) == {"memory-margin"}


def test_a_workload_margin_below_the_measured_error_needs_its_note(solved) -> None:
    """A plan whose workload sets sizing.memory_margin below a run's measured error must carry a
    tight-margin note for that run (the plan is tighter than the calibration says is safe)."""
    from ftopt.model.findings import FindingKind, finding

    c = solved("first-project-measured")
    loose = c.workload.model_copy(
        update={"sizing": c.workload.sizing.model_copy(update={"memory_margin": 0.0})}
    )
    measured = c.catalogue.margins.of("hf-fsdp", "lora") if c.catalogue.margins else 0.0
    assert measured > 0
    violations = [str(v) for v in c.verify(workload=loose) if v.rule == "memory-margin"]
    assert any(v.startswith("memory-margin: run llama70b-lora: no tight-margin note") for v in violations)
    notes = [
        finding(FindingKind.TIGHT_MARGIN, run, given=0.0, measured=measured, basis="b")
        for run in ("llama70b-lora", "llama8b-qlora")
    ]
    noted = c.plan.model_copy(update={"notes": [*c.plan.notes, *notes]})
    assert not any("no tight-margin note" in str(v) for v in c.verify(noted, workload=loose))


def test_auto_optimizer_follows_the_runs_stack(solved) -> None:
    """torchtitan offers only 32-bit AdamW: an `auto` run on it given 8-bit Adam breaks the rule,
    as the solver (which passes the stack) would never choose it."""
    c = solved("nvl-qwen32-full")
    assert {a.optimizer.value for a in c.plan.assignments} == {"adamw-8bit"}
    assert "optimizer" not in c.rules(workload=c.with_run("q32-full", stack="hf-fsdp"))
    assert "optimizer" in c.rules(workload=c.with_run("q32-full", stack="torchtitan"))


def test_auto_offload_follows_the_runs_stack(solved) -> None:
    """Unsloth offers no CPU offload of the optimiser: an `auto` run on it offloaded breaks the rule."""
    c = solved("offload")
    assert "offload" not in c.rules(workload=c.with_run("l8-offload", offload="auto", stack="hf-fsdp"))
    assert "offload" in c.rules(workload=c.with_run("l8-offload", offload="auto", stack="unsloth"))


def _with_error(c: Case, stack: str, method: str, error: float) -> Catalogue:
    """The case's catalogue with one recorded bucket's cross-validated error (median and 95 %-coverage
    figure alike) replaced (its margins table left as it is)."""
    margins = c.catalogue.margins
    assert margins is not None
    buckets = tuple(
        b.model_copy(update={"error": error, "cover_95": error})
        if (b.stack, b.method) == (stack, method)
        else b
        for b in margins.buckets
    )
    return c.catalogue.model_copy(update={"margins": margins.model_copy(update={"buckets": buckets})})


def test_a_copy_leaving_less_than_the_measured_error_fails_unless_the_workload_forced_it(solved) -> None:
    """The verifier re-derives the measured error from the recorded buckets, not the margins table:
    where the buckets say hf-fsdp QLoRA errs by 150 %, the 8B QLoRA (planned to leave its table's 22 %
    free; at micro-batch 4 it leaves more than its own memory free) leaves too little. A workload
    that sets its own margin is held to that one instead, and to the tight-margin note."""
    c = solved("first-project-measured")
    qlora = c.assignment("llama8b-qlora", 1)
    assert qlora.memory_margin is not None and qlora.free_gb < qlora.memory_per_gpu_gb.total * 1.5
    stricter = _with_error(c, "hf-fsdp", "qlora", 1.5)
    (violation,) = [str(v) for v in c.verify(catalogue=stricter)]
    assert violation.startswith("memory-margin: run llama8b-qlora copy 1: ")
    margins = c.catalogue.margins
    assert margins is not None
    (bucket,) = [b for b in margins.buckets if (b.stack, b.method) == ("hf-fsdp", "qlora")]
    sources = len(bucket.sources)
    assert (
        f"at least the measured 150% (cross-validated error of hf-fsdp/qlora, {sources} sources)" in violation
    )
    given = qlora.memory_margin
    sizing = c.workload.sizing.model_copy(update={"memory_margin": given})
    forced = c.workload.model_copy(update={"sizing": sizing})
    basis = "the workload's sizing.memory_margin"
    plan = c.with_assignment("llama70b-lora", 1, memory_margin=given, memory_margin_basis=basis)
    plan = c.with_assignment("llama70b-lora", 1, plan=plan, headroom_gb=None)
    plan = c.with_assignment("llama8b-qlora", 1, plan=plan, memory_margin_basis=basis)
    (left,) = [str(v) for v in c.verify(plan, workload=forced, catalogue=stricter)]
    assert left.startswith("memory-margin: run llama8b-qlora: no tight-margin note")


def test_the_memory_rules_alone_find_a_wrong_strategy(solved) -> None:
    c = solved("first-project")
    assert c.alone(memory) == set()
    assert "strategy" in c.alone(memory, c.with_assignment("llama70b-lora", 1, strategy=Strategy.SINGLE))
