"""Baselines the product is measured against: first-fit decreasing and a naive CP-SAT model."""
