"""Sources polled in the background and the hub that turns their results into snapshots."""
