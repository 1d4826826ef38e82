"""The facility sheet: power, heat, airflow, weight and rack units per rack and for the bid, each
summed from the plan's servers and the catalogue's chassis, and a missing figure named, never zero."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ftopt.catalogue import load_catalogue
from ftopt.model.facility import BTU_H_PER_W, facility
from ftopt.model.hardware import Catalogue, Chassis
from ftopt.model.plan import Plan
from tests.quote.commercial_bid import solved


@pytest.fixture(scope="module")
def racked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Plan, Catalogue]:
    plan, _, catalogue = solved(tmp_path_factory.mktemp("bid"))
    assert plan.racks, "the bid's site is given as racks"
    return plan, catalogue


def test_each_rack_and_the_bid_sum_their_servers(racked: tuple[Plan, Catalogue]) -> None:
    plan, catalogue = racked
    sheet = facility(plan, catalogue, 0.8)
    assert sheet.bid.power_max_w == sum(s.power_w for s in plan.servers)
    assert sheet.bid.power_years_average_w == round(sheet.bid.power_max_w * 0.8)
    assert "80%" in sheet.average_label and "P50" in sheet.power_note
    assert sheet.bid.heat_btu_h == round(sheet.bid.power_max_w * BTU_H_PER_W)
    assert sheet.bid.heat_kw == round(sheet.bid.power_max_w / 1000, 2)
    assert [r.name for r in sheet.racks] == [r.name for r in plan.racks]
    for row, rack in zip(sheet.racks, plan.racks, strict=True):
        assert row.power_max_w == rack.load_w  # the plan's own sum of the rack's full-load draw
        assert row.rack_units == rack.units_used and row.units_available == rack.units
    assert sum(r.power_max_w for r in sheet.racks) == sheet.bid.power_max_w
    assert {s.id for s in sheet.servers} == {s.id for s in plan.servers}


def test_a_chassis_without_weight_or_airflow_is_named_not_counted_as_zero(
    racked: tuple[Plan, Catalogue],
) -> None:
    plan, catalogue = racked
    sheet = facility(plan, catalogue, 0.8)
    used = {s.chassis for s in plan.servers}
    lacking = {
        c.id for c in catalogue.chassis if c.id in used and (c.weight_kg is None or c.airflow_cfm is None)
    }
    assert set(sheet.bid.missing) == lacking
    if lacking == used:
        assert sheet.bid.weight_kg is None and sheet.bid.airflow_cfm is None


def test_a_sum_over_some_servers_counts_those_it_leaves_out(racked: tuple[Plan, Catalogue]) -> None:
    """Half the servers on a chassis with a published weight and no airflow, half on one the catalogue
    lacks: the weight is the half's sum and says the other half is not in it; no airflow at all."""
    plan, catalogue = racked
    assert len(plan.servers) >= 2
    used = {s.chassis for s in plan.servers}
    figures = {"weight_kg": 50.0, "facility_sources": ("weight_kg: 50 kg, vendor sheet (read 2026-12-05)",)}
    chassis = tuple(c.model_copy(update=figures) if c.id in used else c for c in catalogue.chassis)
    half = len(plan.servers) // 2
    servers = [s.model_copy(update={"chassis": "not-in-catalogue"}) if i < half else s
               for i, s in enumerate(plan.servers)]  # fmt: skip
    mixed = plan.model_copy(update={"servers": servers})
    sheet = facility(mixed, catalogue.model_copy(update={"chassis": chassis}), 0.8)
    assert sheet.bid.weight_kg == round(50.0 * (len(servers) - half), 2)
    assert sheet.bid.weight_lacking == half
    assert sheet.bid.airflow_cfm is None and sheet.bid.airflow_lacking == len(servers)
    assert "not-in-catalogue" in sheet.bid.missing
    for row in sheet.racks:
        inside = [s for s in servers if s.rack == row.name]
        assert row.weight_lacking == sum(1 for s in inside if s.chassis == "not-in-catalogue")


def test_every_catalogue_chassis_gives_its_figures_or_says_they_are_not_published() -> None:
    """Each figure the catalogue holds cites its source (the model refuses one without); a chassis
    without a figure says where it was looked for, so no chassis is left unexamined."""
    for c in load_catalogue().chassis:
        for field in ("weight_kg", "airflow_cfm"):
            entry = [s for s in c.facility_sources if s.startswith(f"{field}: ")]
            if getattr(c, field) is None:
                assert not entry and any("not published" in s for s in c.facility_sources), (c.id, field)
            else:
                assert entry and "read 2026-" in entry[0] and "https://" in entry[0], (c.id, field)


def test_a_figure_without_its_source_is_refused() -> None:
    chassis = load_catalogue().chassis[0]
    data = chassis.model_dump() | {"weight_kg": 40.0, "facility_sources": ()}
    with pytest.raises(ValidationError, match="weight_kg: give its source"):
        Chassis.model_validate(data)


def test_published_weight_and_airflow_are_summed_with_their_sources(racked: tuple[Plan, Catalogue]) -> None:
    plan, catalogue = racked
    used = {s.chassis for s in plan.servers}
    figures = {
        "weight_kg": 40.5,
        "airflow_cfm": 500.0,
        "facility_sources": (
            "weight_kg: vendor sheet (read 2026-12-04)",
            "airflow_cfm: vendor sheet (read 2026-12-04)",
        ),
    }
    chassis = tuple(c.model_copy(update=figures) if c.id in used else c for c in catalogue.chassis)
    sheet = facility(plan, catalogue.model_copy(update={"chassis": chassis}), 0.5)
    assert sheet.bid.weight_kg == round(40.5 * len(plan.servers), 2)
    assert sheet.bid.airflow_cfm == round(500 * len(plan.servers))
    assert sheet.bid.missing == () and sheet.bid.weight_lacking == sheet.bid.airflow_lacking == 0
    assert sheet.sources == figures["facility_sources"]


def test_the_catalogues_published_figures_are_summed_and_the_rest_counted(
    racked: tuple[Plan, Catalogue],
) -> None:
    """The bundled data: servers of the HGX H200 class carry the DGX H100/H200's published 130.45 kg
    and 1,105 CFM; beside one of the B200 class (a weight, no airflow) the airflow is a sum over the
    H200 servers that says it leaves one out."""
    plan, catalogue = racked
    known = {c.id: c for c in catalogue.chassis}
    h200, b200 = known["hgx-h200-8gpu"], known["hgx-b200-8gpu"]
    assert h200.weight_kg and h200.airflow_cfm and b200.weight_kg and b200.airflow_cfm is None
    servers = [s.model_copy(update={"chassis": h200.id}) for s in plan.servers]
    servers[-1] = servers[-1].model_copy(update={"chassis": b200.id})
    sheet = facility(plan.model_copy(update={"servers": servers}), catalogue, 0.8)
    n = len(servers)
    assert sheet.bid.weight_kg == round(h200.weight_kg * (n - 1) + b200.weight_kg, 2)
    assert sheet.bid.weight_lacking == 0
    assert sheet.bid.airflow_cfm == round(h200.airflow_cfm * (n - 1)) and sheet.bid.airflow_lacking == 1
    assert sheet.bid.missing == (b200.id,)
    assert any(s.startswith("airflow_cfm: ") and "docs.nvidia.com" in s for s in sheet.sources)
