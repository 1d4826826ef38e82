"""Reading a plan JSON file back into a `Plan`, with errors that name the file, the field and the line.

JSON is parsed with the standard library first (numbers such as `1e-05` stay numbers; NaN and
infinities are refused: no rule can be checked against them), then the whole document is validated
against the plan's types in strict mode: every field, those added by later features included,
since the types are the schema (a string where a number belongs, a finding whose figures do not
match its kind, an unknown field are each refused). Only when the plan does not validate is the text
composed as YAML, a superset of JSON, to find the line of the field.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml
from pydantic import ValidationError

from ftopt.errors import InputError, clipped, quoted
from ftopt.model.plan import Plan
from ftopt.reading.safe_yaml import read_user_file, validate_json_strictly

#: Plans grow with copies (about 600 bytes each); this admits some hundred thousand.
MAX_PLAN_BYTES = 64 * 1024 * 1024


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number a plan may hold")


def _node_tree(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError, OverflowError):
        return None


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _refuse_lone_surrogates(data: Any, file: str) -> None:
    """Refuse strings holding a lone surrogate (`"\\ud800"`): JSON escapes allow them, but they
    are no characters and would fail when the verdict is printed. Walked only when the text holds
    such an escape; valid pairs were already joined by the JSON parser."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str) and _SURROGATE.search(item):
            lone = "a lone surrogate (\\ud800 to \\udfff) is no character"
            raise InputError(file, path, f"expected Unicode text, got {quoted(item)}; {lone}")
        if isinstance(item, dict):
            for key, value in item.items():
                field = clipped(key, 40)
                stack += [(key, path), (value, f"{path}.{field}" if path else field)]
        elif isinstance(item, list):
            stack += [(value, f"{path}[{i}]") for i, value in enumerate(item)]


def parse_plan(text: str, file: str) -> Plan:
    """A plan from JSON text; `file` names it in errors."""
    try:
        data: Any = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(file, "", f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except ValueError as exc:  # a constant refused above, or an integer beyond Python's digit limit
        digits = "integer string conversion" in str(exc)
        problem = f"an integer has more than {sys.get_int_max_str_digits():,} digits" if digits else str(exc)
        raise InputError(file, "", f"not valid JSON: {clipped(problem, 200)}") from None
    except RecursionError:
        raise InputError(file, "", "not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise InputError(file, "", "expected a JSON object with status, servers and assignments")
    if _ESCAPED_SURROGATE.search(text):
        _refuse_lone_surrogates(data, file)
    try:
        return Plan.model_validate_json(text, strict=True)
    except ValidationError:
        return validate_json_strictly(Plan, text, _node_tree(text), file)


def load_plan(path: Path) -> Plan:
    """Read and validate a plan JSON file (as `ftopt solve --format json` writes it)."""
    return parse_plan(read_user_file(path, MAX_PLAN_BYTES), str(path))


@dataclass(frozen=True)
class PlanFile:
    """A plan read from its file, with what the shape check needs beside it: the summary the file
    carries (None: none) and the node tree that gives each field's line."""

    file: str
    plan: Plan
    summary: Any
    node: yaml.Node | None


def load_plan_file(path: Path) -> PlanFile:
    """Read a plan JSON file, keeping its summary and the lines of its fields."""
    text = read_user_file(path, MAX_PLAN_BYTES)
    plan = parse_plan(text, str(path))
    data = json.loads(text)  # parsed once already: valid JSON without constants
    return PlanFile(str(path), plan, data.get("summary"), _node_tree(text))
