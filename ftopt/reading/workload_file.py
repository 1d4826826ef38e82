"""Loading a workload file: hardened YAML, validated as a `Workload`, every catalogue id checked.

The workload is parsed before the catalogue is consulted, so ids (models, feeds, cards, chassis,
stacks) are checked here, each error pointing at the line that names the unknown id.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ftopt.errors import InputError, did_you_mean, quoted
from ftopt.model.hardware import Catalogue
from ftopt.model.references import NO_OFFLOAD, OFF_PLATFORM, UnknownReference, unknown_references
from ftopt.model.workload import Workload
from ftopt.reading.safe_yaml import locate, parse_yaml_text, read_yaml, require_mapping, validate


def check_workload_references(
    workload: Workload, catalogue: Catalogue, node: yaml.Node | None, file: str
) -> None:
    """Every model, feed, card and chassis id the workload names exists in the catalogue."""
    for ref in unknown_references(workload, catalogue)[:1]:
        path, line = locate(node, ref.loc, False)
        raise InputError(file, path, reference_message(ref), line)
    check_stacks(workload, catalogue, node, file)


def reference_message(ref: UnknownReference) -> str:
    """`unknown model 'x' (did you mean 'y'?); expected one of: …` for an id the catalogue lacks."""
    if ref.what == OFF_PLATFORM:
        known = ", ".join(ref.known)
        return f"stack {quoted(ref.value)} runs on none of the allowed cards; expected one of: {known}"
    if ref.what == NO_OFFLOAD:
        known = ", ".join(ref.known)
        return f"cpu applies to methods {known}, not {ref.value} (its optimiser states are small)"
    hint = did_you_mean(ref.value, ref.known)
    hint = f" ({hint})" if hint else ""
    return f"unknown {ref.what} {quoted(ref.value)}{hint}; expected one of: {', '.join(ref.known)}"


def check_stacks(workload: Workload, catalogue: Catalogue, node: yaml.Node | None, file: str) -> None:
    """Each run's stack offers the method, optimiser and precision the run asks for."""
    for i, run in enumerate(workload.runs):
        stack_id = run.stack or workload.stack
        if not catalogue.has("stacks", stack_id):
            continue  # an unknown id is reported by check_workload_references
        stack = catalogue.stack(stack_id)
        if run.optimizer != "auto" and run.optimizer not in stack.optimizers:
            path, line = locate(node, ("runs", i, "optimizer"), False)
            offered = ", ".join(stack.optimizers)
            raise InputError(file, path, f"stack {stack_id} offers {offered}; not {run.optimizer}", line)
        if run.method not in stack.methods:
            path, line = locate(node, ("runs", i, "method"), False)
            offered = ", ".join(stack.methods)
            raise InputError(file, path, f"stack {stack_id} trains {offered}; not {run.method}", line)
        if run.precision == "fp8" and stack.fp8 is None:
            path, line = locate(node, ("runs", i, "precision"), False)
            raise InputError(file, path, f"stack {stack_id} does not train in fp8; use bf16", line)


def load_workload(path: str | Path, catalogue: Catalogue) -> Workload:
    """Read, validate and cross-check a workload file."""
    path = Path(path)
    data, node = read_yaml(path)
    return _checked(data, node, str(path), catalogue)


def load_workload_text(text: str, name: str, catalogue: Catalogue) -> Workload:
    """Validate and cross-check workload YAML (or JSON) held in memory, such as a web form's
    text; errors name `name` where a file's would name the file."""
    data, node = parse_yaml_text(text, name)
    return _checked(data, node, name, catalogue)


def _checked(data: object, node: yaml.Node | None, name: str, catalogue: Catalogue) -> Workload:
    require_mapping(data, name, "runs and site")
    workload = validate(Workload, data, node, name)
    check_workload_references(workload, catalogue, node, name)
    return workload
