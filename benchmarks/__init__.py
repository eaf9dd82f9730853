"""Benchmarks and the synthetic test data they share with the tests (not part of the package)."""
