"""Reference memory store."""
