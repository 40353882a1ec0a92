"""Prefect wiring: the import flow, tasks, retry policy, artifacts and the CLI."""
