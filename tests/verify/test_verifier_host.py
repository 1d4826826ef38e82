"""Rules on the host: RAM for the cards and for offloaded states, cores, sockets, CPU cooling, NVMe."""

from __future__ import annotations

from ftopt.verify import host


def test_ram_lowered(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(c.with_server(ram_gb=768))
    assert "host-ram: server s1: 768 GB, needs ≥ 2256 GB (2 × 1128 GB GPU memory)" in map(str, violations)
    assert {v.rule for v in violations} == {"host-ram", "server-fields"}


def test_smaller_dimms_consistently(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert c.rules(c.rebuild(dimm="ddr5-32gb")) == {"host-ram"}


def test_offloaded_states_need_more_than_twice_gpu_memory(solved) -> None:
    """Four L40S need 384 GB by the 2× rule; three offloaded 8B optimisers need 337 GB + 64 GB reserve."""
    c = solved("offload")
    violations = c.verify(c.rebuild(dimm="ddr5-16gb"))
    assert [str(v) for v in violations] == [
        "host-ram: server s1: 384 GB, "
        "needs ≥ 401.27 GB (337.27 GB offloaded optimiser states + 64 GB reserve)"
    ]


def test_too_few_cores(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(c.rebuild(cpu="epyc-9135"))
    assert [str(v) for v in violations] == ["cores: server s1: 32 cores, needs ≥ 48 (6 per GPU × 8)"]


def test_one_cpu(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert "sockets" in c.rules(c.rebuild(cpu_count=1))


def test_one_socket_chassis(solved) -> None:
    c = solved("nvl-qwen32-full")
    catalogue = c.catalogue_with("chassis", "gpu-server-8", sockets=1)
    assert "sockets" in c.rules(catalogue=catalogue)


def test_cpu_hotter_than_the_chassis_cools(solved) -> None:
    c = solved("nvl-qwen32-full")
    catalogue = c.catalogue_with("chassis", "gpu-server-8", max_cpu_tdp_w=250)
    violations = c.verify(catalogue=catalogue)
    assert [str(v) for v in violations] == [
        "cpu-tdp: server s1: epyc-9355 at 280 W, gpu-server-8 cools at most 250 W"
    ]


def test_less_nvme_than_per_socket(solved) -> None:
    c = solved("first-project")
    violations = c.verify(c.rebuild(data_drive_count=1))
    assert [str(v) for v in violations] == ["nvme: server s1: 3.84 TB, needs ≥ 4 TB (2 TB per socket)"]


def test_checkpoints_exceed_nvme(solved) -> None:
    c = solved("nvl-qwen32-full")
    violations = c.verify(workload=c.with_run("q32-full", keep_checkpoints=20))
    nvme = [str(v) for v in violations if v.rule == "nvme"]
    assert len(nvme) == 1
    assert nvme[0].startswith("nvme: server s1: 7.68 TB, needs ≥ 10.")


def test_a_cpu_of_another_socket(solved) -> None:
    """Issue 30: a Xeon 6700P (LGA 4710) does not fit the EPYC (SP5) chassis."""
    c = solved("nvl-qwen32-full")
    violations = [str(v) for v in c.verify(c.rebuild(cpu="xeon-6732p")) if v.rule == "cpu-tdp"]
    assert violations == ["cpu-tdp: server s1: xeon-6732p (lga4710), gpu-server-8 has sp5 sockets"]


def test_the_host_rules_alone_find_too_little_ram(solved) -> None:
    c = solved("nvl-qwen32-full")
    assert c.alone(host) == set()
    assert c.alone(host, c.rebuild(dimm="ddr5-32gb")) == {"host-ram"}
