"""GPU slices (MIG) in every format: the quote names each server's layout and each copy's instance,
the HTML diagram draws each sliced card's instances with the copies they hold."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from ftopt.cli.main import cli

EXAMPLE = "examples/mig-qlora-8b.yaml"


def run(*args: str):
    return CliRunner().invoke(cli, ["solve", EXAMPLE, *args, "--workers", "2", "--no-what-if"])


def test_the_quote_names_the_layout_and_each_copys_instance() -> None:
    result = run()
    assert result.exit_code == 0, result.output
    assert re.search(r"each card split \d × \dg\.\d+gb \(MIG\)", result.output)
    assert re.search(r"1 × rtx-pro-6000-se slice \dg\.\d+gb", result.output)
    assert re.search(r"\| \d \(\dg\.\d+gb #\d\) ", result.output)


def test_the_diagram_draws_every_instance_with_its_copy() -> None:
    plan = json.loads(run("--format", "json").stdout)
    html = run("--format", "html").stdout
    bands = re.findall(r'<rect class="mig-slice"[^>]*>', html)
    instances = sum(len(card["profiles"]) for s in plan["servers"] for card in s["mig"])
    assert len(bands) == instances >= len(plan["assignments"]) == 20
    held = {re.search(r'data-copy="(\d+)"', b).group(1) for b in bands if "data-copy" in b}  # type: ignore[union-attr]
    assert held == {str(a["copy"]) for a in plan["assignments"]}
    assert all('data-profile="' in b for b in bands)
    assert html.count('data-mig="') == sum(len(s["mig"]) for s in plan["servers"])
