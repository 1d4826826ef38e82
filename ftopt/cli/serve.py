"""`ftopt serve`: the presales workbench in the browser (needs the `serve` extra).

The command only checks its options and starts uvicorn on `ftopt.serve.app.create_app`. It binds to
127.0.0.1 by default; any other host listens beyond this machine and is refused without
`--token-file` (exit 2, one line), so a bid desk is never opened to a network by accident.
"""

from __future__ import annotations

from pathlib import Path

import click

from ftopt.cli.errors import CommandInputError, handle_errors

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def default_data_dir() -> Path:
    """The per-user data folder: `$XDG_DATA_HOME/ftopt` or its platform equivalent."""
    import platformdirs

    return Path(platformdirs.user_data_dir("ftopt", appauthor=False))


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of the bid database [default: the per-user data folder, e.g. ~/.local/share/ftopt].",
)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True, help="Solves at once.")
@click.option(
    "--max-queue", type=click.IntRange(0, 10_000), default=8, show_default=True,
    help="Solves that may wait; beyond, a solve request gets 429.",
)  # fmt: skip
@click.option(
    "--time-limit", type=click.FloatRange(0.5, 3600), default=60.0, show_default=True,
    help="A solve's default time limit, seconds.",
)  # fmt: skip
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File holding the access token every request must carry; required for a host beyond 127.0.0.1.",
)
@handle_errors
def serve_command(
    host: str,
    port: int,
    data: Path | None,
    workers: int,
    max_queue: int,
    time_limit: float,
    token_file: Path | None,
) -> None:
    """Serve the presales workbench: bids, versions and quotes in the browser, at http://HOST:PORT/."""
    if host not in LOOPBACK and token_file is None:
        raise CommandInputError(
            f"--host {host[:80]} listens beyond this machine: "
            "give --token-file FILE (a secret every request must carry)"
        )
    try:
        import uvicorn

        from ftopt.serve.app import ServeConfig, create_app
        from ftopt.serve.security import read_token
    except ImportError as exc:
        raise CommandInputError(
            f"ftopt serve needs the serve extra: pip install 'ftopt[serve]' ({exc.name} is missing)"
        ) from None
    token = read_token(token_file) if token_file else None
    folder = data or default_data_dir()
    app = create_app(ServeConfig(folder, token, workers, max_queue, time_limit=time_limit))
    click.echo(f"ftopt workbench on http://{host}:{port}/ (bids in {folder})", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
