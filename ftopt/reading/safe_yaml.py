"""Hardened YAML reading: the user's files into validated models, with errors a person can act on.

Every failure becomes an `InputError` naming the file, the field path (`runs[2].seq_len`), the line
where the parser knows it, and what was expected; a file that does not validate reports every field
at once (`InputErrors`, bounded), so that one edit fixes them all. YAML is read with the safe loader only (no
object tags), and files beyond `MAX_INPUT_BYTES` are refused before parsing.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import sys
import typing
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from ftopt.errors import InputError, clipped, did_you_mean, quoted, raise_all

MAX_INPUT_BYTES = 4 * 1024 * 1024
#: YAML aliases can make a small file describe an enormous tree ("billion laughs"); count the tree
#: as aliases expand it and refuse beyond this many nodes.
MAX_INPUT_NODES = 1_000_000

#: libyaml's safe loader where PyYAML was built with it (its wheels are): the packaged catalogue is
#: read on every command, and the pure-Python parser, reading each file twice, took a fifth of a
#: second of `ftopt solve`.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_SURROGATE = re.compile("[\ud800-\udfff]")
_TAG_WORDS = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "timestamp": "a date (YYYY-MM-DD) or a time stamp",
}


class _BadScalar(Exception):
    """A value the YAML constructors cannot build (`!!int abc`, a lone surrogate): the node and why."""

    def __init__(self, node: yaml.Node, expected: str) -> None:
        super().__init__(expected)
        self.node = node
        self.expected = expected


def _expectation(node: yaml.Node) -> str:
    """What a node that failed to construct should have held, without echoing more than a quote."""
    if not isinstance(node, yaml.ScalarNode):
        return f"expected a valid {node.tag.rsplit(':', 1)[-1]}"
    kind = node.tag.rsplit(":", 1)[-1]
    digits = sum(c.isdigit() for c in node.value)
    if kind == "int" and digits > sys.get_int_max_str_digits():
        return f"expected an integer of at most {sys.get_int_max_str_digits():,} digits, got {digits:,}"
    word = _TAG_WORDS.get(kind, f"a value its tag {clipped(node.tag, 40)} accepts")
    return f"expected {word}, got {quoted(node.value)}"


def _unicode(text: str, node: yaml.Node) -> str:
    """`text` with escaped UTF-16 pairs (`"\\ud83d\\ude00"`) joined; a lone surrogate is refused.

    Why: the pure-Python scanner turns each escape into its own code point, and a string holding a
    surrogate cannot be encoded as UTF-8, so it would fail much later, when a plan is written.
    """
    if text.isascii() or not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        lone = "a lone surrogate (\\ud800 to \\udfff) is no character"
        raise _BadScalar(node, f"expected Unicode text; {lone}") from None


class _PureLoader(yaml.SafeLoader):
    """The pure-Python safe loader, refusing lone surrogates in scalars.

    Only this loader needs the check: libyaml refuses every surrogate escape (the file then goes to
    this loader), and decoding the file as UTF-8 has refused raw surrogates already.
    """

    def construct_scalar(self, node: yaml.ScalarNode | yaml.MappingNode) -> str:
        return _unicode(super().construct_scalar(node), node)


_FastLoader: Any = _PureLoader if SAFE_LOADER is yaml.SafeLoader else SAFE_LOADER

#: What PyYAML's safe constructors raise, instead of a YAMLError, when a tag contradicts its text
#: (`int("abc")` for `!!int abc`, a KeyError for `!!bool maybe`), or for an integer beyond Python's
#: 4,300-digit conversion limit.
_CONSTRUCTION_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, IndexError)


Model = TypeVar("Model", bound=BaseModel)


def _open_regular(name: str) -> tuple[int, int]:
    """A descriptor of the regular file `name` and its size; anything else is an InputError.

    Opened without blocking, because opening a FIFO that has no writer would wait for ever.
    """
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise InputError(name, "", f"cannot read the file ({exc.strerror or exc})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a device, pipe or socket"
        raise InputError(name, "", f"expected a regular file, not {kind}")
    return fd, info.st_size


def read_user_file(path: Path, limit: int) -> str:
    """The UTF-8 text of a file the user named, reading at most `limit` + 1 bytes of it.

    Why not `read_bytes`: `/dev/zero`, a FIFO or a file still growing would be read without end.
    Every reader of user files (workload, price list, plan JSON) comes through here.
    """
    name = str(path)
    fd, size = _open_regular(name)
    try:
        with os.fdopen(fd, "rb") as file:
            raw = file.read(limit + 1) if size <= limit else b""
    except OSError as exc:
        raise InputError(name, "", f"cannot read the file ({exc.strerror or exc})") from None
    if size > limit or len(raw) > limit:
        raise InputError(name, "", f"file is {max(size, len(raw)):,} bytes; at most {limit:,} accepted")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(name, "", "expected UTF-8 text") from None


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """The parsed data and its node tree (for line numbers) of a YAML file."""
    return parse_yaml_text(read_user_file(path, MAX_INPUT_BYTES), str(path))


def parse_yaml_text(text: str, name: str) -> tuple[Any, yaml.Node | None]:
    """The parsed data and node tree of YAML text that did not come from a file (a web upload or
    editor), hardened like `read_yaml`; `name` stands for the file in error messages."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_INPUT_BYTES:
        raise InputError(name, "", f"text is over {MAX_INPUT_BYTES:,} bytes; refused")
    try:
        try:
            return _parse(_FastLoader, text, name)
        except (yaml.scanner.ScannerError, yaml.parser.ParserError, yaml.composer.ComposerError):
            if SAFE_LOADER is yaml.SafeLoader:
                raise
            # Syntax errors are rare and the pure-Python parser's messages are more specific
            # (libyaml's tab error does not name the tab): parse again to report with its words.
            return _parse(_PureLoader, text, name)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        column = f" (column {mark.column + 1})" if mark else ""
        raise InputError(name, "", f"not valid YAML: {syntax_problem(exc)}{column}", line) from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise InputError(name, "", f"not valid YAML: {clipped(str(exc), 200)}") from None


