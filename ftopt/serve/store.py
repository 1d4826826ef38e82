"""The bid store: bids, every version of each bid's workload and every solve, in one SQLite file.

Why SQLite in WAL mode, one short transaction per change: a presales desk must never lose
yesterday's bid, and a server killed mid-solve must leave every committed row intact. Nothing is
overwritten: a version is insert-only (triggers refuse UPDATE and DELETE), and a solve's row only
moves forward (queued → running → done | failed | cancelled) and is frozen once finished. A solve
that was in flight when the server stopped is marked failed when the store is next opened, so a
half-finished answer is never shown as one.

Why numbered migrations (`PRAGMA user_version`): a store written by an older workbench is brought
up to date when it is opened, each step in one transaction after a copy of the file is taken
(`bids.sqlite3.before-v2`), so an upgrade never loses a saved bid; a store written by a newer
workbench is refused rather than changed.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import Base64Bytes, BaseModel, ConfigDict, Field

from ftopt.reading.safe_yaml import SAFE_LOADER

DB_NAME = "bids.sqlite3"
FINISHED = ("done", "failed", "cancelled")
IN_FLIGHT = ("queued", "running")
#: The words an interrupted solve is failed with when the store is opened again.
INTERRUPTED = "the server stopped during this solve; solve again"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bids (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    author TEXT NOT NULL
);
-- the columns later migrations add (bids.customer) are added by them, on new stores too
CREATE TABLE IF NOT EXISTS versions (
    bid_id INTEGER NOT NULL REFERENCES bids(id),
    number INTEGER NOT NULL,
    workload TEXT NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL,
    author TEXT NOT NULL,
    PRIMARY KEY (bid_id, number)
);
CREATE TABLE IF NOT EXISTS solves (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bid_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    state TEXT NOT NULL,
    settings TEXT NOT NULL,
    price REAL, bound REAL, gap REAL, seconds REAL,
    plan TEXT, quote_html TEXT, frontier TEXT, error TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    author TEXT NOT NULL,
    FOREIGN KEY (bid_id, version) REFERENCES versions(bid_id, number)
);
CREATE INDEX IF NOT EXISTS solves_by_version ON solves(bid_id, version);
CREATE TRIGGER IF NOT EXISTS versions_never_updated BEFORE UPDATE ON versions
    BEGIN SELECT RAISE(ABORT, 'a version is never overwritten; add a new one'); END;
CREATE TRIGGER IF NOT EXISTS versions_never_deleted BEFORE DELETE ON versions
    BEGIN SELECT RAISE(ABORT, 'a version is never deleted'); END;
CREATE TRIGGER IF NOT EXISTS finished_solves_frozen BEFORE UPDATE ON solves
    WHEN OLD.state IN ('done', 'failed', 'cancelled')
    BEGIN SELECT RAISE(ABORT, 'a finished solve is never changed'); END;
"""


#: Each migration's statements, by the version it brings the store to (the schema above is version 1).
#: Version 2: each bid's customer (from its latest version's `quote.customer`), to search bids by.
#: Version 3: files kept beside a bid (the seller's logo its quote names), insert-only like versions.
#: Version 4: each solve's seller's copy of the HTML quote, rendered by the worker with the frontier's
#: three bids as the buyer's copy is (older solves have none: their seller's copy has no three bids).
MIGRATIONS: dict[int, str] = {
    2: "ALTER TABLE bids ADD COLUMN customer TEXT NOT NULL DEFAULT '';\n"
    "CREATE INDEX IF NOT EXISTS bids_by_customer ON bids(customer COLLATE NOCASE);\n",
    3: """CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bid_id INTEGER NOT NULL REFERENCES bids(id),
    name TEXT NOT NULL,
    data BLOB NOT NULL,
    created_at TEXT NOT NULL,
    author TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS files_by_bid ON files(bid_id, name);
CREATE TRIGGER IF NOT EXISTS files_never_updated BEFORE UPDATE ON files
    BEGIN SELECT RAISE(ABORT, 'a file is never overwritten; add a new one'); END;
CREATE TRIGGER IF NOT EXISTS files_never_deleted BEFORE DELETE ON files
    BEGIN SELECT RAISE(ABORT, 'a file is never deleted'); END;
""",
    4: "ALTER TABLE solves ADD COLUMN seller_html TEXT;\n",
}
SCHEMA_VERSION = max(MIGRATIONS)


