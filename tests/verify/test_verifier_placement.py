"""Rules on where copies train: servers and runs exist, GPU indices valid and unshared, every copy once."""

from __future__ import annotations

from ftopt.verify import placement


def test_assignment_on_unknown_server(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_assignment("llama8b-qlora", 1, server="s9"))
    assert [str(v) for v in violations if v.rule == "server-id"] == [
        "server-id: run llama8b-qlora copy 1: on server 's9', no such server in the plan"
    ]


def test_duplicate_server_id(solved) -> None:
    c = solved("mix")
    assert "server-id" in c.rules(c.with_server("s2", id="s1"))


def test_unknown_run(solved) -> None:
    c = solved("first-project")
    rules = c.rules(c.with_assignment("llama8b-qlora", 1, run="llama8b-qlora-x"))
    assert rules == {"unknown-run", "copies"}


def test_copy_dropped(solved) -> None:
    c = solved("mix")
    plan = c.plan.model_copy(update={"assignments": c.plan.assignments[:-1]})
    violations = c.verify(plan)
    assert [str(v) for v in violations] == ["copies: run m7-qlora copy 3: not placed, placed exactly once"]


def test_copy_duplicated(solved) -> None:
    c = solved("first-project")
    twin = c.assignment("llama8b-qlora", 1).model_copy(update={"gpus": [3]})
    plan = c.plan.model_copy(update={"assignments": [*c.plan.assignments, twin]})
    violations = c.verify(plan)
    assert [str(v) for v in violations] == [
        "copies: run llama8b-qlora copy 1: placed 2 times, placed exactly once"
    ]


def test_copy_numbered_past_concurrent(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_assignment("llama8b-qlora", 1, copy_=2))
    assert [str(v) for v in violations] == [
        "copies: run llama8b-qlora copy 1: not placed, placed exactly once",
        "copies: run llama8b-qlora copy 2: placed, the run has 1 concurrent",
    ]


def test_gpu_index_past_the_servers_cards(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_assignment("llama8b-qlora", 1, gpus=[4]))
    assert [str(v) for v in violations] == [
        "gpu-index: run llama8b-qlora copy 1: GPU 4 on server s1, it has GPUs 0–3"
    ]


def test_gpu_listed_twice_in_one_copy(solved) -> None:
    c = solved("first-project")
    assert "gpu-index" in c.rules(c.with_assignment("llama70b-lora", 1, gpus=[0, 0]))


def test_copy_without_gpus(solved) -> None:
    c = solved("first-project")
    assert "gpu-index" in c.rules(c.with_assignment("llama8b-qlora", 1, gpus=[]))


def test_gpu_shared_by_two_copies(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.with_assignment("llama8b-qlora", 1, gpus=[1]))
    assert [str(v) for v in violations] == [
        "gpu-shared: server s1: GPU 1 given to run llama70b-lora copy 1 and run llama8b-qlora copy 1, "
        "one copy per GPU"
    ]


def test_more_servers_than_positions(solved) -> None:
    c = solved("mix")
    assert len(c.plan.servers) == 2
    violations = c.verify(workload=c.with_site(max_servers=1))
    assert [str(v) for v in violations] == ["max-servers: plan: 2 servers, site has 1 positions"]


def test_the_placement_rules_alone_find_a_duplicate_server_id(solved) -> None:
    c = solved("first-project")
    assert c.alone(placement) == set()
    moved = c.with_assignment("llama8b-qlora", 1, server="s9")
    assert c.alone(placement, moved) == {"server-id"}