#: PyYAML's wording of a syntax error (problem, or context) → what to fix, in the project's words.
#: Checked in order; the first fragment found in the parser's text wins.
_SYNTAX_WORDS: tuple[tuple[str, str], ...] = (
    ("'\\t'", "a tab ('\\t') indents this line; indent with spaces"),
    ("expected ',' or ']'", "a [ list ] is not closed: a ']' or a ',' is missing"),
    ("expected ',' or '}'", "a { mapping } is not closed: a '}' or a ',' is missing"),
    ("while scanning a quoted scalar", "a quoted text is never closed: a quote is missing"),
    (
        "mapping values are not allowed",
        "a ':' where no key can start: indent this line like its "
        "neighbours, or quote a value that holds ': '",
    ),
    (
        "expected <block end>",
        "the indentation does not match the lines above: line up keys of one "
        "mapping, and list items of one list",
    ),
    (
        "did not find expected key",
        "the indentation does not match the lines above: line up keys of one mapping",
    ),
    ("did not find expected '-'", "a list item without its '-', or indented unlike the items above"),
    ("found undefined alias", "an alias (*name) with no anchor (&name) above it"),
    ("found duplicate anchor", "an anchor (&name) is defined twice"),
    ("could not determine a constructor", "a tag (!!…) ftopt does not read: plain YAML values only"),
    ("but found another document", "a second document (---): one workload per file"),
    ("found unexpected end of stream", "the file ends inside a value: a quote or bracket is missing"),
    ("found unknown escape character", "an unknown backslash escape in a double-quoted text"),
)


def syntax_problem(exc: yaml.MarkedYAMLError) -> str:
    """What is wrong with the YAML, in ftopt's words (the parser's own text is for its authors)."""
    said = f"{exc.context or ''} {exc.problem or ''}"
    for fragment, words in _SYNTAX_WORDS:
        if fragment in said:
            return words
    return "the structure breaks here or on the line above: check indentation, colons, quotes and brackets"


def _parse(loader_class: Any, text: str, name: str) -> tuple[Any, yaml.Node | None]:
    """Compose the node tree once, refuse alias bombs and duplicate keys, then build the data."""
    loader = loader_class(text)
    try:
        try:
            node = loader.get_single_node()
        except (ValueError, OverflowError):  # the pure-Python scanner's chr() of `"\UFFFFFFFF"`
            line = loader.get_mark().line + 1 if hasattr(loader, "get_mark") else None
            raise InputError(name, "", "not valid YAML: an escape names no Unicode character", line) from None
        if expanded_nodes(node) > MAX_INPUT_NODES:
            raise InputError(name, "", f"aliases expand the file beyond {MAX_INPUT_NODES:,} values; refused")
        check_duplicate_keys(node, name)
        try:
            return (loader.construct_document(node) if node is not None else None), node
        except _BadScalar as exc:
            raise _node_error(node, exc.node, exc.expected, name) from None
        except _CONSTRUCTION_ERRORS as exc:
            raise _construction_error(node, name, exc) from None
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


_Trail = tuple[Any, str | int] | None  # (parent trail, key or index): a path built only when needed


