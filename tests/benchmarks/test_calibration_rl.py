"""The preference/RL calibration: for every row of verl's minimum-resource table that ftopt can lay
out, ftopt needs no more GPUs than verl published; every point is held-out and sourced; the committed
report is what the current model produces."""

from __future__ import annotations

import pytest

from benchmarks.calibration.rl import (
    JSON,
    MARKDOWN,
    RlOutcome,
    load_points,
    render_json,
    render_markdown,
    run_rl_calibration,
)

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
    assert all("read 2026-12-03" in text for text in sources.values())


def test_generation_share_is_checked_against_two_published_breakdowns() -> None:
    shares = [o for o in OUTCOMES if o.kind == "generation_share" and o.ftopt is not None]
    assert len({o.source for o in shares}) >= 2
    # The fit point chose decode_step_overhead_ms: it must land within the goal.
    assert all(o.within_goal for o in shares if o.role == "fit")
    # A miss is reported with its reason, not hidden.
    assert all(o.miss_reason for o in shares if not o.within_goal)


def test_committed_report_is_up_to_date() -> None:
    sources = dict(load_points()["sources"])
    assert MARKDOWN.read_text(encoding="utf-8") == render_markdown(OUTCOMES, sources), (
        "run `python -m benchmarks.calibration.rl`"
    )
    assert JSON.read_text(encoding="utf-8") == render_json(OUTCOMES)
