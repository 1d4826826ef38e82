"""Owned servers as builds: matched part by part to a build the site allows, at price 0, or named."""

from __future__ import annotations

from pathlib import Path

from ftopt.catalogue import load_catalogue
from ftopt.model.findings import FindingKind
from ftopt.reading.workload_file import load_workload
from ftopt.solver.problem.builds import enumerate_builds
from ftopt.solver.problem.owned import owned_builds

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "owned-servers.yaml"


def _inputs(**entry_update: object):
    catalogue = load_catalogue()
    workload = load_workload(EXAMPLE, catalogue)
    if entry_update:
        entry = workload.inventory[0].model_copy(update=entry_update)
        workload = workload.model_copy(update={"inventory": [entry, *workload.inventory[1:]]})
    return workload, enumerate_builds(catalogue, workload).builds


def test_an_owned_server_is_its_build_with_nothing_to_pay_and_no_upgrades() -> None:
    workload, builds = _inputs()
    owned, unusable = owned_builds(workload, builds)
    whole = [b for b in owned if b.mig is None]
    assert unusable == [] and len(whole) == len(workload.inventory)
    for index, (build, entry) in enumerate(zip(whole, workload.inventory, strict=True)):
        assert build.owned == index and build.fixed_price == 0.0
        assert (build.chassis.id, build.gpu.id, build.gpu_count) == (
            entry.chassis,
            entry.gpu,
            entry.gpu_count,
        )
        assert (build.ram.dimm.id, build.ram.count, build.ram.price) == (entry.dimm, entry.dimm_count, 0.0)
        assert build.ram_upgrades == (build.ram,) and build.disk_upgrades == (build.disk,)


def test_an_entry_no_allowed_build_matches_is_a_finding_not_a_server() -> None:
    workload, builds = _inputs(dimm_count=7)  # no RAM tier has seven DIMMs
    owned, unusable = owned_builds(workload, builds)
    assert len([b for b in owned if b.mig is None]) == len(workload.inventory) - 1
    assert [f.kind for f in unusable] == [FindingKind.OWNED] and unusable[0].subject == "inventory[0]"


def test_an_owned_server_of_mig_cards_is_offered_sliced_as_a_bought_one_is() -> None:
    """Slicing is a setting, not a purchase: each layout a bought server of the card is offered in,
    the owned one is too, at price 0 and counted against the same entry."""
    workload, builds = _inputs()
    owned, _ = owned_builds(workload, builds)
    entry = workload.inventory[0]
    sliced = [b for b in owned if b.mig is not None and b.owned == 0]
    bought = {
        (b.mig.name, b.mig_count)
        for b in builds
        if b.mig is not None
        and (b.chassis.id, b.gpu.id, b.gpu_count) == (entry.chassis, entry.gpu, entry.gpu_count)
    }
    assert bought and {(b.mig.name, b.mig_count) for b in sliced if b.mig} == bought
    assert all(b.fixed_price == 0.0 and b.units()["owned:0"] == 1 for b in sliced)
    plain = workload.model_copy(update={"sizing": workload.sizing.model_copy(update={"mig": False})})
    assert all(b.mig is None for b in owned_builds(plain, builds)[0])
