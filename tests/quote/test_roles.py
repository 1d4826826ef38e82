"""The quote lists and draws the roles of RL copies: a line per copy in the table and Markdown, each
GPU's roles in the diagram; `estimate` shows a separate engine's GPUs and lists the roles in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ftopt.catalogue import load_catalogue
from ftopt.cli.main import cli
from ftopt.model.plan import Plan
from ftopt.model.workload import Placement
from ftopt.quote.markdown import render_markdown
from ftopt.quote.roles import gpu_span, role_lines
from ftopt.quote.svg import placement_svg
from ftopt.reading.workload_file import load_workload
from ftopt.solver.solve import SolveSettings, solve

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def grpo_plan() -> Plan:
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "grpo-32b.yaml", catalogue)
    run = workload.runs[0]
    assert run.rollout is not None
    colocated = run.model_copy(
        update={"rollout": run.rollout.model_copy(update={"placement": Placement.COLOCATED})}
    )
    workload = workload.model_copy(update={"runs": (colocated,)})
    return solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()


def test_gpu_spans_read_as_ranges() -> None:
    assert (gpu_span([0, 1, 2, 3]), gpu_span([3]), gpu_span([0, 2])) == ("0-3", "3", "0,2")


def test_markdown_lists_each_copys_roles(grpo_plan: Plan) -> None:
    (line,) = role_lines(grpo_plan)
    assert line.startswith("qwen32b-grpo copy 1 (rollout colocated): policy ")
    (copy,) = grpo_plan.assignments  # eight cards for the example's 40 h deadline
    assert f"rollout 48.0 GB on GPUs {gpu_span(copy.gpus)}" in line and len(copy.gpus) == 8
    text = render_markdown(grpo_plan)
    assert "## Roles (memory per GPU)" in text and f"- {line}" in text


def test_svg_names_each_gpus_roles(grpo_plan: Plan) -> None:
    svg = placement_svg(grpo_plan)
    assert svg.count('data-roles="policy rollout"') == len(grpo_plan.assignments[0].gpus)
    assert "roles: policy, rollout" in svg


def test_supervised_plans_list_no_roles() -> None:
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLES / "first-project.yaml", catalogue)
    plan = solve(workload, catalogue, SolveSettings(time_limit=20, workers=2)).plan_or_raise()
    assert role_lines(plan) == [] and "Roles" not in render_markdown(plan)
    assert "data-roles" not in placement_svg(plan)


def test_estimate_shows_separate_engines_and_lists_roles() -> None:
    table = CliRunner().invoke(cli, ["estimate", str(EXAMPLES / "grpo-8b.yaml")])
    assert table.exit_code == 0 and "grpo (full)" in table.stdout and "1+1" in table.stdout
    result = CliRunner().invoke(cli, ["estimate", str(EXAMPLES / "grpo-8b.yaml"), "--format", "json"])
    options = json.loads(result.stdout)["runs"][0]["options"]
    separate = [o for o in options if o.get("placement") == "separate"]
    assert separate and all(
        {r["role"] for r in o["roles"]} == {"policy", "reference", "rollout"} for o in separate
    )


def test_estimate_gives_a_colocated_layouts_two_phases() -> None:
    result = CliRunner().invoke(cli, ["estimate", str(EXAMPLES / "grpo-8b.yaml"), "--format", "json"])
    options = json.loads(result.stdout)["runs"][0]["options"]
    colocated = [o for o in options if o.get("placement") == "colocated"]
    assert colocated and all(set(o["phases_gb"]) == {"training", "generation"} for o in colocated)
    assert not any("phases_gb" in o for o in options if o.get("placement") != "colocated")
    # The roles listed on a colocated GPU add up to more than its peak: the phases take turns.
    summed = [sum(r["memory_gb"] for r in o["roles"]) for o in colocated]
    peaks = [max(o["phases_gb"].values()) for o in colocated]
    assert all(peak < total for peak, total in zip(peaks, summed, strict=True))
