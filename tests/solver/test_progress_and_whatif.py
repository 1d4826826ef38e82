"""Live progress reaches the caller; the quote's 'what shaped the answer' lines are true of the plan."""

from __future__ import annotations

from ftopt.model.findings import FindingKind
from ftopt.solver.solve import Progress, SolveSettings, solve
from tests.solver.conftest import workload_from

FIRST_PROJECT = """
site: {feed: 230v-16a, inlet_c: 27}
hardware: {gpus: [rtx-pro-6000-se]}
runs:
  - {name: lora-70b, model: llama-3.3-70b, method: lora, seq_len: 4096}
  - {name: qlora-8b, model: llama-3.1-8b, method: qlora, seq_len: 4096}
"""


def test_progress_reports_incumbents_never_below_the_bound(catalogue):
    seen: list[Progress] = []
    plan = solve(
        workload_from(FIRST_PROJECT), catalogue, SolveSettings(time_limit=10, workers=2), seen.append
    ).plan_or_raise()
    assert seen, "at least the first incumbent is reported"
    assert all(p.price >= p.bound - 0.01 and 0 <= p.gap <= 1 for p in seen)
    assert seen[-1].price == plan.total_price


def test_binding_rules_name_the_feed_cap_and_the_sharded_run(catalogue):
    plan = solve(workload_from(FIRST_PROJECT), catalogue, SolveSettings(time_limit=10, workers=2)).plan
    assert plan is not None
    server = max(plan.servers, key=lambda s: s.gpu_count)  # the 70B LoRA's four cards
    assert server.gpu_power_cap_w == 450
    (cap,) = [f for f in plan.binding if f.kind == FindingKind.POWER_CAP]
    assert cap.subject == server.id and cap.figures["cap_w"] == 450 and cap.figures["feed_usable_w"] == 2944
    assert cap.text.startswith("the 230v-16a feed (2,944 W usable) caps")
    (split,) = [f for f in plan.binding if f.kind == FindingKind.MULTI_GPU]
    # four cards, not two: two would leave less than its measured memory margin (issue 28)
    assert split.subject == "lora-70b" and split.figures["gpus"] == 4 and split.figures["strategy"] == "fsdp"
    assert "lora-70b on 4 × rtx-pro-6000-se (fsdp)" in split.text


def test_what_if_savings_are_proven_by_a_re_solve(catalogue):
    # Eight single-card QLoRA copies behind a 16 A feed: 2,944 W powers at most four H200 NVL
    # (capped at 450 W: (4 × 450 + 2 × 200) × 1.15 = 2,530 W), so two four-card servers; a 32 A
    # feed powers one eight-card server, one chassis and one CPU pair fewer.
    text = """
site: {feed: 230v-16a, inlet_c: 25}
hardware: {gpus: [h200-nvl]}
sizing: {mig: false}  # one whole card per copy (GPU slices would put all eight on two cards)
runs: [{name: q, model: llama-3.1-8b, method: qlora, concurrent: 8}]
"""
    settings = SolveSettings(time_limit=10, workers=2, what_if=True)
    plan = solve(workload_from(text), catalogue, settings).plan_or_raise()
    assert plan.savings and all(f.kind == FindingKind.SAVING for f in plan.savings)
    feed = plan.savings[0]
    assert feed.subject == "a 230v-32a feed" and feed.text.startswith("a 230v-32a feed would save USD ")
    bigger = solve(workload_from(text.replace("230v-16a", "230v-32a")), catalogue, settings).plan_or_raise()
    saved = plan.total_price - bigger.total_price
    assert saved > 0 and feed.figures["saved"] == round(saved, 2) and f"USD {saved:,.0f}" in feed.text


def test_relaxations_the_what_if_budget_did_not_reach_are_named_in_a_note(catalogue):
    """A re-solve left out for want of time is said so, by its relaxation's words; none is left out
    in silence, and none is named when every one was re-solved."""
    from dataclasses import replace
    from time import perf_counter

    from ftopt.solver.explain.whatif import relaxations
    from ftopt.solver.problem.data import build_problem
    from ftopt.solver.solve import _savings

    workload = workload_from(FIRST_PROJECT)
    data = build_problem(workload, catalogue)
    settings = SolveSettings(time_limit=10, workers=1)
    plan = solve(workload, catalogue, replace(settings, what_if=False)).plan_or_raise()
    quick = replace(settings, time_limit=2, what_if=False, verify=False)
    eased = [r.words for r in relaxations(data)]
    assert len(eased) >= 2
    _, late = _savings(data, plan, settings, quick, perf_counter() - 1)
    (note,) = [n for n in late.notes if n.subject == "skipped"]
    assert all(words in note.text for words in eased) and "time limit of 10 s" in note.text
    _, done = _savings(data, plan, settings, quick, perf_counter() + 60)
    assert not [n for n in done.notes if n.subject == "skipped"]
