"""`ftopt catalogue list|show|export`: the hardware, models and prices ftopt builds from.

`list [KIND]` prints one table per kind, `show ID` one item with its price and sources, `export`
the whole catalogue as JSON (pydantic `model_dump(mode="json")`). `--prices FILE` on each lays a
user's price list over the catalogue's indicative prices first.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from pydantic import BaseModel
from rich.table import Table

from ftopt.catalogue.loader import KINDS, data_dir, load_catalogue
from ftopt.catalogue.overlay import FAMILIES, FILE_NAMES, apply_catalogue_dir, catalogue_files
from ftopt.cli import (
    catalogue_dir_option,
    echo_json,
    open_catalogue,
    prices_option,
    stdout_console,
    table_or_json_option,
)
from ftopt.cli.errors import CommandInputError, handle_errors
from ftopt.errors import InputError, quoted
from ftopt.model.findings import money
from ftopt.model.hardware import ITEM_KINDS, PRICED, Catalogue, CatalogueModel, Feed, Gpu, Kind, Price


def _num(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}".rstrip("0")


def _nvlink(gpu: Gpu) -> str:
    """The card's GPU-to-GPU link under its own name: NVLink bridges, an NVSwitch baseboard, or AMD's
    Infinity Fabric linking every module of its board to every other."""
    link = gpu.nvlink
    if link is None:
        return "no"
    named = "" if link.name == "NVLink" else f"{link.name}, "
    if not link.bridge_sizes:
        board = "NVSwitch baseboard" if link.name == "NVLink" else "all-to-all baseboard"
        return f"{named}{_num(link.bandwidth_gbps)} GB/s, {board}"
    sizes = ", ".join(map(str, link.bridge_sizes))
    return f"{named}{_num(link.bandwidth_gbps)} GB/s, bridges of {sizes}"


def _ports(item: Any) -> str:
    return f"{item.ports} × {item.port_gbits} Gb/s"


def _params(item: CatalogueModel) -> str:
    return f"{item.params.total / 1e9:,.2f} B"


# Per kind: the columns `list` shows beside id and name, as (header, value of one item).
_COLUMNS: dict[str, tuple[tuple[str, Callable[[Any], str]], ...]] = {
    "gpus": (
        ("memory GB", lambda g: _num(g.memory_gb)),
        ("power W", lambda g: ", ".join(map(str, g.power_settings_w))),
        ("NVLink", _nvlink),
        ("PCIe GB/s", lambda g: _num(g.pcie_gbps)),
        ("BF16 TFLOPS", lambda g: _num(g.bf16_dense_tflops)),
        ("max inlet °C", lambda g: _num(g.max_inlet_c)),
    ),
    "bridges": (("card", lambda b: b.gpu), ("cards joined", lambda b: str(b.size))),
    "cpus": (
        ("cores", lambda c: str(c.cores)),
        ("TDP W", lambda c: str(c.tdp_w)),
        ("channels", lambda c: str(c.memory_channels)),
    ),
    "dimms": (("GB", lambda d: str(d.gb)),),
    "drives": (("TB", lambda d: _num(d.tb)), ("role", lambda d: d.role)),
    "chassis": (
        ("GPU slots", lambda c: str(c.gpu_slots)),
        ("sockets", lambda c: str(c.sockets)),
        ("DIMM slots", lambda c: str(c.dimm_slots)),
        ("drive bays", lambda c: str(c.drive_bays)),
        ("max CPU TDP W", lambda c: str(c.max_cpu_tdp_w)),
        ("max inlet °C", lambda c: _num(c.max_inlet_c)),
        ("NVSwitch", lambda c: "yes" if c.nvswitch else ""),
        ("NIC slots", lambda c: str(len(c.nic_slots))),
    ),
    "feeds": (
        ("volts", lambda f: _num(f.volts)),
        ("amps", lambda f: _num(f.amps)),
        ("phases", lambda f: str(f.phases)),
        ("usable W", lambda f: f"{f.usable_w:,}"),
    ),
    "models": (
        ("params", _params),
        ("layers", lambda m: str(m.architecture.layers)),
        ("hidden", lambda m: str(m.architecture.hidden)),
        ("vocab", lambda m: f"{m.architecture.vocab:,}"),
    ),
    "nics": (
        ("ports", _ports),
        ("connector", lambda n: n.connector),
        ("fabrics", lambda n: ", ".join(n.fabrics)),
        ("power W", lambda n: _num(n.power_w)),
    ),
    "switches": (
        ("fabric", lambda s: s.fabric),
        ("ports", _ports),
        ("U", lambda s: str(s.rack_units)),
        ("power W", lambda s: _num(s.power_w)),
    ),
    "cables": (
        ("kind", lambda c: c.kind),
        ("links", lambda c: f"{c.links} × {c.gbits} Gb/s"),
        ("reach m", lambda c: _num(c.reach_m)),
        ("power W", lambda c: _num(c.power_w)),
    ),
}


def _price_text(price: Price) -> str:
    text = f"{money(price.amount, price.currency)} ({price.date})"
    return text + ", assumption" if price.assumption else text


#: Columns read left to right (text); the others are figures, right-aligned.
_LEFT_COLUMNS = ("NVLink", "role", "card", "connector", "fabrics", "fabric", "kind")
_PRICE_HEADERS = ("item", "amount", "currency", "date", "assumption", "source")


def _price_table(catalogue: Catalogue) -> Table:
    """The price list: item, amount, date and source, the source wrapped since it is a long URL."""
    table = Table(title="prices", title_justify="left")
    for header in _PRICE_HEADERS:
        table.add_column(
            header, justify="right" if header == "amount" else "left", no_wrap=header != "source"
        )
    for price in catalogue.prices:
        table.add_row(
            price.item,
            money(price.amount),
            price.currency,
            price.date,
            "yes" if price.assumption else "",
            price.source,
        )
    return table


def kind_table(catalogue: Catalogue, kind: str) -> Table:
    """One kind of item as a rich table; prices list item, amount, date and source."""
    if kind == "prices":
        return _price_table(catalogue)
    table = Table(title=kind, title_justify="left")
    columns = _COLUMNS[kind]
    priced = kind in PRICED
    table.add_column("id", no_wrap=True)
    table.add_column("name")
    for header, _ in columns:
        table.add_column(header, justify="left" if header in _LEFT_COLUMNS else "right")
    if priced:
        table.add_column("price", justify="right", no_wrap=True)
    for item in getattr(catalogue, kind):
        cells = [item.id, item.name, *(value(item) for _, value in columns)]
        if priced:
            cells.append(_price_text(catalogue.price(item.id)))
        table.add_row(*cells)
    return table


def find_item(catalogue: Catalogue, item_id: str) -> tuple[Kind, BaseModel]:
    """The kind and item with this id, or a CommandInputError with the closest ids.

    The whole id list grew past a readable line with the fabric items; `ftopt catalogue list` shows
    it, so the error names the closest ids and where to look."""
    for kind in ITEM_KINDS:
        if catalogue.has(kind, item_id):
            return kind, next(i for i in getattr(catalogue, kind) if i.id == item_id)
    known = [i for kind in ITEM_KINDS for i in catalogue.ids(kind)]
    close = difflib.get_close_matches(item_id, known, n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise CommandInputError(f"unknown catalogue id {quoted(item_id)}; {hint}see `ftopt catalogue list`")


def item_record(catalogue: Catalogue, kind: Kind, item: BaseModel, item_id: str) -> dict[str, Any]:
    """An item as plain data with its kind, its price (priced kinds) and derived figures."""
    record: dict[str, Any] = {"kind": kind, **item.model_dump(mode="json")}
    if isinstance(item, Feed):
        record["usable_w"] = item.usable_w
    if isinstance(item, CatalogueModel):
        counts = item.params
        record["params"] = {
            "total": counts.total,
            "linear": counts.linear,
            "embeddings": counts.embeddings,
            "vision": counts.vision,
            "other": counts.other,
            "active": counts.active,
            "lora_per_rank": counts.lora_per_rank,
        }
    if kind in PRICED:
        record["price"] = catalogue.price(item_id).model_dump(mode="json")
    return record


def _flatten(prefix: str, value: Any, rows: list[tuple[str, str]]) -> None:
    """A record's leaves as (dotted path, text) rows: nested mappings and lists of records by path,
    a list of plain values on one row, ints with thousands separators, None left out."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, inner, rows)
    elif isinstance(value, list) and not all(isinstance(v, str | int | float) for v in value):
        for i, inner in enumerate(value):
            _flatten(f"{prefix}[{i}]", inner, rows)
    elif isinstance(value, list):
        rows.append((prefix, ", ".join(map(str, value))))
    elif value is not None:
        rows.append((prefix, _leaf_text(value)))


