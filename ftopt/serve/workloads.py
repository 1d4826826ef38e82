"""Workload text and the form's fields: validated as `ftopt solve` validates a file, errors per field.

Why here: the web takes a workload three ways (YAML or JSON text, an uploaded file, the form of
common fields) and every way must meet the same checks as `ftopt solve` (the hardened YAML loader,
the pydantic models `ftopt schema` describes, every catalogue id) and fail with the CLI's one line.
The form (`form`) names its inputs by the workload's own field paths (`runs[0].train_tokens`), so
an error's field path says which input to show it beside.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from ftopt.catalogue.loader import load_catalogue
from ftopt.errors import InputError, InputErrors, one_line
from ftopt.model.hardware import Catalogue
from ftopt.model.workload import Workload
from ftopt.reading.safe_yaml import SAFE_LOADER
from ftopt.reading.workload_file import load_workload_text

#: Uploads and editor texts larger than this are refused before parsing.
MAX_UPLOAD_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Checked:
    """A workload text that passed every check, with its parsed workload."""

    text: str
    workload: Workload


class WorkloadError(Exception):
    """A workload that fails a check: the CLI's one line, the field path it names (or ""), and every
    problem of the text, each (field path, its own line of the CLI, YAML line), when it has several."""

    def __init__(
        self,
        message: str,
        field: str = "",
        line: int | None = None,
        problems: list[tuple[str, str, int | None]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.line = line
        self.problems = problems if problems is not None else [(field, message, line)] if field else []

    def field_errors(self) -> dict[str, str]:
        """Each field path named, with its problem's line (the first, where a field has several)."""
        found: dict[str, str] = {}
        for field, message, _ in self.problems:
            found.setdefault(field, message)
        return found


def check(text: str, catalogue: Catalogue, name: str = "workload") -> Checked:
    """`text` (YAML or JSON) as a validated workload, or `WorkloadError` with the CLI's wording."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_UPLOAD_BYTES:
        raise WorkloadError(
            f"ftopt: {name}: {len(text):,} characters; at most {MAX_UPLOAD_BYTES:,} bytes accepted"
        )
    try:
        return Checked(text, load_workload_text(text, name, catalogue))
    except InputError as err:
        each = err.errors if isinstance(err, InputErrors) else [err]
        problems = [(e.field, f"ftopt: {one_line(str(e))}", e.line) for e in each if e.field]
        raise WorkloadError(f"ftopt: {one_line(str(err))}", err.field, err.line, problems) from None


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
