"""One scenario of a sweep: the base workload edited by the swept values, solved in a worker.

Everything a worker needs travels as plain picklable data: a `SweepContext` (the base workload as
JSON data, the catalogues by price list, the solve settings), sent once per worker process, and a
`Scenario` (its key and values), sent per task. Each edit is validated like a workload file, so a
bad value becomes that scenario's recorded error; the worker returns the record already as one
JSON line, so the parent only appends text.

OR-Tools is imported inside `solve_scenario` only: the command line imports this module to build
tasks without paying for the solver.
"""

from __future__ import annotations

import copy
import json
import math
import os
import signal
import time
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ftopt.errors import FtoptError, InputError
from ftopt.model.hardware import Catalogue
from ftopt.model.plan import Status
from ftopt.model.references import unknown_references
from ftopt.model.result import Result
from ftopt.model.workload import Workload
from ftopt.reading.safe_yaml import validate
from ftopt.reading.workload_file import reference_message
from ftopt.sweep.grid import PRICES, SCALE, rack_path

#: Statuses beyond a solve's own (optimal, feasible, infeasible, no-plan-in-time).
INVALID = "invalid"  # the edited workload failed its input check; `error` says why
FAILED = "failed"  # the worker died (or ftopt failed) on every attempt; `error` says why
NOT_RUN = "not-run"  # the command's --time-limit was spent before the scenario's turn; a rerun runs it

#: The shortest search a scenario is given, seconds (the command's least --time-limit); a scenario
#: whose turn comes with less of the budget left is not run.
MIN_SCENARIO_S = 0.1
#: Share of each scenario's slot its solve is given: the rest is kept for what the solve's limit does
#: not cover (a worker's start-up, reading and editing the bid, the verifier on a big plan): on a
#: 40-run bid of 778 GPUs these took 2-3 s per scenario beside a 3.3 s slot (benchmarks/time-limit.md).
SCENARIO_SEARCH_SHARE = 0.6

#: Test hook: scenario keys (comma-separated) whose worker kills itself with `os._exit` before
#: solving, `FTOPT_SWEEP_TEST_CRASH_TIMES` times in all (default 1), counted by marker files in
#: `FTOPT_SWEEP_TEST_CRASH_DIR`, so that the count holds across processes and backends. Read in the
#: parent when a sweep starts and sent with the context: worker processes (a forkserver's, Ray's)
#: may have been started before the variables were set.
CRASH_ENV = "FTOPT_SWEEP_TEST_CRASH"


@dataclass(frozen=True)
class CrashHook:
    """The test hook's settings, as read from the environment."""

    keys: tuple[str, ...]
    folder: str
    times: int

    @classmethod
    def from_env(cls) -> CrashHook | None:
        """The hook when `FTOPT_SWEEP_TEST_CRASH` is set, else None."""
        keys = os.environ.get(CRASH_ENV, "")
        if not keys:
            return None
        folder = os.environ.get(f"{CRASH_ENV}_DIR", ".")
        return cls(tuple(keys.split(",")), folder, int(os.environ.get(f"{CRASH_ENV}_TIMES", "1")))


@dataclass(frozen=True)
class Scenario:
    """One point of the grid: its stable key, its position, and the swept values."""

    key: str
    index: int
    values: dict[str, Any]


@dataclass(frozen=True)
class SweepContext:
    """What every scenario shares; sent to each worker once."""

    workload: dict[str, Any]  # the fields of the base workload the user set (`exclude_unset`), as JSON data
    workload_name: str
    bid: str  # fingerprint of the base workload and prices: a results file holds one bid only
    catalogues: dict[str, Catalogue]  # "" is the base catalogue; other keys are `prices` values
    time_limit: float  # each scenario's share of the command's budget (`scenario_share`)
    what_if: bool = False
    crash_hook: CrashHook | None = None  # tests only
    budget_s: float | None = None  # the whole command's --time-limit; None: the limit is per scenario
    sharing: str = "each scenario has the whole time limit"  # how the budget was shared, in words
    ends_at: float | None = None  # when the command's budget ends (seconds since the epoch); None: never


