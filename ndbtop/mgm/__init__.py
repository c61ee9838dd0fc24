"""The ndb_mgmd text protocol: framing, replies, events and an asyncio client."""
