"""`python -m benchmarks.calibration.preregistered register FILE`: write ftopt's predictions."""

from benchmarks.calibration.preregistered import main

main()