def _leaf_text(value: Any) -> str:
    """A scalar as the table shows it: 1,024 for an int (not a bool), str() for anything else."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def item_table(record: dict[str, Any]) -> Table:
    """An item record as a two-column table; its sources follow as numbered rows."""
    fields = {k: v for k, v in record.items() if k not in ("sources", "price")}
    rows: list[tuple[str, str]] = []
    _flatten("", fields, rows)
    price = record.get("price")
    if price:
        rows.append(("price", _price_text(Price.model_validate(price))))
        rows.append(("price source", price["source"]))
    for i, source in enumerate(record.get("sources", ()), start=1):
        rows.append((f"source {i}", source))
    table = Table(title=f"{record['id']}: {record['name']}", title_justify="left", show_header=False)
    table.add_column("field", no_wrap=True, style="bold")
    table.add_column("value")
    for key, value in rows:
        table.add_row(key, value)
    return table


@click.group()
def catalogue() -> None:
    """List and show the hardware, models and prices ftopt builds from; export, validate a vendor's own."""


@catalogue.command("list")
@click.argument("kind", required=False, metavar="[KIND]", type=click.Choice(KINDS))
@table_or_json_option
@prices_option
@catalogue_dir_option
@handle_errors
def list_items(kind: str | None, fmt: str, prices: Path | None, catalogue_dir: Path | None) -> None:
    """List the items of one KIND (gpus, bridges, cpus, dimms, drives, chassis, feeds, models, nics,
    switches, cables, prices), or of every kind."""
    cat = open_catalogue(prices, catalogue_dir)
    kinds = (kind,) if kind else KINDS
    if fmt == "json":
        echo_json({k: [i.model_dump(mode="json") for i in getattr(cat, k)] for k in kinds})
        return
    console = stdout_console()
    for k in kinds:
        console.print(kind_table(cat, k))
        console.print()


