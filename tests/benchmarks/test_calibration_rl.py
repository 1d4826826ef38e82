"""The preference/RL calibration: for every row of verl's minimum-resource table that ftopt can lay
out, ftopt needs no more GPUs than verl published; every point is held-out and sourced; the committed
report is what the current model produces."""

from __future__ import annotations

import re

import pytest

from benchmarks.calibration.rl import (
    JSON,
    MARKDOWN,
    RlOutcome,
    load_points,
    point_profile,
    render_json,
    render_markdown,
    run_rl_calibration,
)
from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture
from ftopt.model.workload import RolloutEngine

OUTCOMES = run_rl_calibration()
VERL = [o for o in OUTCOMES if o.source.startswith("verl") and o.kind == "min_gpus"]


def test_verl_rows_are_all_there_and_all_expressed() -> None:
    assert len(VERL) == 12
    assert all(o.ftopt is not None for o in VERL), [o.id for o in VERL if o.ftopt is None]


@pytest.mark.parametrize("outcome", [o for o in VERL if o.ftopt is not None], ids=lambda o: o.id)
def test_ftopt_needs_at_most_verls_minimum(outcome: RlOutcome) -> None:
    assert outcome.ftopt is not None and outcome.ftopt <= outcome.published, outcome


def test_verl_rows_ftopt_cannot_lay_out_say_why() -> None:
    assert all(o.reason for o in VERL if o.ftopt is None)


def test_colocated_and_server_runs_of_trl_fit_their_published_gpus() -> None:
    trl = {o.id: o for o in OUTCOMES if o.source == "trl-3162" and o.ftopt is not None}
    assert set(trl) == {
        "trl-qwen2.5-math-7b-colocated",
        "trl-qwen2.5-math-7b-server",
        "trl-qwen2.5-math-72b-colocated",
    }
    assert all(o.within_goal for o in trl.values())
    # The 72B run over four servers: ftopt needs all 32 GPUs, as TRL ran it.
    assert trl["trl-qwen2.5-math-72b-colocated"].ftopt == 32


def test_points_are_fit_or_held_out_by_source_and_sourced() -> None:
    sources = load_points()["sources"]
    assert {o.role for o in OUTCOMES} == {"fit", "held-out"}
    fit = {o.source for o in OUTCOMES if o.role == "fit"}
    assert fit and not fit & {o.source for o in OUTCOMES if o.role == "held-out"}
    assert all(o.source in sources for o in OUTCOMES)
    assert all(re.search(r"read 2026-12-0[34]", text) for text in sources.values())


TIMED = [o for o in OUTCOMES if o.kind in ("generation_share", "generation_seconds") and o.ftopt is not None]


def test_generation_share_is_checked_against_published_breakdowns_of_both_engines() -> None:
    shares = [o for o in TIMED if o.kind == "generation_share"]
    assert len({o.source for o in shares}) >= 3
    assert {o.engine for o in shares} == {"vllm", "sglang"}
    # A miss is reported with its reason, not hidden.
    assert all(o.miss_reason for o in TIMED if not o.within_goal)


def test_a_held_out_generation_time_is_reproduced_within_the_goal() -> None:
    # verl issue #7412: Qwen3-4B GRPO on four RTX 4090 48 GB generated for 541 s a step; no constant
    # was chosen on it, and ftopt's rollout model lands within ±25 % of it.
    (point,) = [o for o in TIMED if o.id == "verl-4090-qwen3-4b-grpo-generation"]
    assert point.role == "held-out" and point.within_goal, point


def test_each_engine_constant_was_chosen_on_fit_points_of_that_engine_only() -> None:
    constants = load_catalogue().rollout.decode_step_overhead_ms
    fit = {o.engine for o in TIMED if o.role == "fit"}
    assert fit == set(constants) == {"vllm", "sglang"}
    fit_points = [o for o in TIMED if o.role == "fit"]
    for o in fit_points:
        # A fit point lands within the goal, or its engine's constant sits at its bound (0 ms) because
        # a fit point of that engine is still above its published figure, which a larger constant
        # would only widen (slime-385, fit since it was in view, pulls vLLM's the other way).
        above = [p for p in fit_points if p.engine == o.engine and p.ratio is not None and p.ratio > 1.25]
        assert o.within_goal or (constants[RolloutEngine(o.engine)] == 0 and above), o


def test_a_run_states_its_engine_and_vllm_is_the_default() -> None:
    data = load_points()
    models = {name: Architecture.model_validate(arch) for name, arch in data["models"].items()}
    points = {p["id"]: p for p in data["points"]}
    catalogue = load_catalogue()
    sglang = point_profile(points["verl-gh200-qwen2.5-0.5b-grpo-share"], models, catalogue)
    assert sglang.run.rollout is not None and sglang.run.rollout.engine == RolloutEngine.SGLANG
    unstated = point_profile(points["verl-qwen2.5-7b-grpo-lora"], models, catalogue)
    assert unstated.run.rollout is not None and unstated.run.rollout.engine == RolloutEngine.VLLM


def test_a_point_judged_after_its_constant_was_set_says_so() -> None:
    noted = {o.id: o.note for o in OUTCOMES if o.note}
    assert "verl-h200-qwen3-0.6b-grpo-share" in noted
    assert "## Notes" in MARKDOWN.read_text(encoding="utf-8")


def test_committed_report_is_up_to_date() -> None:
    sources = dict(load_points()["sources"])
    assert MARKDOWN.read_text(encoding="utf-8") == render_markdown(OUTCOMES, sources), (
        "run `python -m benchmarks.calibration.rl`"
    )
    assert JSON.read_text(encoding="utf-8") == render_json(OUTCOMES)
