"""The application factory: one app per data folder, and errors in the form of the route they meet."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from ftopt.serve.app import ServeConfig, create_app
from ftopt.serve.bids import Workbench


def test_each_app_keeps_its_own_folder(tmp_path: Path) -> None:
    one, two = create_app(ServeConfig(tmp_path / "a")), create_app(ServeConfig(tmp_path / "b"))
    with TestClient(one) as a, TestClient(two):
        bench = one.state.bench
        assert isinstance(bench, Workbench) and bench.store is not two.state.bench.store
        reply = a.post("/api/bids", content="runs: 7", headers={"content-type": "application/yaml"})
        assert reply.status_code == 400 and reply.json()["detail"].startswith("ftopt: ")


def test_a_missing_bid_is_problem_details_under_api_and_a_page_elsewhere(tmp_path: Path) -> None:
    with TestClient(create_app(ServeConfig(tmp_path))) as client:
        api = client.get("/api/bids/99")
        assert api.status_code == 404 and api.json() == {
            "type": "urn:ftopt:problem:not-found",
            "title": "Not Found",
            "status": 404,
            "detail": "ftopt: no bid 99",
            "instance": "/api/bids/99",
        }
        page = client.get("/bids/99")
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        assert "no bid 99" in page.text
