"""ftopt's benchmark suite: seeded instances, baselines (FFD, naive CP-SAT) and the runner.

Not part of the product: nothing under ftopt/ imports it. Run `python -m benchmarks` from the
repository root; `python -m benchmarks.generate` rewrites the instances.
"""
