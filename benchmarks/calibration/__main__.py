"""`python -m benchmarks.calibration`: write benchmarks/calibration.md and calibration.json."""

from benchmarks.calibration import main

main()
