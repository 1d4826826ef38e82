"""`ftopt solve` end to end: formats, exit codes, determinism, and the verifier as a gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from openpyxl import load_workbook

import ftopt.solver.solve as solve_module
from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.model.findings import FindingKind, finding
from ftopt.model.plan import SCHEMA_VERSION, Status
from ftopt.model.result import Result
from ftopt.verify import Violation

EXAMPLE = "examples/first-project.yaml"


def run(*args: str):
    return CliRunner().invoke(cli, ["solve", *args, "--workers", "2"])


def test_json_on_stdout_is_the_plan_and_nothing_else():
    result = run(EXAMPLE, "--format", "json", "--no-what-if")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["status"] == "optimal" and plan["gap"] == 0
    assert {"servers", "assignments", "total_price", "currency", "bound", "wall_seconds"} <= plan.keys()
    assert all("copy" in a for a in plan["assignments"])
    assert result.stderr == ""  # no progress when stderr is not a terminal


def test_deterministic_plans_are_identical_but_for_wall_time():
    outputs = []
    for _ in range(2):
        result = run("examples/several-teams.yaml", "--format", "json", "--deterministic")
        assert result.exit_code == 0, result.output
        plan = json.loads(result.stdout)
        plan.pop("wall_seconds")
        outputs.append(json.dumps(plan, sort_keys=True))
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("fmt", ["yaml", "markdown", "html", "table"])
def test_every_format_writes_a_file(tmp_path: Path, fmt: str):
    target = tmp_path / f"plan.{fmt}"
    result = run(EXAMPLE, "--format", fmt, "-o", str(target), "--no-what-if")
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    assert "rtx-pro-6000-se" in text and "81,840" in text.replace("81840", "81,840")


@pytest.mark.parametrize("fmt", ["markdown", "html", "table"])
def test_the_step_bound_is_named_a_bound_beside_the_speed_model(tmp_path: Path, fmt: str):
    """One step time: the plan's 40 % MFU step figure is shown as the bound it is ("bound s"), never
    as a "step s" beside the speed model's tokens/s that imply another step."""
    target = tmp_path / f"plan.{fmt}"
    result = run(
        "examples/deadline.yaml", "--format", fmt, "-o", str(target), "--no-what-if", "--no-frontier"
    )
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    assert "tok/s" in text or fmt == "html"
    assert "bound s" in text.replace("Bound s", "bound s") and "step s" not in text
    assert "lower bound" in text


@pytest.mark.parametrize("to_file", [False, True])
def test_tables_off_a_terminal_hold_whole_cells(tmp_path: Path, to_file: bool):
    """Piped or written with -o, the table cuts no cell ("llama70b-lo…", "adamw-32b…" before)."""
    target = tmp_path / "plan.txt"
    extra = ["-o", str(target)] if to_file else []
    result = run("examples/deadline.yaml", "--no-what-if", "--no-frontier", *extra)
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8") if to_file else result.stdout
    assert "…" not in text and "llama70b-lora" in text and "adamw-32bit" in text


def test_impossible_bid_exits_3_with_the_reason(tmp_path: Path):
    workload = tmp_path / "hot.yaml"
    workload.write_text(
        "site: {feed: 400v-3p-16a, inlet_c: 33}\nhardware: {gpus: [h200-nvl]}\n"
        "runs: [{name: q, model: llama-3.1-8b, method: qlora}]\n"
    )
    result = run(str(workload))
    assert result.exit_code == 3
    assert result.stderr.count("\n") == 1 and "inlet 33 °C rules out h200-nvl" in result.stderr


def test_time_limit_without_a_plan_exits_4(monkeypatch: pytest.MonkeyPatch):
    def no_plan(*args, **kwargs):
        reason = finding(FindingKind.NO_PLAN, "time-limit", seconds=0.1)
        return Result(status=Status.NO_PLAN_IN_TIME, reasons=(reason,))

    monkeypatch.setattr(solve_module, "solve", no_plan)
    result = run(EXAMPLE)
    assert result.exit_code == 4 and "raise --time-limit" in result.stderr


