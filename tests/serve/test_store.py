"""The store never overwrites: versions are insert-only, finished solves frozen, in-flight solves
failed on reopening, and an export imports as the same history."""

from __future__ import annotations

import sqlite3

import pytest

from ftopt.serve.store import INTERRUPTED, SCHEMA_VERSION, BidExport, NewerStore, Store


def test_versions_are_added_never_overwritten(tmp_path):
    store = Store(tmp_path)
    first = store.create_bid("b", "name: b\n", "ann")
    second = store.add_version(first.bid_id, "name: b2\n", "bob", "edited")
    assert (first.number, second.number) == (1, 2)
    assert [v.workload for v in store.versions(first.bid_id)] == ["name: b\n", "name: b2\n"]
    db = sqlite3.connect(store.path)
    with pytest.raises(sqlite3.IntegrityError, match="never overwritten"):
        db.execute("UPDATE versions SET workload='x' WHERE bid_id=?", (first.bid_id,))
    with pytest.raises(sqlite3.IntegrityError, match="never deleted"):
        db.execute("DELETE FROM versions")
    assert store.version(first.bid_id, 1).workload == "name: b\n"


def test_the_database_is_in_wal_mode(tmp_path):
    store = Store(tmp_path)
    assert sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_solve_in_flight_when_the_server_stopped_is_failed_on_reopening(tmp_path):
    store = Store(tmp_path)
    bid = store.create_bid("b", "name: b\n", "ann").bid_id
    running = store.create_solve(bid, 1, {}, "ann")
    store.start(running.id)
    store.progress(running.id, 120.0, 100.0, 1 / 6, 1.5)
    done = store.create_solve(bid, 1, {}, "ann")
    store.start(done.id)
    store.finish(done.id, {"state": "done", "price": 100.0, "plan": "{}"})
    reopened = Store(tmp_path)
    assert reopened.interrupted == 1
    failed = reopened.solve(running.id)
    assert failed.state == "failed" and failed.error == INTERRUPTED and failed.plan is None
    assert reopened.solve(done.id).state == "done" and reopened.solve(done.id).price == 100.0
    # a finished solve never changes again, not even through a late answer
    reopened.finish(running.id, {"state": "done", "price": 1.0, "plan": "{}"})
    assert reopened.solve(running.id).state == "failed"


def test_an_export_imports_as_a_new_bid_with_the_same_history(tmp_path):
    store = Store(tmp_path / "a")
    bid = store.create_bid("b", "name: b\n", "ann").bid_id
    store.add_version(bid, "name: c\n", "bob", "edited")
    solve = store.create_solve(bid, 2, {"time_limit": 5}, "bob")
    store.start(solve.id)
    outcome = {
        "state": "done",
        "price": 9.5,
        "plan": '{"x": 1}',
        "quote_html": "<p>q</p>",
        "seller_html": "<p>s</p>",
    }
    store.finish(solve.id, outcome)
    record = BidExport.model_validate_json(store.export(bid).model_dump_json())
    other = Store(tmp_path / "b")
    new = other.import_bid(record)
    assert [(v.number, v.workload, v.note) for v in other.versions(new)] == [
        (1, "name: b\n", "created"),
        (2, "name: c\n", "edited"),
    ]
    imported = other.latest_done(new, 2)
    assert (
        imported.price == 9.5 and imported.quote_html == "<p>q</p>" and imported.settings == {"time_limit": 5}
    )
    assert imported.seller_html == "<p>s</p>"  # the seller's copy travels with its solve


def test_an_import_with_a_gap_in_its_versions_is_refused_whole(tmp_path):
    store = Store(tmp_path)
    record = BidExport(
        name="b",
        created_at="2026-12-03T00:00:00+00:00",
        versions=[
            {"number": 1, "workload": "a", "created_at": "x"},
            {"number": 3, "workload": "b", "created_at": "x"},
        ],
    )
    with pytest.raises(ValueError, match="without gaps"):
        store.import_bid(record)
    assert store.bids() == []