class NewerStore(Exception):
    """A store written by a newer workbench: opened by this one, it might be changed wrongly."""


def customer_of(workload: str) -> str:
    """The `quote.customer` of a stored workload text ("" when it names none)."""
    try:
        data = yaml.load(workload, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        return ""
    quote = data.get("quote") if isinstance(data, dict) else None
    customer = quote.get("customer") if isinstance(quote, dict) else None
    if isinstance(customer, dict):  # `customer: {name, contact}`: the company is what one searches for
        customer = customer.get("name")
    return str(customer)[:200] if customer is not None else ""


def now() -> str:
    """The time of a change, UTC, to the second, ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Bid:
    """A bid: its name (from its first version), who opened it, when, and how many versions it has."""

    id: int
    name: str
    created_at: str
    author: str
    versions: int
    customer: str = ""


@dataclass(frozen=True)
class Version:
    """One version of a bid's workload, as the YAML text the user gave or the form wrote."""

    bid_id: int
    number: int
    workload: str
    note: str
    created_at: str
    author: str


@dataclass(frozen=True)
class Solve:
    """One solve of one version: its state, the live or final figures, and the plan when done."""

    id: int
    bid_id: int
    version: int
    state: str
    settings: dict[str, Any]
    price: float | None
    bound: float | None
    gap: float | None
    seconds: float | None
    plan: str | None
    quote_html: str | None
    frontier: str | None
    error: str | None
    created_at: str
    finished_at: str | None
    author: str
    seller_html: str | None = None

    @property
    def finished(self) -> bool:
        """Whether the solve will change no more."""
        return self.state in FINISHED


@dataclass(frozen=True)
class BidFile:
    """A file kept beside a bid (the seller's logo), as last uploaded under its name."""

    bid_id: int
    name: str
    data: bytes
    created_at: str
    author: str


class ExportedFile(BaseModel):
    """A file in an export file, its bytes in base64."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=100)
    data: Base64Bytes = Field(max_length=2_000_000)
    created_at: str = Field(max_length=40)
    author: str = Field(default="", max_length=100)


class ExportedVersion(BaseModel):
    """A version in an export file."""

    model_config = ConfigDict(extra="forbid")
    number: int = Field(ge=1)
    workload: str = Field(max_length=1_048_576)
    note: str = Field(default="", max_length=500)
    created_at: str = Field(max_length=40)
    author: str = Field(default="", max_length=100)


class ExportedSolve(BaseModel):
    """A finished solve in an export file."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1)
    state: str = Field(pattern="^(done|failed|cancelled)$")
    settings: dict[str, Any] = Field(default_factory=dict)
    price: float | None = None
    bound: float | None = None
    gap: float | None = None
    seconds: float | None = None
    plan: str | None = None
    quote_html: str | None = None
    seller_html: str | None = None
    frontier: str | None = None
    error: str | None = None
    created_at: str = Field(max_length=40)
    finished_at: str | None = Field(default=None, max_length=40)
    author: str = Field(default="", max_length=100)


class BidExport(BaseModel):
    """A bid with its whole history as one JSON file (`GET /api/bids/{id}/export`)."""

    model_config = ConfigDict(extra="forbid")
    format: str = Field(default="ftopt-bid", pattern="^ftopt-bid$")
    format_version: int = Field(default=1, ge=1, le=1)
    name: str = Field(max_length=200)
    created_at: str = Field(max_length=40)
    author: str = Field(default="", max_length=100)
    versions: list[ExportedVersion] = Field(min_length=1, max_length=1000)
    solves: list[ExportedSolve] = Field(default_factory=list, max_length=10_000)
    files: list[ExportedFile] = Field(default_factory=list, max_length=100)


class Store:
    """The bid store in `folder` (created if missing); safe to share between threads."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / DB_NAME
        self._local = threading.local()
        self._writer = threading.Lock()
        with self._connection() as db:
            db.execute("PRAGMA journal_mode=WAL")
        self.migrated = self._migrate()
        self.interrupted = self._fail_in_flight()

    def _migrate(self) -> list[int]:
        """Bring the store to `SCHEMA_VERSION`, one transaction per step, a copy of the file before
        the first; the versions it was migrated to."""
        db = self._connection()
        found = int(db.execute("PRAGMA user_version").fetchone()[0])
        if found > SCHEMA_VERSION:
            raise NewerStore(
                f"{self.path} was written by a newer workbench (store version {found}, this one "
                f"knows {SCHEMA_VERSION}); upgrade ftopt to open it"
            )
        holds_bids = db.execute("SELECT name FROM sqlite_master WHERE name='bids'").fetchone() is not None
        if found == 0:
            with self._write() as tx:
                for statement in _SCHEMA.split(";\n"):
                    if statement.strip():
                        tx.execute(statement)
                tx.execute("PRAGMA user_version=1")
            found = 1
        done: list[int] = []
        for number in range(found + 1, SCHEMA_VERSION + 1):
            if holds_bids and not done:
                self._copy(self.path.with_name(f"{DB_NAME}.before-v{number}"))
            self._step(number)
            done.append(number)
        return done

    def _copy(self, target: Path) -> None:
        """A consistent copy of the store (SQLite's online backup), kept beside it."""
        with sqlite3.connect(target) as copy:
            self._connection().backup(copy)
        copy.close()

    def _step(self, number: int) -> None:
        """One migration and its data, with the store's new version, in one transaction."""
        with self._write() as db:
            for statement in MIGRATIONS[number].split(";\n"):
                if statement.strip():
                    db.execute(statement)
            if number == 2:
                for row in db.execute(
                    "SELECT v.bid_id, v.workload FROM versions v WHERE v.number = "
                    "(SELECT MAX(number) FROM versions w WHERE w.bid_id = v.bid_id)"
                ).fetchall():
                    db.execute("UPDATE bids SET customer=? WHERE id=?", (customer_of(row[1]), row[0]))
            db.execute(f"PRAGMA user_version={number}")

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; transactions are explicit)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA foreign_keys=ON")
            # In WAL mode NORMAL loses no committed transaction when the process is killed (only a
            # power cut may drop the last ones), and spares an fsync per commit: 20 ms a write here.
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (BEGIN IMMEDIATE), committed whole or not at all."""
        db = self._connection()
        with self._writer:  # this process's threads queue here, not in SQLite's sleeping busy handler
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _fail_in_flight(self) -> int:
        """Mark every solve left queued or running by a stopped server as failed; how many."""
        with self._write() as db:
            cursor = db.execute(
                "UPDATE solves SET state='failed', error=?, finished_at=? "
                "WHERE state IN ('queued','running')",
                (INTERRUPTED, now()),
            )
            return cursor.rowcount

    # bids and versions

    def create_bid(self, name: str, workload: str, author: str, note: str = "created") -> Version:
        """A new bid with its first version."""
        with self._write() as db:
            stamp = now()
            cursor = db.execute(
                "INSERT INTO bids(name, created_at, author, customer) VALUES (?,?,?,?)",
                (name, stamp, author, customer_of(workload)),
            )
            bid_id = int(cursor.lastrowid or 0)
            return self._insert_version(db, Version(bid_id, 1, workload, note, now(), author))

    def add_version(self, bid_id: int, workload: str, author: str, note: str) -> Version:
        """The next version of a bid; the earlier ones stay as they were."""
        with self._write() as db:
            row = db.execute("SELECT MAX(number) FROM versions WHERE bid_id=?", (bid_id,)).fetchone()
            if row[0] is None:
                raise KeyError(bid_id)
            db.execute("UPDATE bids SET customer=? WHERE id=?", (customer_of(workload), bid_id))
            return self._insert_version(db, Version(bid_id, int(row[0]) + 1, workload, note, now(), author))

    @staticmethod
    def _insert_version(db: sqlite3.Connection, version: Version) -> Version:
        """Write one version row, as made (its number is the bid's next)."""
        v = version
        db.execute(
            "INSERT INTO versions(bid_id, number, workload, note, created_at, author) VALUES (?,?,?,?,?,?)",
            (v.bid_id, v.number, v.workload, v.note, v.created_at, v.author),
        )
        return version

    def bids(self, limit: int = 200, customer: str = "") -> list[Bid]:
        """The latest bids first; with `customer`, those whose customer contains it (any case)."""
        pattern = "%" + customer.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._connection().execute(
            "SELECT b.*, (SELECT COUNT(*) FROM versions v WHERE v.bid_id=b.id) AS n FROM bids b "
            "WHERE b.customer LIKE ? ESCAPE '\\' ORDER BY b.id DESC LIMIT ?",
            (pattern, limit),
        )
        return [_bid(r) for r in rows]

    def bid(self, bid_id: int) -> Bid | None:
        """One bid, or None."""
        row = (
            self._connection()
            .execute(
                "SELECT b.*, (SELECT COUNT(*) FROM versions v WHERE v.bid_id=b.id) AS n FROM bids b "
                "WHERE b.id=?",
                (bid_id,),
            )
            .fetchone()
        )
        return _bid(row) if row else None

    def versions(self, bid_id: int) -> list[Version]:
        """Every version of a bid, oldest first."""
        rows = self._connection().execute("SELECT * FROM versions WHERE bid_id=? ORDER BY number", (bid_id,))
        return [_version(r) for r in rows]

    def version(self, bid_id: int, number: int) -> Version | None:
        """One version, or None."""
        row = (
            self._connection()
            .execute("SELECT * FROM versions WHERE bid_id=? AND number=?", (bid_id, number))
            .fetchone()
        )
        return _version(row) if row else None

    # files beside a bid

    def add_file(self, bid_id: int, name: str, data: bytes, author: str) -> BidFile:
        """Keep `data` beside the bid under `name`; an earlier file of that name stays, hidden."""
        with self._write() as db:
            found = BidFile(bid_id, name, data, now(), author)
            db.execute(
                "INSERT INTO files(bid_id, name, data, created_at, author) VALUES (?,?,?,?,?)",
                (bid_id, name, data, found.created_at, author),
            )
            return found

    def files(self, bid_id: int) -> dict[str, BidFile]:
        """The bid's files by name, each as last uploaded."""
        rows = self._connection().execute("SELECT * FROM files WHERE bid_id=? ORDER BY id", (bid_id,))
        return {
            r["name"]: BidFile(r["bid_id"], r["name"], bytes(r["data"]), r["created_at"], r["author"])
            for r in rows
        }

    # solves

    def create_solve(self, bid_id: int, version: int, settings: dict[str, Any], author: str) -> Solve:
        """A queued solve of one version."""
        with self._write() as db:
            cursor = db.execute(
                "INSERT INTO solves(bid_id, version, state, settings, created_at, author) "
                "VALUES (?,?,?,?,?,?)",
                (bid_id, version, "queued", json.dumps(settings), now(), author),
            )
            solve_id = int(cursor.lastrowid or 0)
        found = self.solve(solve_id)
        assert found is not None
        return found

    def start(self, solve_id: int) -> bool:
        """Mark a queued solve running; False when it was cancelled meanwhile."""
        with self._write() as db:
            cursor = db.execute(
                "UPDATE solves SET state='running' WHERE id=? AND state='queued'", (solve_id,)
            )
            return cursor.rowcount == 1

    def progress(self, solve_id: int, price: float, bound: float, gap: float, seconds: float) -> None:
        """A new incumbent of a running solve."""
        with self._write() as db:
            db.execute(
                "UPDATE solves SET price=?, bound=?, gap=?, seconds=? WHERE id=? AND state='running'",
                (price, bound, gap, seconds, solve_id),
            )

    def finish(self, solve_id: int, outcome: dict[str, Any]) -> None:
        """Record a finished solve in one transaction: its plan, quote and figures, or its error."""
        with self._write() as db:
            db.execute(
                "UPDATE solves SET state=?, price=?, bound=?, gap=?, seconds=?, plan=?, quote_html=?, "
                "seller_html=?, frontier=?, error=?, finished_at=? "
                "WHERE id=? AND state IN ('queued','running')",
                (
                    outcome["state"],
                    outcome.get("price"),
                    outcome.get("bound"),
                    outcome.get("gap"),
                    outcome.get("seconds"),
                    outcome.get("plan"),
                    outcome.get("quote_html"),
                    outcome.get("seller_html"),
                    outcome.get("frontier"),
                    outcome.get("error"),
                    now(),
                    solve_id,
                ),
            )

    def solve(self, solve_id: int) -> Solve | None:
        """One solve, or None."""
        row = self._connection().execute("SELECT * FROM solves WHERE id=?", (solve_id,)).fetchone()
        return _solve(row) if row else None

    def solves(self, bid_id: int, version: int | None = None) -> list[Solve]:
        """A bid's solves (of one version, if given), newest first."""
        query, args = "SELECT * FROM solves WHERE bid_id=?", [bid_id]
        if version is not None:
            query, args = query + " AND version=?", [*args, version]
        rows = self._connection().execute(query + " ORDER BY id DESC", args)
        return [_solve(r) for r in rows]

    def latest_done(self, bid_id: int, version: int) -> Solve | None:
        """The latest finished solve of a version that has a plan."""
        return next((s for s in self.solves(bid_id, version) if s.state == "done" and s.plan), None)

    def in_flight(self) -> int:
        """Solves queued or running."""
        row = (
            self._connection()
            .execute("SELECT COUNT(*) FROM solves WHERE state IN ('queued','running')")
            .fetchone()
        )
        return int(row[0])

    # export and import

    def export(self, bid_id: int) -> BidExport | None:
        """A bid, every version and every finished solve, as one record."""
        bid = self.bid(bid_id)
        if bid is None:
            return None
        versions = [ExportedVersion(**_fields(v, ExportedVersion)) for v in self.versions(bid_id)]
        solves = [
            ExportedSolve(**_fields(s, ExportedSolve)) for s in reversed(self.solves(bid_id)) if s.finished
        ]
        files = [
            ExportedFile(name=f.name, data=base64.b64encode(f.data), created_at=f.created_at, author=f.author)
            for f in self.files(bid_id).values()
        ]
        return BidExport(
            name=bid.name,
            created_at=bid.created_at,
            author=bid.author,
            versions=versions,
            solves=solves,
            files=files,
        )

    def import_bid(self, record: BidExport) -> int:
        """A new bid holding an exported bid's history, all in one transaction; its id."""
        numbers = sorted(v.number for v in record.versions)
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError("versions must be numbered 1, 2, 3, … without gaps")
        if any(s.version not in numbers for s in record.solves):
            raise ValueError("a solve names a version the file does not hold")
        with self._write() as db:
            latest = max(record.versions, key=lambda v: v.number).workload
            cursor = db.execute(
                "INSERT INTO bids(name, created_at, author, customer) VALUES (?,?,?,?)",
                (record.name, record.created_at, record.author, customer_of(latest)),
            )
            bid_id = int(cursor.lastrowid or 0)
            for v in sorted(record.versions, key=lambda v: v.number):
                db.execute(
                    "INSERT INTO versions(bid_id, number, workload, note, created_at, author) "
                    "VALUES (?,?,?,?,?,?)",
                    (bid_id, v.number, v.workload, v.note, v.created_at, v.author),
                )
            for s in record.solves:
                db.execute(
                    "INSERT INTO solves(bid_id, version, state, settings, price, bound, gap, seconds, plan, "
                    "quote_html, seller_html, frontier, error, created_at, finished_at, author) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        bid_id, s.version, s.state, json.dumps(s.settings), s.price, s.bound, s.gap,
                        s.seconds, s.plan, s.quote_html, s.seller_html, s.frontier, s.error, s.created_at,
                        s.finished_at, s.author,
                    ),
                )  # fmt: skip
            for f in record.files:
                db.execute(
                    "INSERT INTO files(bid_id, name, data, created_at, author) VALUES (?,?,?,?,?)",
                    (bid_id, f.name, f.data, f.created_at, f.author),
                )
            return bid_id


def _fields(row: object, model: type[BaseModel]) -> dict[str, Any]:
    return {name: getattr(row, name) for name in model.model_fields}


def _bid(row: sqlite3.Row) -> Bid:
    return Bid(row["id"], row["name"], row["created_at"], row["author"], row["n"], row["customer"])


def _version(row: sqlite3.Row) -> Version:
    return Version(
        row["bid_id"], row["number"], row["workload"], row["note"], row["created_at"], row["author"]
    )


def _solve(row: sqlite3.Row) -> Solve:
    return Solve(
        id=row["id"],
        bid_id=row["bid_id"],
        version=row["version"],
        state=row["state"],
        settings=json.loads(row["settings"]),
        price=row["price"],
        bound=row["bound"],
        gap=row["gap"],
        seconds=row["seconds"],
        plan=row["plan"],
        quote_html=row["quote_html"],
        seller_html=row["seller_html"],
        frontier=row["frontier"],
        error=row["error"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        author=row["author"],
    )