@catalogue.command("show")
@click.argument("item_id", metavar="ID")
@table_or_json_option
@prices_option
@catalogue_dir_option
@handle_errors
def show(item_id: str, fmt: str, prices: Path | None, catalogue_dir: Path | None) -> None:
    """Show one item (card, bridge, CPU, DIMM, drive, chassis, feed, model, NIC, switch or cable)
    with its price and sources."""
    cat = open_catalogue(prices, catalogue_dir)
    kind, item = find_item(cat, item_id)
    record = item_record(cat, kind, item, item_id)
    if fmt == "json":
        echo_json(record)
    else:
        stdout_console().print(item_table(record))


@catalogue.command("export")
@click.argument("directory", required=False, metavar="[DIR]", type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True, help="Output format."
)
@prices_option
@catalogue_dir_option
@handle_errors
def export(directory: Path | None, fmt: str, prices: Path | None, catalogue_dir: Path | None) -> None:
    """Dump the whole catalogue, rules and prices included, as JSON; with DIR, write a copy of the
    packaged YAML files there instead, as the start of a vendor's own catalogue (--catalogue DIR)."""
    if directory is None:
        echo_json(open_catalogue(prices, catalogue_dir).model_dump(mode="json"))
        return
    written = export_files(directory)
    click.echo(
        f"wrote {len(written)} catalogue files to {directory}; edit them and pass --catalogue {directory}"
    )


def export_files(directory: Path) -> list[Path]:
    """Copy the packaged catalogue's YAML files, comments and sources included, into `directory`.

    Existing files are never overwritten: a vendor's edited copy is worth more than a fresh one. Only
    the files a catalogue directory may hold are copied (the rollout engine's constants are not yet
    part of the catalogue a vendor overlays).
    """
    if directory.exists() and not directory.is_dir():
        raise InputError(str(directory), "", "expected a directory to write the catalogue files into")
    sources = sorted(p for p in data_dir().glob("*.yaml") if p.stem in FILE_NAMES)
    families = sorted((data_dir() / FAMILIES).glob("*.yaml"))
    targets = [directory / p.name for p in sources] + [directory / FAMILIES / p.name for p in families]
    clash = next((target for target in targets if target.exists()), None)
    if clash is not None:
        raise InputError(str(clash), "", "exists already; export into an empty directory")
    (directory / FAMILIES).mkdir(parents=True, exist_ok=True)
    for path in sources:
        shutil.copyfile(path, directory / path.name)
    for path in families:  # each rule family's own data file, which the directory may replace whole
        shutil.copyfile(path, directory / FAMILIES / path.name)
    return targets


@catalogue.command("validate")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@handle_errors
def validate_dir(directory: Path) -> None:
    """Check a catalogue directory: every entry, every reference and every price, merged by id over
    the packaged catalogue. One line naming file, line and id for the first problem (exit 2)."""
    merged = apply_catalogue_dir(load_catalogue(), directory)
    files = catalogue_files(directory)
    added = _added(load_catalogue(), merged)
    click.echo(f"catalogue {directory} is valid: {len(files)} files; {added}")


def _added(base: Catalogue, merged: Catalogue) -> str:
    """`2 items added (gpus: acme-x), 1 replaced (prices: gpu-server-8)` for the validate summary."""
    added, replaced = [], []
    for kind in ITEM_KINDS:
        kind_added, kind_replaced = _changed(getattr(base, kind), getattr(merged, kind), "id")
        added += [f"{kind}: {i}" for i in kind_added]
        replaced += [f"{kind}: {i}" for i in kind_replaced]
    replaced += [f"prices: {i}" for i in _changed(base.prices, merged.prices, "item")[1]]
    parts = [f"{len(added)} items added" + (f" ({', '.join(added)})" if added else "")]
    parts.append(f"{len(replaced)} replaced" + (f" ({', '.join(replaced)})" if replaced else ""))
    return ", ".join(parts)


def _changed(before: tuple[Any, ...], after: tuple[Any, ...], key: str) -> tuple[list[str], list[str]]:
    """The keys `after` adds to `before` and those it replaces with a different entry, in its order."""
    old = {getattr(item, key): item for item in before}
    added = [getattr(item, key) for item in after if getattr(item, key) not in old]
    replaced = [
        getattr(item, key) for item in after if getattr(item, key) in old and item != old[getattr(item, key)]
    ]
    return added, replaced
