"""Shared fixtures of the model tests: the packaged catalogue, a toy architecture and a toy card."""

from __future__ import annotations

import pytest

from ftopt.catalogue import load_catalogue
from ftopt.model.architecture import Architecture
from ftopt.model.hardware import Catalogue, Gpu, NvLink


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    """The catalogue as shipped; a failure to load it is a failure of these tests, not a skip."""
    return load_catalogue()


@pytest.fixture
def toy_arch() -> Architecture:
    """Two decoder layers, width 8, MLP 16, 2 query heads of 4, 1 KV head, vocabulary 10, untied.

    Hand count (no biases, SwiGLU MLP, GQA), per layer:
      q 8→8 = 64, k 8→4 = 32, v 8→4 = 32, o 8→8 = 64     attention   192
      gate 8→16 = 128, up 8→16 = 128, down 16→8 = 128   MLP         384
      two RMSNorms 2·8 = 16
    Two layers: linear 2·576 = 1,152; other 2·16 + final norm 8 = 40;
    embeddings 10·8 = 80, untied head 80 more = 160.  Total 1,152 + 40 + 160 = 1,352.
    """
    return Architecture(
        layers=2,
        hidden=8,
        intermediate=16,
        heads=2,
        kv_heads=1,
        head_dim=4,
        vocab=10,
        tied_embeddings=False,
    )


@pytest.fixture
def bridged_gpu() -> Gpu:
    """An H200 NVL-like card: PCIe 128 GB/s, NVLink 900 GB/s with 2- and 4-way bridges."""
    return Gpu(
        id="toy-nvl",
        name="Toy NVL",
        memory_gb=141,
        power_w=600,
        pcie_gbps=128,
        nvlink=NvLink(bandwidth_gbps=900, bridge_sizes=(2, 4)),
        bf16_dense_tflops=100,
        memory_bandwidth_gbps=4800,
        card_class="hbm",
        max_inlet_c=30,
    )


@pytest.fixture
def pcie_gpu() -> Gpu:
    """An RTX PRO 6000 SE-like card: PCIe 128 GB/s only."""
    return Gpu(
        id="toy-pcie",
        name="Toy PCIe",
        memory_gb=96,
        power_w=600,
        pcie_gbps=128,
        bf16_dense_tflops=100,
        memory_bandwidth_gbps=1600,
        card_class="gddr",
        max_inlet_c=35,
    )
