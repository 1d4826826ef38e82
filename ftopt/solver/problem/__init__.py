"""Problem data: from a workload and a catalogue to the builds, training modes, multi-node options,
light pool and heavy configurations the CP-SAT model counts. No CP-SAT here."""
