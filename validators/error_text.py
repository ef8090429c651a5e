"""Error messages that never echo a secret.

A usage, config or context error quotes what it refuses: an unknown key, a
code that names no rule, a field. When that text is a token -- a key of a
request's ``config`` or ``context`` that is an API key, a ``select`` entry
pasted from the wrong clipboard -- the message would carry it to a terminal,
a CI log or an HTTP client. :func:`scrubbed` redacts it with the privacy
rules' own detectors (every loaded rule that finds secrets, default options),
checking the whole message and each key or word of it on its own.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .registry import default_registry
from .secrets import SecretSet, collect, placeholder

# What separates the keys and words a message quotes: pointers, dotted fields, quotes, spaces.
_SEPARATORS = re.compile(r"[/.\s'\"\[\](),:;]+")
_finders: list[tuple[str, Callable[[str], list[tuple[str, str]]]]] | None = None


def _secret_finders() -> list[tuple[str, Callable[[str], list[tuple[str, str]]]]]:
    global _finders
    if _finders is None:
        found = []
        for code, cls in default_registry().rules.items():
            if callable(getattr(cls, "find_secrets", None)):
                found.append((code, cls().find_secrets))
        _finders = found
    return _finders


def scrubbed(message: Any) -> str:
    """``message`` (any text) with every secret the privacy rules find in it, or in one of its
    keys or words, replaced by its placeholder."""
    text = str(message)
    if not text:
        return text
    parts = [text, *(p for p in _SEPARATORS.split(text) if len(p) >= 8)]
    found = collect(_secret_finders(), parts, placeholder)
    if not found:
        return text
    secrets = SecretSet()
    for each in found.values():
        secrets.update(each.placeholders)
    return secrets.scrub(text)
