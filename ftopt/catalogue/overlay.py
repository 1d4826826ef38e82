"""A vendor's catalogue directory laid over the packaged one: its own cards, chassis, prices, ….

A directory holds YAML files of the packaged data's shapes (`gpus.yaml`, `chassis.yaml`,
`prices.yaml`, any subset). Lists merge by id (prices by item): an entry with a new id is added, one
with an existing id replaces the packaged entry in place. `rules.yaml`, `speed.yaml`, `margins.yaml`,
`methods.yaml`, `rollout.yaml` and `cloud.yaml` are mappings whose keys replace the packaged ones.
Why merge rather than replace: a vendor adds a handful of SKUs and keeps the packaged models, stacks
and feeds; a full copy (`ftopt catalogue export DIR`) is the starting point for one who wants to own
everything.

Every entry is validated on its own first, so a bad field names the file, its line and the field;
then every reference (a bridge's card, a chassis' cards, a price's item, each priced item's price) is
checked against the merged catalogue and named by file, line and id, with a "did you mean".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from ftopt.errors import InputError, did_you_mean, quoted
from ftopt.model.failures import Reliability
from ftopt.model.family_data import FamilyData
from ftopt.model.hardware import (
    PRICED,
    Bridge,
    Cable,
    Catalogue,
    CatalogueModel,
    Chassis,
    Cpu,
    Dimm,
    Drive,
    Feed,
    Gpu,
    Nic,
    Price,
    Rules,
    Switch,
)
from ftopt.model.methods import MethodRegistry
from ftopt.model.rent import CloudPrices
from ftopt.model.spread import Spread
from ftopt.model.stack import MemoryMargins, RolloutConstants, SpeedConstants, Stack
from ftopt.reading.safe_yaml import read_yaml, validate

#: The list files a directory may hold, with the model of one entry.
LIST_FILES: dict[str, type[BaseModel]] = {
    "gpus": Gpu,
    "bridges": Bridge,
    "cpus": Cpu,
    "dimms": Dimm,
    "drives": Drive,
    "chassis": Chassis,
    "feeds": Feed,
    "models": CatalogueModel,
    "nics": Nic,
    "switches": Switch,
    "cables": Cable,
    "stacks": Stack,
    "prices": Price,
}
#: The mapping files, whose keys replace the packaged ones.
MAPPING_FILES: dict[str, type[BaseModel]] = {
    "rules": Rules,
    "speed": SpeedConstants,
    "margins": MemoryMargins,  # a vendor's margins.yaml replaces the `margins` table whole
    "reliability": Reliability,
    "spread": Spread,
    "methods": MethodRegistry,  # its `methods` or `algorithms` list replaces the packaged one whole
    "rollout": RolloutConstants,
    "cloud": CloudPrices,  # its `rates` list replaces the packaged table whole
}
FILE_NAMES = (*LIST_FILES, *MAPPING_FILES)

#: A directory with more files than this is not a catalogue (a home directory named by mistake).
MAX_FILES = 64


@dataclass(frozen=True)
class _Entry:
    """One overlay entry: its validated item, and where it was written."""

    item: BaseModel
    file: str
    node: yaml.Node | None

    @property
    def line(self) -> int | None:
        return self.node.start_mark.line + 1 if self.node is not None else None


def _key(kind: str, item: BaseModel) -> str:
    """The id an entry merges by: `item` for prices, `id` for everything else."""
    return str(getattr(item, "item" if kind == "prices" else "id"))


def catalogue_files(directory: Path) -> dict[str, Path]:
    """The YAML files of a catalogue directory by kind; an unknown file name is an InputError."""
    if not directory.is_dir():
        raise InputError(str(directory), "", "expected a directory of catalogue YAML files")
    found: dict[str, Path] = {}
    paths = sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))
    if len(paths) > MAX_FILES:
        raise InputError(
            str(directory), "", f"{len(paths)} YAML files; a catalogue has at most {len(FILE_NAMES)}"
        )
    for path in paths:
        kind = _file_kind(path)
        if kind in found:
            raise InputError(str(path), "", f"{kind} is given twice ({found[kind].name} and {path.name})")
        found[kind] = path
    if not found and not (directory / FAMILIES).is_dir():
        raise InputError(str(directory), "", f"no catalogue files; expected some of: {', '.join(FILE_NAMES)}")
    return found


def _file_kind(path: Path) -> str:
    """The kind a catalogue file holds, by its name; another name is a typo to point out, since a
    file that is silently ignored would leave the packaged items in place unnoticed."""
    kind = path.stem
    if kind not in FILE_NAMES:
        names = [f"{name}.yaml" for name in FILE_NAMES]
        hint = did_you_mean(f"{kind}.yaml", names)
        hint = f" ({hint})" if hint else ""
        raise InputError(str(path), "", f"not a catalogue file{hint}; expected one of: {', '.join(names)}")
    return kind


def _entries(kind: str, path: Path) -> list[_Entry]:
    """The validated entries of one list file, each with its node for line numbers."""
    data, node = read_yaml(path)
    name = str(path)
    if not isinstance(data, list):
        raise InputError(name, "", f"expected a list of {kind} entries, like the packaged {kind}.yaml")
    nodes = node.value if isinstance(node, yaml.SequenceNode) else [None] * len(data)
    entries: list[_Entry] = []
    seen: dict[str, int | None] = {}
    for index, (item, item_node) in enumerate(zip(data, nodes, strict=True)):
        if not isinstance(item, dict):
            line = item_node.start_mark.line + 1 if item_node is not None else None
            raise InputError(name, f"[{index}]", "expected a mapping (one entry)", line)
        entry = _Entry(validate(LIST_FILES[kind], item, item_node, name), name, item_node)
        key = _key(kind, entry.item)
        if key in seen:
            raise InputError(
                name, f"[{index}]", f"{quoted(key)} is given twice, first on line {seen[key]}", entry.line
            )
        seen[key] = entry.line
        entries.append(entry)
    return entries


def _mapping(kind: str, path: Path, base: BaseModel | None) -> BaseModel:
    """A mapping file's keys laid over the packaged mapping, validated whole."""
    data, node = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError(str(path), "", f"expected a mapping like the packaged {kind}.yaml")
    merged = {**(base.model_dump() if base is not None else {}), **data}
    return validate(MAPPING_FILES[kind], merged, node, str(path))


