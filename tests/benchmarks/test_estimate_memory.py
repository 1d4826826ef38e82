"""The memory benchmark's workload is a valid bid of the size asked for (the run itself is measured
by `python -m benchmarks.estimate_memory`, not timed here)."""

from __future__ import annotations

from benchmarks.estimate_memory import workload
from ftopt.model.workload import Workload


def test_the_generated_workload_has_that_many_distinct_valid_runs():
    parsed = Workload.model_validate(workload(40))
    assert len(parsed.runs) == 40 and len({r.name for r in parsed.runs}) == 40
    assert len({(r.model, r.method, r.seq_len) for r in parsed.runs}) > 10
