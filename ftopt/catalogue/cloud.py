"""Loads the dated table of public cloud GPU prices (`data/cloud/rates.yaml`) for buy-or-rent.

A folder of its own: `--catalogue DIR` replaces the catalogue files by kind, and this table is none
of them (it prices renting, not parts).
"""

from __future__ import annotations

from functools import lru_cache

from ftopt.catalogue.loader import data_dir
from ftopt.model.rent import CloudPrices
from ftopt.reading.safe_yaml import read_yaml, validate

FILE = ("cloud", "rates.yaml")  # beside, not among, the files a catalogue directory replaces


@lru_cache(maxsize=1)
def load_cloud_prices() -> CloudPrices:
    """The packaged cloud price table."""
    path = data_dir().joinpath(*FILE)
    data, node = read_yaml(path)
    return validate(CloudPrices, data, node, str(path))