def _trail_path(trail: _Trail) -> str:
    """`runs[0].seq_len` from a trail of (parent, part) pairs."""
    parts: list[str | int] = []
    while trail is not None:
        trail, part = trail
        parts.append(part)
    path = ""
    for part in reversed(parts):
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
    return path


_PLAIN_KEY = re.compile(r"[\w.-]{1,40}")


def _path_part(key: str) -> str:
    """A key for a field path: as written when it is a plain word, else quoted (a key may hold
    blanks, control characters or a kilobyte of text)."""
    return key if _PLAIN_KEY.fullmatch(key) else quoted(key, 40)


def _key_part(key: yaml.Node) -> str:
    return _path_part(key.value) if isinstance(key, yaml.ScalarNode) else "?"


def _walk(root: yaml.Node | None) -> Any:
    """Each distinct node once (aliases are not followed twice) with its trail, in document order.

    Iterative, so linear and safe from recursion limits. Scalar keys are not yielded (the callers
    look at a mapping's keys themselves); a complex key is, with the trail of its mapping.
    """
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, _Trail]] = [(root, None)] if root is not None else []
    while stack:
        node, trail = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node, trail
        if isinstance(node, yaml.MappingNode):
            stack.extend((value, (trail, _key_part(key))) for key, value in reversed(node.value))
            stack.extend((key, trail) for key, _ in node.value if not isinstance(key, yaml.ScalarNode))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, (trail, i)) for i, item in reversed(list(enumerate(node.value))))


def check_duplicate_keys(root: yaml.Node | None, file: str) -> None:
    """Refuse a key written twice in one mapping, at any depth.

    Why: YAML loaders keep the last value silently, so a second `runs:` would drop the first list
    of runs from the bid. Keys compare by resolved tag and text, on the composed tree (linear).
    """
    for node, trail in _walk(root):
        if not isinstance(node, yaml.MappingNode):
            continue
        first: dict[tuple[str, str], int] = {}
        for key, _ in node.value:
            if not isinstance(key, yaml.ScalarNode):
                continue
            line = key.start_mark.line + 1
            if (key.tag, key.value) in first:
                raise InputError(
                    file,
                    _trail_path((trail, _key_part(key))),
                    f"duplicate key {quoted(key.value)}, first on line {first[(key.tag, key.value)]}; "
                    "write each key once",
                    line,
                )
            first[(key.tag, key.value)] = line


def _node_error(root: yaml.Node | None, target: yaml.Node, expected: str, file: str) -> InputError:
    """An InputError at `target`, with its field path (searched for: errors are rare)."""
    for node, trail in _walk(root):
        if node is target or (
            isinstance(node, yaml.MappingNode) and any(key is target for key, _ in node.value)
        ):
            return InputError(file, _trail_path(trail), expected, target.start_mark.line + 1)
    return InputError(file, "", expected, target.start_mark.line + 1)


def _construction_error(root: yaml.Node | None, file: str, error: Exception) -> InputError:
    """The construction failed outside YAML's own errors: find the first scalar that cannot be built.

    Done after the fact, one scalar at a time, so that the libyaml fast path pays nothing for it.
    """
    probe = yaml.constructor.SafeConstructor()
    for node, _ in _walk(root):
        keys = [k for k, _ in node.value] if isinstance(node, yaml.MappingNode) else []
        for scalar in [node, *keys]:
            if isinstance(scalar, yaml.ScalarNode):
                try:
                    probe.construct_object(scalar)
                except _CONSTRUCTION_ERRORS:
                    return _node_error(root, scalar, _expectation(scalar), file)
    return InputError(file, "", f"not valid YAML: {clipped(str(error), 200)}")


