"""Widgets shared by the views."""