def apply_values(base: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The base workload data with the swept values set (and `scale` applied last).

    `base` holds only the fields the user wrote (see `prepare`), so the edit adds nothing the
    workload's own checks would refuse (a default `feed` beside `racks`, `concurrent` in a queue).
    """
    data = copy.deepcopy(base)
    for path, value in values.items():
        if path not in (PRICES, SCALE):
            _set_path(data, path, value)
    if SCALE in values:
        _scale(data, Decimal(str(values[SCALE])))  # 10 × 0.3 is 3, not 3.0000000000000004 rounded up
    return data


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set one swept path (`site.feed`, `runs.NAME.FIELD`, `site.racks[0].units`, …) in `data`."""
    parts = path.split(".")
    if parts[0] == "runs":
        name, key = ".".join(parts[1:-1]), parts[-1]
        run = next((r for r in data["runs"] if r.get("name") == name), None)
        if run is None:
            raise InputError("<scenario>", path, f"no run named {name!r}")
        run[key] = value
    elif len(parts) == 1:
        data[parts[0]] = value
    elif rack_path(path) is not None:
        _set_rack_field(data, path, value)
    else:
        section = data.get(parts[0])
        if not isinstance(section, dict):
            section = data[parts[0]] = {}
        section[parts[1]] = value
        if parts[0] == "site" and parts[1] in _SITE_EITHER:  # a feed replaces racks, racks a feed
            section.pop(_SITE_EITHER[parts[1]], None)


#: `site.feed` and `site.racks` exclude each other: setting one drops the other.
_SITE_EITHER = {"feed": "racks", "racks": "feed"}


def _set_rack_field(data: dict[str, Any], path: str, value: Any) -> None:
    """`site.racks[I].FIELD` or `site.racks[I].feeds[J]`: edit that rack of the base workload."""
    found = rack_path(path)
    assert found is not None
    index, key, item = found
    racks = data.get("site", {}).get("racks") or []
    if index >= len(racks):
        raise InputError("<scenario>", path, f"the workload has {len(racks)} racks")
    rack = racks[index]
    if item is None:
        rack[key] = value
    else:
        rack[key] = list(rack.get(key) or [])
        if item >= len(rack[key]):
            raise InputError("<scenario>", path, f"rack {index} has {len(rack[key])} {key}")
        rack[key][item] = value


def _scale(data: dict[str, Any], factor: Decimal) -> None:
    """Every run's copies times `factor`, rounded up: `jobs` in queue mode, else `concurrent`."""
    key = "jobs" if data.get("queue") is not None else "concurrent"
    for run in data["runs"]:
        copies = run.get(key) or 1
        if isinstance(copies, int) and not isinstance(copies, bool):
            run[key] = max(1, math.ceil(factor * copies))


def edited_workload(context: SweepContext, values: dict[str, Any], catalogue: Catalogue) -> Workload:
    """The scenario's workload, validated like a file; `InputError` names the field otherwise."""
    data = apply_values(context.workload, values)
    try:
        workload = Workload.model_validate(data)
    except ValidationError:
        # Validate again through the file loader's reporting, against a node tree of the edited
        # data, so that the error names the field path the way a file's error does.
        node = yaml.compose(yaml.safe_dump(data, sort_keys=False))
        validate(Workload, data, node, context.workload_name)
        raise  # unreachable: `validate` raised
    for ref in unknown_references(workload, catalogue)[:1]:
        raise InputError(context.workload_name, ref.field, reference_message(ref))
    return workload


def _maybe_crash(key: str, hook: CrashHook | None) -> None:
    """The test hook: die like a killed worker on this scenario's first attempts."""
    if hook is None or key not in hook.keys:
        return
    folder = Path(hook.folder)
    done = len(list(folder.glob(f"{key}.*")))
    if done < hook.times:
        (folder / f"{key}.{done}").touch()
        os._exit(70)


def base_record(scenario: Scenario, bid: str) -> dict[str, Any]:
    """A record with every field present, empty; one shape for every line of the results file."""
    return {
        "key": scenario.key,
        "bid": bid,
        "index": scenario.index,
        "scenario": scenario.values,
        "status": None,
        "total_price": None,
        "currency": None,
        "bound": None,
        "gap": None,
        "servers": None,
        "makespan_hours": None,
        "deadline_confidences": [],
        "horizon_hours": None,
        "proven": False,
        "time_limit_s": None,
        "budget_s": None,
        "sharing": None,
        "wall_seconds": None,
        "cpu_seconds": None,
        "error": None,
        "reasons": [],
        "plan": None,
    }


def failed_record(scenario: Scenario, bid: str, error: str) -> dict[str, Any]:
    """The record of a scenario no worker could finish."""
    return {**base_record(scenario, bid), "status": FAILED, "error": error}


def not_run_record(scenario: Scenario, context: SweepContext) -> dict[str, Any]:
    """The record of a scenario whose turn came after the command's budget was spent."""
    record = {**base_record(scenario, context.bid), "status": NOT_RUN}
    record.update(
        error=f"not run: budget spent (--time-limit {context.budget_s:g} s for the whole sweep); rerun "
        "to solve it",
        budget_s=context.budget_s,
        sharing=context.sharing,
    )
    return record


def search_left(context: SweepContext) -> float | None:
    """The solve time this scenario gets now: its share, or less when the budget's end is nearer
    than its slot (the same search share of what is left); None when that is under the least search
    (`MIN_SCENARIO_S`): the scenario is not run."""
    if context.ends_at is None:
        return context.time_limit
    limit = min(context.time_limit, (context.ends_at - time.time()) * SCENARIO_SEARCH_SHARE)
    return round(limit, 3) if limit >= MIN_SCENARIO_S else None


def solve_scenario(context: SweepContext, scenario: Scenario) -> dict[str, Any]:
    """Edit, validate and solve one scenario; every outcome is a record, none an exception."""
    from ftopt.solver.solve import SolveSettings, solve

    limit = search_left(context)
    if limit is None:
        return not_run_record(scenario, context)
    context = replace(context, time_limit=limit)
    started, cpu = time.perf_counter(), time.process_time()
    record = base_record(scenario, context.bid)
    catalogue = context.catalogues[str(scenario.values.get(PRICES, ""))]
    try:
        workload = edited_workload(context, scenario.values, catalogue)
        settings = SolveSettings(time_limit=context.time_limit, workers=1, what_if=context.what_if)
        result = solve(workload, catalogue, settings, workload_name=workload.name or context.workload_name)
    except InputError as exc:
        field = f"{exc.field}: " if exc.field else ""
        record.update(status=INVALID, error=f"{field}{exc.expected}")
    except FtoptError as exc:
        record.update(status=FAILED, error=str(exc))
    except Exception as exc:  # a bug in ftopt must cost one scenario, not the sweep
        record.update(status=FAILED, error=f"{type(exc).__name__}: {exc}")
    else:
        record.update(_solved_fields(result, catalogue))
    record.update(time_limit_s=context.time_limit, budget_s=context.budget_s, sharing=context.sharing)
    record["wall_seconds"] = round(time.perf_counter() - started, 4)
    # CPU time of the worker process: below the wall time when other processes share the cores.
    record["cpu_seconds"] = round(time.process_time() - cpu, 4)
    return record


def _solved_fields(result: Result, catalogue: Catalogue) -> dict[str, Any]:
    """A finished solve's record fields; those of the plan stay None when the solve found none."""
    plan = result.plan
    fields: dict[str, Any] = {
        "status": str(result.status),
        "total_price": result.price,
        "currency": catalogue.currency,
        "bound": result.bound,
        "gap": result.gap,
        "proven": result.status == Status.OPTIMAL and not result.gap,  # proven only at gap 0
        "reasons": [r.model_dump(mode="json") for r in result.reasons],
    }
    if plan is not None:
        fields.update(
            currency=plan.currency,
            servers=len(plan.servers),
            # the frontier's time axis: each run's hours at its deadline confidence, the figure the
            # quote holds deadlines to (a queue's: its last job's end)
            makespan_hours=plan.confident_finish_hours,
            deadline_confidences=sorted({c for r in plan.runs if (c := r.deadline_confidence) is not None}),
            horizon_hours=plan.horizon_hours,
            plan=plan.model_dump(mode="json", by_alias=True),
        )
    return fields


def record_line(record: dict[str, Any]) -> str:
    """One record as one line of JSON (no newline inside)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# Worker-side entry points. A process-pool worker gets the context once through its initializer;
# a Ray worker caches it by token on first use.

_CONTEXT: SweepContext | None = None
_RAY_CONTEXTS: dict[str, SweepContext] = {}


def init_worker(context: SweepContext) -> None:
    """Process-pool initializer: keep the context; leave Ctrl-C to the parent, which stops the pool."""
    global _CONTEXT
    _CONTEXT = context
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_in_worker(scenario: Scenario) -> tuple[str, str, str]:
    """Process-pool task: (key, status, JSON line)."""
    assert _CONTEXT is not None, "init_worker was not called"
    _maybe_crash(scenario.key, _CONTEXT.crash_hook)
    record = solve_scenario(_CONTEXT, scenario)
    return scenario.key, record["status"], record_line(record)


def run_in_ray(token: str, holder: list[Any], scenario: Scenario) -> tuple[str, str, str]:
    """Ray task: like `run_in_worker`; `holder` wraps the context's object ref, fetched once."""
    if token not in _RAY_CONTEXTS:
        import ray

        _RAY_CONTEXTS.clear()
        _RAY_CONTEXTS[token] = ray.get(holder[0])
    context = _RAY_CONTEXTS[token]
    _maybe_crash(scenario.key, context.crash_hook)
    record = solve_scenario(context, scenario)
    return scenario.key, record["status"], record_line(record)
