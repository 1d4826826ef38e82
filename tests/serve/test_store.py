"""The store never overwrites: versions are insert-only, finished solves frozen, in-flight solves
failed on reopening, and an export imports as the same history."""

from __future__ import annotations

import sqlite3

import pytest

from ftopt.serve.store import INTERRUPTED, BidExport, Store


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
    store.finish(solve.id, {"state": "done", "price": 9.5, "plan": '{"x": 1}', "quote_html": "<p>q</p>"})
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
