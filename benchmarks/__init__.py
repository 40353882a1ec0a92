"""Benchmarks: accuracy and speed of stmtflow, as ratios against baselines in the same run."""
