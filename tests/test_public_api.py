"""The library boundary: what `import ftopt` offers, the `Result` of a solve, and cheap start-up."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import yaml

import ftopt
from ftopt import (
    Catalogue,
    FindingKind,
    InputError,
    Result,
    SolveSettings,
    Status,
    Workload,
    load_catalogue,
    load_workload,
    solve,
    verify_plan,
)

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = SolveSettings(time_limit=10, workers=1)


def _workload(text: str) -> Workload:
    return Workload.model_validate(yaml.safe_load(text))


def test_every_exported_name_resolves_and_the_version_is_the_package_version() -> None:
    from importlib.metadata import version

    for name in ftopt.__all__:
        assert getattr(ftopt, name) is not None, name
    assert ftopt.__version__ == version("ftopt")
    with pytest.raises(AttributeError):
        _ = ftopt.no_such_name


def test_a_solve_returns_a_verified_optimal_result_with_its_phase_timings() -> None:
    catalogue = load_catalogue()
    result = solve(load_workload(ROOT / "examples/first-project.yaml", catalogue), catalogue, SETTINGS)
    assert result.status == Status.OPTIMAL and result.plan is not None and result.verified
    assert result.price == result.plan.total_price and result.gap == 0.0
    assert result.bound is not None and result.bound <= result.price
    t = result.timings
    assert t.build > 0 and t.search > 0 and t.verify > 0
    assert t.build + t.search + t.explain + t.verify <= t.total + 1e-6
    assert (
        verify_plan(result.plan, load_workload(ROOT / "examples/first-project.yaml", catalogue), catalogue)
        == []
    )


def test_an_impossible_bid_is_a_result_with_structured_reasons_not_an_exception() -> None:
    result = solve(
        _workload("""
site: {feed: 400v-3p-16a, inlet_c: 33}
hardware: {gpus: [h200-nvl]}
runs: [{name: q, model: llama-3.1-8b, method: qlora}]
"""),
        load_catalogue(),
        SETTINGS,
    )
    assert result.status == Status.INFEASIBLE and result.plan is None and result.price is None
    inlet = [r for r in result.reasons if r.kind == FindingKind.INLET]
    assert inlet and all(r.subject == "h200-nvl" and r.figures["inlet_c"] == 33 for r in inlet)
    assert inlet[0].figures["limit_c"] < 33
    with pytest.raises(ftopt.InfeasibleError, match="inlet 33 °C rules out h200-nvl"):
        result.plan_or_raise()


def test_a_server_limit_conflict_names_the_runs_and_the_limit_as_figures() -> None:
    text = """
hardware: {gpus: [rtx-pro-6000-se], chassis: [gpu-server-4]}
site: {feed: 400v-3p-16a, inlet_c: 25, max_servers: 2}
runs:
  - {name: lora, model: llama-3.3-70b, method: lora, seq_len: 2048, concurrent: 2}
  - {name: q, model: llama-3.1-8b, method: qlora}
"""
    result = solve(_workload(text), load_catalogue(), SETTINGS)
    (conflict,) = result.reasons
    assert result.status == Status.INFEASIBLE and conflict.kind == FindingKind.CONFLICT
    assert conflict.figures["max_servers"] == 2 and "lora" in conflict.figures["runs"]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("runs: [{name: a, model: no-such-id, method: lora}]", "runs[0].model"),
        ("runs: [{name: a, model: llama-3.1-8b, method: lora, stack: no-such-id}]", "runs[0].stack"),
        ("stack: no-such-id\nruns: [{name: a, model: llama-3.1-8b, method: lora}]", "stack"),
        ("site: {feed: no-such-id}\nruns: [{name: a, model: llama-3.1-8b, method: lora}]", "site.feed"),
    ],
)
def test_an_unknown_catalogue_id_from_library_code_is_an_input_error_naming_the_field(
    text: str, field: str
) -> None:
    with pytest.raises(InputError) as info:
        solve(_workload(text), load_catalogue(), SETTINGS)
    assert info.value.field == field and "no-such-id" in str(info.value)


def test_the_result_and_its_plan_round_trip_through_json() -> None:
    catalogue = load_catalogue()
    result = solve(load_workload(ROOT / "examples/several-teams.yaml", catalogue), catalogue, SETTINGS)
    again = Result.model_validate_json(result.model_dump_json(by_alias=True))
    assert again == result
    assert all(f.text and f.kind for f in again.plan.notes + again.plan.binding)  # type: ignore[union-attr]


def _price_of_first_card(catalogue: Catalogue) -> float:
    return catalogue.price(catalogue.gpus[0].id).amount


def test_the_catalogue_pickles_after_use_and_crosses_a_process_pool() -> None:
    catalogue = load_catalogue()
    catalogue.gpu("h200-nvl")  # fills the lookup cache, which once made it unpicklable
    assert pickle.loads(pickle.dumps(catalogue)) == catalogue
    with ProcessPoolExecutor(max_workers=1) as pool:
        assert pool.submit(_price_of_first_card, catalogue).result() == _price_of_first_card(catalogue)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["frontier", "--help"],
        ["catalogue", "list", "gpus"],
        ["verify", "examples/first-project.yaml", "PLAN"],
    ],
    ids=["help", "frontier-help", "catalogue", "verify"],
)
def test_commands_that_do_not_solve_do_not_import_or_tools(args: list[str], tmp_path: Path) -> None:
    if "PLAN" in args:
        catalogue = load_catalogue()
        plan = solve(load_workload(ROOT / "examples/first-project.yaml", catalogue), catalogue, SETTINGS).plan
        assert plan is not None
        (tmp_path / "plan.json").write_text(plan.to_json())
        args = [str(tmp_path / "plan.json") if a == "PLAN" else a for a in args]
    probe = (
        "import sys\nfrom ftopt.cli.main import cli\n"
        "try:\n    cli(sys.argv[1:], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('ortools', 'pandas') if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"')) == []


def test_estimate_returns_records_without_the_command_line() -> None:
    """`ftopt.estimate` gives typed records (no click, no rendering): the 405B example has options
    over several servers that fit, as the solver finds."""
    catalogue = load_catalogue()
    runs = ftopt.estimate(load_workload(ROOT / "examples/405b-full.yaml", catalogue), catalogue)
    (run,) = runs
    assert isinstance(run, ftopt.RunEstimate)
    fitting = [o for o in run.options if o.sizing.fits]
    assert fitting and all(isinstance(o, ftopt.EstimateOption) and o.servers > 1 for o in fitting)
    probe = "import sys, ftopt.model.estimate; print('click' in sys.modules or 'rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"
