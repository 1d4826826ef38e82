"""Loads the dated table of public cloud GPU prices (`data/cloud_prices.yaml`) for buy-or-rent."""

from __future__ import annotations

from functools import lru_cache

from ftopt.catalogue.loader import data_dir
from ftopt.model.rent import CloudPrices
from ftopt.reading.safe_yaml import read_yaml, validate

FILE = "cloud_prices.yaml"


@lru_cache(maxsize=1)
def load_cloud_prices() -> CloudPrices:
    """The packaged cloud price table."""
    path = data_dir() / FILE
    data, node = read_yaml(path)
    return validate(CloudPrices, data, node, str(path))
