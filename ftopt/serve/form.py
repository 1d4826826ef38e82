"""The bid form, built from the workload's JSON Schema: every field the schema has, edited in place.

Why from the schema (`ftopt schema`, the pydantic models): a field added to the workload appears in
the form without a template change, racked and queued sites, inventories and the quote's buyer
details included, and its kind (number, choice, yes/no, list of ids) and default come from the same
place the loader checks them against. Why only the fields the user changed are written: the form is
drawn from one stored version, and on saving each input is compared with what that version holds;
an input left alone writes nothing, so a field the bid does not have (a feed on a racked site) is
never invented, and comments, order and spelling of the rest stay as they were (`roundtrip`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cache, lru_cache
from typing import Any

import yaml

from ftopt.catalogue.schema import workload_schema
from ftopt.model.hardware import Catalogue
from ftopt.reading.safe_yaml import SAFE_LOADER
from ftopt.serve.roundtrip import Document, parse_path

#: The top-level sections in the order the form shows them; fields not named here follow.
ORDER = ("name", "quote", "runs", "site", "hardware", "queue", "inventory", "objective", "energy", "sizing")
#: Fields whose text is a catalogue id: the form suggests the catalogue's ids (free text stays allowed,
#: for a vendor catalogue's ids).
SUGGEST = {
    "model": "models",
    "reward_model": "models",
    "feed": "feeds",
    "feeds": "feeds",
    "gpus": "gpus",
    "gpu": "gpus",
    "chassis": "chassis",
}
REMOVE = "_remove"


@dataclass(frozen=True)
class Input:
    """One input: its field path, label, kind (text, number, choice, yesno, list, fixed), the choices
    of a choice, the catalogue list it suggests from, the value the version holds, and its default."""

    path: str
    label: str
    kind: str
    description: str = ""
    choices: tuple[str, ...] = ()
    suggest: str = ""
    value: str = ""
    default: str = ""


@dataclass(frozen=True)
class Section:
    """A mapping of the workload: its inputs, nested mappings, and lists of mappings (as entries).

    Frozen, its parts tuples: the form of a text and the blank sections are cached and shared by
    every request thread, so nothing may change one after it is built."""

    path: str
    title: str
    inputs: tuple[Input, ...] = ()
    sections: tuple[Section, ...] = ()
    lists: tuple[Entries, ...] = ()
    present: bool = False


@dataclass(frozen=True)
class Entries:
    """A list of mappings (runs, racks, owned servers): one section per entry, then one empty to add."""

    path: str
    title: str
    entries: tuple[Section, ...] = ()


@cache
def _schema() -> dict[str, Any]:
    return workload_schema()


def _resolve(prop: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = prop.get("$ref")
    return _schema()["$defs"][ref.rsplit("/", 1)[-1]] if isinstance(ref, str) else prop


def _variants(prop: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The non-null alternatives of a property, each with its $ref resolved."""
    options = prop.get("anyOf") or [prop]
    return [_resolve(o) for o in options if o.get("type") != "null"]


def _scalar_kind(variants: list[Mapping[str, Any]]) -> tuple[str, tuple[str, ...]]:
    """(kind, choices) of a property whose alternatives are all scalars."""
    choices: list[str] = []
    types: set[str] = set()
    for v in variants:
        if "enum" in v or "const" in v:
            choices += [_text(x) for x in v.get("enum", [v.get("const")])]
        elif v.get("type") == "boolean":
            choices += ["true", "false"]
        else:
            types.add(str(v.get("type")))
    if choices and not types:
        return "choice", tuple(dict.fromkeys(choices))
    if types <= {"integer", "number"} and not choices:
        return "number", ()
    return "text", tuple(dict.fromkeys(choices))


def _text(value: Any) -> str:
    """A value as the form shows it: yes/no as true/false, a list of ids as `a, b`, a date ISO."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, date):
        return value.isoformat()
    return str(value)  # a number as the workload loader reads it; compared, never re-parsed


def _object_def(variants: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return next((v for v in variants if "properties" in v), None)


@dataclass
class _Parts:
    """A section's parts while it is built (then frozen into a Section)."""

    inputs: list[Input] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    lists: list[Entries] = field(default_factory=list)


def _section(node: Any, definition: Mapping[str, Any], path: str, title: str) -> Section:
    """The section of the mapping `node` (None where the version has none) at `path`, with its values.
    A part the version does not have is the same for every bid: it comes from `blank_section`."""
    if node is None and path and _definition_at(path) is definition:
        return blank_section(path, title)
    return _built(node, definition, path, title)


