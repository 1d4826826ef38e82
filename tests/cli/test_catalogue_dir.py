"""`--catalogue DIR` on every command that reads the catalogue, `catalogue validate` and `export DIR`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ftopt.catalogue.loader import data_dir, load_catalogue
from ftopt.catalogue.overlay import FILE_NAMES
from ftopt.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
VENDOR = str(REPO / "examples" / "vendor" / "catalogue")
L4_BID = str(REPO / "examples" / "vendor" / "l4-bid.yaml")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_solve_with_the_vendors_card() -> None:
    code, out, _ = run("solve", L4_BID, "--catalogue", VENDOR, "--format", "json", "--time-limit", "10")
    assert code == 0
    plan = json.loads(out)
    assert {(s["gpu"], s["chassis"]) for s in plan["servers"]} == {("l4", "acme-l4-2u")}


def test_without_the_directory_the_card_is_unknown() -> None:
    code, _, err = run("solve", L4_BID)
    assert code == 2 and "unknown card 'l4'" in err


@pytest.mark.parametrize("command", ["estimate", "frontier"])
def test_every_command_that_reads_a_workload_takes_the_directory(command: str) -> None:
    args = [command, L4_BID, "--catalogue", VENDOR]
    code, out, err = run(*args, *(["--time-limit", "5"] if command == "frontier" else []))
    assert code == 0, err
    assert "l4" in out


def test_verify_reads_the_plan_against_the_same_catalogue(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    code, out, _ = run("solve", L4_BID, "--catalogue", VENDOR, "--format", "json", "--time-limit", "10")
    assert code == 0
    plan.write_text(out)
    assert run("verify", L4_BID, str(plan), "--catalogue", VENDOR)[0] == 0
    assert run("verify", L4_BID, str(plan))[0] == 0  # the plan names it; found by its files' hash


def test_sweep_takes_the_directory(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text("cross:\n  runs.q8-qlora.concurrent: [2, 4]\n")
    out = tmp_path / "results.jsonl"
    args = ["sweep", L4_BID, "--grid", str(grid), "-o", str(out), "--catalogue", VENDOR, "--jobs", "1"]
    code, _, err = run(*args, "--quiet", "--time-limit", "5")
    assert code == 0, err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["status"] for r in records] == ["optimal", "optimal"]


def test_catalogue_list_and_show_take_the_directory() -> None:
    code, out, _ = run("catalogue", "show", "acme-l4-2u", "--catalogue", VENDOR, "--format", "json")
    assert code == 0 and json.loads(out)["rack_units"] == 2
    code, out, _ = run("catalogue", "list", "gpus", "--catalogue", VENDOR)
    assert code == 0 and "NVIDIA L4" in out


def test_validate_reports_what_the_directory_adds_and_replaces() -> None:
    code, out, _ = run("catalogue", "validate", VENDOR)
    assert code == 0
    assert "2 items added (gpus: l4, chassis: acme-l4-2u), 1 replaced (prices: gpu-server-8)" in out


def test_validate_names_file_line_and_id_of_a_bad_reference(tmp_path: Path) -> None:
    (tmp_path / "bridges.yaml").write_text(
        "- id: my-bridge\n  name: bridge\n  gpu: h200-nvx\n  size: 2\n  sources: []\n"
    )
    code, _, err = run("catalogue", "validate", str(tmp_path))
    assert code == 2
    assert err.startswith(f"ftopt: {tmp_path / 'bridges.yaml'}:1: gpu: bridge 'my-bridge' names unknown card")
    assert "(did you mean 'h200-nvl'?)" in err and len(err.splitlines()) == 1


def test_export_writes_a_starting_copy_that_validates(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    code, out, _ = run("catalogue", "export", str(target))
    assert code == 0 and "wrote" in out
    overlayable = [p.name for p in data_dir().glob("*.yaml") if p.stem in FILE_NAMES]
    assert sorted(p.name for p in target.iterdir() if p.is_file()) == sorted(overlayable)
    families = sorted(p.name for p in (data_dir() / "families").glob("*.yaml"))
    assert sorted(p.name for p in (target / "families").iterdir()) == families
    assert (target / "gpus.yaml").read_text() == (data_dir() / "gpus.yaml").read_text()  # comments kept
    assert run("catalogue", "validate", str(target))[0] == 0
    # never overwrites a vendor's edited copy
    code, _, err = run("catalogue", "export", str(target))
    assert code == 2 and "exists already" in err


def _outlet_amps(directory: Path) -> list[object]:
    catalogue = load_catalogue(overlay=directory)
    return [item["amps"] for item in catalogue.families["outlet"].model_dump()["items"]]


def test_a_rule_familys_file_in_the_directory_replaces_the_packaged_one(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    assert run("catalogue", "export", str(target))[0] == 0
    assert _outlet_amps(target) == [10, 16]
    outlet = target / "families" / "outlet.yaml"
    outlet.write_text(outlet.read_text().replace("amps: 10", "amps: 13"))
    assert _outlet_amps(target) == [13, 16]
    assert run("catalogue", "validate", str(target))[0] == 0


def test_a_family_file_no_family_reads_or_a_bad_one_is_named(tmp_path: Path) -> None:
    (tmp_path / "families").mkdir()
    typo = tmp_path / "families" / "outlets.yaml"
    typo.write_text((data_dir() / "families" / "outlet.yaml").read_text())
    code, _, err = run("catalogue", "validate", str(tmp_path))
    assert code == 2 and str(typo) in err and "(did you mean 'outlet'?)" in err
    typo.unlink()
    bad = tmp_path / "families" / "outlet.yaml"
    bad.write_text((data_dir() / "families" / "outlet.yaml").read_text().replace("amps: 10", "amps: ten"))
    code, _, err = run("catalogue", "validate", str(tmp_path))
    assert code == 2 and f"{bad}:" in err and "amps" in err and "Traceback" not in err


def test_export_without_a_directory_still_prints_json() -> None:
    code, out, _ = run("catalogue", "export")
    assert code == 0 and "gpus" in json.loads(out)
