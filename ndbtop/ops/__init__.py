"""Maintenance-window operations: waiting for states, rolling restarts."""
