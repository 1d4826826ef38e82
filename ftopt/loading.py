"""Reading the user's YAML files into validated models, with errors a person can act on.

Every failure becomes one `InputError` naming the file, the field path (`runs[2].seq_len`), the line
where the parser knows it, and what was expected. YAML is read with the safe loader only (no
object tags), and files beyond `MAX_INPUT_BYTES` are refused before parsing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ftopt.errors import InputError
from ftopt.model.hardware import Catalogue, Kind, Price
from ftopt.model.workload import Workload

MAX_INPUT_BYTES = 4 * 1024 * 1024
#: YAML aliases can make a small file describe an enormous tree ("billion laughs"); count the tree
#: as aliases expand it and refuse beyond this many nodes.
MAX_INPUT_NODES = 1_000_000

#: libyaml's safe loader where PyYAML was built with it (its wheels are): the packaged catalogue is
#: read on every command, and the pure-Python parser, reading each file twice, took a fifth of a
#: second of `ftopt solve`.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Model = TypeVar("Model", bound=BaseModel)


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """The parsed data and its node tree (for line numbers) of a YAML file."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(name, "", f"cannot read the file ({exc.strerror or exc})") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise InputError(name, "", f"file is {len(raw):,} bytes; at most {MAX_INPUT_BYTES:,} accepted")
    try:
        text = raw.decode("utf-8")
        try:
            return _parse(SAFE_LOADER, text, name)
        except yaml.YAMLError:
            if SAFE_LOADER is yaml.SafeLoader:
                raise
            # Errors are rare and the pure-Python parser's messages are more specific (libyaml's
            # tab error does not name the tab): parse again to report with its words.
            return _parse(yaml.SafeLoader, text, name)
    except UnicodeDecodeError:
        raise InputError(name, "", "expected UTF-8 text") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise InputError(name, "", f"not valid YAML: {exc.problem or exc.context}", line) from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise InputError(name, "", f"not valid YAML: {exc}") from None


def _parse(loader_class: Any, text: str, name: str) -> tuple[Any, yaml.Node | None]:
    """Compose the node tree once, refuse alias bombs, then build the data from that tree."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if expanded_nodes(node) > MAX_INPUT_NODES:
            raise InputError(name, "", f"aliases expand the file beyond {MAX_INPUT_NODES:,} values; refused")
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def expanded_nodes(node: yaml.Node | None) -> int:
    """How many nodes the tree has once every alias is expanded (memoised by node, so linear)."""
    sizes: dict[int, int] = {}

    def size(n: yaml.Node) -> int:
        if id(n) in sizes:
            return sizes[id(n)]
        sizes[id(n)] = 1  # a cycle counts once; the safe loader builds no recursive objects anyway
        if isinstance(n, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in n.value)
        elif isinstance(n, yaml.SequenceNode):
            total = 1 + sum(size(item) for item in n.value)
        else:
            total = 1
        sizes[id(n)] = total
        return total

    return size(node) if node is not None else 0


def _child(node: yaml.Node | None, part: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        return next((v for k, v in node.value if k.value == part), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]
    return None


def _locate(node: yaml.Node | None, loc: tuple[str | int, ...], missing: bool) -> tuple[str, int | None]:
    """The field path as written in the file and the line of its deepest node found.

    Pydantic adds union member tags (`str`, `InlineModel`) to locations; parts that do not walk the
    YAML tree are dropped, except a final missing field, which by nature is not in the file.
    """
    path = ""
    line = node.start_mark.line + 1 if node is not None else None
    for i, part in enumerate(loc):
        child = _child(node, part)
        last = i == len(loc) - 1
        if child is None and not (last and missing):
            continue
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        if child is not None:
            node, line = child, child.start_mark.line + 1
    return path, line


_RELATIVE = re.compile(r"^@((?:\[\d+\])?(?:\.?[A-Za-z_]+)?): ")


def _split_relative(message: str) -> tuple[tuple[str | int, ...], str]:
    """A validator's `@[3].name: text` → the extra location parts and the text."""
    match = _RELATIVE.match(message)
    if not match:
        return (), message
    parts: list[str | int] = []
    for index, name in re.findall(r"\[(\d+)\]|([A-Za-z_]+)", match[1]):
        parts.append(int(index) if index else name)
    return tuple(parts), message[match.end() :]


def _shown(value: Any) -> str:
    """A short picture of a value; containers by kind, never by repr (which aliases can blow up)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    text = repr(value) if not isinstance(value, str) or len(value) <= 40 else repr(value[:37])
    return text if len(text) <= 40 else text[:37] + "..."


def _expected(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field"
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    message = _split_relative(message)[1]
    if message.startswith("Input should be "):
        return f"expected {message.removeprefix('Input should be ')}, got {_shown(error.get('input'))}"
    return message[0].lower() + message[1:] if message else message


def _most_specific(errors: list[ErrorDetails]) -> ErrorDetails:
    """The deepest error: for a union (`str | InlineModel`) it is the member the input was meant as."""
    return max(errors, key=lambda e: len(e["loc"]))


def validate(model: type[Model], data: Any, node: yaml.Node | None, file: str) -> Model:
    """`model` validated from `data`, or one InputError for the first problem."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = _most_specific(exc.errors())
        extra, _ = _split_relative(str(error["msg"]).removeprefix("Value error, "))
        loc = tuple(error["loc"]) + extra
        path, line = _locate(node, loc, error["type"] == "missing")
        raise InputError(file, path, _expected(error), line) from None