def _child(node: yaml.Node | None, part: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        return next((v for k, v in node.value if k.value == part), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        item: yaml.Node = node.value[part]
        return item
    return None


def locate(node: yaml.Node | None, loc: tuple[str | int, ...], missing: bool) -> tuple[str, int | None]:
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
        shown = _path_part(str(part))
        path += f"[{part}]" if isinstance(part, int) else (f".{shown}" if path else shown)
        if child is not None:
            node, line = child, child.start_mark.line + 1
    return path, line


_RELATIVE = re.compile(r"^@((?:\[\d+\]|\.?[A-Za-z_]+)+): ")


def _split_relative(message: str) -> tuple[tuple[str | int, ...], str]:
    """A validator's `@[3].name: text` (or `@figures.need_gb[0]: text`) → the extra location parts
    and the text."""
    match = _RELATIVE.match(message)
    if not match:
        return (), message
    parts: list[str | int] = []
    for index, name in re.findall(r"\[(\d+)\]|([A-Za-z_]+)", match[1]):
        parts.append(int(index) if index else name)
    return tuple(parts), message[match.end() :]


def expected_text(error: ErrorDetails) -> str:
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
        return f"expected {message.removeprefix('Input should be ')}, got {quoted(error.get('input'))}"
    return message[0].lower() + message[1:] if message else message


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (`Site`, `tuple[Run, ...]`, `str | InlineModel`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _fields_at(model: type[BaseModel], loc: tuple[str | int, ...]) -> list[str]:
    """The field names of the model found at `loc` under `model` (empty when the path leaves models)."""
    current: list[type[BaseModel]] = [model]
    for part in loc:
        if isinstance(part, int):
            continue
        current = _step(current, part)
        if not current:
            return []
    return [name for m in current for name in m.model_fields]


def _step(current: list[type[BaseModel]], part: str) -> list[type[BaseModel]]:
    """The models one loc part leads to from `current`: the union member it names (pydantic tags a
    union member by its class name), else the models of the field it names (none: it leaves models)."""
    named = [m for m in current if m.__name__ == part]
    if named:
        return named
    return [m for c in current if part in c.model_fields for m in _models_in(c.model_fields[part].annotation)]


def _field_hint(model: type[BaseModel], loc: tuple[str | int, ...]) -> str:
    """` (did you mean 'seq_len'?)` when a misspelt key is close to a field of its model."""
    key = loc[-1] if loc else None
    if not isinstance(key, str):
        return ""
    hint = did_you_mean(key, _fields_at(model, loc[:-1]))
    return f" ({hint})" if hint else ""


def _meant_field(model: type[BaseModel], loc: tuple[str | int, ...]) -> str | None:
    """The field a misspelt key at `loc` stands for, when one is close."""
    key = loc[-1] if loc else None
    if not isinstance(key, str) or len(key) > 200:
        return None
    match = difflib.get_close_matches(key, _fields_at(model, loc[:-1]), n=1, cutoff=0.7)
    return match[0] if match else None


def _union_branch(path: str, paths: set[str]) -> bool:
    """Whether an error at `path` is a union member the input was not meant as: another error lies
    inside it (`model: str | InlineModel` given a mapping with a bad field is refused as a string
    too; the mapping's field is what to fix)."""
    return bool(path) and any(q.startswith(path + ".") or q.startswith(path + "[") for q in paths)


def _input_errors(
    model: type[BaseModel], exc: ValidationError, node: yaml.Node | None, file: str
) -> list[InputError]:
    """Every problem of a validation, one InputError per field (with its line), in file order.

    Per field the deepest location is kept (one message per field, not one per union member); a
    misspelt key close to a field is reported as such, and that field's "missing" is dropped, since
    it is the same mistake.
    """
    errors = exc.errors()
    meant = {
        (tuple(e["loc"][:-1]), field)
        for e in errors
        if e["type"] == "extra_forbidden" and (field := _meant_field(model, tuple(e["loc"]))) is not None
    }
    found: dict[str, tuple[int, InputError]] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] == "missing" and (loc[:-1], loc[-1] if loc else None) in meant:
            continue
        extra, _ = _split_relative(str(error["msg"]).removeprefix("Value error, "))
        loc += extra
        path, line = locate(node, loc, error["type"] == "missing")
        hint = _field_hint(model, loc) if error["type"] == "extra_forbidden" else ""
        if path not in found or len(loc) > found[path][0]:
            found[path] = (len(loc), InputError(file, path, expected_text(error) + hint, line))
    paths = set(found)
    kept = [e for path, (_, e) in found.items() if not _union_branch(path, paths)]
    return sorted(kept, key=lambda e: (e.line or 0, e.field))


def validate(model: type[Model], data: Any, node: yaml.Node | None, file: str) -> Model:
    """`model` validated from `data`, or every problem of it at once (InputErrors, bounded)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise_all(_input_errors(model, exc, node, file))
        raise  # unreachable: a ValidationError holds at least one error


def validate_json_strictly(model: type[Model], text: str, node: yaml.Node | None, file: str) -> Model:
    """`model` validated from JSON `text` in strict mode, or every problem of it at once.

    Strict, because a document ftopt wrote holds every figure in its own type: a string where a
    number belongs (`"ram_gb": "700"`) or a fraction where a count belongs is a damaged file, not
    something to coerce. JSON strings still read as the enums and literals they name.
    """
    try:
        return model.model_validate_json(text, strict=True)
    except ValidationError as exc:
        raise_all(_input_errors(model, exc, node, file))
        raise


def require_mapping(data: Any, file: str, what: str) -> None:
    if not isinstance(data, dict):
        raise InputError(file, "", f"expected a mapping with {what} at the top level")
