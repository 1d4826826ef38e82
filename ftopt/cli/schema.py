"""`ftopt schema [--grid]`: a JSON Schema of the workload file (or of a sweep grid) for editors.

Why: a YAML language server given this schema completes field names, shows each field's
description and flags a misspelt key as it is typed. The workload's schema is
`ftopt.catalogue.schema.workload_schema`, the one the workbench's form is built from.
"""

from __future__ import annotations

import click

from ftopt.catalogue.schema import workload_schema
from ftopt.cli import echo_json
from ftopt.cli.errors import handle_errors
from ftopt.sweep.grid import grid_schema


@click.command("schema")
@click.option("--grid", is_flag=True, help="The schema of a sweep grid file instead of a workload.")
@handle_errors
def schema_command(grid: bool) -> None:
    """Print a JSON Schema of the workload file (or, with --grid, of a sweep grid).

    Save it and name it in the YAML file's first line for completion in editors:
    `# yaml-language-server: $schema=workload.schema.json`.
    """
    echo_json(grid_schema() if grid else workload_schema())
