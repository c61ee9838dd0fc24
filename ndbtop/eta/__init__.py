"""Estimates of when a start, a rolling restart or a backup will be done."""
