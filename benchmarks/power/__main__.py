"""`python -m benchmarks.power`: write benchmarks/power/README.md."""

from benchmarks.power import main

main()
