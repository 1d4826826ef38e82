"""`python -m benchmarks`: the benchmark runner (see benchmarks/run.py)."""

import sys

from benchmarks.run import main

sys.exit(main())
