"""The grid file of `ftopt sweep`: which workload fields to vary, and the scenarios it expands to.

A grid names workload fields by dotted path (`site.feed`, `runs.chat.concurrent`) plus two
sweep-only knobs, `prices` (a price-list file, relative to the grid file) and `scale` (multiplies
every run's copies), each with a list of values::

    cross:                      # every combination of these lists
      site.feed: [230v-16a, 230v-32a]
      site.inlet_c: [22, 27, 32]
    zip:                        # these lists taken together, row by row (equal lengths)
      scale: [1, 2, 4]
      site.max_servers: [null, 4, 8]

`cross` and `zip` combine as a product: here 2 × 3 × 3 = 18 scenarios. The grid is checked when it
is read (unknown paths, unknown run names, zip lists of unequal length, missing price lists: one
`InputError` naming the grid file, the field and its line). The values themselves are checked
scenario by scenario, when each edited workload is validated like a file: a bad value costs that
scenario only, which is recorded with its error.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from ftopt.errors import InputError, did_you_mean
from ftopt.model.workload import HardwareLimits, Queue, Rack, Run, Site, SizingOptions, Workload
from ftopt.reading.safe_yaml import read_yaml, validate

#: Sweep-only knobs: a price list overlaid on the catalogue, and a factor on every run's copies.
PRICES = "prices"
SCALE = "scale"

#: Sections of the workload whose fields a grid may set, by the model that validates them.
_SECTIONS: dict[str, type[BaseModel]] = {"site": Site, "hardware": HardwareLimits, "sizing": SizingOptions}

#: Fields named by issue 16 ("many bids at once") before the workload has them. A grid may sweep
#: them now; until the workload model grows them, each such scenario is recorded with the
#: validation error (unknown field) instead of a plan. Once a field lands it is a model field and
#: is accepted by the general rule.
_FORWARD_TOP = ("objective",)
_FORWARD_RUN = ("deadline_hours",)

#: `site.racks[I].FIELD`, or `site.racks[I].feeds[J]` for one circuit of a rack.
_RACK_PATH = re.compile(r"^site\.racks\[(\d+)\]\.([a-z_]+)(?:\[(\d+)\])?$")
#: Queue fields a grid may sweep when the workload is in queue mode.
_QUEUE_FIELDS = tuple(Queue.model_fields)


def rack_path(path: str) -> tuple[int, str, int | None] | None:
    """(rack index, field, item index or None) of a `site.racks[I].FIELD[J]` path, else None."""
    match = _RACK_PATH.match(path)
    if match is None:
        return None
    item = match.group(3)
    return int(match.group(1)), match.group(2), int(item) if item is not None else None


class GridFile(BaseModel):
    """The grid file as written: lists of values under `cross:` and `zip:`."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    cross: dict[str, list[JsonValue]] = Field(default_factory=dict, description="cartesian product")
    zip: dict[str, list[JsonValue]] = Field(default_factory=dict, description="lists taken together")


@dataclass(frozen=True)
class Grid:
    """A checked grid: the swept paths in order, their values, and where price lists live."""

    file: Path
    cross: dict[str, list[Any]]
    zipped: dict[str, list[Any]]
    base_dir: Path = field(default=Path("."))

    @property
    def paths(self) -> list[str]:
        """Swept paths: cross first, then zip, in file order."""
        return [*self.cross, *self.zipped]

    def __len__(self) -> int:
        size = 1
        for values in self.cross.values():
            size *= len(values)
        if self.zipped:
            size *= len(next(iter(self.zipped.values())))
        return size

    def scenarios(self) -> list[dict[str, Any]]:
        """Every scenario, as a mapping path → value, cross × zip, in a stable order."""
        crossed = [
            dict(zip(self.cross, combo, strict=True)) for combo in itertools.product(*self.cross.values())
        ]
        rows = [
            dict(zip(self.zipped, row, strict=True)) for row in zip(*self.zipped.values(), strict=True)
        ] or [{}]
        return [{**c, **r} for c in crossed for r in rows]

    def price_file(self, value: str) -> Path:
        """The price list a `prices` value names (relative to the grid file)."""
        return self.base_dir / value

    def price_values(self) -> list[str]:
        """The distinct `prices` values, in order of first appearance."""
        values = [*self.cross.get(PRICES, []), *self.zipped.get(PRICES, [])]
        return list(dict.fromkeys(values))