def _require_mapping(data: Any, file: str, what: str) -> None:
    if not isinstance(data, dict):
        raise InputError(file, "", f"expected a mapping with {what} at the top level")


def _reference_error(
    file: str,
    node: yaml.Node | None,
    loc: tuple[str | int, ...],
    what: str,
    value: str,
    known: tuple[str, ...],
) -> InputError:
    path, line = _locate(node, loc, False)
    return InputError(file, path, f"unknown {what} {value!r}; expected one of: {', '.join(known)}", line)


def check_references(workload: Workload, catalogue: Catalogue, node: yaml.Node | None, file: str) -> None:
    """Every model, feed, card and chassis id the workload names exists in the catalogue."""
    for i, run in enumerate(workload.runs):
        if isinstance(run.model, str) and not catalogue.has("models", run.model):
            raise _reference_error(
                file, node, ("runs", i, "model"), "model", run.model, catalogue.ids("models")
            )
    if not catalogue.has("feeds", workload.site.feed):
        raise _reference_error(
            file, node, ("site", "feed"), "feed", workload.site.feed, catalogue.ids("feeds")
        )
    check_stacks(workload, catalogue, node, file)
    limits: tuple[tuple[Kind, str, tuple[str, ...] | None], ...] = (
        ("gpus", "card", workload.hardware.gpus),
        ("chassis", "chassis", workload.hardware.chassis),
    )
    for kind, what, ids in limits:
        for i, item in enumerate(ids or ()):
            if not catalogue.has(kind, item):
                raise _reference_error(file, node, ("hardware", kind, i), what, item, catalogue.ids(kind))


def check_stacks(workload: Workload, catalogue: Catalogue, node: yaml.Node | None, file: str) -> None:
    """The workload's and each run's stack exist, and offer the optimiser and precision a run asks for.

    The workload's stack is checked first: a run without its own stack inherits it, and the error then
    names the line where the inherited id is written.
    """
    if not catalogue.stacks:
        return
    if not catalogue.has("stacks", workload.stack):
        raise _reference_error(file, node, ("stack",), "stack", workload.stack, catalogue.ids("stacks"))
    for i, run in enumerate(workload.runs):
        stack_id = run.stack or workload.stack
        if not catalogue.has("stacks", stack_id):
            raise _reference_error(
                file, node, ("runs", i, "stack"), "stack", stack_id, catalogue.ids("stacks")
            )
        stack = catalogue.stack(stack_id)
        if run.optimizer != "auto" and run.optimizer not in stack.optimizers:
            path, line = _locate(node, ("runs", i, "optimizer"), False)
            offered = ", ".join(stack.optimizers)
            raise InputError(file, path, f"stack {stack_id} offers {offered}; not {run.optimizer}", line)
        if run.precision == "fp8" and stack.fp8 is None:
            path, line = _locate(node, ("runs", i, "precision"), False)
            raise InputError(file, path, f"stack {stack_id} does not train in fp8; use bf16", line)


def load_workload(path: Path, catalogue: Catalogue) -> Workload:
    """Read, validate and cross-check a workload file."""
    data, node = read_yaml(path)
    _require_mapping(data, str(path), "runs and site")
    workload = validate(Workload, data, node, str(path))
    check_references(workload, catalogue, node, str(path))
    return workload


class _PriceList(BaseModel):
    model_config = {"frozen": True, "extra": "forbid"}
    prices: tuple[Price, ...]


def _check_overlay(
    catalogue: Catalogue, overlay: tuple[Price, ...], node: yaml.Node | None, file: str
) -> None:
    """Each entry prices a catalogue item, in the currency the merged list will have."""
    priced = {p.item for p in catalogue.prices}
    covers_all = priced <= {p.item for p in overlay}
    currency = overlay[0].currency if covers_all and overlay else catalogue.currency
    for index, price in enumerate(overlay):
        if price.item not in priced:
            path, line = _locate(node, ("prices", index, "item"), False)
            raise InputError(file, path, f"unknown item {price.item!r}; expected a priced catalogue id", line)
        if price.currency != currency:
            path, line = _locate(node, ("prices", index, "currency"), False)
            raise InputError(
                file,
                path,
                f"expected {currency} like the other prices (or price every item in one currency)",
                line,
            )


def load_price_list(path: Path, catalogue: Catalogue | None = None) -> tuple[Price, ...]:
    """A user's price list: a mapping with `prices:`, a list of entries like the catalogue's."""
    data, node = read_yaml(path)
    _require_mapping(data, str(path), "a prices list")
    overlay = validate(_PriceList, data, node, str(path)).prices
    if catalogue is not None:
        _check_overlay(catalogue, overlay, node, str(path))
    return overlay


def apply_price_list(catalogue: Catalogue, path: Path) -> Catalogue:
    """The catalogue with a user's price list laid over it; bad references name the price file."""
    overlay = load_price_list(path, catalogue)
    try:
        return catalogue.with_prices(overlay)
    except ValidationError as exc:
        raise InputError(str(path), "prices", _expected(exc.errors()[0])) from None
