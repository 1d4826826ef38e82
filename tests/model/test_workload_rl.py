"""How a workload names a preference or RL run: `method: dpo|grpo|ppo` with `adapter`, kept on the run as
its algorithm with the adapter as its method, so that supervised runs read exactly as before."""

from __future__ import annotations

from ftopt.model.workload import Algorithm, Placement, Run


def test_rl_method_becomes_algorithm_and_adapter_method() -> None:
    run = Run.model_validate({"name": "r", "model": "m", "method": "grpo", "adapter": "qlora"})
    assert (run.algorithm, run.method, run.algorithm_label) == (Algorithm.GRPO, "qlora", "grpo")
    assert Run.model_validate({"name": "r", "model": "m", "method": "dpo"}).method == "full"


def test_generating_run_trains_on_prompt_plus_response_with_default_rollout() -> None:
    run = Run.model_validate({"name": "r", "model": "m", "method": "ppo"})
    assert run.rollout is not None and run.rollout.placement == Placement.AUTO
    assert run.seq_len == run.rollout.prompt_len + run.rollout.response_len
    shaped = Run.model_validate(
        {"name": "r", "model": "m", "method": "grpo", "rollout": {"prompt_len": 100, "response_len": 900}}
    )
    assert shaped.seq_len == 1000


def test_rl_run_survives_a_round_trip_through_its_dump() -> None:
    run = Run.model_validate(
        {"name": "r", "model": "m", "method": "grpo", "adapter": "lora", "rollout": {"group_size": 4}}
    )
    assert Run.model_validate(run.model_dump()) == run


def test_supervised_runs_are_unchanged() -> None:
    run = Run.model_validate({"name": "r", "model": "m", "method": "lora"})
    assert (run.algorithm, run.rollout, run.reward_model, run.seq_len) == (Algorithm.SFT, None, None, 4096)
    assert run.algorithm_label == "lora"
