"""Disproportions: a spare whose price per hour saved dwarfs the plan's own rate gets a note with
both figures; one that buys its hours cheaply gets none. CPU offload that saves less per hour it adds
than the plan's rate (against a re-solve without it) and buying that never pays off against renting,
or renting dearer than buying, get theirs; the cases on the right side of each line get none."""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan
from ftopt.model.result import Result
from ftopt.model.summary import summarize
from ftopt.model.workload import Workload
from ftopt.solver.explain.disproportion import (
    DISPROPORTION_RATIO,
    disproportions,
    offload_disproportion,
    offloaded_runs,
    rent_disproportion,
    without_offload,
)
from ftopt.solver.solve import SolveSettings, solve
from tests.solver.tiny import catalogue


def _spared(tokens: int) -> Plan:
    """A 16-GPU full fine-tune over two servers with one hot spare, `tokens` long."""
    wide = {"name": "wide-full", "model": "llama-3.1-8b", "method": "full", "gpus": 16,
            "train_tokens": tokens, "spares": 1}  # fmt: skip
    workload = Workload.model_validate({"runs": [wide], "site": {"feed": "400v-3p-32a", "inlet_c": 25}})
    return solve(workload, catalogue(), SolveSettings(time_limit=10, workers=1)).plan_or_raise()


def test_a_spare_saving_minutes_for_a_server_s_price_is_flagged_with_both_figures() -> None:
    plan = _spared(20_000_000)
    (a,) = plan.assignments
    assert a.hours_p90 is not None and a.hours_p90_without_spares is not None
    saved = a.hours_p90_without_spares - a.hours_p90
    spare = next(s for s in plan.servers if s.id == a.spares[0])
    [note] = [n for n in plan.notes if n.kind == FindingKind.DISPROPORTION]
    assert note.figures["cost"] == pytest.approx(spare.price)
    assert note.figures["hours_saved"] == pytest.approx(saved, abs=0.01)
    assert note.figures["cost_per_hour"] > DISPROPORTION_RATIO * note.figures["plan_per_hour"]  # type: ignore[operator]
    assert f"USD {spare.price:,.0f}" in note.text and "at P90" in note.text
    assert note == disproportions(plan)[0]


def test_no_note_where_the_spare_is_cheap_against_the_plan_s_rate() -> None:
    plan = _spared(20_000_000)
    (a,) = plan.assignments
    assert a.hours_p90 is not None
    slow = a.model_copy(update={"hours_p90_without_spares": a.hours_p90 * 1000})
    assert disproportions(plan.model_copy(update={"assignments": [slow]})) == []


def _plan(text: str) -> tuple[Workload, Plan]:
    workload = Workload.model_validate(yaml.safe_load(text))
    return workload, solve(workload, catalogue(), SolveSettings(time_limit=20, workers=2)).plan_or_raise()


def _resolve(workload: Workload) -> Result:
    return solve(workload, catalogue(), SolveSettings(time_limit=20, workers=2, what_if=False))


#: A full fine-tune whose `offload: auto` lets the solver weigh CPU offload on RTX PRO 6000 cards.
OFFLOAD = """
site: {feed: 400v-3p-16a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: full, model: MODEL, method: full, optimizer: auto, offload: auto, seq_len: 4096,
        gradient_checkpointing: true, train_tokens: 100000000}]
"""


def test_offload_chosen_on_a_tie_is_flagged_with_the_re_solved_price_and_the_hours_it_adds() -> None:
    workload, plan = _plan(OFFLOAD.replace("MODEL", "llama-3.1-8b"))
    assert offloaded_runs(workload, plan) == ("full",)
    other = _resolve(without_offload(workload, ("full",))).plan_or_raise()
    [note] = offload_disproportion(workload, plan, _resolve)
    assert note.kind == FindingKind.OFFLOAD_DISPROPORTION and note.subject == "full"
    assert note.figures["without_price"] == other.total_price and note.figures["saved"] == 0.0
    slow, fast = (max(a.hours_p90 or 0.0 for a in p.assignments) for p in (plan, other))
    assert note.figures["hours_lost"] == pytest.approx(slow - fast, abs=1e-3) and slow > fast
    assert note.text.startswith(f"CPU offload of full saves nothing against the cheapest plan without it "
                                f"(USD {other.total_price:,.0f}, re-solved) and adds")  # fmt: skip
    assert "at P90" in note.text and "per hour of the whole plan" in note.text


