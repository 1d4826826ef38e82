"""Rules on the training configuration a plan states: degrees that multiply to the copy's GPUs,
tensor parallelism inside one NVLink domain, what the stack offers and the run fixes, and memory and
time re-derived for the stated configuration (hand-broken plans)."""

from __future__ import annotations

from ftopt.model.plan import ParallelDegrees
from ftopt.model.workload import Recompute, Strategy
from ftopt.verify import parallelism

CASE = "hgx-megatron-32k"
RUN = "l70-32k"


def test_the_solved_plan_states_a_configuration_over_its_gpus(solved) -> None:
    c = solved(CASE)
    a = c.assignment(RUN, 1)
    assert a.parallelism is not None and a.micro_batch is not None and a.accumulation is not None
    p = a.parallelism
    assert p.dp * p.tp * p.pp * p.cp == len(a.gpus) == 8
    assert p.cp > 1  # 32k tokens: the fastest at this price splits the sequence
    assert c.verify() == []


def test_degrees_that_do_not_multiply_to_the_gpus(solved) -> None:
    c = solved(CASE)
    plan = c.with_assignment(RUN, 1, parallelism=ParallelDegrees(dp=1, tp=2, pp=1, cp=2))
    violations = [str(v) for v in c.verify(plan) if v.rule == "parallelism"]
    assert violations == [
        "parallelism: run l70-32k copy 1: dp 1 × tp 2 × pp 1 × cp 2 = 4, the copy trains on 8 GPUs"
    ]


def test_tensor_parallelism_across_two_nvlink_domains(solved) -> None:
    c = solved("nvl-llama70-full")  # eight H200 NVL in two 4-way bridge domains
    a = c.assignment("l70-full", 1)
    plan = c.with_assignment("l70-full", 1, parallelism=ParallelDegrees(dp=1, tp=8), strategy=Strategy.DDP)
    found = [str(v) for v in c.verify(plan) if v.rule == "tensor-parallel-domain"]
    assert len(found) == 1
    assert f"tensor-parallel GPUs {sorted(a.gpus)}" in found[0]
    assert "one NVLink domain (domains [[0, 1, 2, 3], [4, 5, 6, 7]])" in found[0]
    inside = c.with_assignment("l70-full", 1, parallelism=ParallelDegrees(dp=2, tp=4))
    assert "tensor-parallel-domain" not in c.rules(inside)


def test_degrees_the_stack_does_not_offer(solved) -> None:
    c = solved("nvl-llama70-full")  # hf-fsdp: data parallelism only
    plan = c.with_assignment("l70-full", 1, parallelism=ParallelDegrees(dp=2, tp=4))
    found = [str(v) for v in c.verify(plan) if v.rule == "training-config"]
    assert found == ["training-config: run l70-full copy 1: tp 4, hf-fsdp offers no tensor parallelism"]


def test_a_micro_batch_the_run_fixes_otherwise(solved) -> None:
    c = solved(CASE)
    workload = c.with_run(RUN, micro_batch=4)
    a = c.assignment(RUN, 1)
    assert a.micro_batch != 4
    found = [str(v) for v in c.verify(workload=workload) if v.rule == "training-config"]
    assert found == [f"training-config: run l70-32k copy 1: micro_batch {a.micro_batch}, the run fixes 4"]


def test_a_recomputation_the_run_fixes_otherwise(solved) -> None:
    c = solved(CASE)
    plan = c.with_assignment(RUN, 1, recompute=Recompute.SELECTIVE)
    assert "training-config" in c.rules(plan)  # gradient_checkpointing defaults to true: full


def test_global_batch_tokens_that_the_configuration_does_not_make(solved) -> None:
    c = solved(CASE)
    a = c.assignment(RUN, 1)
    assert a.parallelism is not None and a.micro_batch is not None and a.accumulation is not None
    stated = a.micro_batch * a.accumulation * a.parallelism.dp * 32768
    assert "training-config" not in c.rules(workload=c.with_run(RUN, global_batch_tokens=stated))
    assert "training-config" in c.rules(workload=c.with_run(RUN, global_batch_tokens=2 * stated))


def test_memory_and_time_are_re_derived_for_the_stated_configuration(solved) -> None:
    """Another valid configuration than the one sized: its memory and speed differ from the plan's
    figures, so the sizing report and the deadline rule (tokens per second) catch it."""
    c = solved(CASE)
    plan = c.with_assignment(RUN, 1, parallelism=ParallelDegrees(dp=8), micro_batch=1)
    rules = c.rules(plan)
    assert "sizing-report" in rules
    assert "deadline" in rules


def test_a_plan_without_a_configuration_reads_as_the_runs_own_settings(solved) -> None:
    """Plans written before configurations were chosen state none: the verifier sizes them with the
    run's settings (micro-batch 1 under auto) over pure data parallelism, as ftopt did then."""
    c = solved("first-project")
    lora = c.assignment("llama70b-lora", 1)  # micro-batch 1 over data parallelism: the old sizing
    assert (lora.micro_batch, lora.parallelism and lora.parallelism.dp) == (1, 2)
    old = c.with_assignment(
        "llama70b-lora", 1, parallelism=None, micro_batch=None, accumulation=None, recompute=None
    )
    assert c.verify(old) == []
    qlora = c.assignment("llama8b-qlora", 1)  # micro-batch above 1: the old reading sizes another copy
    assert qlora.micro_batch is not None and qlora.micro_batch > 1
    old = c.with_assignment(
        "llama8b-qlora", 1, parallelism=None, micro_batch=None, accumulation=None, recompute=None
    )
    assert "sizing-report" in c.rules(old)


def test_states_that_the_stated_degrees_do_not_split_so(solved) -> None:
    """The verifier's own count: a 70B full fine-tune under Megatron (32-bit AdamW, FP32 master
    weights) holds 16 B per parameter, over tp·pp and, sharded, over dp·cp; a plan reporting the
    states of another split is rejected."""
    c = solved(CASE)
    a = c.assignment(RUN, 1)
    halved = a.memory_per_gpu_gb.model_copy(update={"states": round(a.memory_per_gpu_gb.states / 2, 2)})
    found = [
        str(v)
        for v in c.verify(c.with_assignment(RUN, 1, memory_per_gpu_gb=halved))
        if v.rule == "state-split"
    ]
    assert len(found) == 1
    assert found[0].endswith(
        f"GB: the copy's states over tp 1 × pp 1, sharded over dp 2 × cp 4 under {a.strategy}"
    )
    assert "state-split" not in c.rules()


def test_the_parallelism_rules_alone_find_a_recomputation_the_run_fixes(solved) -> None:
    c = solved(CASE)
    assert c.alone(parallelism) == set()
    assert c.alone(parallelism, c.with_assignment(RUN, 1, recompute=Recompute.SELECTIVE)) == {
        "training-config"
    }
