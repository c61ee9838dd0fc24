"""Immutable snapshots of the cluster and the pure functions that derive values from them."""
