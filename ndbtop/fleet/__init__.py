"""The fleet overview's headless part: one row per cluster, and the hubs that feed them."""
