"""The simulated ndb_mgmd: its request parser and its server."""