def scenario_key(values: dict[str, Any]) -> str:
    """A stable id of a scenario: a hash of its swept values, independent of the order of keys."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def known_paths(workload: Workload) -> list[str]:
    """The paths a grid may sweep for this workload (for error messages)."""
    paths = _section_paths()
    run_fields = [*Run.model_fields, *_FORWARD_RUN]
    paths += [f"runs.{run.name}.{name}" for run in workload.runs for name in run_fields]
    for index, rack in enumerate(workload.site.racks or ()):
        paths += [f"site.racks[{index}].{name}" for name in Rack.model_fields]
        paths += [f"site.racks[{index}].feeds[{j}]" for j in range(len(rack.feeds))]
    return paths


def _section_paths() -> list[str]:
    """Every path a grid may sweep whatever the workload: the knobs and each section's fields."""
    paths = [PRICES, SCALE, "name", *_FORWARD_TOP]
    for section, model in _SECTIONS.items():
        paths += [f"{section}.{name}" for name in model.model_fields]
    return paths


def _every_kind(workload: Workload) -> str:
    """The whole list of path kinds, with the run names this workload offers for `runs.NAME.*`."""
    names = ", ".join(run.name for run in workload.runs)
    queue = "".join(f", queue.{name}" for name in _QUEUE_FIELDS) if workload.queue else ""
    racks = ", site.racks[I].FIELD, site.racks[I].feeds[J]" if workload.site.racks else ""
    return f"expected one of: {', '.join(_section_paths())}{queue}{racks}, runs.NAME.FIELD (NAME: {names})"


def _unknown_path(path: str, workload: Workload) -> str:
    """`unknown path (did you mean 'site.feed'?); expected one of: …` (every kind of path)."""
    hint = did_you_mean(path, known_paths(workload))
    return f"unknown path{f' ({hint})' if hint else ''}; {_every_kind(workload)}"


def _path_problem(path: str, workload: Workload) -> str | None:
    """Why `path` cannot be swept on this workload, or None when it can."""
    if path in (PRICES, SCALE, "name", *_FORWARD_TOP):
        return None
    parts = path.split(".")
    head = parts[0]
    if rack_path(path) is not None:
        return _rack_problem(path, workload)
    if head == "queue":
        return _queue_problem(path, workload)
    if head in _SECTIONS:
        fields = _SECTIONS[head].model_fields
        return None if len(parts) == 2 and parts[1] in fields else _unknown_path(path, workload)
    if head == "runs":
        return _run_problem(parts, workload)
    return _unknown_path(path, workload)


def _queue_problem(path: str, workload: Workload) -> str | None:
    """Why a `queue.FIELD` path cannot be swept: only a queue bid has the section to edit."""
    if workload.queue is None:
        return "applies in queue mode only; the workload has no queue: section"
    parts = path.split(".")
    return None if len(parts) == 2 and parts[1] in _QUEUE_FIELDS else _unknown_path(path, workload)


def _run_problem(parts: list[str], workload: Workload) -> str | None:
    """Why a `runs.NAME.FIELD` path cannot be swept: the run and the field must both exist (the run
    name is everything between `runs.` and the last dot, since run names may contain dots)."""
    names = [run.name for run in workload.runs]
    run_fields = [*Run.model_fields, *_FORWARD_RUN]
    if len(parts) < 3:
        return "expected runs.NAME.FIELD, e.g. runs.<run name>.concurrent"
    name, rest = ".".join(parts[1:-1]), parts[-1]
    if name not in names:
        hint = did_you_mean(name, names)
        return f"unknown run {name!r}{f' ({hint})' if hint else ''}; expected one of: {', '.join(names)}"
    if rest not in run_fields:
        hint = did_you_mean(rest, run_fields)
        listed = ", ".join(run_fields)
        return f"unknown run field {rest!r}{f' ({hint})' if hint else ''}; expected one of: {listed}"
    return None


def _rack_problem(path: str, workload: Workload) -> str | None:
    """Why a `site.racks[I].FIELD[J]` path cannot be swept on this workload, or None."""
    found = rack_path(path)
    assert found is not None
    index, name, item = found
    racks = workload.site.racks or ()
    if index >= len(racks):
        return f"expected a rack index below {len(racks)} (the workload has {len(racks)} racks)"
    if name not in Rack.model_fields:
        hint = did_you_mean(name, Rack.model_fields)
        return f"unknown rack field {name!r}{f' ({hint})' if hint else ''}; expected one of: " + ", ".join(
            Rack.model_fields
        )
    if item is not None and (name != "feeds" or item >= len(racks[index].feeds)):
        return f"expected feeds[J] with J below {len(racks[index].feeds)} (the circuits of rack {index})"
    return None


