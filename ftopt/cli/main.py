"""The `ftopt` click group: a thin shell that gathers the commands defined in their own modules.

A command module defines a click command (or group) and is added here with `cli.add_command`;
every command handles ftopt's errors through `ftopt.cli.errors`.
"""

from __future__ import annotations

import click

from ftopt.cli.catalogue_cmd import catalogue
from ftopt.cli.estimate import estimate_command
from ftopt.cli.frontier import frontier_command
from ftopt.cli.schema import schema_command
from ftopt.cli.serve import serve_command
from ftopt.cli.solve import solve_command
from ftopt.cli.sweep import sweep_command, sweep_report_command
from ftopt.cli.verify import verify


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="ftopt", prog_name="ftopt")
def cli() -> None:
    """Size GPU servers for LLM fine-tuning: the cheapest server set that runs a workload mix."""


cli.add_command(solve_command)
cli.add_command(estimate_command)
cli.add_command(frontier_command)
cli.add_command(verify)
cli.add_command(catalogue)
cli.add_command(sweep_command)
cli.add_command(sweep_report_command)
cli.add_command(schema_command)
cli.add_command(serve_command)


def main() -> None:
    """Console-script entry point (`ftopt`): the process's start is the commands' time-limit start."""
    from ftopt.cli.started import mark_program_start

    mark_program_start()
    cli(prog_name="ftopt")


if __name__ == "__main__":
    main()