def _merge(base: tuple[Any, ...], kind: str, entries: list[_Entry]) -> tuple[Any, ...]:
    """Packaged items with same-id entries replaced in place, then the new ones in file order."""
    replacing = {_key(kind, e.item): e.item for e in entries}
    merged = [replacing.pop(_key(kind, item), item) for item in base]
    return (*merged, *replacing.values())


class _Where:
    """Where each overlay id was written, to name file and line in reference errors."""

    def __init__(self, entries: dict[str, list[_Entry]]) -> None:
        self.entries = entries

    def of(self, kind: str, key: str) -> _Entry | None:
        return next((e for e in self.entries.get(kind, ()) if _key(kind, e.item) == key), None)


def _unknown(entry: _Entry, kind: str, field: str, what: str, value: str, known: list[str]) -> InputError:
    """`gpus: chassis 'acme-8u' names unknown card 'x' (did you mean …); expected one of: …`."""
    hint = did_you_mean(value, known)
    owner = f"{_singular(kind)} {quoted(_key(kind, entry.item), 40)}"
    text = f"{owner} names unknown {what} {quoted(value)}{f' ({hint})' if hint else ''}; expected one of: "
    return InputError(entry.file, field, text + ", ".join(known), entry.line)


def _singular(kind: str) -> str:
    return {"chassis": "chassis", "prices": "price for", "switches": "switch"}.get(kind, kind.rstrip("s"))


def _check_references(parts: dict[str, Any], where: _Where) -> None:
    """Each overlay entry's references resolve in the merged catalogue (file, line and id named);
    the checks run in a fixed order, so the first broken reference is the one reported."""
    gpus = [g.id for g in parts["gpus"]]
    _check_bridge_cards(where, gpus)
    _check_chassis_cards(where, gpus)
    _check_priced_items(where, [item.id for kind in PRICED for item in parts[kind]])
    _check_items_priced(where, {p.item for p in parts["prices"]})


