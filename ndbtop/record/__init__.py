"""The flight recorder: recording snapshots and events, reading and replaying them."""
