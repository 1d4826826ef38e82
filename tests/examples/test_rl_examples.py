"""The preference and RL examples give the answers docs/how-to/rl.md documents, and each answer verifies:
DPO on a 70B model with LoRA, GRPO on an 8B and a 32B model (colocated or separate by price or deadline)."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Assignment, Plan
from ftopt.model.workload import Placement, Workload
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve
from ftopt.verify import verify_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _solve(workload: Workload) -> Plan:
    catalogue = load_catalogue()
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert plan.status == "optimal" and plan.gap == 0
    assert verify_plan(plan, workload, catalogue) == []
    return plan


def _example(name: str) -> Workload:
    return load_workload(EXAMPLES / f"{name}.yaml", load_catalogue())


def _roles(a: Assignment) -> dict[str, list[int]]:
    return {r.role: r.gpus for r in a.roles}


def test_dpo_70b_lora_keeps_one_base_as_policy_and_reference() -> None:
    (copy,) = _solve(_example("dpo-70b-lora")).assignments
    assert _roles(copy) == {"policy": copy.gpus} and copy.placement is None
    assert copy.hours is not None


def test_grpo_8b_generates_beside_a_policy_and_its_reference_within_the_deadline() -> None:
    (copy,) = _solve(_example("grpo-8b")).assignments
    roles = _roles(copy)
    assert set(roles) == {"policy", "reference", "rollout"}
    assert copy.placement in ("colocated", "separate")
    assert copy.hours is not None and copy.hours <= 72


def test_grpo_32b_deadline_buys_more_gpus() -> None:
    workload = _example("grpo-32b")
    (timely,) = _solve(workload).assignments
    assert set(_roles(timely)) == {"policy", "rollout"}  # LoRA: the base is the reference
    assert timely.hours_p90 is not None and timely.hours_p90 <= 52  # 40 bare hours × 1.31
    run = workload.runs[0].model_copy(update={"deadline_hours": None})
    (cheapest,) = _solve(workload.model_copy(update={"runs": (run,)})).assignments
    assert len(cheapest.gpus) < len(timely.gpus)
    assert cheapest.hours_p90 is not None and cheapest.hours_p90 > 52
    assert timely.placement == "colocated"


def test_grpo_32b_colocated_fits_by_phase_on_two_cards() -> None:
    """Colocated on two RTX PRO 6000, the engine's 48 GB beside the LoRA policy's training memory
    summed to more than a card; the phases take turns, so the copy fits (though it misses the
    52 h deadline at P90, so the deadline bid buys eight cards)."""
    workload = _example("grpo-32b")
    rollout, deadline = workload.runs[0].rollout, workload.runs[0].deadline_hours
    assert rollout is not None and deadline is not None
    run = workload.runs[0].model_copy(
        update={
            "deadline_hours": None,
            "gpus": 2,
            "rollout": rollout.model_copy(update={"placement": Placement.COLOCATED}),
        }
    )
    (copy,) = _solve(workload.model_copy(update={"runs": (run,)})).assignments
    assert copy.placement == "colocated" and len(copy.gpus) == 2
    assert sum(r.memory_gb for r in copy.roles) > 96  # the roles, summed, overfill a 96 GB card
    assert copy.hours_p90 is not None and copy.hours_p90 > deadline  # 148 h at P90
