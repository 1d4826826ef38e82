"""`ftopt estimate` on RL layouts that cannot train and on many runs (issue 26): an option with no
speed says why instead of dividing by zero, and options are made and written run by run."""

from __future__ import annotations

import io
import json
from pathlib import Path

import ftopt.model.estimate as estimate_module
from ftopt.catalogue import load_catalogue
from ftopt.cli.estimate import run_record, write_runs_json
from ftopt.model.estimate import estimate, iter_estimates
from ftopt.reading.workload_file import load_workload
from tests.commands import invoke, write

ROOT = Path(__file__).resolve().parents[2]
GRPO = ROOT / "examples" / "grpo-32b.yaml"


def test_an_rl_layout_with_no_speed_says_why_in_every_format():
    table = invoke("estimate", GRPO)
    assert table.exit_code == 0, repr(table.exception)
    assert "rollout engine cannot hold" in " ".join(table.stdout.split())
    data = invoke("estimate", GRPO, "--format", "json")
    assert data.exit_code == 0, repr(data.exception)
    options = json.loads(data.stdout)["runs"][0]["options"]
    stalled = [o for o in options if o["no_speed"]]
    assert stalled and all(o["tokens_per_s"] is None and o["hours"] is None for o in stalled)
    assert all(o["tokens_per_s"] > 0 and o["hours"] > 0 for o in options if not o["no_speed"])


def test_the_streamed_json_is_what_one_document_would_be(tmp_path: Path):
    catalogue = load_catalogue()
    workload = load_workload(ROOT / "examples" / "several-teams.yaml", catalogue)
    runs = estimate(workload, catalogue)
    out = io.StringIO()
    write_runs_json(iter(runs), out)
    assert json.loads(out.getvalue()) == {"runs": [run_record(r) for r in runs]}
    assert out.getvalue().count("\n") == len(runs) + 2  # the opening line, one line per run, the closing one
    empty = io.StringIO()
    write_runs_json([], empty)
    assert json.loads(empty.getvalue()) == {"runs": []}


def test_options_are_made_only_when_their_run_is_asked_for(monkeypatch, tmp_path: Path):
    catalogue = load_catalogue()
    path = write(
        tmp_path,
        """\
        hardware: {gpus: [l40s]}
        runs:
          - {name: a, model: qwen3-8b, method: lora}
          - {name: b, model: qwen3-8b, method: qlora}
          - {name: c, model: qwen3-8b, method: lora, seq_len: 8192}
        """,
    )
    workload = load_workload(path, catalogue)
    profiled: list[str] = []
    real = estimate_module.profile_run
    monkeypatch.setattr(
        estimate_module, "profile_run", lambda run, cat: profiled.append(run.name) or real(run, cat)
    )
    runs = iter_estimates(workload, catalogue)
    assert profiled == []
    first = next(runs)
    assert first.profile.run.name == "a" and profiled == ["a"]
    assert [r.profile.run.name for r in runs] == ["b", "c"] and profiled == ["a", "b", "c"]


def test_a_time_limit_lists_the_runs_it_left_out(tmp_path: Path):
    path = write(
        tmp_path,
        """\
        hardware: {gpus: [l40s]}
        runs:
          - {name: a, model: qwen3-8b, method: lora}
          - {name: b, model: qwen3-8b, method: qlora}
        """,
    )
    # The limit counts from the process start; a test process started long before: nothing is made.
    data = invoke("estimate", path, "--format", "json", "--time-limit", "0.1")
    assert data.exit_code == 0, repr(data.exception)
    document = json.loads(data.stdout)
    assert document["runs"] == [] and document["not_estimated"] == ["a", "b"]
    table = invoke("estimate", path, "--time-limit", "0.1")
    assert "2 run(s) not estimated within --time-limit 0.1 s: a, b" in " ".join(table.stdout.split())
    unlimited = json.loads(invoke("estimate", path, "--format", "json").stdout)
    assert [r["run"] for r in unlimited["runs"]] == ["a", "b"] and "not_estimated" not in unlimited
