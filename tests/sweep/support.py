"""Helpers for the sweep tests: a small grid over the first-project bid, and reading results back."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from ftopt.sweep.runner import SweepPlan, prepare

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "first-project.yaml"

#: Six scenarios: three feeds, the bid as it is and at twice its copies on one server position.
#: At twice the copies, the single-phase 16 A feed cannot hold it on one server: infeasible.
SIX = """\
cross:
  site.feed: [230v-16a, 230v-32a, 400v-3p-16a]
zip:
  scale: [1, 2]
  site.max_servers: [1, 1]
"""


def write(folder: Path, text: str, name: str = "grid.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def six_scenarios(folder: Path, time_limit: float = 20.0) -> SweepPlan:
    return prepare(WORKLOAD, write(folder, SIX), time_limit=time_limit)


def lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a results file, parsed (duplicates kept)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def outcome(record: dict[str, Any]) -> tuple[str, float | None, int | None]:
    """What must not depend on the backend: status, price and server count."""
    return record["status"], record["total_price"], record["servers"]
