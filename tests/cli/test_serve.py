"""`ftopt serve`'s own checks, before any web code is imported: loopback unless a token is given."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ftopt.cli.serve import LOOPBACK, default_data_dir, serve_command


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_a_host_beyond_loopback_is_refused_without_a_token(host: str, tmp_path: Path) -> None:
    assert host not in LOOPBACK
    result = CliRunner().invoke(serve_command, ["--host", host, "--data", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"ftopt: --host {host} listens beyond this machine")
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


def test_the_data_folder_is_per_user_and_named_after_ftopt() -> None:
    assert default_data_dir().name == "ftopt"
