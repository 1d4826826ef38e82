"""The errors a user can meet, each carrying what the command line needs to say it in one line.

Why a module of its own: the model, the catalogue loader, the solver and the verifier all raise
them, and the CLI maps each class to one exit code (2 bad input, 3 no plan can exist, 4 time limit
without a plan) without knowing where it came from.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: Longest quotation of a user's value in an error line: a megabyte id must not make a megabyte line.
QUOTE_CHARS = 80
#: Last line of defence for the parts of an InputError: any echo a message forgot to bound is cut here.
MAX_FIELD_CHARS = 200
MAX_EXPECTED_CHARS = 2000


def clipped(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text`, or its first `limit` - 1 characters and an ellipsis when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(value: object, limit: int = QUOTE_CHARS) -> str:
    """A user's value for an error line, at most about `limit` characters, whatever its size.

    Why not `repr`: a megabyte string would be copied whole, a long integer's repr raises beyond
    4,300 digits, and a container's repr can be huge (aliases make it exponential).
    """
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * 0.30103):,} digits"
    if isinstance(value, str | bytes):
        return clipped(repr(value[: limit + 1]), limit)
    return clipped(repr(value), limit)


def one_line(message: str) -> str:
    """The message with line breaks and runs of blanks folded into single spaces: how every error
    reaches a user, on the command line's stderr and in the workbench's answers alike."""
    return " ".join(message.split())


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`did you mean 'feed'?` when one candidate is close to a misspelt `word`, else "".

    Why difflib's ratio and not edit distance: it is in the standard library and ranks transposed or
    dropped letters (`fed`, `inlet_C`) close, while unrelated words stay under its 0.7 cut-off (at 0.6
    `colour` would be offered `rollout`).
    """
    if len(word) > 200:  # nobody misspells a 200-character key; do not compare megabytes
        return ""
    match = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.7)
    return f"did you mean {match[0]!r}?" if match else ""


class FtoptError(Exception):
    """Base class: every error ftopt raises on purpose."""

    exit_code = 1


class InputError(FtoptError):
    """A file the user gave is malformed: names the file, the field path, the line and what was expected."""

    exit_code = 2

    def __init__(self, file: str, field: str, expected: str, line: int | None = None) -> None:
        field, expected = clipped(field, MAX_FIELD_CHARS), clipped(expected, MAX_EXPECTED_CHARS)
        self.file = file
        self.field = field
        self.expected = expected
        self.line = line
        where = f"{file}:{line}" if line is not None else file
        location = f"{where}: {field}: " if field else f"{where}: "
        super().__init__(f"{location}{expected}")


#: Most problems one file reports at once: a file broken everywhere (a list indented wrongly) must
#: not print thousands of lines; the first fifty show the pattern.
MAX_REPORTED = 50


class InputErrors(InputError):
    """Several problems of one file, reported together so that one edit fixes them all: each an
    InputError with its own field and line. Its message is one line per problem (at most
    MAX_REPORTED, then how many more)."""

    def __init__(self, errors: list[InputError]) -> None:
        first = errors[0]
        self.errors = errors[:MAX_REPORTED]
        self.more = len(errors) - len(self.errors)
        super().__init__(first.file, first.field, first.expected, first.line)
        tail = [f"{first.file}: and {self.more} more problems"] if self.more else []
        self.args = ("\n".join([*(str(e) for e in self.errors), *tail]),)

    def lines(self) -> list[str]:
        """One line per problem, the bound's remainder counted in a last line."""
        return str(self).split("\n")


def raise_all(errors: list[InputError]) -> None:
    """Raise the one error, or all of them together; nothing when the list is empty."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InputErrors(errors)


class InfeasibleError(FtoptError):
    """No plan can exist; the reasons say which run and which rule rule it out."""

    exit_code = 3

    def __init__(self, reasons: list[str], records: list[dict[str, object]] | None = None) -> None:
        self.reasons = reasons
        # The reasons as findings (kind, subject, figures with any relaxation id): what a program
        # reads instead of the sentences (the problem details' `reasons`).
        self.records = records or []
        super().__init__("no plan exists: " + "; ".join(reasons))


class NoPlanInTimeError(FtoptError):
    """The time limit ran out before the solver found any plan."""

    exit_code = 4


class UnverifiedPlanError(FtoptError):
    """The solver produced a plan the independent verifier rejects: a bug, never shipped quietly."""

    exit_code = 1


#: Exit code → (problem kind, title, the HTTP status the workbench would answer it with): the fields
#: of RFC 9457 problem details, which the workbench's API answers every error with and the command
#: line prints with FTOPT_ERRORS=json, so that a script reads both the same way.
PROBLEM_KINDS = {
    2: ("invalid-input", "The input is not valid", 400),
    3: ("infeasible", "No plan can exist", 422),
    4: ("no-plan-in-time", "No plan within the time limit", 504),
}
PROBLEM_URN = "urn:ftopt:problem:"


def pointer(field: str) -> str:
    """A field path (`runs[0].train_tokens`) as a JSON Pointer into the input: `#/runs/0/train_tokens`."""
    parts = field.replace("[", ".").replace("]", "").split(".")
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts if p)


def problem(err: FtoptError, instance: str = "") -> dict[str, object]:
    """The error as problem details: type, title, status, detail (the one line a user reads),
    instance (the file, where one is named), errors (the field, its pointer and line), exit_code."""
    kind, title, status = PROBLEM_KINDS.get(err.exit_code, ("error", "ftopt failed", 500))
    found: dict[str, object] = {
        "type": PROBLEM_URN + kind,
        "title": title,
        "status": status,
        "detail": f"ftopt: {one_line(str(err))}",
        "instance": instance or getattr(err, "file", ""),
        "exit_code": err.exit_code,
    }
    each = err.errors if isinstance(err, InputErrors) else [err] if isinstance(err, InputError) else []
    entries = [_problem_entry(e) for e in each if e.field]
    if entries:
        found["errors"] = entries
    if isinstance(err, InfeasibleError) and err.records:
        found["reasons"] = err.records
    return found


def _problem_entry(err: InputError) -> dict[str, object]:
    """One field's problem: its path, JSON Pointer, what was expected and, where known, its line."""
    entry: dict[str, object] = {"field": err.field, "pointer": pointer(err.field), "detail": err.expected}
    if err.line is not None:
        entry["line"] = err.line
    return entry
