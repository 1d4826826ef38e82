"""The README is the front door: two screens that install, tour and point into docs/.

What it used to state at length moved to the docs pages, each checked where it now lives (the
library example in tests/test_library_example.py, the unsupported combinations in
tests/combinations/test_matrix.py, every command of the tour in tests/test_how_to_commands.py,
every file and dotted path it names in tests/test_design_doc.py).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: Two screens of about 80 lines.
MOST_LINES = 160


def test_it_fits_on_two_screens() -> None:
    assert len(README.splitlines()) <= MOST_LINES


def test_the_install_commands_open_it() -> None:
    first = re.search(r"```bash\n(.*?)```", README, re.S)
    assert first and README.index(first[0]) < 200
    lines = first[1].splitlines()
    install = "pip install -q -c constraints.txt"
    assert lines[0].endswith(f"{install} . && .venv/bin/ftopt solve examples/first-project.yaml")
    assert lines[1].endswith(f"{install} '.[test]' && .venv/bin/python -m pytest")


def test_every_link_it_gives_reaches_a_file() -> None:
    targets = [t for t in re.findall(r"\]\(([^)\s]+)\)", README) if not t.startswith(("http", "#"))]
    assert len(targets) >= 15, "the README links into docs/"
    assert [t for t in targets if not (ROOT / t.split("#")[0]).is_file()] == []


def test_the_tours_answers_are_what_ftopt_prints() -> None:
    """Every line of the tour's printed answers (the first project's headline, the deadline bid's
    headline and its deadline-bound reasons) is a line the solve prints today."""
    from click.testing import CliRunner

    from ftopt.cli.main import cli

    shown = re.findall(r"```\n(USD .*?)```", README, re.S)
    assert len(shown) == 2, "the tour shows two answers"
    for block, example in zip(shown, ("first-project", "deadline"), strict=True):
        path = ROOT / "examples" / f"{example}.yaml"
        result = CliRunner().invoke(cli, ["solve", str(path), "--time-limit", "30"])
        assert result.exit_code == 0, result.output
        printed = [line.rstrip() for line in result.output.splitlines()]
        for line in block.splitlines():
            if line.strip() not in ("", "..."):
                assert any(p.startswith(line.rstrip()) for p in printed), line


def test_the_pictures_are_todays_plans() -> None:
    """The README's and docs' placement picture is what the HTML quote draws for the example today
    (regenerate with `python -m tests.docs_figures`)."""
    from tests.docs_figures import FIGURES, drawn

    for figure, example in FIGURES.items():
        assert figure.read_text(encoding="utf-8") == drawn(example), f"{figure.name} is stale"


def test_its_calibration_table_is_the_one_the_calibration_writes() -> None:
    """The fit, held-out, cross-validated and pre-registered figures the README shows are the rows
    `python -m benchmarks.calibration` wrote, so a recalibration cannot leave them stale."""
    written = (ROOT / "benchmarks" / "calibration.md").read_text(encoding="utf-8").splitlines()
    rows = (
        "| memory within",
        "| throughput within",
        "| planned memory",
        "| P90 hours",
        "| median throughput",
    )
    shown = [line for line in README.splitlines() if line.startswith(rows)]
    assert len(shown) >= 4, "the README shows the calibration's targets table"
    assert [line for line in shown if line not in written] == []
