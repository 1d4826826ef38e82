"""GPU slices (MIG): a sliced card carries a layout NVIDIA lists, a copy fits its slice and names an
instance the layout has, alone."""

from __future__ import annotations

from ftopt.model.plan import MigCard, MigSlice
from ftopt.verify import mig


def test_the_solved_slices_are_valid(solved) -> None:
    c = solved("mig")
    assert c.verify() == []
    assert {a.mig.profile for a in c.plan.assignments if a.mig} and all(s.mig for s in c.plan.servers)


def test_a_layout_nvidia_does_not_list_is_refused(solved) -> None:
    c = solved("mig")
    server = c.server("s1")
    bad = [MigCard(card=0, profiles=["2g.48gb", "2g.48gb", "1g.24gb"]), *server.mig[1:]]
    violations = [str(v) for v in c.verify(c.with_server("s1", mig=bad)) if v.rule == "mig-layout"]
    assert violations == [
        "mig-layout: server s1 GPU 0: layout 2g.48gb + 2g.48gb + 1g.24gb, "
        "a layout NVIDIA lists for rtx-pro-6000-se"
    ]


def test_a_copy_too_large_for_its_slice_is_refused(solved) -> None:
    c = solved("mig")
    longer = c.with_run("q8-qlora", seq_len=16384)  # eight times the activations: over 24 GB
    memory = [str(v) for v in c.verify(workload=longer) if v.rule == "gpu-memory"]
    assert memory and all("card holds 24 GB" in v for v in memory)


def test_an_instance_the_card_lacks_or_shares_is_refused(solved) -> None:
    c = solved("mig")
    first = c.assignment("q8-qlora", 1)
    assert first.mig is not None
    fifth = MigSlice(card=first.mig.card, profile=first.mig.profile, index=4)
    assert "mig-slice" in c.rules(c.with_assignment("q8-qlora", 1, mig=fifth))
    other = MigSlice(card=first.mig.card, profile="2g.48gb", index=0)
    assert "mig-slice" in c.rules(c.with_assignment("q8-qlora", 1, mig=other))
    second = c.assignment("q8-qlora", 2)
    shared = c.with_assignment("q8-qlora", 2, mig=first.mig, gpus=first.gpus, nodes=first.nodes)
    assert second.mig != first.mig and "gpu-shared" in c.rules(shared)


def test_a_whole_card_copy_on_a_sliced_card_is_refused(solved) -> None:
    c = solved("mig")
    violations = [
        str(v) for v in c.verify(c.with_assignment("q8-qlora", 1, mig=None)) if v.rule == "mig-slice"
    ]
    assert violations == [
        "mig-slice: run q8-qlora copy 1: whole GPUs [0], cards that are not split into slices"
    ]


def test_the_mig_rules_alone_find_an_instance_the_layout_lacks(solved) -> None:
    c = solved("mig")
    first = c.assignment("q8-qlora", 1)
    assert first.mig is not None and c.alone(mig) == set()
    fifth = MigSlice(card=first.mig.card, profile=first.mig.profile, index=4)
    assert c.alone(mig, c.with_assignment("q8-qlora", 1, mig=fifth)) == {"mig-slice"}
