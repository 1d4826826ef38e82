"""Plans the solver returns for small workloads verify clean, read back from their JSON as a user's file."""

from __future__ import annotations

from ftopt.model.plan import Plan
from ftopt.verify import Violation, parse_plan


def test_solved_plan_verifies_clean(solved, case_name) -> None:
    violations = solved(case_name).verify()
    assert violations == [], "\n".join(map(str, violations))


def test_plan_json_round_trip_is_lossless(solved, case_name) -> None:
    c = solved(case_name)
    assert parse_plan(c.json, "plan.json") == c.plan
    assert Plan.model_validate_json(c.plan.to_json()) == c.plan


def test_test_helper_rebuilds_solver_servers_unchanged(solved, case_name) -> None:
    """The tests' `rebuilt` (used to isolate one rule) agrees with the solver on every server."""
    c = solved(case_name)
    for server in c.plan.servers:
        assert c.rebuilt(server) == server


def test_nvlink_cases_have_the_bridges_the_tests_assume(solved) -> None:
    def bridges(name: str) -> list[tuple[int, str | None, int]]:
        return [(s.gpu_count, s.bridge, s.bridge_count) for s in solved(name).plan.servers]

    assert bridges("nvl-qwen32-full") == [(8, "nvlink-h200-4way", 2)]
    assert bridges("nvl-llama70-lora") == [(8, "nvlink-h200-4way", 2)]
    assert bridges("nvl-llama70-lora-2way") == [(8, "nvlink-h200-2way", 4)]
    assert bridges("nvl-llama70-full") == [(8, "nvlink-h200-4way", 2)]


def test_violation_reads_as_one_line() -> None:
    v = Violation("host-ram", "server s2", "768 GB", "needs ≥ 1128 GB (2 × 564 GB GPU memory)")
    assert str(v) == "host-ram: server s2: 768 GB, needs ≥ 1128 GB (2 × 564 GB GPU memory)"
    assert str(Violation("status", "plan", "status infeasible", "")) == "status: plan: status infeasible"
