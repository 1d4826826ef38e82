"""The baselines are measured against the product, so they must be right: first-fit decreasing's
plans pass the independent verifier, and the naive model's price is what its parts cost."""

from __future__ import annotations

import pytest

from benchmarks.baselines.ffd import first_fit_decreasing
from benchmarks.baselines.naive import booleans_needed, naive
from benchmarks.suite import Instance, discover
from ftopt import Catalogue, load_catalogue, load_workload, verify_plan

#: The medium tier holds the sites where a DGX-class server's published maximum (10.2 kW) exceeds the
#: feed while its parts alone would not: the spreadsheet must apply the vendor's figure too.
CHECKED = discover(["example", "seed", "medium"])
#: First-fit decreasing sizes for memory as a spreadsheet would and ignores deadlines, so its plans
#: are held to the verifier only on bids without them.
#: Bids with a copy no single server holds: first-fit decreasing places single-server copies only
#: and says so.
SINGLE_SERVER_ONLY = {"example:405b-full", "example:405b-b300"}
#: Bids whose site is racks: first-fit decreasing sizes one server per feed and says so.
RACKED = {i.name for i in CHECKED if "racks:" in i.path.read_text(encoding="utf-8")}
NO_DEADLINES = [i for i in CHECKED if "deadline_hours" not in i.path.read_text(encoding="utf-8")]


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.mark.parametrize("instance", NO_DEADLINES, ids=lambda i: i.name)
def test_ffd_plan_verifies(instance: Instance, catalogue: Catalogue) -> None:
    workload = load_workload(instance.path, catalogue)
    if instance.name in SINGLE_SERVER_ONLY:
        with pytest.raises(ValueError, match="no server holds one copy"):
            first_fit_decreasing(workload, catalogue)
        return
    if instance.name in RACKED:
        with pytest.raises(ValueError, match="given as racks"):
            first_fit_decreasing(workload, catalogue)
        return
    result = first_fit_decreasing(workload, catalogue)
    assert verify_plan(result.plan, workload, catalogue) == []
    assert sum(1 for _ in result.plan.assignments) == workload.total_copies
    billed = sum(line.price for s in result.plan.servers for line in s.bill_of_materials)
    assert result.price == pytest.approx(billed, abs=0.01)


def test_naive_price_is_its_parts_and_no_lower_than_the_product(catalogue: Catalogue) -> None:
    instance = next(i for i in CHECKED if i.name == "seed-02")
    result = naive(load_workload(instance.path, catalogue), catalogue, time_limit=20, workers=2)
    assert result.status == "optimal"
    assert result.price == pytest.approx(result.objective, abs=0.01)
    assert result.slots == first_fit_decreasing(load_workload(instance.path, catalogue), catalogue).servers
    # the size side_by_side checks before building is the size the build makes
    assert (
        booleans_needed(load_workload(instance.path, catalogue), catalogue, result.slots) == result.booleans
    )
