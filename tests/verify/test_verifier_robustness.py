"""Absurd plans (built in code, past the JSON schema's checks) give violations, never exceptions or hangs."""

from __future__ import annotations

import math
import time

import pytest

from ftopt.model.plan import MemoryPerGpu


def _absurd(c):
    a = c.assignment("llama8b-qlora", 1)
    nan = math.nan
    return {
        "huge card count": c.with_server(gpu_count=10**9),
        "huge copy": c.with_assignment("llama8b-qlora", 1, gpus=list(range(500))),
        "negative index": c.with_assignment("llama8b-qlora", 1, gpus=[-1]),
        "nan price": c.plan.model_copy(update={"total_price": nan, "gap": nan, "bound": nan}),
        "nan server figures": c.with_server(nvme_tb=nan, max_inlet_c=nan, price=nan),
        "nan memory": c.with_assignment(
            "llama8b-qlora",
            1,
            memory_per_gpu_gb=MemoryPerGpu(states=nan, activations=0, overhead=0, total=nan),
        ),
        "every id unknown": c.with_server(
            chassis="x", gpu="x", cpu="x", dimm="x", data_drive="x", boot_drive="x", bridge="x", feed="x"
        ),
        "no servers": c.plan.model_copy(update={"servers": []}),
        "no assignments": c.plan.model_copy(update={"assignments": []}),
        "copy on a missing server with bad GPUs": c.with_assignment(
            "llama8b-qlora", 1, server="zz", gpus=[a.gpus[0], a.gpus[0], 99]
        ),
    }


@pytest.mark.parametrize(
    "what",
    [
        "huge card count",
        "huge copy",
        "negative index",
        "nan price",
        "nan server figures",
        "nan memory",
        "every id unknown",
        "no servers",
        "no assignments",
        "copy on a missing server with bad GPUs",
    ],
)
def test_absurd_plan_is_rejected_quickly(solved, what: str) -> None:
    c = solved("first-project")
    started = time.perf_counter()
    violations = c.verify(_absurd(c)[what])
    assert violations, what
    assert all(str(v).count("\n") == 0 for v in violations)
    assert time.perf_counter() - started < 5
