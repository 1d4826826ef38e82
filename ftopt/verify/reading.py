"""Reading a plan JSON file back into a `Plan`, with errors that name the file, the field and the line.

JSON is parsed with the standard library (numbers such as `1e-05` stay numbers); only when the plan
does not validate is the text composed as YAML, a superset of JSON, to find the line of the field.
NaN and infinities are refused: no rule can be checked against them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import yaml
from pydantic import ValidationError

from ftopt.errors import InputError
from ftopt.loading import validate
from ftopt.model.plan import Plan

#: Plans grow with copies (about 600 bytes each); this admits some hundred thousand.
MAX_PLAN_BYTES = 64 * 1024 * 1024


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number a plan may hold")


def _node_tree(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None


def parse_plan(text: str, file: str) -> Plan:
    """A plan from JSON text; `file` names it in errors."""
    try:
        data: Any = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(file, "", f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except ValueError as exc:
        raise InputError(file, "", f"not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(file, "", "not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise InputError(file, "", "expected a JSON object with status, servers and assignments")
    try:
        return Plan.model_validate(data)
    except ValidationError:
        return validate(Plan, data, _node_tree(text), file)


def load_plan(path: Path) -> Plan:
    """Read and validate a plan JSON file (as `ftopt solve --format json` writes it)."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(name, "", f"cannot read the file ({exc.strerror or exc})") from None
    if len(raw) > MAX_PLAN_BYTES:
        raise InputError(name, "", f"file is {len(raw):,} bytes; at most {MAX_PLAN_BYTES:,} accepted")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(name, "", "expected UTF-8 text") from None
    return parse_plan(text, name)
