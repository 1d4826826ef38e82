"""Rules on the roles of DPO, GRPO and PPO copies, each shown on a solved plan broken by hand: the
roles an algorithm needs, where they sit, the memory each holds, and the rollout engine's share."""

from __future__ import annotations

from typing import Any

import pytest

from ftopt.model.plan import Assignment, RoleOnGpus
from ftopt.model.workload import Workload
from ftopt.verify import roles as role_rules
from ftopt.verify.role_memory import needed_roles


def _roles(a: Assignment, **changes: dict[str, Any]) -> list[RoleOnGpus]:
    """The copy's roles with some roles' fields replaced (`reference={"memory_gb": 1.0}`)."""
    return [r.model_copy(update=changes.get(r.role, {})) for r in a.roles]


def _workload(workload: Workload, run: int = 0, **rollout: Any) -> Workload:
    """The workload with one run's rollout settings changed."""
    data = workload.model_dump(mode="json")
    data["runs"][run]["rollout"].update(rollout)
    return Workload.model_validate(data)


def test_solved_rl_plans_list_the_roles_their_algorithm_needs(solved) -> None:
    expected = {
        "grpo-colocated": ("q8-grpo", {"policy", "reference", "rollout"}, "colocated"),
        "ppo-separate": ("l8-ppo", {"policy", "reference", "reward", "critic", "rollout"}, "separate"),
        "dpo-lora": ("l70-dpo", {"policy"}, None),
    }
    for name, (run, roles, placement) in expected.items():
        c = solved(name)
        a = c.assignment(run, 1)
        assert {r.role for r in a.roles} == roles and a.placement == placement
        assert c.verify() == []


def test_separate_engine_sits_beside_the_training_gpus(solved) -> None:
    a = solved("ppo-separate").assignment("l8-ppo", 1)
    train = next(r.gpus for r in a.roles if r.role == "policy")
    engine = next(r.gpus for r in a.roles if r.role == "rollout")
    assert not set(train) & set(engine) and sorted(train + engine) == sorted(a.gpus)


def test_missing_reference_is_reported(solved) -> None:
    c = solved("grpo-colocated")
    a = c.assignment("q8-grpo", 1)
    plan = c.with_assignment("q8-grpo", 1, roles=[r for r in a.roles if r.role != "reference"])
    assert "roles" in c.rules(plan)


def test_colocated_engine_on_fewer_gpus_is_reported(solved) -> None:
    c = solved("grpo-colocated")
    a = c.assignment("q8-grpo", 1)
    plan = c.with_assignment("q8-grpo", 1, roles=_roles(a, rollout={"gpus": a.gpus[:1]}))
    assert "roles" in c.rules(plan)


def test_placement_the_run_does_not_allow_is_reported(solved) -> None:
    c = solved("grpo-colocated")
    violations = c.verify(c.with_assignment("q8-grpo", 1, placement="separate"))
    assert any(v.rule == "roles" and "the run allows colocated" in str(v) for v in violations)


def test_engine_sharing_the_training_gpus_of_a_separate_copy_is_reported(solved) -> None:
    c = solved("ppo-separate")
    a = c.assignment("l8-ppo", 1)
    train = next(r.gpus for r in a.roles if r.role == "policy")
    plan = c.with_assignment("l8-ppo", 1, roles=_roles(a, rollout={"gpus": train}))
    assert "roles" in c.rules(plan)


def test_understated_role_memory_is_reported(solved) -> None:
    c = solved("ppo-separate")
    a = c.assignment("l8-ppo", 1)
    for role in ("reference", "reward", "critic", "rollout", "policy"):
        plan = c.with_assignment("l8-ppo", 1, roles=_roles(a, **{role: {"memory_gb": 1.0}}))
        found = [str(v) for v in c.verify(plan) if v.rule == "role-memory"]
        assert found and found[0].startswith(f"role-memory: run l8-ppo copy 1: {role} 1 GB per GPU"), role


def test_roles_on_a_supervised_copy_are_reported(solved) -> None:
    c = solved("first-project")
    policy = RoleOnGpus(role="policy", gpus=[0], memory_gb=10.0)
    assert c.rules(c.with_assignment("llama8b-qlora", 1, roles=[policy])) == {"roles"}


