"""The runner (benchmarks/run.py) writes raw measurements with the keys the report reads, using
only the public API: nothing judged, nothing rendered, no timing asserted."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import run
from benchmarks.suite import discover
from ftopt import load_catalogue

SOLVE_KEYS = {"status", "price", "bound", "gap", "servers", "wall", "timings", "violations", "verify_seconds"}
INSTANCE_KEYS = {
    "name",
    "tier",
    "path",
    "copies",
    "runs",
    "offload_copies",
    "known_optimum",
    "solves",
    "ffd",
    "naive",
}


def test_runner_writes_json_with_the_expected_keys(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    argv = ["--tiers", "example", "--repeats", "1", "--naive-tiers", "", "--no-scaling", "--no-cli"]
    assert run.main([*argv, "--out", str(out)]) == 0
    raw = json.loads(out.read_text())
    assert raw["format"] == run.FORMAT
    assert set(raw) == {"format", "machine", "settings", "instances", "scaling", "workers", "process"}
    assert raw["process"] is None and raw["scaling"] == [] and raw["workers"] == []
    assert raw["settings"]["repeats"] == 1 and raw["settings"]["workers_used"] >= 1
    entry = raw["instances"][0]
    assert set(entry) == INSTANCE_KEYS
    solve = entry["solves"][0]
    assert set(solve) == SOLVE_KEYS
    assert set(solve["timings"]) == {"build", "search", "explain", "verify", "alternatives", "total"}
    assert solve["status"] == "optimal" and solve["violations"] == 0
    assert not any("results.md" in p.name for p in tmp_path.iterdir()), "the runner renders nothing"


def test_one_instance_with_offload_and_the_naive_model() -> None:
    args = run.parse(["--repeats", "1", "--time-limit", "20", "--naive-tiers", "seed"])
    instance = next(i for i in discover(["seed"]) if i.name == "seed-06")  # its full runs may offload
    entry = run.measure_instance(instance, load_catalogue(), args, {}, lambda _: None)
    assert entry is not None
    assert entry["offload_copies"] > 0
    assert entry["solves"][0]["status"] == "optimal"
    assert entry["ffd"]["violations"] == 0 and entry["ffd"]["price"] >= entry["solves"][0]["price"]
    naive = entry["naive"]
    assert (
        naive["status"] == "optimal" and naive["price"] == naive["objective"] == entry["solves"][0]["price"]
    )


def test_benchmarks_import_nothing_of_the_solver() -> None:
    here = Path(run.__file__).parent
    for path in [*here.glob("*.py"), *here.glob("baselines/*.py")]:
        text = path.read_text()
        assert "from ftopt.solver" not in text and "import ftopt.solver" not in text, path.name
