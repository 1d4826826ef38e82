"""The packaged hardware catalogue: YAML data with sources, and its loader."""

from ftopt.catalogue.loader import load_catalogue

__all__ = ["load_catalogue"]
