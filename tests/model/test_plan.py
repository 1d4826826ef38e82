"""The plan document's types: JSON with the documented names, version 1 read back, copies' nodes."""

from __future__ import annotations

import json

from ftopt.model.plan import SCHEMA_VERSION, Assignment, Plan, Status

COPY = {
    "run": "a",
    "copy": 1,
    "server": "s1",
    "gpus": [0, 1],
    "strategy": "fsdp",
    "optimizer": "adamw-32bit",
    "offload": "none",
    "memory_per_gpu_gb": {"states": 1, "activations": 1, "overhead": 1, "total": 3},
    "free_gb": 1,
    "host_ram_gb": 0,
    "nvme_gb": 0,
    "traffic_gb_per_step": 0,
    "step_seconds": 1,
}


def test_a_single_server_copy_has_one_node() -> None:
    copy = Assignment.model_validate(COPY)
    assert [(n.server, n.gpus) for n in copy.nodes] == [("s1", [0, 1])]
    assert copy.gpu_count == 2 and not copy.multinode


def test_the_json_uses_copy_not_copy_underscore_and_the_current_version() -> None:
    plan = Plan(status=Status.OPTIMAL, currency="USD", total_price=0, bound=0, gap=0, wall_seconds=0)
    plan = plan.model_copy(update={"assignments": [Assignment.model_validate(COPY)]})
    data = json.loads(plan.to_json())
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["assignments"][0]["copy"] == 1 and "copy_" not in data["assignments"][0]


def test_a_version_1_plans_sentences_become_rule_findings() -> None:
    old = {"status": "optimal", "currency": "USD", "total_price": 0, "bound": 0, "gap": 0, "wall_seconds": 0}
    plan = Plan.model_validate({**old, "notes": ["a sentence"]})
    assert plan.schema_version == 1 and plan.notes[0].text == "a sentence"
