"""Owning exactly the servers of a plan on GPU slices buys nothing more (issue 36, item 8).

Before: owned cards were never sliced, so owning the two servers of examples/mig-qlora-8b.yaml's
plan (USD 128,420, twenty copies on 1g.24gb instances) still bought another server: USD 81,840.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import yaml

from tests.commands import invoke

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mig-qlora-8b.yaml"
FIELDS = ("chassis", "gpu", "gpu_count", "cpu", "cpu_count", "dimm", "dimm_count", "data_drive",
          "data_drive_count", "boot_drive")  # fmt: skip


def _solve(path: Path, out: Path) -> dict:
    result = invoke("solve", path, "--format", "json", "-o", out, "--time-limit", "30", "--no-what-if")
    assert result.exit_code == 0, result.output
    plan: dict = json.loads(out.read_text(encoding="utf-8"))
    return plan


def test_owning_the_servers_of_a_sliced_plan_buys_nothing(tmp_path: Path) -> None:
    bought = _solve(EXAMPLE, tmp_path / "bought.json")
    assert bought["total_price"] > 0 and all(s["mig"] for s in bought["servers"])
    owned = Counter(tuple(s[f] for f in FIELDS) for s in bought["servers"])
    workload = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    workload["inventory"] = [{"count": n, **dict(zip(FIELDS, key, strict=True))} for key, n in owned.items()]
    bid = tmp_path / "owned.yaml"
    bid.write_text(yaml.safe_dump(workload), encoding="utf-8")
    plan = _solve(bid, tmp_path / "owned.json")
    assert plan["total_price"] == 0.0
    assert all(s["owned"] and s["mig"] for s in plan["servers"])
    assert len(plan["servers"]) == len(bought["servers"])
    assert invoke("verify", bid, tmp_path / "owned.json").exit_code == 0
