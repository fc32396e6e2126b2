"""Benchmarks: speed (bench.run) and relevance (bench.relevance)."""
