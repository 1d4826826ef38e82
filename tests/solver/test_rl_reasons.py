"""An RL bid whose rollout engine cannot hold its weights in its memory share is infeasible for that
reason, and the answer says so (exit 3 with the true reason, not a misleading memory figure)."""

from __future__ import annotations

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Status
from ftopt.model.workload import Workload
from ftopt.solver.solve import SolveSettings, solve


def test_engine_share_too_small_is_the_stated_reason() -> None:
    run = {
        "name": "r",
        "model": "qwen3-32b",
        "method": "grpo",
        "adapter": "lora",
        "gpus": 2,
        "rollout": {"placement": "colocated", "memory_fraction": 0.1},
    }
    workload = Workload.model_validate({"runs": [run], "hardware": {"gpus": ["h200-nvl"]}})
    result = solve(workload, load_catalogue(), SolveSettings(time_limit=10, workers=2))
    assert result.status == Status.INFEASIBLE
    (reason,) = [r.text for r in result.reasons if r.subject == "r"]
    assert "colocated engine whose share cannot hold its weights and one sequence" in reason
    assert reason.endswith("allow gpus auto or a larger rollout memory_fraction")
    roomy = {**run, "rollout": {"placement": "colocated", "memory_fraction": 0.5}}
    fits = Workload.model_validate({"runs": [roomy], "hardware": {"gpus": ["h200-nvl"]}})
    assert solve(fits, load_catalogue(), SolveSettings(time_limit=10, workers=2)).status == Status.OPTIMAL
