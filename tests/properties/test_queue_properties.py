"""Queue mode on generated workloads: the queue bid is never above the peak bid of the same jobs, and
every queue plan keeps its jobs apart on each GPU and inside their windows (issue 20).

The peak bid (every job at once, each within its window's length) is a valid queue schedule, so a
queue bid above it would be a solver fault. Plans are verified inside `solve`; the GPU and window
checks here are a third reading of the schedule, from the plan alone.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from ftopt.model.findings import FindingKind
from ftopt.model.plan import Plan, Status
from ftopt.solver.problem.queue import peak_workload
from ftopt.solver.solve import SolveSettings, solve
from tests.properties.support import outcome, price_cents
from tests.strategies import CATALOGUE, dump, to_workload, workload_dicts

TOKENS = (10**7, 10**8, 10**9)
HORIZONS = (48, 168, 720)
#: Of the examples drawn, at least this many must reach the price comparison (both bids proven).
MIN_COMPARED = 5
#: Small bids: a queue solve proves or stops well within this.
QUEUE_SETTINGS = SolveSettings(time_limit=4, workers=2)


@st.composite
def _queued(draw: st.DrawFn) -> dict[str, Any]:
    """A small workload turned into a queue bid: each run's copies become jobs, with tokens and,
    sometimes, a window inside the horizon."""
    data = draw(workload_dicts(max_runs=2, max_concurrent=3))
    horizon = draw(st.sampled_from(HORIZONS))
    data["queue"] = {"horizon_hours": horizon}
    for run in data["runs"]:
        run["jobs"] = run.pop("concurrent", 1) * draw(st.integers(1, 3))
        run["train_tokens"] = draw(st.sampled_from(TOKENS))
        run.pop("deadline_hours", None)
        if draw(st.booleans()):
            release = draw(st.sampled_from((0, horizon // 4)))
            run["release_hours"] = release
            run["deadline_hours"] = release + draw(st.sampled_from((horizon // 2, horizon - release)))
    return data


def _jobs_apart_and_in_windows(plan: Plan, data: dict[str, Any]) -> None:
    windows = {r["name"]: (r.get("release_hours", 0), r.get("deadline_hours", 1e18)) for r in data["runs"]}
    horizon = data["queue"]["horizon_hours"]
    held: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for job in plan.schedule:
        early, late = windows[job.run]
        assert early - 1e-6 <= job.start_hours < job.end_hours <= min(late, horizon) + 1e-6
        for node in job.nodes or []:
            assert node.gpus
        for gpu in job.gpus:
            for a, b in held.get((job.server, gpu), []):
                assert job.end_hours <= a + 1e-6 or b <= job.start_hours + 1e-6
            held.setdefault((job.server, gpu), []).append((job.start_hours, job.end_hours))


def test_the_queue_bid_is_never_above_the_peak_bid() -> None:
    compared: list[int] = []

    @settings(max_examples=16, deadline=None)
    @given(_queued())
    def check(data: dict[str, Any]) -> None:
        note(dump(data))
        workload = to_workload(data)
        result = solve(workload, CATALOGUE, QUEUE_SETTINGS)
        if result.reasons and all(r.kind == FindingKind.QUEUE_HEAVY for r in result.reasons):
            event("heavy runs only: no queue plan")
            return
        queued = result.plan
        event(f"queue: {result.status.value}")
        peak = outcome(peak_workload(workload))
        if queued is not None:
            _jobs_apart_and_in_windows(queued, data)
        if peak is None or peak.status != Status.OPTIMAL:
            return
        assert queued is not None, "the peak plan is a queue plan, so the queue bid has one"
        assert price_cents(queued) <= price_cents(peak)
        compared.append(1)

    check()
    assert len(compared) >= MIN_COMPARED, f"only {len(compared)} examples compared the two bids"