def _built(node: Any, definition: Mapping[str, Any], path: str, title: str) -> Section:
    parts = _Parts()
    held = node if isinstance(node, Mapping) else {}
    props: Mapping[str, Any] = definition.get("properties", {})
    keys = sorted(props, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER)) if not path else props
    for key in keys:
        _add(parts, held.get(key), key, props[key], f"{path}.{key}" if path else key)
    return Section(
        path, title, tuple(parts.inputs), tuple(parts.sections), tuple(parts.lists), present=node is not None
    )


@lru_cache(maxsize=4096)
def _definition_at(path: str) -> Mapping[str, Any] | None:
    """The schema's definition of the mapping at `path` (`runs[2].model`: the inline model), as the
    walk in `_add` finds it; None where the path names no mapping of the schema."""
    definition: Mapping[str, Any] = _schema()
    steps = parse_path(path)
    for i, step in enumerate(steps):
        if isinstance(step, int):
            continue  # an entry: `definition` is already the list's item
        prop = definition.get("properties", {}).get(step)
        if prop is None:
            return None
        variants = _variants(prop)
        if i + 1 < len(steps) and isinstance(steps[i + 1], int):
            items = next((v.get("items") for v in variants if v.get("type") == "array"), None)
            found = _resolve(items) if items is not None else None
        else:
            found = _object_def(variants)
        if found is None or "properties" not in found:
            return None
        definition = found
    return definition


@lru_cache(maxsize=4096)
def blank_section(path: str, title: str = "") -> Section:
    """The section at `path` of a bid that does not have it: every field empty, the same for every
    bid, so built once per path from the schema and shared (the form of a five-run bid is mostly
    parts it does not have: the new run, inline models, the queue, inventories). Raises KeyError
    for a path that names no mapping of the schema."""
    definition = _definition_at(path)
    if definition is None:
        raise KeyError(path)
    return _built(None, definition, path, title or path.rsplit(".", 1)[-1])


def _add(parts: _Parts, value: Any, key: str, prop: Mapping[str, Any], path: str) -> None:
    """The input, nested section or list of entries for one property holding `value`."""
    variants = _variants(prop)
    has_text = any(v.get("type") == "string" for v in variants)
    nested = _object_def(variants)
    items = next((v.get("items") for v in variants if v.get("type") == "array"), None)
    if items is not None and "properties" in _resolve(items):
        parts.lists.append(_entries(value, _resolve(items), path, key))
        return
    scalar = value is not None and not isinstance(value, Mapping | list)
    if nested is None or has_text or scalar:  # an id, a value, or a mapping written as one (a name)
        parts.inputs.append(_input(key, prop, variants, path, value, items is not None))
    if nested is not None:  # a mapping; beside an id, the inline alternative (a model of your own)
        inline = value if isinstance(value, Mapping) else None
        parts.sections.append(_section(inline, nested, path, f"{key}: inline" if has_text else key))


def _input(
    key: str, prop: Mapping[str, Any], variants: list[Mapping[str, Any]], path: str, value: Any, listed: bool
) -> Input:
    kind, choices = ("list", ()) if listed else _scalar_kind([v for v in variants if "properties" not in v])
    if isinstance(value, Mapping) or (isinstance(value, list) and not listed):
        kind = "fixed"  # an inline model or another structure: edited in the YAML
    default = prop.get("default")
    return Input(
        path=path,
        label=key,
        kind=kind,
        description=str(prop.get("description", "")),
        choices=choices,
        suggest=SUGGEST.get(key, ""),
        value=_text(value) if kind != "fixed" else "(inline, below)",
        default="" if default is None or default == [] else _text(default),
    )


def _entries(held: Any, definition: Mapping[str, Any], path: str, key: str) -> Entries:
    """One section per entry of the list `held`, then an empty one that adds an entry."""
    rows = list(held) if isinstance(held, list) else []
    entries = []
    for i, row in enumerate([*rows, None]):
        title = f"{key} {i + 1}" if i < len(rows) else f"new {key}"
        entry = _section(row, definition, f"{path}[{i}]", title)
        if i < len(rows) and not entry.present:  # a null entry (`- `) is still one the version holds
            entry = replace(entry, present=True)
        entries.append(entry)
    return Entries(path, key, tuple(entries))


