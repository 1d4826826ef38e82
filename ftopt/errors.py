"""The errors a user can meet, each carrying what the command line needs to say it in one line.

Why a module of its own: the model, the catalogue loader, the solver and the verifier all raise
them, and the CLI maps each class to one exit code (2 bad input, 3 no plan can exist, 4 time limit
without a plan) without knowing where it came from.
"""

from __future__ import annotations


class FtoptError(Exception):
    """Base class: every error ftopt raises on purpose."""

    exit_code = 1


class InputError(FtoptError):
    """A file the user gave is malformed: names the file, the field path, the line and what was expected."""

    exit_code = 2

    def __init__(self, file: str, field: str, expected: str, line: int | None = None) -> None:
        self.file = file
        self.field = field
        self.expected = expected
        self.line = line
        where = f"{file}:{line}" if line is not None else file
        location = f"{where}: {field}: " if field else f"{where}: "
        super().__init__(f"{location}{expected}")


class InfeasibleError(FtoptError):
    """No plan can exist; the reasons say which run and which rule rule it out."""

    exit_code = 3

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("no plan exists: " + "; ".join(reasons))


class NoPlanInTimeError(FtoptError):
    """The time limit ran out before the solver found any plan."""

    exit_code = 4


class UnverifiedPlanError(FtoptError):
    """The solver produced a plan the independent verifier rejects: a bug, never shipped quietly."""

    exit_code = 1
