"""Content identity: the same memory text in the same namespace is stored once.

A batch re-committed under a new cursor (a pipeline that restarted and lost
its cursor, two workers handed overlapping windows) must not duplicate what
is already there. The key is the memory's kind, namespace and whitespace-
normalised content; both backends keep it in a UNIQUE column, so even two
writers racing past the application check cannot store a memory twice.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable


def content_key(kind: str, namespace: str | None, content: str) -> str:
    text = " ".join(content.split())
    return hashlib.sha256(json.dumps([kind, namespace or "", text], ensure_ascii=False).encode()).hexdigest()


def first_occurrences(rows: Iterable[tuple[Any, str, str | None, str]]) -> list[tuple[str, Any]]:
    """``(key, seq)`` for the first row of each identity among ``(seq, kind, namespace, content)``.

    Used by the migration that introduced the key: older stores may already
    hold duplicates; the oldest copy gets the key, later copies stay keyless
    (still readable, never deleted).
    """
    seen: set[str] = set()
    out = []
    for seq, kind, namespace, content in rows:
        key = content_key(kind, namespace, content)
        if key not in seen:
            seen.add(key)
            out.append((key, seq))
    return out
