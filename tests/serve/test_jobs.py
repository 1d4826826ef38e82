"""The solve queue: at most `workers + max_queue` solves in flight, and a cancel that sticks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ftopt.serve.jobs import Jobs, JobSettings, QueueFull
from ftopt.serve.solve_request import SolveRequest
from ftopt.serve.store import Store
from tests.serve.conftest import FEED_BOUND


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path)
    store.create_bid("feed-bound", FEED_BOUND, "ann")
    return store


@pytest.fixture
def jobs(store: Store) -> Iterator[Jobs]:
    queue = Jobs(store, JobSettings(workers=1, max_queue=1))
    yield queue
    queue.close()


def test_more_solves_than_the_queue_holds_are_refused(store: Store, jobs: Jobs) -> None:
    request = SolveRequest(FEED_BOUND, time_limit=30)
    first = jobs.submit(1, 1, request, "ann")
    second = jobs.submit(1, 1, request, "ann")
    with pytest.raises(QueueFull):
        jobs.submit(1, 1, request, "ann")
    assert jobs.cancel(first.id) and jobs.cancel(second.id)
    assert {store.solve(s.id).state for s in (first, second)} == {"cancelled"}  # type: ignore[union-attr]
    assert not jobs.cancel(first.id)  # finished already: nothing to stop
    jobs.submit(1, 1, request, "ann")  # room again
