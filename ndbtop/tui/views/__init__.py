"""The tabs of the live view, one module each."""
