"""Spare servers: each copy over several servers brings its run's hot spares, bought, on its fabric,
and its hours with failures count them (ftopt.model.failures.restart_hours)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.plan import Plan
from ftopt.model.workload import Workload
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

CATALOGUE = load_catalogue()
SETTINGS = SolveSettings(time_limit=10, workers=1)


def _plan(spares: int, **run: Any) -> Plan:
    wide = {"name": "wide-full", "model": "llama-3.1-8b", "method": "full", "gpus": 16,
            "train_tokens": 20_000_000, "spares": spares, **run}  # fmt: skip
    workload = Workload.model_validate({"runs": [wide], "site": {"feed": "400v-3p-32a", "inlet_c": 25}})
    return solve(workload, CATALOGUE, SETTINGS).plan_or_raise()  # verified, or it raises


def test_a_spare_is_one_more_server_of_the_copys_build_in_the_price_and_the_fabric() -> None:
    bare, spared = _plan(0), _plan(1)
    (a,) = spared.assignments
    assert a.multinode and len(a.spares) == 1 and not bare.assignments[0].spares
    spare = next(s for s in spared.servers if s.id == a.spares[0])
    node = next(s for s in spared.servers if s.id == a.nodes[0].server)
    assert (spare.chassis, spare.gpu, spare.nic_count, spare.price) == (
        node.chassis,
        node.gpu,
        node.nic_count,
        node.price,
    )
    assert len(spared.servers) == len(bare.servers) + 1
    fabric = spared.fabric.price if spared.fabric else 0.0
    bare_fabric = bare.fabric.price if bare.fabric else 0.0
    assert spared.total_price - fabric == pytest.approx(bare.total_price - bare_fabric + spare.price)
    assert spared.fabric is not None and spared.fabric.nic_ports > (
        bare.fabric.nic_ports if bare.fabric else 0
    )


def test_the_spare_shortens_the_hours_with_failures() -> None:
    bare, spared = _plan(0).assignments[0], _plan(1).assignments[0]
    assert bare.hours == spared.hours and bare.hours is not None
    assert spared.restart_hours is not None and bare.restart_hours is not None
    assert spared.restart_hours < bare.restart_hours / 10  # no wait for a 48 h repair
    assert spared.hours_with_failures is not None and bare.hours_with_failures is not None
    assert spared.hours_with_failures < bare.hours_with_failures
    assert spared.hours_p90_without_spares == pytest.approx(bare.hours_p90, rel=1e-6)


def test_a_copy_on_one_server_takes_no_spare_and_the_plan_says_so() -> None:
    plan = _plan(1, gpus="auto")
    assert all(not a.multinode and not a.spares for a in plan.assignments)
    note = next(n for n in plan.notes if n.subject == "spares")
    assert note.figures["one_server"] == ["wide-full"] and "take none" in note.text


def test_the_spare_pays_for_itself_when_the_deadline_holds_only_with_it() -> None:
    """examples/spares-70b.yaml: at 48 h (P90) on B200 only, two servers and a spare beat four servers."""
    path = Path(__file__).resolve().parents[2] / "examples" / "spares-70b.yaml"
    workload = load_workload(path, CATALOGUE)
    spared = solve(workload, CATALOGUE, SETTINGS).plan_or_raise()
    bare_run = workload.runs[0].model_copy(update={"spares": 0})
    bare = solve(workload.model_copy(update={"runs": (bare_run,)}), CATALOGUE, SETTINGS).plan_or_raise()
    (a,) = spared.assignments
    assert len(a.nodes) == 2 and len(a.spares) == 1 and len(bare.assignments[0].nodes) == 4
    assert a.hours_p90 is not None and a.hours_p90_without_spares is not None
    assert a.hours_p90 <= 48 < a.hours_p90_without_spares  # the deadline holds only with the spare
    assert spared.total_price < bare.total_price