def test_engine_share_too_small_for_its_weights(solved) -> None:
    c = solved("grpo-colocated")
    # The plan's engine takes 40 % of each H200 NVL; a 5 % share (7 GB) cannot hold 16 GB of weights.
    violations = c.verify(workload=_workload(c.workload, memory_fraction=0.05))
    assert any(v.rule == "rollout-memory" and "its share is 7.05 GB" in str(v) for v in violations)


def test_roles_overfilling_a_gpu(solved) -> None:
    c = solved("grpo-colocated")
    # A 95 % engine share beside the policy and reference overfills every colocated GPU.
    violations = [str(v) for v in c.verify(workload=_workload(c.workload, memory_fraction=0.95))]
    assert any(v.startswith("role-memory: run q8-grpo copy 1: GPU 0 holds") for v in violations)
    assert any(v.startswith("gpu-memory: run q8-grpo copy 1") for v in violations)


def test_disk_without_the_critics_checkpoints_is_reported(solved) -> None:
    c = solved("ppo-separate")
    a = c.assignment("l8-ppo", 1)
    plan = c.with_assignment("l8-ppo", 1, nvme_gb=round(a.nvme_gb - 100, 2))
    assert "sizing-report" in c.rules(plan)


def test_multinode_copy_lists_one_servers_gpus_per_role(solved) -> None:
    c = solved("grpo-multinode")
    a = c.assignment("l70-grpo", 1)
    assert a.multinode and a.placement == "colocated"
    assert all(r.gpus == a.gpus for r in a.roles)
    assert {r.role for r in a.roles} == {"policy", "reference", "rollout"}
    assert c.verify() == []
    plan = c.with_assignment("l70-grpo", 1, roles=_roles(a, reference={"memory_gb": 1.0}))
    assert "role-memory" in c.rules(plan)


def test_colocated_phases_take_turns_on_a_gpu(solved) -> None:
    c = solved("grpo-colocated")
    a = c.assignment("q8-grpo", 1)
    card = c.catalogue.gpu("h200-nvl").memory_gb
    # A 58 % engine share: summed with the policy and reference it would overfill each GPU, but the
    # engine sleeps while they train and their activations are freed while it generates.
    share = round(0.58 * card, 2)
    plan = c.with_assignment("q8-grpo", 1, roles=_roles(a, rollout={"memory_gb": share}))
    workload = _workload(c.workload, memory_fraction=0.58)
    assert sum(r.memory_gb for r in plan.assignments[0].roles) > card
    violations = [str(v) for v in c.verify(plan, workload=workload) if v.rule == "role-memory"]
    assert violations == []
    # Without sleep mode the engine keeps its share while the policy trains: the sum is the peak again.
    rollout = c.catalogue.rollout.model_copy(update={"engine_in_training": "everything"})
    awake = c.catalogue.model_copy(update={"rollout": rollout})
    violations = [str(v) for v in c.verify(plan, workload=workload, catalogue=awake)]
    assert any(v.startswith("role-memory: run q8-grpo copy 1: GPU 0 holds") for v in violations)


def test_the_role_rules_alone_find_a_missing_reference(solved) -> None:
    c = solved("grpo-colocated")
    a = c.assignment("q8-grpo", 1)
    assert c.alone(role_rules) == set()
    plan = c.with_assignment("q8-grpo", 1, roles=[r for r in a.roles if r.role != "reference"])
    assert "roles" in c.alone(role_rules, plan)


@pytest.mark.parametrize(
    ("case", "run_name", "roles"),
    [
        ("grpo-colocated", "q8-grpo", {"policy", "reference", "rollout"}),  # full policy: a reference
        ("ppo-separate", "l8-ppo", {"policy", "reference", "rollout", "critic", "reward"}),  # reward named
        ("dpo-lora", "l70-dpo", {"policy"}),  # an adapter: its base is the reference
    ],
)
def test_the_roles_a_copy_must_list_follow_the_algorithms_declaration(
    solved, case: str, run_name: str, roles: set[str]
) -> None:
    c = solved(case)
    run = next(r for r in c.workload.runs if r.name == run_name)
    assert (
        needed_roles(c.catalogue.methods, run) == roles == {r.role for r in c.assignment(run_name, 1).roles}
    )
