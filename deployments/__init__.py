"""Per-bank deployment settings shared by prefect.yaml and local serving."""
