"""The rack elevation: every server drawn in its rack, in its slots, with its circuit marked."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from ftopt.model.facility import facility
from ftopt.quote.elevation import UNIT_PX, elevation_svg
from tests.quote.commercial_bid import solved

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory):
    plan, _, catalogue = solved(tmp_path_factory.mktemp("bid"))
    sheet = facility(plan, catalogue, 0.8)
    return plan, sheet, ET.fromstring(elevation_svg(sheet))


def test_every_server_is_drawn_once_with_its_height_and_circuit(drawn) -> None:
    plan, sheet, svg = drawn
    groups = {g.get("data-server"): g for g in svg.iter(f"{SVG}g") if g.get("class") == "server"}
    assert set(groups) == {s.id for s in plan.servers}
    for server in sheet.servers:
        group = groups[server.id]
        rect = group.find(f"{SVG}rect")
        assert rect is not None and float(rect.get("height", 0)) == (server.units or 1) * UNIT_PX - 1
        title = group.findtext(f"{SVG}title") or ""
        assert f"circuit {'ABCDEFGH'[server.circuit or 0]}" in title and server.chassis in title


def test_each_rack_is_drawn_with_its_servers_inside_it(drawn) -> None:
    plan, sheet, svg = drawn
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    for rack in plan.racks:
        assert rack.name in texts
    frames = [r for r in svg.findall(f"{SVG}rect") if r.get("stroke-width") == "2"]
    assert len(frames) == len(plan.racks)
    for frame, rack in zip(frames, plan.racks, strict=True):
        assert float(frame.get("height", 0)) == rack.units * UNIT_PX
        x0, x1 = float(frame.get("x", 0)), float(frame.get("x", 0)) + float(frame.get("width", 0))
        for g in svg.iter(f"{SVG}g"):
            if g.get("data-server") in {s.id for s in sheet.servers if s.rack == rack.name}:
                rect = g.find(f"{SVG}rect")
                assert rect is not None and x0 < float(rect.get("x", 0)) < x1


def test_servers_without_racks_are_drawn_as_one_stack(drawn) -> None:
    plan, sheet, _ = drawn
    unracked = sheet.model_copy(update={"racks": ()})
    svg = ET.fromstring(elevation_svg(unracked))
    assert "servers (not racked)" in [t.text for t in svg.iter(f"{SVG}text")]
    assert len([g for g in svg.iter(f"{SVG}g") if g.get("class") == "server"]) == len(plan.servers)
