"""The benchmark runner still reaches into the product: every phase it times exists, and one small
instance is measured and rendered end to end (no timing asserted).

`python -m benchmarks` skips a phase the product renamed or moved, with a note in the report; this
test is where such a move shows up first.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `benchmarks` is not an installed package; it lives at the repository root
    sys.path.insert(0, str(ROOT))

from benchmarks import run  # noqa: E402
from ftopt.catalogue import load_catalogue  # noqa: E402


def test_every_timed_phase_exists() -> None:
    run.NOTES.clear()
    for _, module, name in (*run.PHASES, ("", *run.MODEL_RUN)):
        assert run._resolve(module, name) is not None, f"{module}.{name}"
    assert not run.NOTES


def test_a_missing_phase_is_a_note_not_a_crash() -> None:
    run.NOTES.clear()
    assert run._resolve("ftopt.solver.search", "no_such_function") is None
    assert run.NOTES and "no_such_function" in run.NOTES[0]
    run.NOTES.clear()


def test_one_instance_measured_and_rendered(tmp_path: Path) -> None:
    args = run.parse(
        [
            "--tiers",
            "seed",
            "--repeats",
            "1",
            "--time-limit",
            "20",
            "--no-cli",
            "--out",
            str(tmp_path / "r.md"),
        ]
    )
    instance = next(i for i in run.discover(["seed"]) if i.name == "seed-06")  # it has heavy copies
    row = run.measure(instance, load_catalogue(), args, {}, lambda _: None)
    assert row is not None
    attempt = row.attempts[0]
    assert attempt.status == "optimal"
    assert attempt.violations == 0
    assert attempt.models and attempt.models[0]["status"] == "optimal"
    assert set(attempt.phases) >= {"build_problem", "build_formulation", "_tie_break", "decode", "build_plan"}
    assert row.heavy_copies > 0 and row.heavy_classes > 0 and row.heavy_configs > 0
    assert row.naive is not None and row.naive["status"] == "optimal"
    assert not row.flags
    text = run.render([row], args, run.machine(), None, [], None)
    assert "## Formulation" in text and "| seed-06 |" in text