def grid_schema() -> dict[str, Any]:
    """A JSON Schema of grid files, for editors: `cross:` and `zip:` map each sweepable path to a
    list; `runs.NAME.FIELD` is a pattern, since run names come from the workload."""
    run_fields = "|".join([*Run.model_fields, *_FORWARD_RUN])
    lists: dict[str, Any] = {
        "type": "object",
        "properties": {
            path: {"type": "array", "minItems": 1}
            for path in [*_section_paths(), *(f"queue.{name}" for name in _QUEUE_FIELDS)]
        },
        "patternProperties": {
            rf"^runs\..+\.({run_fields})$": {"type": "array", "minItems": 1},
            rf"^site\.racks\[\d+\]\.({'|'.join(Rack.model_fields)})$": {"type": "array", "minItems": 1},
            r"^site\.racks\[\d+\]\.feeds\[\d+\]$": {"type": "array", "minItems": 1},
        },
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ftopt sweep grid",
        "description": "Workload fields to vary: cross (every combination) and zip (lists taken together)",
        "type": "object",
        "properties": {
            "cross": {**lists, "description": "cartesian product of these lists"},
            "zip": {**lists, "description": "these lists taken together, row by row (equal lengths)"},
        },
        "additionalProperties": False,
    }


def _line(node: yaml.Node | None, *keys: str) -> int | None:
    """The line of a key path in the grid's node tree (1-based), where it can be found."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            return line
        match = next(((k, v) for k, v in node.value if k.value == key), None)
        if match is None:
            return line
        line = match[0].start_mark.line + 1
        node = match[1]
    return line


def _check_values(name: str, path: str, values: list[Any], node: yaml.Node | None, section: str) -> None:
    """Values a grid can judge by itself: non-empty lists, positive scales, price-list paths."""
    where = f"{section}.{path}"
    line = _line(node, section, path)
    if not values:
        raise InputError(name, where, "expected a non-empty list of values", line)
    for value in values:
        if path == SCALE and (isinstance(value, bool) or not isinstance(value, int | float) or value <= 0):
            raise InputError(name, where, f"expected positive numbers, got {value!r}", line)
        if path == PRICES and not isinstance(value, str):
            raise InputError(name, where, f"expected price-list file paths, got {value!r}", line)


def load_grid(path: str | Path, workload: Workload) -> Grid:
    """Read and check a grid file against the workload it will edit; one `InputError` otherwise."""
    path = Path(path)
    name = str(path)
    data, node = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError(name, "", "expected a mapping with cross: and/or zip: at the top level")
    grid_file = validate(GridFile, data, node, name)
    if not grid_file.cross and not grid_file.zip:
        raise InputError(name, "", "expected cross: and/or zip: with at least one field to sweep")
    _check_paths(name, grid_file, node, workload)
    _check_zip(name, grid_file, node)
    grid = Grid(path, dict(grid_file.cross), dict(grid_file.zip), path.parent)
    _check_price_files(name, grid, node)
    return grid


def _check_paths(name: str, grid_file: GridFile, node: yaml.Node | None, workload: Workload) -> None:
    """Each swept path exists on the workload and its values suit it, cross: first, then zip:."""
    for section, lists in (("cross", grid_file.cross), ("zip", grid_file.zip)):
        for swept, values in lists.items():
            problem = _path_problem(swept, workload)
            if problem:
                raise InputError(name, f"{section}.{swept}", problem, _line(node, section, swept))
            _check_values(name, swept, values, node, section)


def _check_zip(name: str, grid_file: GridFile, node: yaml.Node | None) -> None:
    """zip: lists are taken together row by row, so they have one length and no path is also under
    cross: (which would sweep it twice)."""
    both = [swept for swept in grid_file.zip if swept in grid_file.cross]
    if both:
        raise InputError(name, f"zip.{both[0]}", "already swept under cross:", _line(node, "zip", both[0]))
    lengths = {swept: len(values) for swept, values in grid_file.zip.items()}
    if len(set(lengths.values())) > 1:
        first = next(iter(lengths))
        odd = next(p for p, n in lengths.items() if n != lengths[first])
        raise InputError(
            name,
            f"zip.{odd}",
            f"expected {lengths[first]} values like zip.{first} (zip lists are taken together), "
            f"got {lengths[odd]}",
            _line(node, "zip", odd),
        )


def _check_price_files(name: str, grid: Grid, node: yaml.Node | None) -> None:
    """Each swept price list exists (relative to the grid file), so a sweep does not fail hours in."""
    for value in grid.price_values():
        if not grid.price_file(value).is_file():
            section = "cross" if value in grid.cross.get(PRICES, []) else "zip"
            raise InputError(
                name,
                f"{section}.{PRICES}",
                f"price list {value!r} not found (looked for {grid.price_file(value)})",
                _line(node, section, PRICES),
            )
