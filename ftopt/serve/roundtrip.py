"""A bid's YAML edited in place: comments, key order, quoting and layout kept, only named fields changed.

Why a round-trip library (ruamel.yaml) and not load → dump: a presales engineer's file carries
comments ("at P90; remove it for the cheapest plan"), an order that reads like the customer's brief
and values eased by hand; a dump of the parsed mapping loses all three, and a version comparison of
two such dumps shows every re-spelt line as a change. Here the text is parsed into ruamel's
commented tree, the form or an eased rule sets or removes fields by their path (`site.racks[0].feeds`,
`runs[1].train_tokens`), and the tree is written back with the indentation the text was written
in, so a text edited nowhere comes back byte for byte and a one-field edit changes that field's line.

Values are written so that ftopt's own YAML reader (PyYAML, YAML 1.1) reads them back as they were
meant: a string that reader would take for a number, a boolean or a date (`yes`, `1e9`, `2027-01-31`
where a string is wanted) is quoted.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Sequence
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, YAMLError
from ruamel.yaml.scalarstring import DoubleQuotedScalarString
from ruamel.yaml.tokens import CommentToken

#: (sequence indent, dash offset) pairs tried in turn: `  - item` under a key, then `- item`.
_LAYOUTS = ((4, 2), (2, 0), (4, 0), (3, 1))
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
#: Lines longer than this are never folded (ruamel's default would re-wrap a long flow mapping).
_WIDTH = 4096

Path = tuple[str | int, ...]


class RoundTripError(ValueError):
    """A text that is no YAML mapping, or a path that names no place in it."""


def parse_path(path: str) -> Path:
    """`site.racks[0].feeds` → ("site", "racks", 0, "feeds")."""
    steps: list[str | int] = []
    for key, index in _STEP.findall(path):
        steps.append(int(index) if index else key)
    if not steps or "".join(f".{s}" if isinstance(s, str) else f"[{s}]" for s in steps).lstrip(".") != path:
        raise RoundTripError(f"not a field path: {path[:80]!r}")
    return tuple(steps)


def _yaml(layout: tuple[int, int]) -> YAML:
    handler = YAML()  # round-trip mode
    handler.preserve_quotes = True
    handler.width = _WIDTH
    handler.indent(mapping=2, sequence=layout[0], offset=layout[1])
    return handler


class Document:
    """One workload text as ruamel's commented tree, with the layout that writes it back unchanged."""

    def __init__(self, text: str) -> None:
        self.original = text
        try:
            self.tree: Any = _yaml(_LAYOUTS[0]).load(text)
        except YAMLError as err:
            raise RoundTripError(f"not YAML: {' '.join(str(err).split())[:200]}") from None
        if self.tree is None:
            self.tree = CommentedMap()
        if not isinstance(self.tree, CommentedMap):
            raise RoundTripError("expected a YAML mapping (the workload)")
        self._found: tuple[int, int] | None = None

    @property
    def layout(self) -> tuple[int, int]:
        """The text's layout, found when first needed (reading a form needs none; writing does)."""
        if self._found is None:
            self._found = self._layout()
        return self._found

    def _layout(self) -> tuple[int, int]:
        """The layout the text is written in, read from its first block sequence item (`  - x`
        under a key: indent 4, offset 2; `- x`: 2, 0); checked by writing the untouched text back
        only when that guess does not reproduce it (else the first layout that does)."""
        guess = _guess_layout(self.original)
        if guess is not None and self._write(guess) == self.original:
            return guess
        for layout in _LAYOUTS:
            if layout != guess and self._write(layout) == self.original:
                return layout
        return guess or _LAYOUTS[0]

    def _before_an_edit(self) -> None:
        """The layout is read from the untouched tree, so it is found before the first edit."""
        if self._found is None:
            self._found = self._layout()

    def _write(self, layout: tuple[int, int]) -> str:
        out = io.StringIO()
        _yaml(layout).dump(self.tree, out)
        return out.getvalue()

    def dump(self) -> str:
        """The text after the edits made so far."""
        return self._write(self.layout)

    def get(self, path: str | Path, default: Any = None) -> Any:
        """The value at `path`, or `default` where the path leads nowhere."""
        node: Any = self.tree
        for step in parse_path(path) if isinstance(path, str) else path:
            node = _child(node, step)
            if node is None:
                return default
        return node

    def set(self, path: str | Path, value: Any) -> None:
        """Write `value` at `path`, making the mappings on the way (an index may append one entry)."""
        self._before_an_edit()
        steps = parse_path(path) if isinstance(path, str) else path
        parent = self._parent(steps, create=True)
        last = steps[-1]
        new = plain(value)
        if isinstance(last, int):
            if last == len(parent):
                parent.append(new)
            else:
                parent[last] = new
        else:
            parent[last] = new

    def remove(self, path: str | Path) -> None:
        """Take the field at `path` out (nothing when it is absent); a mapping left empty goes too."""
        self._before_an_edit()
        steps = parse_path(path) if isinstance(path, str) else path
        parent = self._parent(steps, create=False)
        if parent is None:
            return
        last = steps[-1]
        if isinstance(last, int) and isinstance(parent, list) and last < len(parent):
            del parent[last]
        elif isinstance(last, str) and isinstance(parent, CommentedMap) and last in parent:
            _drop_key(parent, last)
        else:
            return
        if len(steps) > 1 and isinstance(parent, dict) and not parent:
            self.remove(steps[:-1])

    def _parent(self, steps: Path, create: bool) -> Any:
        node: Any = self.tree
        for step, following in itertools.pairwise(steps):
            child = _child(node, step)
            if child is None:
                if not create:
                    return None
                child = CommentedSeq() if isinstance(following, int) else CommentedMap()
                if isinstance(node, list) and isinstance(step, int) and step == len(node):
                    node.append(child)
                elif isinstance(node, dict) and isinstance(step, str):
                    node[step] = child
                else:
                    raise RoundTripError(f"no place {step!r} in the workload")
            node = child
        if isinstance(steps[-1], int) and not isinstance(node, list):
            raise RoundTripError(f"expected a list before [{steps[-1]}]")
        if isinstance(steps[-1], str) and not isinstance(node, dict):
            raise RoundTripError(f"expected a mapping before {steps[-1]!r}")
        return node


