"""The sweep benchmark runs end to end on a small grid and reports its figures and targets."""

from __future__ import annotations

from pathlib import Path

from benchmarks.sweep import main


def test_the_sweep_benchmark_reports_rates_and_targets(tmp_path: Path):
    report = tmp_path / "sweep-results.md"
    assert main(["--small", "--no-ray", "--repeats", "1", "--output", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    assert "| local-1 | 1 |" in text and "| local-2 | 2 |" in text
    assert "1 → 2 local workers:" in text and "(target ≥ 1.8×)" in text
    assert "Answers of local-2 that differ from local-1 (status, price, servers): 0." in text
