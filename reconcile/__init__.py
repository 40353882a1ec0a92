"""Durable state: the job ledger, content-addressed storage and output checks. No Prefect."""
