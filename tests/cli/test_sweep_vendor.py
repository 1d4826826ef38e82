"""`ftopt sweep-report` on the results of a vendor's catalogue (issue 26): every format works and
classes the vendor's card and chassis by what the plan says they are, not as "other"."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from ftopt.quote.sweep import KIND_COLOURS
from ftopt.sweep.report import kind_labels
from tests.commands import invoke
from tests.sweep.support import ROOT, write

VENDOR = ROOT / "examples" / "vendor"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vendor")
    output = folder / "results.jsonl"
    grid = write(folder, "cross:\n  site.inlet_c: [25, 30]\n")
    result = invoke(
        "sweep", VENDOR / "l4-bid.yaml", "--catalogue", VENDOR / "catalogue", "--grid", grid,
        "-o", output, "--jobs", "1", "--time-limit", "5",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return output


def test_the_csv_report_classes_the_vendors_card_and_chassis(results: Path):
    result = invoke("sweep-report", results, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 2
    for row in rows:
        assert float(row["cost_gpus"]) > 0 and float(row["cost_chassis"]) > 0
        assert row["cost_other"] == ""
        parts = sum(float(row[f"cost_{label.lower()}"] or 0) for label in kind_labels())
        assert parts == pytest.approx(float(row["total_price"]))


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_every_report_format_renders_a_vendor_catalogues_results(results: Path, fmt: str):
    result = invoke("sweep-report", results, "--format", fmt)
    assert result.exit_code == 0, repr(result.exception)
    assert "GPUs" in result.stdout and "optimal" in result.stdout


def test_every_kind_label_has_a_colour():
    assert len(KIND_COLOURS) >= len(kind_labels())
