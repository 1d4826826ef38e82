"""Workload text and the form's fields: validated as `ftopt solve` validates a file, errors per field.

Why here: the web takes a workload three ways (YAML or JSON text, an uploaded file, the form of
common fields) and every way must meet the same checks as `ftopt solve` (the hardened YAML loader,
the pydantic models `ftopt schema` describes, every catalogue id) and fail with the CLI's one line.
The form's inputs are named by the workload's own field paths (`runs[0].train_tokens`), so the
error's field path says which input to show it beside.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from ftopt.catalogue.loader import load_catalogue
from ftopt.catalogue.schema import workload_schema
from ftopt.errors import InputError, one_line
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload
from ftopt.reading.safe_yaml import SAFE_LOADER
from ftopt.reading.workload_file import load_workload_text

#: Uploads and editor texts larger than this are refused before parsing.
MAX_UPLOAD_BYTES = 1024 * 1024
#: Rows of runs the form shows: the workload's runs and this many empty ones to add.
EMPTY_RUN_ROWS = 1
#: The run fields the form edits, in its column order.
RUN_FIELDS = ("name", "model", "method", "train_tokens", "deadline_hours", "concurrent")


@dataclass(frozen=True)
class Checked:
    """A workload text that passed every check, with its parsed workload."""

    text: str
    workload: Workload


class WorkloadError(Exception):
    """A workload that fails a check: the CLI's one line, and the field path it names (or "")."""

    def __init__(self, message: str, field: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.line = line


def check(text: str, catalogue: Catalogue, name: str = "workload") -> Checked:
    """`text` (YAML or JSON) as a validated workload, or `WorkloadError` with the CLI's wording."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_UPLOAD_BYTES:
        raise WorkloadError(
            f"ftopt: {name}: {len(text):,} characters; at most {MAX_UPLOAD_BYTES:,} bytes accepted"
        )
    try:
        return Checked(text, load_workload_text(text, name, catalogue))
    except InputError as err:
        raise WorkloadError(f"ftopt: {one_line(str(err))}", err.field, err.line) from None


def json_to_yaml(data: Any) -> str:
    """A workload sent as JSON, stored as YAML text like every other version."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def decode_upload(raw: bytes, name: str) -> str:
    """An uploaded file's text: at most `MAX_UPLOAD_BYTES`, UTF-8."""
    if len(raw) > MAX_UPLOAD_BYTES:
        raise WorkloadError(
            f"ftopt: {name}: file is {len(raw):,} bytes; at most {MAX_UPLOAD_BYTES:,} accepted"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise WorkloadError(f"ftopt: {name}: expected UTF-8 text") from None


def data_of(text: str) -> dict[str, Any]:
    """The mapping of a stored (already validated) workload text."""
    data = yaml.load(text, Loader=SAFE_LOADER)
    return data if isinstance(data, dict) else {}


def workload_yaml(workload: Workload) -> str:
    """A workload as YAML the loader reads back to the same workload (the defaults left out)."""
    return json_to_yaml(workload.model_dump(mode="json", by_alias=True, exclude_defaults=True))


@dataclass(frozen=True)
class FormChoices:
    """What the form's selects offer: from the JSON Schema (methods) and the catalogue."""

    methods: list[str]
    models: list[str]
    feeds: list[str]
    gpus: list[str]


@cache
def schema_methods() -> tuple[str, ...]:
    """The methods `ftopt schema`'s enum offers (built once: pydantic's schema takes 40 ms)."""
    return tuple(workload_schema()["$defs"]["Run"]["properties"]["method"]["enum"])


def form_choices(catalogue: Catalogue) -> FormChoices:
    """The form's choices; methods come from `ftopt schema`'s enum, so both cannot drift apart."""
    return FormChoices(
        methods=list(schema_methods()),
        models=[m.id for m in catalogue.models],
        feeds=[f.id for f in catalogue.feeds],
        gpus=[g.id for g in catalogue.gpus],
    )


def _number(value: str) -> int | float | str:
    """A form's number as the loader expects it; text that is no number is passed on for the
    loader to refuse in its own words."""
    text = value.strip().replace("_", "").replace(",", "")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return value.strip()
    return int(number) if number.is_integer() and "e" in text.lower() else number


def form_rows(data: Mapping[str, Any]) -> list[dict[str, str]]:
    """The form's run rows for a workload: each run's edited fields as text, then empty rows."""
    rows = []
    for run in data.get("runs") or []:
        if isinstance(run, dict):
            rows.append({f: "" if run.get(f) is None else str(run.get(f)) for f in RUN_FIELDS})
    return rows + [dict.fromkeys(RUN_FIELDS, "") for _ in range(EMPTY_RUN_ROWS)]


def _run_from_form(old: dict[str, Any], fields: Mapping[str, str]) -> dict[str, Any] | None:
    """One run after the form: its other fields kept, the edited ones replaced; None when blanked."""
    if not fields.get("name", "").strip() and not fields.get("model", "").strip():
        return None
    run = dict(old)
    for key in ("name", "model", "method"):
        if fields.get(key, "").strip():
            run[key] = fields[key].strip()
    for key in ("train_tokens", "deadline_hours", "concurrent"):
        value = fields.get(key, "").strip()
        if value:
            run[key] = _number(value)
        else:
            run.pop(key, None)
    if "train_tokens" in run:  # the form's tokens replace the other spelling
        run.pop("dataset_tokens", None)
        run.pop("epochs", None)
    return run


def apply_form(base: dict[str, Any], form: Mapping[str, str], cards: Sequence[str]) -> str:
    """The workload text after the form: `base` with the form's fields written over it."""
    data = dict(base)
    if form.get("name", "").strip():
        data["name"] = form["name"].strip()
    data["runs"] = _runs_from_form([r for r in data.get("runs") or [] if isinstance(r, dict)], form)
    data["site"] = _site_from_form(dict(data.get("site") or {}), form)
    hardware = dict(data.get("hardware") or {})
    if cards:
        hardware["gpus"] = list(cards)
    else:
        hardware.pop("gpus", None)
    data["hardware"] = hardware
    if not hardware:
        data.pop("hardware")
    return json_to_yaml(data)


def _runs_from_form(old_runs: list[dict[str, Any]], form: Mapping[str, str]) -> list[dict[str, Any]]:
    """The runs after the form's rows: each old run edited (or dropped when blanked), then the
    filled empty rows as new runs."""
    runs = []
    for i in range(len(old_runs) + EMPTY_RUN_ROWS):
        fields = {f: form.get(f"runs[{i}].{f}", "") for f in RUN_FIELDS}
        run = _run_from_form(old_runs[i] if i < len(old_runs) else {}, fields)
        if run is not None:
            runs.append(run)
    return runs


def _site_from_form(site: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    """The site with the form's feed and inlet temperature where given (a blank keeps the old)."""
    if form.get("site.feed", "").strip():
        site["feed"] = form["site.feed"].strip()
    if form.get("site.inlet_c", "").strip():
        site["inlet_c"] = _number(form["site.inlet_c"])
    return site


def from_json_body(raw: bytes) -> str:
    """A workload sent as a JSON object, as YAML text; `WorkloadError` when it is no JSON object."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise WorkloadError("ftopt: request body: expected a JSON object (the workload)") from None
    if not isinstance(data, dict):
        raise WorkloadError("ftopt: request body: expected a JSON object (the workload)")
    return json_to_yaml(data)


def default_catalogue() -> Catalogue:
    """The packaged catalogue the workbench checks and solves against."""
    return load_catalogue()
