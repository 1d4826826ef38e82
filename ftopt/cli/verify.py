"""`ftopt verify WORKLOAD.yaml PLAN.json`: re-check a plan against every rule, independently of the solver.

Prints one line per violation and exits 1, or prints "plan is valid: …" and exits 0. Unreadable or
malformed input (workload, plan JSON, price list) ends in `ftopt:` lines on stderr and exit 2: a
damaged plan (`ftopt.verify.shape`) one line per field. A plan made with a vendor's catalogue is
verified with the catalogue its summary names, found by its files' hash where `--catalogue` is not
given, or refused saying how to pass it.
Any other failure is reported in one line too, with exit 1: a plan that could not be checked is not
a valid plan. Never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ftopt.catalogue.loader import origin_of
from ftopt.cli import catalogue_dir_option, open_catalogue, prices_option
from ftopt.cli.errors import fail, handle_errors
from ftopt.errors import FtoptError, InputError, quoted, raise_all
from ftopt.model.plan import Plan
from ftopt.reading.workload_file import load_workload
from ftopt.verify import Violation, verify_plan
from ftopt.verify.components import missing_parts
from ftopt.verify.copies import bid_margin, sell_catalogue
from ftopt.verify.reading import PlanFile, load_plan_file
from ftopt.verify.shape import shape_faults
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
    """Load the three inputs and verify; input problems raise InputError (exit 2): an unreadable
    file, a plan whose shape is damaged (every such field at once), or a catalogue other than the
    one the plan was made with."""
    read = load_plan_file(plan_file)
    catalogue_dir = named_catalogue(read, catalogue_dir, prices)
    catalogue = open_catalogue(prices, catalogue_dir)
    plan = read.plan
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
    raise_all(shape_faults(plan, read.summary, workload, catalogue, (read.file, read.node)))
    # a quote copy at sell prices is checked against the catalogue raised by the bid's margin
    return plan, verify_plan(plan, workload, sell_catalogue(catalogue, bid_margin(read.summary, workload)))


def _named(read: PlanFile) -> dict[str, Any] | None:
    """The catalogue the plan's summary names (kind, directory, content hash, prices), if any."""
    named = read.summary.get("catalogue") if isinstance(read.summary, dict) else None
    return named if isinstance(named, dict) else None


def named_catalogue(read: PlanFile, given: Path | None, prices: Path | None) -> Path | None:
    """The vendor catalogue to verify with: the one given, else the one the plan names when its
    directory is there with the same contents (sha256 of its files). A plan made with a vendor's
    catalogue or a price list that cannot be found is refused (exit 2) with the option to pass,
    rather than checked against other prices and called invalid."""
    named = _named(read)
    if named is None:
        return given
    field = "summary.catalogue"
    if named.get("prices") == "price list" and prices is None:
        raise InputError(
            read.file, field, "the plan was priced with a price list; pass it with --prices FILE"
        )
    if named.get("kind") != "vendor":
        return given
    directory, digest = str(named.get("directory")), str(named.get("content_hash"))
    if given is not None:
        found = origin_of(given, None).content_hash
        if found != digest:
            raise InputError(
                read.file,
                f"{field}.content_hash",
                f"the plan was made with the catalogue {quoted(directory)} (sha256 {digest}); "
                f"{given} holds other files (sha256 {found}): pass the catalogue the plan was made with",
            )
        return given
    for candidate in (Path(directory), Path(read.file).parent / directory):
        if candidate.is_dir() and origin_of(candidate, None).content_hash == digest:
            click.echo(f"ftopt: verifying with the catalogue the plan names: {candidate}", err=True)
            return candidate
    raise InputError(
        read.file,
        f"{field}.directory",
        f"the plan was made with the vendor's catalogue {quoted(directory)} (sha256 {digest}), "
        f"not found here with those contents; pass it with --catalogue DIR",
    )


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
