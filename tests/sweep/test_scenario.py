"""One scenario: the edit applied to the workload, validated like a file, solved into one record."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ftopt.errors import InputError
from ftopt.model.workload import Workload
from ftopt.sweep.grid import scenario_key
from ftopt.sweep.runner import prepare, with_deadline
from ftopt.sweep.scenario import (
    INVALID,
    MIN_SCENARIO_S,
    NOT_RUN,
    SCENARIO_SEARCH_SHARE,
    Scenario,
    apply_values,
    edited_workload,
    search_left,
    solve_scenario,
)
from tests.sweep.support import WORKLOAD, six_scenarios, write


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory):
    return six_scenarios(tmp_path_factory.mktemp("grid")).context


def scenario(values: dict) -> Scenario:
    return Scenario(scenario_key(values), 0, values)


def copies(data: dict) -> dict[str, int]:
    return {run["name"]: run["concurrent"] for run in data["runs"]}


def test_scale_multiplies_every_run_rounding_up_at_least_one(context):
    assert copies(apply_values(context.workload, {"scale": 2.5})) == {"llama70b-lora": 3, "llama8b-qlora": 3}
    assert copies(apply_values(context.workload, {"scale": 0.1})) == {"llama70b-lora": 1, "llama8b-qlora": 1}
    # set first, then scaled: 10 × 0.3 is 3 copies (binary floating point would round it up to 4)
    edited = apply_values(context.workload, {"runs.llama8b-qlora.concurrent": 10, "scale": 0.3})
    assert copies(edited)["llama8b-qlora"] == 3


def test_edits_reach_their_field_and_leave_the_base_alone(context):
    before = json.dumps(context.workload, sort_keys=True)
    edited = apply_values(
        context.workload,
        {"site.feed": "230v-32a", "hardware.gpus": ["h200-nvl"], "runs.llama70b-lora.seq_len": 8192},
    )
    workload = Workload.model_validate(edited)
    assert workload.site.feed == "230v-32a" and workload.hardware.gpus == ("h200-nvl",)
    assert workload.runs[0].seq_len == 8192
    assert json.dumps(context.workload, sort_keys=True) == before


@pytest.mark.parametrize(
    ("values", "field", "expected"),
    [
        ({"site.inlet_c": 99}, "site.inlet_c", "less than or equal to 60"),
        ({"runs.llama70b-lora.deadline_hours": -1}, "runs[0].deadline_hours", "greater than 0"),
        ({"objective": "fastest"}, "objective", "expected 'price' or 'tco'"),
        ({"hardware.gpus": ["no-such-card"]}, "hardware.gpus[0]", "unknown card 'no-such-card'"),
        ({"site.feed": "mains"}, "site.feed", "unknown feed 'mains'"),
    ],
)
def test_a_bad_value_names_the_field_like_a_file_error(context, values, field, expected):
    with pytest.raises(InputError) as caught:
        edited_workload(context, values, context.catalogues[""])
    assert caught.value.field == field
    assert expected in caught.value.expected


def test_a_bad_value_is_recorded_with_its_error_not_raised(context):
    record = solve_scenario(context, scenario({"runs.llama70b-lora.deadline_hours": -1}))
    assert record["status"] == INVALID
    assert record["error"].startswith("runs[0].deadline_hours: ")
    assert "greater than 0" in record["error"]
    assert record["plan"] is None and record["total_price"] is None


def test_a_solved_scenario_records_the_plan_and_its_figures(context):
    record = solve_scenario(context, scenario({"site.feed": "230v-16a"}))
    assert record["status"] == "optimal"
    assert record["total_price"] == record["plan"]["total_price"] == 128420.0
    assert record["servers"] == len(record["plan"]["servers"]) == 2
    assert record["bound"] == 128420.0 and record["gap"] == 0
    assert record["makespan_hours"] is None  # no speed model yet
    assert record["wall_seconds"] > 0 and record["scenario"] == {"site.feed": "230v-16a"}
    assert all("copy" in a for a in record["plan"]["assignments"])  # the plan's documented JSON


def test_an_impossible_scenario_records_why(context):
    record = solve_scenario(context, scenario({"scale": 2, "site.max_servers": 1, "site.feed": "230v-16a"}))
    assert record["status"] == "infeasible" and record["plan"] is None
    assert record["reasons"][0]["kind"] == "conflict" and "max_servers" in record["reasons"][0]["text"]


def test_a_price_list_value_solves_against_that_list(tmp_path: Path):
    cheap = tmp_path / "cheap.yaml"
    cheap.write_text(
        "prices:\n  - {item: rtx-pro-6000-se, amount: 1000, currency: USD, date: '2026-01-01', "
        "source: test}\n"
    )
    plan = prepare(WORKLOAD, write(tmp_path, "cross:\n  prices: [cheap.yaml]\n"), time_limit=20)
    record = solve_scenario(plan.context, plan.scenarios[0])
    lines = [line for s in record["plan"]["servers"] for line in s["bill_of_materials"]]
    card = next(line for line in lines if line["item"] == "rtx-pro-6000-se")
    assert card["unit_price"] == 1000


def test_a_scenario_searches_its_share_of_what_is_left_or_is_not_run(tmp_path: Path) -> None:
    plan = six_scenarios(tmp_path, time_limit=20)
    assert search_left(plan.context) == 20  # no end: the share as given
    context = with_deadline(plan, time.time()).context
    assert context.budget_s == 20 and context.ends_at is not None
    assert search_left(replace(context, time_limit=2)) == 2  # far from the end: its share
    near = replace(context, ends_at=time.time() + 1.0)
    assert search_left(near) == pytest.approx(SCENARIO_SEARCH_SHARE, abs=0.05)  # the share of what is left
    spent = replace(context, ends_at=time.time() + MIN_SCENARIO_S)
    assert search_left(spent) is None
    record = solve_scenario(spent, plan.scenarios[0])
    assert record["status"] == NOT_RUN and record["total_price"] is None and record["plan"] is None
    assert record["error"].startswith("not run: budget spent (--time-limit 20 s for the whole sweep)")
