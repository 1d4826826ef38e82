"""Rules on time and energy: each copy finishes by its deadline at the speed its placement gives, and
the TCO adds up at the workload's energy settings."""

from __future__ import annotations

import pytest

from ftopt.model.plan import SCHEMA_VERSION, Plan
from ftopt.verify import timing


def test_the_deadline_plan_is_clean_and_reports_its_hours(solved) -> None:
    c = solved("deadline")
    assert c.verify() == []
    lora = c.assignment("llama70b-lora", 1)
    assert lora.link == "nvlink" and len(lora.gpus) == 4
    assert lora.hours is not None and lora.hours <= 76
    assert lora.hours_p90 is not None and lora.hours_p90 <= c.plan.runs[0].deadline_hours
    assert c.plan.makespan_hours == max(a.hours for a in c.plan.assignments if a.hours is not None)
    assert c.plan.runs[0].deadline_hours == 130 and c.plan.runs[0].train_tokens == 500_000_000
    assert c.plan.runs[0].deadline_confidence == 0.9


def test_a_tighter_deadline_than_the_plan_meets(solved) -> None:
    c = solved("deadline")
    hours = c.assignment("llama70b-lora", 1).hours
    violations = c.verify(workload=c.with_run("llama70b-lora", deadline_hours=70))
    assert [v.rule for v in violations] == ["deadline"]
    assert str(violations[0]).startswith("deadline: run llama70b-lora copy 1: ")
    assert " h at P90 to train " in str(violations[0])
    assert str(violations[0]).endswith("run llama70b-lora must finish within 70 h")
    assert hours is not None and hours < 70  # the bare hours meet it; the P90 hours do not


def test_hours_misreported(solved) -> None:
    c = solved("deadline")
    lora = c.assignment("llama70b-lora", 1)
    assert lora.hours is not None
    plan = c.with_assignment("llama70b-lora", 1, hours=lora.hours / 2)
    # hours_with_failures and P50/P90, stated for the true hours, no longer follow the halved ones either
    assert c.rules(plan) == {"deadline", "failures", "spread"}


def test_tokens_per_second_misreported(solved) -> None:
    c = solved("deadline")
    lora = c.assignment("llama70b-lora", 1)
    assert lora.tokens_per_s is not None
    assert c.rules(c.with_assignment("llama70b-lora", 1, tokens_per_s=lora.tokens_per_s * 2)) == {"deadline"}


def test_makespan_misreported(solved) -> None:
    c = solved("deadline")
    assert c.plan.makespan_hours is not None
    plan = c.plan.model_copy(update={"makespan_hours": c.plan.makespan_hours - 1})
    assert c.rules(plan) == {"deadline"}


def test_a_copy_moved_off_nvlink_misses_its_deadline(solved) -> None:
    """Two of the four H200 NVL swapped for cards of another domain would be PCIe: the placement rules
    fire, and so does the deadline, re-derived from the link the GPUs now share."""
    c = solved("deadline")
    lora = c.assignment("llama70b-lora", 1)
    server = c.server(lora.server)
    bridged = c.rebuilt(server.model_copy(update={"bridge": None}))
    plan = c.repriced(
        c.plan.model_copy(update={"servers": [bridged if s.id == server.id else s for s in c.plan.servers]})
    )
    assert "deadline" in c.rules(plan)


def test_tco_plan_is_clean(solved) -> None:
    c = solved("tco")
    assert c.verify() == []
    tco = c.plan.tco
    assert tco is not None and tco.objective == "tco" and tco.price_per_kwh == 0.3
    assert tco.total == pytest.approx(c.plan.total_price + tco.energy_cost)
    assert tco.total >= c.plan.total_price


def test_tco_total_misreported(solved) -> None:
    c = solved("tco")
    assert c.plan.tco is not None
    plan = c.plan.model_copy(update={"tco": c.plan.tco.model_copy(update={"total": c.plan.tco.total + 1})})
    violations = c.verify(plan)
    assert [v.rule for v in violations] == ["tco"]
    assert "purchase + energy cost" in str(violations[0])


