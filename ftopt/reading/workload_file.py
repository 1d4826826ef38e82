"""Loading a workload file: hardened YAML, validated as a `Workload`, every catalogue id checked.

The workload is parsed before the catalogue is consulted, so ids (models, feeds, cards, chassis,
stacks) are checked here, each error pointing at the line that names the unknown id.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ftopt.errors import InputError, InputErrors, did_you_mean, quoted, raise_all
from ftopt.model.hardware import Catalogue, Kind
from ftopt.model.references import (
    BAD_POLICY,
    NO_OFFLOAD,
    OFF_PLATFORM,
    UnknownReference,
    allowed_gpus,
    unknown_references,
)
from ftopt.model.stack import Stack, default_stack
from ftopt.model.workload import Run, Workload
from ftopt.reading.safe_yaml import locate, parse_yaml_text, read_yaml, require_mapping, validate


def check_workload_references(
    workload: Workload, catalogue: Catalogue, node: yaml.Node | None, file: str
) -> None:
    """Every model, feed, card and chassis id the workload names exists in the catalogue, and each
    run's stack offers what it asks for: every unknown id and mismatch at once."""
    errors: list[InputError] = []
    for ref in unknown_references(workload, catalogue):
        path, line = locate(node, ref.loc, False)
        message = reference_message(ref)
        inherited = not path.endswith(str(ref.loc[-1]))  # a run taking the workload's stack
        if inherited and any(e.expected == message for e in errors):
            continue  # the same id, reported where it is written
        errors.append(InputError(file, path, message, line))
    raise_all(errors + stack_errors(workload, catalogue, node, file))


def reference_message(ref: UnknownReference) -> str:
    """`unknown model 'x' (did you mean 'y'?); expected one of: …` for an id the catalogue lacks."""
    if ref.what == OFF_PLATFORM:
        known = ", ".join(ref.known)
        return f"stack {quoted(ref.value)} runs on none of the allowed cards; expected one of: {known}"
    if ref.what == BAD_POLICY:
        return f"expected {ref.known[0]}, got {quoted(ref.value)}"
    if ref.what == NO_OFFLOAD:
        known = ", ".join(ref.known)
        return f"cpu applies to methods {known}, not {ref.value} (its optimiser states are small)"
    hint = did_you_mean(ref.value, ref.known)
    hint = f" ({hint})" if hint else ""
    return f"unknown {ref.what} {quoted(ref.value)}{hint}; expected one of: {', '.join(ref.known)}"


def stack_errors(
    workload: Workload, catalogue: Catalogue, node: yaml.Node | None, file: str
) -> list[InputError]:
    """Each run's stack offers the method, optimiser and precision the run asks for: the runs that
    ask for what their stack lacks, each at its line."""
    errors = []
    for i, run in enumerate(workload.runs):
        stack_id = run.stack or workload.stack
        if not catalogue.has("stacks", stack_id):
            continue  # an unknown id is reported by check_workload_references
        for field, problem in _stack_problems(run, catalogue.stack(stack_id), stack_id):
            if field == "method" and run.method not in catalogue.methods.ids:
                continue  # a method the registry lacks is reported once, as unknown
            path, line = locate(node, ("runs", i, field), False)
            errors.append(InputError(file, path, problem, line))
    return errors


def _stack_problems(run: Run, stack: Stack, stack_id: str) -> list[tuple[str, str]]:
    """(field, problem) for what the run asks of its stack and the stack does not offer."""
    problems = []
    if run.optimizer != "auto" and run.optimizer not in stack.optimizers:
        problems.append(
            ("optimizer", f"stack {stack_id} offers {', '.join(stack.optimizers)}; not {run.optimizer}")
        )
    if run.method not in stack.methods:
        problems.append(("method", f"stack {stack_id} trains {', '.join(stack.methods)}; not {run.method}"))
    if run.precision == "fp8" and stack.fp8 is None:
        problems.append(("precision", f"stack {stack_id} does not train in fp8; use bf16"))
    if run.activation_offload and not stack.offloads_activations(True):
        problems.append(("activation_offload", f"stack {stack_id} does not offload activations; use false"))
    return problems


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
    try:
        workload = validate(Workload, data, node, name)
    except InputError as err:  # a file with field errors still reports its unknown ids with them
        if isinstance(err, InputErrors) and err.more:
            raise  # already past the bound: the first fifty show the pattern
        found = err.errors if isinstance(err, InputErrors) else [err]
        seen = {e.field for e in found}
        written = written_id_errors(data, node, name, catalogue)
        every = [*found, *(e for e in written if e.field not in seen)]
        raise_all(sorted(every, key=lambda e: e.line if e.line is not None else 1 << 30))
        raise
    workload = with_default_stack(workload, data, catalogue)
    check_workload_references(workload, catalogue, node, name)
    return workload


def with_default_stack(workload: Workload, data: object, catalogue: Catalogue) -> Workload:
    """The workload with the default stack of its allowed cards' platform where the file names no
    workload `stack:` (AMD-only hardware trains with rocm-fsdp, not NVIDIA's hf-fsdp); runs that
    name their own keep it. Validated again, so the runs inherit it as they inherit a written one."""
    if not isinstance(data, dict) or "stack" in data:
        return workload
    stack = default_stack({g.platform for g in allowed_gpus(catalogue, workload)})
    if stack == workload.stack or not catalogue.has("stacks", stack):
        return workload
    return Workload.model_validate({**data, "stack": stack})


#: The plain id fields of a run a file that fails validation is still checked for: what a typo
#: most often hits, reported beside the file's other errors (the full reference check needs a
#: valid workload).
RUN_IDS: tuple[tuple[str, Kind | None], ...] = (("model", "models"), ("method", None), ("stack", "stacks"))


def written_id_errors(
    data: object, node: yaml.Node | None, file: str, catalogue: Catalogue
) -> list[InputError]:
    """Unknown ids written as plain strings in each run's model, method and stack and the site's
    feed, read off the raw file: a file with field errors names its unknown ids too."""
    if not isinstance(data, dict):
        return []
    checks: list[tuple[tuple[str | int, ...], str, object, tuple[str, ...]]] = []
    runs = data.get("runs")
    for i, run in enumerate(runs if isinstance(runs, list) else []):
        for field, kind in RUN_IDS if isinstance(run, dict) else ():
            known = _method_ids(catalogue) if kind is None else catalogue.ids(kind)
            what = "method" if kind is None else kind.removesuffix("s")
            checks.append((("runs", i, field), what, run.get(field), known))
    site = data.get("site")
    if isinstance(site, dict):
        checks.append((("site", "feed"), "feed", site.get("feed"), catalogue.ids("feeds")))
    errors = []
    for loc, what, value, known in checks:
        if isinstance(value, str) and known and value not in known:
            path, line = locate(node, loc, False)
            ref = UnknownReference(loc, what, value, known)
            errors.append(InputError(file, path, reference_message(ref), line))
    return errors


def _method_ids(catalogue: Catalogue) -> tuple[str, ...]:
    """What a run's `method:` may name: a training method of the registry, or an RL algorithm."""
    registry = catalogue.methods
    return (*registry.ids, *(str(a.id) for a in registry.algorithms))
