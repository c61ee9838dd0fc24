"""ndbtop: a live terminal UI for MySQL NDB Cluster operations."""

__version__ = "0.1.0"