def _check_bridge_cards(where: _Where, gpus: list[str]) -> None:
    """An overlay bridge joins a card of the merged catalogue."""
    for entry in where.entries.get("bridges", ()):
        bridge = entry.item
        if isinstance(bridge, Bridge) and bridge.gpu not in gpus:
            raise _unknown(entry, "bridges", "gpu", "card", bridge.gpu, gpus)


def _check_chassis_cards(where: _Where, gpus: list[str]) -> None:
    """An overlay chassis lists (and limits the inlet of) cards of the merged catalogue."""
    for entry in where.entries.get("chassis", ()):
        chassis = entry.item
        if not isinstance(chassis, Chassis):
            continue
        unknown = [g for g in (*(chassis.gpus or ()), *chassis.inlet_limits) if g not in gpus]
        if unknown:
            raise _unknown(entry, "chassis", "gpus", "card", unknown[0], gpus)


def _check_priced_items(where: _Where, priced: list[str]) -> None:
    """An overlay price names an item that is priced (a server part, not a feed or a model)."""
    for entry in where.entries.get("prices", ()):
        price = entry.item
        if isinstance(price, Price) and price.item not in priced:
            raise _unknown(entry, "prices", "item", "item", price.item, priced)


def _check_items_priced(where: _Where, has_price: set[str]) -> None:
    """A new overlay part has a price, in the overlay or the packaged list: a bill needs one."""
    for kind in PRICED:
        for entry in where.entries.get(kind, ()):
            if _key(kind, entry.item) not in has_price:
                raise InputError(
                    entry.file,
                    "id",
                    f"{_singular(kind)} {quoted(_key(kind, entry.item))} has no price; add it to prices.yaml",
                    entry.line,
                )


def _check_currency(parts: dict[str, Any], where: _Where, base: Catalogue) -> None:
    """Overlay prices in the currency of the merged list (a vendor pricing everything may switch)."""
    currencies = {p.currency for p in parts["prices"]}
    if len(currencies) <= 1:
        return
    for entry in where.entries.get("prices", ()):
        price = entry.item
        if isinstance(price, Price) and price.currency != base.currency:
            raise InputError(
                entry.file,
                "currency",
                f"expected {base.currency} like the other prices (or price every item in one currency)",
                entry.line,
            )


#: The folder of a catalogue directory that holds the rule families' own data files.
FAMILIES = "families"


def _families(folder: Path, base: dict[str, FamilyData]) -> dict[str, FamilyData]:
    """The packaged rule families' data with each `families/<name>.yaml` of the directory in place of
    its namesake's. A family's file is one piece (its policy fields, items and sources go together),
    so it replaces whole, by name; a name no family of the product has is a typo to point out, since
    a file nothing reads would leave the packaged rule in force unnoticed."""
    if not folder.is_dir():
        return base
    merged = dict(base)
    for path in sorted(folder.glob("*.yaml")):
        if path.stem not in base:
            hint = did_you_mean(path.stem, list(base))
            hint = f" ({hint})" if hint else ""
            expected = f"a rule family's name{hint}: one of {', '.join(sorted(base))}"
            raise InputError(str(path), "", expected)
        data, node = read_yaml(path)
        merged[path.stem] = validate(FamilyData, data, node, str(path))
    return merged


def apply_catalogue_dir(base: Catalogue, directory: Path) -> Catalogue:
    """`base` with the directory's entries merged in by id; one InputError naming file and line."""
    files = catalogue_files(directory)
    entries = {kind: _entries(kind, path) for kind, path in files.items() if kind in LIST_FILES}
    parts: dict[str, Any] = {name: getattr(base, name) for name in type(base).model_fields}
    for kind, items in entries.items():
        parts[kind] = _merge(parts[kind], kind, items)
    for kind in MAPPING_FILES:
        if kind in files:
            parts[kind] = _mapping(kind, files[kind], getattr(base, kind))
    parts["families"] = _families(directory / FAMILIES, base.families)
    where = _Where(entries)
    _check_references(parts, where)
    _check_currency(parts, where, base)
    try:
        return Catalogue.model_validate(parts)
    except ValidationError as exc:  # a rule across items the checks above do not name (an id in two kinds)
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        raise InputError(str(directory), "", message) from None
