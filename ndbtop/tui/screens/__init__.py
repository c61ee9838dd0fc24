"""Modal screens: action confirmation, help, and the quit prompt."""