#: The store's schema as the first workbench wrote it (version 1, before `bids.customer`), copied
#: here so that the upgrade is tested against the real old layout, not against today's code.
V1_SCHEMA = """
CREATE TABLE IF NOT EXISTS bids (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    author TEXT NOT NULL
);
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


def v1_store(folder):
    """A store as the first workbench left it: two bids, three versions, a finished solve."""
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / "bids.sqlite3")
    db.executescript(V1_SCHEMA)
    acme = "name: a\nquote: {customer: Acme GmbH}  # the buyer\nruns: []\n"
    db.execute("INSERT INTO bids(name, created_at, author) VALUES ('a', '2026-01-01', 'ann')")
    db.execute("INSERT INTO bids(name, created_at, author) VALUES ('b', '2026-01-02', 'bob')")
    for bid, number, text in [(1, 1, "name: a\nruns: []\n"), (1, 2, acme), (2, 1, "name: b\n")]:
        db.execute("INSERT INTO versions VALUES (?,?,?,?,?,?)", (bid, number, text, "n", "2026-01-01", "ann"))
    db.execute(
        "INSERT INTO solves(bid_id, version, state, settings, price, plan, created_at, finished_at, author) "
        "VALUES (1, 2, 'done', '{}', 1234.5, '{}', '2026-01-01', '2026-01-01', 'ann')"
    )
    db.commit()
    db.close()
    return folder


def test_a_store_of_the_first_layout_is_upgraded_and_keeps_every_bid(tmp_path):
    folder = v1_store(tmp_path / "old")
    store = Store(folder)
    assert store.migrated == [2, 3, 4]
    assert [(b.id, b.name, b.versions, b.customer) for b in store.bids()] == [
        (2, "b", 1, ""), (1, "a", 2, "Acme GmbH")
    ]  # fmt: skip
    assert store.version(1, 2).workload.endswith("# the buyer\nruns: []\n")
    assert store.latest_done(1, 2).price == 1234.5
    assert store.latest_done(1, 2).seller_html is None  # solved before the worker rendered that copy
    assert [b.id for b in store.bids(customer="acme")] == [1]
    # the file before the upgrade is kept beside it, whole
    copy = sqlite3.connect(folder / "bids.sqlite3.before-v2")
    assert copy.execute("SELECT COUNT(*) FROM versions").fetchone()[0] == 3
    # opened again, nothing more to do and nothing lost; the triggers still guard the versions
    again = Store(folder)
    assert again.migrated == [] and len(again.versions(1)) == 2
    with pytest.raises(sqlite3.IntegrityError, match="never overwritten"):
        sqlite3.connect(again.path).execute("UPDATE versions SET workload='x'")


def test_a_new_store_is_made_at_the_latest_layout_without_a_copy(tmp_path):
    store = Store(tmp_path)
    assert sqlite3.connect(store.path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert not list(tmp_path.glob("*.before-*"))


def test_a_store_of_a_newer_workbench_is_refused_unchanged(tmp_path):
    Store(tmp_path)
    db = sqlite3.connect(tmp_path / "bids.sqlite3")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(NewerStore, match="newer workbench"):
        Store(tmp_path)


def test_the_customer_follows_the_latest_version_and_the_search_escapes_wildcards(tmp_path):
    store = Store(tmp_path)
    bid = store.create_bid("x", "quote: {customer: 100% Compute}\n", "ann").bid_id
    store.create_bid("y", "quote: {customer: Other}\n", "ann")
    assert [b.id for b in store.bids(customer="100%")] == [bid]
    assert [b.name for b in store.bids(customer="%")] == ["x"]
    store.add_version(bid, "quote: {customer: Beta AG}\n", "ann", "edited")
    assert [b.customer for b in store.bids(customer="beta")] == ["Beta AG"]
    assert store.bids(customer="compute") == []
