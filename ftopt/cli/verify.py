"""`ftopt verify WORKLOAD.yaml PLAN.json`: re-check a plan against every rule, independently of the solver.

Prints one line per violation and exits 1, or prints "plan is valid: …" and exits 0. Unreadable or
malformed input (workload, plan JSON, price list) ends in one `ftopt:` line on stderr and exit 2.
Any other failure is reported in one line too, with exit 1: a plan that could not be checked is not
a valid plan. Never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ftopt.cli import catalogue_dir_option, open_catalogue, prices_option
from ftopt.cli.errors import fail, handle_errors
from ftopt.errors import FtoptError, InputError
from ftopt.model.plan import Plan
from ftopt.reading.workload_file import load_workload
from ftopt.verify import Violation, load_plan, verify_plan
from ftopt.verify.components import missing_parts
from ftopt.verify.violation import plural

#: Missing part ids named in the one-line error.
MISSING_SHOWN = 5


class VerifyError(FtoptError):
    """The verifier itself failed on this input: the plan is not shown valid."""

    exit_code = 1


def summary(plan: Plan) -> str:
    """The line printed for a valid plan."""
    servers = plural(len(plan.servers), "server")
    copies = plural(len(plan.assignments), "copy", "copies")
    return f"plan is valid: {servers}, {copies}, all rules hold"


def check(
    workload_file: Path, plan_file: Path, prices: Path | None, catalogue_dir: Path | None = None
) -> tuple[Plan, list[Violation]]:
    """Load the three inputs and verify; input problems raise InputError (exit 2)."""
    catalogue = open_catalogue(prices, catalogue_dir)
    plan = load_plan(plan_file)
    missing = missing_parts(plan, catalogue)
    if missing:
        shown = ", ".join(missing[:MISSING_SHOWN]) + (", …" if len(missing) > MISSING_SHOWN else "")
        where = (
            f"the catalogue in use ({catalogue_dir} over the packaged one)"
            if catalogue_dir
            else ("the packaged catalogue")
        )
        hint = (
            ""
            if catalogue_dir
            else "; a plan solved with a vendor's catalogue is verified with the same --catalogue DIR"
        )
        raise InputError(str(plan_file), "servers", f"names parts {where} lacks: {shown}{hint}")
    workload = load_workload(workload_file, catalogue)
    return plan, verify_plan(plan, workload, catalogue)


@click.command("verify")
@click.argument("workload_file", metavar="WORKLOAD.yaml", type=click.Path(path_type=Path))
@click.argument("plan_file", metavar="PLAN.json", type=click.Path(path_type=Path))
@prices_option
@catalogue_dir_option
@handle_errors
def verify(workload_file: Path, plan_file: Path, prices: Path | None, catalogue_dir: Path | None) -> None:
    """Re-check PLAN.json against every rule for WORKLOAD.yaml, independently of the solver.

    Exit 0 when every rule holds, 1 when one does not (each violation on its own line), 2 for bad
    input.
    """
    try:
        plan, violations = check(workload_file, plan_file, prices, catalogue_dir)
    except FtoptError:
        raise
    except Exception as exc:  # no traceback, whatever the input does to the verifier
        fail(VerifyError(f"{plan_file}: could not verify the plan ({type(exc).__name__}: {exc})"))
    if not violations:
        click.echo(summary(plan))
        return
    for violation in violations:
        click.echo(str(violation))
    rules = len({v.rule for v in violations})
    click.echo(
        f"ftopt: plan is not valid: {plural(len(violations), 'violation')} of {plural(rules, 'rule')}",
        err=True,
    )
    sys.exit(1)
