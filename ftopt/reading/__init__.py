"""Reading the user's files: hardened YAML and the workload file."""