def test_offload_that_saves_more_per_hour_it_adds_than_the_plan_costs_is_not_flagged() -> None:
    workload, plan = _plan(OFFLOAD.replace("MODEL", "qwen3-32b"))
    assert offloaded_runs(workload, plan) == ("full",)  # offloaded, and worth it
    other = _resolve(without_offload(workload, ("full",))).plan_or_raise()
    assert other.total_price > 2 * plan.total_price
    assert offload_disproportion(workload, plan, _resolve) == []


def test_a_run_held_to_its_offload_is_not_weighed() -> None:
    workload, plan = _plan(OFFLOAD.replace("MODEL", "llama-3.1-8b").replace("offload: auto", "offload: cpu"))
    calls: list[Workload] = []
    assert offload_disproportion(workload, plan, lambda w: calls.append(w) or _resolve(w)) == []  # type: ignore[func-returns-value]
    assert calls == []  # the buyer asked for offload: nothing to weigh, no re-solve


#: An 8B LoRA of 300 M tokens on one server of two cards: renting its GPU-hours costs about USD 59.
LORA = """
site: {feed: 400v-3p-32a, inlet_c: 25}
hardware: {gpus: [rtx-pro-6000-se]}
runs: [{name: lora, model: llama-3.1-8b, method: lora, seq_len: 4096, gradient_checkpointing: true,
        train_tokens: TOKENS}]
"""


def test_buying_that_never_pays_off_within_the_servers_years_is_flagged_with_both_figures() -> None:
    _, plan = _plan(LORA.replace("TOKENS", "300000000"))
    assert plan.rent is not None and plan.makespan_hours is not None
    pay_off = plan.total_price / plan.rent.cost
    one_year = 8760 * 0.8 / plan.makespan_hours
    assert one_year < pay_off < 4 * one_year  # so one year flags it and four do not
    [note] = rent_disproportion(plan, 1.0, 0.8)
    assert note.kind == FindingKind.RENT_DISPROPORTION and note.figures["side"] == "buy"
    assert note.figures["purchase"] == plan.total_price and note.figures["rent_cost"] == plan.rent.cost
    assert note.figures["workloads_to_pay_off"] == pytest.approx(pay_off, abs=0.05)
    assert f"buying the servers costs USD {plan.total_price:,.0f}" in note.text
    assert f"on demand costs USD {plan.rent.cost:,.2f}" in note.text and "in 1 year at 80% use" in note.text
    assert rent_disproportion(plan, 4.0, 0.8) == []


def test_renting_that_costs_more_than_the_servers_is_flagged() -> None:
    _, plan = _plan(LORA.replace("TOKENS", "300000000000"))
    assert plan.rent is not None and plan.rent.cost > plan.total_price
    [note] = rent_disproportion(plan, 4.0, 0.8)
    assert note.figures["side"] == "rent"
    assert note.text.startswith(f"renting the same {plan.rent.gpu_hours:,.1f} GPU-hours of every run")
    assert f"the USD {plan.total_price:,.0f} the servers cost to buy" in note.text


def test_the_solve_weighs_offload_and_rent_in_its_notes_and_the_summary_lists_them() -> None:
    workload = Workload.model_validate(yaml.safe_load(OFFLOAD.replace("MODEL", "llama-3.1-8b")))
    settings = SolveSettings(time_limit=20, workers=2, what_if=True)
    plan = solve(workload, catalogue(), settings).plan_or_raise()
    weighed = [n.text for n in plan.notes if n.kind == FindingKind.OFFLOAD_DISPROPORTION]
    assert len(weighed) == 1 and list(summarize(plan, workload, catalogue()).weighed) == weighed
    yearly = workload.model_copy(update={"energy": workload.energy.model_copy(update={"years": 1.0})})
    plan = solve(yearly, catalogue(), replace(settings, what_if=False)).plan_or_raise()
    assert [n.kind for n in plan.notes if n.kind == FindingKind.RENT_DISPROPORTION] == ["rent-disproportion"]
    quick = solve(workload, catalogue(), replace(settings, what_if=False)).plan_or_raise()
    assert not any(n.kind == FindingKind.OFFLOAD_DISPROPORTION for n in quick.notes)  # no re-solve run