def test_a_plan_the_verifier_rejects_is_never_printed(monkeypatch: pytest.MonkeyPatch):
    import ftopt.verify

    broken = [Violation("host-ram", "server s1", "768 GB", "≥ 2256 GB")]
    monkeypatch.setattr(ftopt.verify, "verify_plan", lambda *args: broken)
    result = run(EXAMPLE, "--format", "json")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "fails verification" in result.stderr and "host-ram" in result.stderr


def test_what_if_reports_a_saving(tmp_path: Path):
    # Article B's Qwen3.8-27B (docs/reference-figures.md): 32-bit Adam needs eight 96 GB cards,
    # 8-bit Adam fits four. At the example's 4,096 tokens the unchunked loss's backward pass (12 B per
    # logit entry over a 248,320-entry vocabulary) leaves four cards 0.04 GB short; at 2,048 tokens
    # the saving stands.
    workload = tmp_path / "qwen.yaml"
    text = Path("examples/qwen3.8-27b-full.yaml").read_text(encoding="utf-8")
    # Sized as before issue 28 (no margin, 5 % reserve): the what-if mechanism, not the margin, is
    # what this checks.
    pinned = "\nsizing:\n  memory_margin: 0\n  allocator_reserve: 0.05\n"
    workload.write_text(text.replace("seq_len: 4096", "seq_len: 2048") + pinned, encoding="utf-8")
    result = run(str(workload), "--format", "json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["schema_version"] == SCHEMA_VERSION
    (saving,) = [f for f in plan["savings"] if f["subject"] == "8-bit Adam for qwen27b-full"]
    assert saving["kind"] == "saving" and saving["figures"]["saved"] > 0
    assert saving["text"].startswith("8-bit Adam for qwen27b-full would save")


def _written(target: Path, fmt: str) -> str:
    """The text of a written plan; a workbook's cells, one per line."""
    if fmt != "xlsx":
        return target.read_text(encoding="utf-8").replace("&#x27;", "'")
    book = load_workbook(target, data_only=True)
    return "\n".join(str(c.value) for sheet in book.worksheets for row in sheet.iter_rows() for c in row)


@pytest.mark.parametrize("fmt", ["json", "yaml", "markdown", "html", "table", "xlsx"])
def test_a_margin_forced_below_the_measured_error_is_said_in_every_format(tmp_path: Path, fmt: str):
    """sizing.memory_margin: 0 plans both runs of the first project tighter than the error measured
    for their stack and method: each format carries the tight-margin note for each run, and its
    headroom line names the workload as the margin's basis beside the measured error."""
    workload = tmp_path / "tight.yaml"
    text = Path(EXAMPLE).read_text(encoding="utf-8")
    workload.write_text(text + "\nsizing:\n  memory_margin: 0\n", encoding="utf-8")
    target = tmp_path / f"plan.{fmt}"
    result = run(str(workload), "--format", fmt, "-o", str(target), "--no-what-if", "--no-frontier")
    assert result.exit_code == 0, result.output
    out = _written(target, fmt)
    margins = load_catalogue().margins
    assert margins is not None
    lora, qlora = (round(100 * margins.of("hf-fsdp", m)) for m in ("lora", "qlora"))
    assert 0 < lora < qlora  # the pooled error, and hf-fsdp QLoRA's own
    data = json.loads(out) if fmt == "json" else yaml.safe_load(out) if fmt == "yaml" else None
    said = "\n".join(n["text"] for n in data["notes"]) if data is not None else out
    for name in ("llama70b-lora", "llama8b-qlora"):
        assert f"run {name} is planned with the workload's 0% memory margin, tighter than the" in said
    if data is not None:
        basis = {a["memory_margin_basis"] for a in data["assignments"]}
        assert basis == {"the workload's sizing.memory_margin"}
        measured = {h["run"]: h["measured_percent"] for h in data["summary"]["headroom"]}
        assert measured == {"llama70b-lora": lora, "llama8b-qlora": qlora}
    elif fmt == "xlsx":
        assert "the workload's sizing.memory_margin" in out and f"\n{qlora}\n" in out
    else:
        assert f"0 % (measured {qlora} %)" in out and f"0 % (measured {lora} %)" in out
        assert "(+0%, workload)" in out  # the technical appendix's placement
