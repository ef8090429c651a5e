"""The store the extractor commands write to (``--store``), shared by ``memvet run`` and ``memvet demo``."""

from __future__ import annotations

from typing import Any

from memvet.errors import MemvetError


def open_store_for(path: str | None, config: Any) -> Any:
    try:
        from memvet.store import open_store
    except ImportError:
        raise MemvetError("memvet.store is not available in this installation", field="--store") from None
    return open_store(path, config=config)  # None: the config's url or path, relative to its file