@lru_cache(maxsize=256)
def bid_form(text: str) -> Section:
    """The whole form for a workload text (an empty text: the form of a new bid).

    Its values are read as the workload loader reads them (libyaml's safe loader, what `ftopt solve`
    sees), not through the round-trip document: the form only shows and compares values, and the
    round-trip parse, ten times slower, was most of a version page's time under load
    (benchmarks/serve-load.md); edits still go through `Document`, which keeps the comments. Cached
    by text, and only ever read: a stored version's text never changes."""
    return _section(_values(text), _schema(), "", "bid")


def _values(text: str) -> Any:
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:  # not a stored version's text (those were read by the loader): as written
        return Document(text).tree


def inputs(section: Section) -> list[Input]:
    """Every input of a section, nested ones and entries' included, in form order."""
    found = list(section.inputs)
    for sub in section.sections:
        found += inputs(sub)
    for entries in section.lists:
        for entry in entries.entries:
            found += inputs(entry)
    return found


def entry_paths(section: Section) -> list[str]:
    """The paths of the entries the version holds (`runs[0]`, `site.racks[1]`), nested ones too."""
    found: list[str] = []
    for sub in section.sections:
        found += entry_paths(sub)
    for entries in section.lists:
        for entry in entries.entries:
            found += [entry.path] if entry.present else []
            found += entry_paths(entry)
    return found


def _value(item: Input, typed: str) -> Any:
    """What a typed text is written as, by the input's kind; text that is no number stays text, for
    the loader to refuse in its own words beside the field."""
    if item.kind == "list":
        return [part.strip() for part in typed.split(",") if part.strip()]
    if item.kind == "number" or (item.kind == "text" and typed[:1].isdigit()):
        return number(typed)
    if typed in ("true", "false") and "true" in item.choices:
        return typed == "true"
    if item.kind == "choice" and all(_is_number(c) for c in item.choices):
        return number(typed)
    return typed


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def number(value: str) -> int | float | str:
    """A typed number as the loader expects it (`1,000` and `1_000` read as 1000); text that is no
    number is passed on as typed."""
    text = value.strip().replace("_", "").replace(",", "")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        found = float(text)
    except ValueError:
        return value.strip()
    return int(found) if found.is_integer() and "e" in text.lower() and abs(found) < 1e18 else found


def changes(text: str, typed: Mapping[str, str]) -> list[tuple[str, Any]]:
    """The (path, value) edits the typed form makes to the version `text`: each input whose typed
    text differs from the version's, in form order (None removes a field), then the entries ticked
    for removal, last first (so the indexes of the others hold)."""
    form = bid_form(text)
    doc = Document(text)
    edits: list[tuple[str, Any]] = []
    for item in inputs(form):
        if item.kind == "fixed" or item.path not in typed:
            continue
        given = typed[item.path].strip()
        if given != item.value.strip():
            edits += _replaced_id(doc, item.path, edits)
            edits.append((item.path, _value(item, given) if given else None))
    held = set(entry_paths(form))
    removed = [p[: -len(REMOVE) - 1] for p, v in typed.items() if p.endswith("." + REMOVE) and v]
    removed = [p for p in removed if p in held]  # only an entry the version has
    edits += [(p, None) for p in sorted(removed, key=_index_key, reverse=True)]
    return edits


def _replaced_id(doc: Document, path: str, edits: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A field typed into the mapping alternative of a field that holds a scalar (a model's
    architecture where the run names a catalogue model, a customer's contact where the bid names the
    customer) turns the scalar into a mapping with it as the name, once; a typed name wins."""
    steps = parse_path(path)
    for cut in range(1, len(steps)):
        held = doc.get(steps[:cut])
        if held is not None and not isinstance(held, dict | list):
            above = _path_text(steps[:cut])  # the id becomes the mapping's name (a customer's, a model's)
            return [] if any(p == above for p, _ in edits) else [(above, {"name": held})]
    return []


def _path_text(steps: tuple[str | int, ...]) -> str:
    return "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps).lstrip(".")


def _index_key(path: str) -> tuple[str, int]:
    head, _, index = path.rpartition("[")
    return head, int(index.rstrip("]") or 0) if index.rstrip("]").isdigit() else 0


def typed_fields(form: Mapping[str, Any]) -> dict[str, str]:
    """The text inputs of a posted form (files and repeated keys left out)."""
    return {k: v for k, v in form.items() if isinstance(v, str)}


def suggestions(catalogue: Catalogue) -> dict[str, list[str]]:
    """The catalogue's ids the form suggests, by list name."""
    return {
        "models": [m.id for m in catalogue.models],
        "feeds": [f.id for f in catalogue.feeds],
        "gpus": [g.id for g in catalogue.gpus],
        "chassis": [c.id for c in catalogue.chassis],
    }
