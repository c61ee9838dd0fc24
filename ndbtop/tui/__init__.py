"""The Textual live view (the only part of ndbtop that imports textual or rich)."""
