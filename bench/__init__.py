"""logkb benchmarks (figures recorded in BENCHMARKS.md); never run by the test suite."""
