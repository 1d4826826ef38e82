"""The documentation site builds in strict mode: every link and anchor between pages resolves.

MkDocs comes with the `docs` extra, which the `test` extra includes, so CI always builds the site;
without MkDocs (a bare install) the test skips and says why.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _nav_pages(nav: object) -> list[str]:
    """Every page file the nav names, depth first."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in _nav_pages(value)]
    if isinstance(nav, list):
        return [p for item in nav for p in _nav_pages(item)]
    return []


def test_the_site_builds_strictly_with_every_link_checked(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="MkDocs is in the docs extra (pip install '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (site / "index.html").is_file() and (site / "reference" / "workload" / "index.html").is_file()


def test_the_nav_names_pages_that_exist_and_every_purpose() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    pages = _nav_pages(config["nav"])
    missing = [p for p in pages if not (ROOT / "docs" / p).is_file()]
    assert missing == []
    sections = [next(iter(item)) for item in config["nav"]]
    assert {"Getting started", "How-to", "Reference", "Explanation", "Contributing"} <= set(sections)


def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    """The check the site build makes is real: a page linking to a page that is not there fails."""
    pytest.importorskip("mkdocs", reason="MkDocs is in the docs extra (pip install '.[docs]')")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the missing page](missing.md).\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nstrict: true\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and re.search(r"missing\.md", done.stderr)
    shutil.rmtree(tmp_path / "site", ignore_errors=True)
