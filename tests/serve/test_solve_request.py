"""What a solve is asked for, and what of it is stored with the solve."""

from __future__ import annotations

from ftopt.serve.solve_request import SolveRequest


def test_the_stored_knobs_are_the_users_not_the_servers() -> None:
    request = SolveRequest(
        "runs: []", time_limit=12.5, what_if=False, frontier=True, alternatives=2, solver_workers=4
    )
    # The CP-SAT workers are the server's setting: a re-solve on another server may use others.
    assert request.settings() == {"time_limit": 12.5, "what_if": False, "frontier": True, "alternatives": 2}


def test_the_defaults_ask_for_what_the_quote_shows() -> None:
    settings = SolveRequest("runs: []").settings()
    assert settings["what_if"] and settings["frontier"] and settings["alternatives"] == 0
