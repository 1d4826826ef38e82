"""The results file of a sweep: one JSON record per finished scenario, one scenario per line.

Why JSON lines: a sweep can be stopped at any moment (Ctrl-C, a killed job, a full disk) and must
leave a file that is valid up to its last whole line, so that a rerun skips what is done. Each
record is written as one whole line and flushed at once; on reading, a torn last line (a write cut
short) is ignored and cut off before anything is appended. A results file holds one bid: each
record carries the fingerprint of the base workload and prices, and a rerun against another bid
is refused rather than mixing answers to different questions.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path
from typing import IO, Any

from ftopt.errors import InputError


def read_records(path: Path, repair: bool = False) -> list[dict[str, Any]]:
    """Every whole record of the file (the last one per scenario key), in file order.

    A last line without its newline that does not parse is a torn write: it is ignored, and with
    `repair` cut off the file. Any other line that is not a JSON record is an `InputError`.
    """
    if not path.exists():
        return []
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), "", f"cannot read the file ({exc.strerror or exc})") from None
    lines = raw.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" for a whole file, else a torn write
    records: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        records_add(records, _parse(path, number, line))
    if tail.strip():
        try:
            records_add(records, _parse(path, len(lines) + 1, tail))
            if repair:
                with path.open("ab") as out:
                    out.write(b"\n")
        except InputError:
            if repair:
                with path.open("r+b") as out:
                    out.truncate(len(raw) - len(tail))
    return list(records.values())


def records_add(records: dict[str, dict[str, Any]], record: dict[str, Any]) -> None:
    """Keep the latest record of each scenario key."""
    records.pop(record["key"], None)
    records[record["key"]] = record


def _parse(path: Path, number: int, line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        raise InputError(str(path), f"line {number}", "expected one sweep record (a JSON object with a key)")
    return record


class ResultsWriter:
    """Appends whole lines to the results file, flushed one by one, under an exclusive lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def __enter__(self) -> ResultsWriter:
        try:
            self._file = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise InputError(str(self.path), "", f"cannot write the file ({exc.strerror or exc})") from None
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._file.close()
            raise InputError(str(self.path), "", "another sweep is writing this file") from None
        return self

    def write(self, line: str) -> None:
        """One record's line; whole, and on disk (in the OS's cache) before this returns."""
        assert self._file is not None
        self._file.write(line + "\n")
        self._file.flush()

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()  # closing releases the lock
            self._file = None
