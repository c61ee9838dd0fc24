"""A simulated MySQL NDB Cluster for tests, demos and benchmarks."""
