"""The operations the API and the pages share: a bid is checked before it is stored, versions grow,
two versions compare field by field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.serve.bids import NotFound, Workbench, compare, create, edit, require_version
from ftopt.serve.jobs import Jobs, JobSettings
from ftopt.serve.store import Store
from ftopt.serve.workloads import WorkloadError
from tests.serve.conftest import FEED_BOUND


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Workbench]:
    store = Store(tmp_path)
    jobs = Jobs(store, JobSettings())
    yield Workbench(store, jobs, load_catalogue())
    jobs.close()


def test_a_bid_grows_by_versions_and_compares_field_by_field(bench: Workbench) -> None:
    first = create(bench, FEED_BOUND, "ann")
    second = edit(bench, first.bid_id, FEED_BOUND.replace("230v-16a", "230v-32a"), "bob")
    assert (first.number, second.number, second.author) == (1, 2, "bob")
    found = compare(bench, first.bid_id, 1, 2)
    assert [(c.path, c.before, c.after) for c in found.changes] == [("site.feed", "230v-16a", "230v-32a")]
    assert found.plans is None  # neither version solved yet


def test_a_bad_workload_is_refused_and_nothing_is_stored(bench: Workbench) -> None:
    with pytest.raises(WorkloadError, match="runs"):
        create(bench, FEED_BOUND.replace("method: qlora", "method: qlorax"), "ann")
    assert bench.store.bids() == []
    bid = create(bench, FEED_BOUND, "ann").bid_id
    with pytest.raises(WorkloadError):
        edit(bench, bid, "runs: 7", "ann")
    assert [v.number for v in bench.store.versions(bid)] == [1]


def test_a_missing_bid_or_version_is_named(bench: Workbench) -> None:
    bid = create(bench, FEED_BOUND, "ann").bid_id
    with pytest.raises(NotFound, match=f"bid {bid}"):
        require_version(bench, bid, 9)
    with pytest.raises(NotFound, match="no bid 99"):
        edit(bench, 99, FEED_BOUND, "ann")
