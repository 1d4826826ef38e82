"""ftopt's benchmark suite in three steps, not part of the product (nothing under ftopt/ imports it).

1. `python -m benchmarks.generate` writes the seeded instances (generate.py);
2. `python -m benchmarks.run` solves each instance and writes raw measurements to results.json;
3. `python -m benchmarks.report` judges the targets and writes results.md and results.png.

`python -m benchmarks` runs steps 2 and 3. Run from the repository root.
"""
