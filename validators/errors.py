"""Caller errors: a bad context or config is the caller's fault, not the LLM's.

Both carry the file and the field so the CLI can say exactly what to fix
(exit code 2). A broken LLM answer never raises: it becomes violations.
"""

from __future__ import annotations


class MemvetError(Exception):
    """Base of the errors memvet raises on purpose."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None):
        self.file = file
        self.field = field
        self.detail = message
        where = ": ".join(p for p in (file, field) if p)
        super().__init__(f"{where}: {message}" if where else message)


class ContextError(MemvetError, ValueError):
    """The batch context is malformed (unknown key, wrong type, duplicate id...)."""


class ConfigError(MemvetError, ValueError):
    """The configuration is malformed (unknown key, bad option, unknown code...)."""


class PluginError(ConfigError):
    """A plugin failed to load, or one of its rules or formats was refused."""