_ITEM = re.compile(r"^( *)([A-Za-z_][\w.-]*):[ \t]*(?:#.*)?\n((?: *#.*\n|\s*\n)*)( *)- ", re.M)


def _guess_layout(text: str) -> tuple[int, int] | None:
    """(sequence indent, dash offset) of the first block list under a key, or None without one."""
    found = _ITEM.search(text)
    if found is None:
        return None
    offset = len(found.group(4)) - len(found.group(1))
    return (offset + 2, offset) if offset >= 0 else None


def _drop_key(mapping: CommentedMap, key: str) -> None:
    """Delete `key`, keeping the full-line comments around it: ruamel hangs the comment lines above
    a key on that key or on the end of the line before, and deleting the key would delete them."""
    keys = list(mapping)
    at = keys.index(key)
    slots = mapping.ca.items.pop(key, None) or [None, None, None, None]
    lines = "".join(t.value for t in slots[1] or [])
    if slots[2] is not None:  # its own end-of-line comment goes; the lines after it stay
        lines += "".join(slots[2].value.splitlines(keepends=True)[1:])
    del mapping[key]
    if lines.strip():
        _attach(mapping, keys, at, lines)


def _attach(mapping: CommentedMap, keys: list[str], at: int, lines: str) -> None:
    """Comment `lines` put back above the key after a deleted one (or after the one before it)."""
    mark = CommentMark(0)
    if at + 1 < len(keys):
        slots = mapping.ca.items.setdefault(keys[at + 1], [None, None, None, None])
        tokens = [CommentToken(line, mark) for line in lines.splitlines(keepends=True)]
        slots[1] = tokens + list(slots[1] or [])
    elif at > 0:
        slots = mapping.ca.items.setdefault(keys[at - 1], [None, None, None, None])
        before = slots[2].value if slots[2] is not None else "\n"
        slots[2] = CommentToken(before + lines, mark)


def _child(node: Any, step: str | int) -> Any:
    if isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node):
        return node[step]
    if isinstance(step, str) and isinstance(node, dict):
        return node.get(step)
    return None


def plain(value: Any) -> Any:
    """A Python value as the tree holds it: a list in flow style (`[a, b]`, as people write lists of
    ids), a mapping as a block, a string quoted where PyYAML would read it as something else."""
    if isinstance(value, str):
        return DoubleQuotedScalarString(value) if _needs_quotes(value) else value
    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = plain(item)
        return mapping
    if isinstance(value, list | tuple):
        seq = CommentedSeq(plain(item) for item in value)
        if all(not isinstance(item, dict | list) for item in value):
            seq.fa.set_flow_style()
        return seq
    return value


def _needs_quotes(text: str) -> bool:
    """Whether PyYAML (what ftopt reads workloads with) would read `text` as anything but this string."""
    try:
        return bool(yaml.safe_load(text) != text)
    except yaml.YAMLError:
        return True


def edited(text: str, changes: Sequence[tuple[str, Any]]) -> str:
    """`text` with each (path, value) written; a value of None removes the field."""
    doc = Document(text)
    for path, value in changes:
        if value is None:
            doc.remove(path)
        else:
            doc.set(path, value)
    return doc.dump()