def test_tco_energy_misreported(solved) -> None:
    c = solved("tco")
    assert c.plan.tco is not None
    tco = c.plan.tco.model_copy(update={"energy_cost": c.plan.tco.energy_cost / 2, "total": 0.0})
    tco = tco.model_copy(update={"total": tco.purchase + tco.energy_cost})
    assert c.rules(c.plan.model_copy(update={"tco": tco})) == {"tco"}


def test_tco_for_other_energy_settings(solved) -> None:
    c = solved("tco")
    energy = c.workload.energy.model_copy(update={"pue": 1.2})
    # PUE enters both a run's training energy and the servers' years
    assert c.rules(workload=c.workload.model_copy(update={"energy": energy})) == {"tco", "energy"}
    energy = c.workload.energy.model_copy(update={"utilisation": 0.5})
    # utilisation only the TCO over years: a run's hours are training time already
    assert c.rules(workload=c.workload.model_copy(update={"energy": energy})) == {"tco"}


def _without_speed_figures(plan: Plan, version: int) -> Plan:
    stripped = plan.model_copy(
        update={"tco": None, "makespan_hours": None, "energy_kwh": None, "schema_version": version}
    )
    assignments = [
        a.model_copy(update={"tokens_per_s": None, "hours": None, "energy_kwh": None})
        for a in stripped.assignments
    ]
    return stripped.model_copy(update={"assignments": assignments})


def test_old_plans_without_the_new_fields_still_verify(solved) -> None:
    c = solved("first-project")
    assert c.verify(_without_speed_figures(c.plan, 2)) == []


def test_a_current_plan_must_state_each_copys_speed_and_hours(solved) -> None:
    c = solved("deadline")
    violations = c.verify(_without_speed_figures(c.plan, SCHEMA_VERSION))
    found = {(v.rule, v.found) for v in violations}
    assert found == {("deadline", "tokens_per_s missing"), ("deadline", "hours missing")}
    assert len(violations) == 2 * len(c.plan.assignments)


def test_the_deadline_plans_energy_is_hours_times_watts_times_pue(solved) -> None:
    """A copy's energy: hours × GPUs × (GPU W at the server's setting + host W per GPU) × PUE, with no
    utilisation factor, and the plan's energy is their sum."""
    c = solved("deadline")
    assert c.verify() == []
    host_w = c.catalogue.speed.host_power_w_per_gpu
    pue = c.workload.energy.pue
    for a in c.plan.assignments:
        assert a.hours is not None and a.energy_kwh is not None
        cap = c.server(a.server).gpu_power_cap_w
        assert a.energy_kwh == pytest.approx(a.hours * len(a.gpus) * (cap + host_w) * pue / 1000, rel=1e-3)
    assert c.plan.energy_kwh == pytest.approx(sum(a.energy_kwh or 0 for a in c.plan.assignments), abs=0.05)


def test_energy_misreported(solved) -> None:
    c = solved("deadline")
    lora = c.assignment("llama70b-lora", 1)
    assert lora.energy_kwh is not None
    utilised = lora.energy_kwh * c.workload.energy.utilisation  # the old rule's figure
    assert c.rules(c.with_assignment("llama70b-lora", 1, energy_kwh=utilised)) == {"energy"}
    plan = c.plan.model_copy(update={"energy_kwh": (c.plan.energy_kwh or 0) + 10})
    assert c.rules(plan) == {"energy"}


def test_the_timing_rules_alone_find_an_overstated_speed(solved) -> None:
    c = solved("deadline")
    lora = c.assignment("llama70b-lora", 1)
    assert c.alone(timing) == set()
    doubled = c.with_assignment("llama70b-lora", 1, tokens_per_s=lora.tokens_per_s * 2)
    assert c.alone(timing, doubled) == {"deadline"}
