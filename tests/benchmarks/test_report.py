"""The report (benchmarks/report.py) renders results.json deterministically and judges the
targets from it: a small fixture, no solving."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import judge, report

FIXTURE = Path(__file__).parent / "fixtures" / "results.json"


@pytest.fixture
def raw() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def test_render_is_deterministic_and_shows_every_section(raw: dict[str, Any]) -> None:
    text = report.render(raw, "results.png")
    assert text == report.render(copy.deepcopy(raw), "results.png")
    for heading in (
        "## Targets",
        "## Solver checks",
        "## Per instance",
        "## Copies at a fixed run mix",
        "## Worker count",
        "## Whole process",
        "## Method",
        "![solve time and gap](results.png)",
    ):
        assert heading in text, heading
    assert "| seed-02 | 5 | 4 | 0 | optimal | 163,680 | 163,680 | 0.00 % |" in text
    assert "| 164,500 (3) | 0.995 | optimal 163,680 in 0.103 s |" in text
    assert "found every plan valid" in text


def test_targets_judged_from_the_fixture(raw: dict[str, Any]) -> None:
    verdicts = {t: v for t, _, v in judge.targets(raw)}
    assert verdicts["seed-sized: proven optimal, median solve < 0.2 s"] == "met"
    assert verdicts["whole `ftopt solve` process < 1.5 s"] == "met"
    assert verdicts["xl: time nearly flat in copies (same runs, copies scaled)"] == "met"
    assert verdicts["price ≤ FFD on every instance; mean and max saving"] == "met"
    assert verdicts["large (500 copies): proven optimal within 2 s"] == "–"


def test_a_slow_seed_solve_and_a_price_above_ffd_are_reported(raw: dict[str, Any]) -> None:
    entry = raw["instances"][0]
    for s in entry["solves"]:
        s["wall"] = 0.5
    entry["ffd"]["price"] = 100_000.0
    verdicts = {t: v for t, _, v in judge.targets(raw)}
    assert verdicts["seed-sized: proven optimal, median solve < 0.2 s"].startswith("MISSED: seed-02 0.500 s")
    assert verdicts["price ≤ FFD on every instance; mean and max saving"].startswith("MISSED")
    text = report.render(raw, None)
    assert "- **seed-02**: bound 163,680 > FFD 100,000; price 163,680 > FFD 100,000 (optimal)" in text
    assert "![solve time" not in text


def test_another_format_is_refused(raw: dict[str, Any]) -> None:
    raw["format"] = 99
    with pytest.raises(ValueError, match="format 99"):
        report.render(raw, None)


def test_write_draws_the_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    report.write(FIXTURE, tmp_path / "results.md", log=lambda _: None)
    assert (tmp_path / "results.png").stat().st_size > 0
    assert "results.png" in (tmp_path / "results.md").read_text()


def test_other_reports_tables_are_repeated_each_opened_by_a_blank_line(tmp_path) -> None:
    from benchmarks.report import other_reports

    (tmp_path / "robustness.md").write_text(
        "# Robustness\n\nsome words\n| a | b |\n|---|---|\n| 1 | 2 |\nmore words\n| c |\n|---|\n| 3 |\n"
    )
    lines = other_reports(tmp_path)
    assert lines[1].startswith("## Robustness tiers")
    tables = [i for i, line in enumerate(lines) if line in ("| a | b |", "| c |")]
    assert len(tables) == 2 and all(lines[i - 1] == "" for i in tables)
    assert "some words" not in lines and "| 3 |" in lines
    assert not any("Multi-node" in line for line in lines)  # only reports that exist


def test_an_ffd_plan_that_breaks_a_rule_is_no_baseline() -> None:
    from benchmarks import judge

    valid = {"ffd": {"price": 100.0, "violations": 0}}
    broken = {"ffd": {"price": 50.0, "violations": 1}}  # e.g. first-fit ignored a deadline
    assert judge.ffd_price(valid) == 100.0 and judge.ffd_price(broken) is None
