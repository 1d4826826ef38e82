"""Sweeps over racked and queued workloads (issue 26): the edit adds nothing the user did not write,
rack and queue fields have grid paths, and a grid whose every scenario is invalid is an error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.errors import InputError
from ftopt.reading.workload_file import load_workload
from ftopt.sweep.grid import grid_schema, load_grid
from ftopt.sweep.runner import prepare
from ftopt.sweep.scenario import apply_values
from tests.commands import invoke
from tests.sweep.support import ROOT, lines, write

RACKS = ROOT / "examples" / "two-racks.yaml"
QUEUE = ROOT / "examples" / "monthly-queue.yaml"


@pytest.mark.parametrize(
    ("workload", "grid"),
    [
        (RACKS, "cross:\n  site.inlet_c: [25, 27]\n  site.racks[1].feeds[0]: [400v-3p-16a, 230v-32a]\n"),
        (QUEUE, "cross:\n  queue.horizon_hours: [400, 720]\nzip:\n  scale: [1]\n"),
    ],
    ids=["racks", "queue"],
)
def test_racked_and_queued_examples_sweep_to_plans(tmp_path: Path, workload: Path, grid: str):
    output = tmp_path / "results.jsonl"
    result = invoke(
        # --time-limit is the whole sweep's: two scenarios one after the other, 9 s of search each
        "sweep",
        workload,
        "--grid",
        write(tmp_path, grid),
        "-o",
        output,
        "--jobs",
        "1",
        "--time-limit",
        "30",
    )
    assert result.exit_code == 0, result.output
    records = lines(output)
    assert len(records) == len({r["key"] for r in records}) >= 2
    # every scenario has a plan; at 5 s a one-worker sweep may stop before proving the P90 queue
    assert {r["status"] for r in records} <= {"optimal", "feasible"}, [r["error"] for r in records]


def test_a_swept_rack_circuit_and_horizon_reach_the_workload(tmp_path: Path):
    catalogue = load_catalogue()
    racks = prepare(RACKS, write(tmp_path, "cross:\n  site.racks[1].feeds[0]: [230v-32a]\n"))
    edited = apply_values(
        racks.context.workload, {"site.racks[1].feeds[0]": "230v-32a", "site.racks[0].units": 4}
    )
    assert edited["site"]["racks"][1]["feeds"] == ["230v-32a", "400v-3p-16a"]
    assert edited["site"]["racks"][0]["units"] == 4 and "feed" not in edited["site"]
    queue = prepare(QUEUE, write(tmp_path, "cross:\n  queue.horizon_hours: [400]\n"))
    edited = apply_values(queue.context.workload, {"queue.horizon_hours": 400, "scale": 2})
    assert edited["queue"] == {"horizon_hours": 400}
    assert [r["jobs"] for r in edited["runs"]] == [40, 16] and all(
        "concurrent" not in r for r in edited["runs"]
    )
    assert load_workload(QUEUE, catalogue).queue is not None


def test_setting_a_feed_on_a_racked_site_replaces_its_racks(tmp_path: Path):
    plan = prepare(RACKS, write(tmp_path, "cross:\n  site.feed: [230v-32a]\n"))
    edited = apply_values(plan.context.workload, {"site.feed": "230v-32a"})
    assert edited["site"]["feed"] == "230v-32a" and "racks" not in edited["site"]


@pytest.mark.parametrize(
    ("workload", "path", "expected"),
    [
        (RACKS, "site.racks[2].units", "expected a rack index below 2"),
        (RACKS, "site.racks[0].unit", "unknown rack field 'unit' (did you mean 'units'?)"),
        (RACKS, "site.racks[0].feeds[5]", "expected feeds[J] with J below 2"),
        (ROOT / "examples" / "first-project.yaml", "queue.horizon_hours", "applies in queue mode only"),
        (QUEUE, "queue.horizon", "unknown path"),
    ],
)
def test_a_rack_or_queue_path_the_workload_lacks_is_one_grid_error(
    tmp_path: Path, workload: Path, path: str, expected: str
):
    grid = write(tmp_path, f"cross:\n  {path}: [1]\n")
    result = invoke("sweep", workload, "--grid", grid, "-o", tmp_path / "r.jsonl")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"cross.{path}: {expected}" in result.stderr
    with pytest.raises(InputError, match=r"queue|rack|unknown path"):
        load_grid(grid, load_workload(workload, load_catalogue()))


def test_a_sweep_of_only_invalid_scenarios_exits_2_now_and_on_rerun(tmp_path: Path):
    grid, output = write(tmp_path, "cross:\n  site.inlet_c: [99, 98]\n"), tmp_path / "r.jsonl"
    for _ in range(2):
        result = invoke("sweep", RACKS, "--grid", grid, "-o", output, "--jobs", "1")
        assert result.exit_code == 2
        assert "every scenario of the grid is invalid (the first: site.inlet_c:" in result.stderr
    assert len(lines(output)) == 2


def test_the_grid_schema_offers_rack_and_queue_paths():
    lists = grid_schema()["properties"]["cross"]
    assert "queue.horizon_hours" in lists["properties"]
    patterns = lists["patternProperties"]
    assert any(re.match(p, "site.racks[0].units") for p in patterns)
    assert any(re.match(p, "site.racks[1].feeds[0]") for p in patterns)
    assert not any(re.match(p, "site.racks[0].colour") for p in patterns)
