"""Read JSONL files lazily, one object per line, with errors that name ``file:line``.

Shared by ``memvet check`` (answers), ``memvet run`` (L0 messages) and
``memvet eval`` (labelled corpora): memory does not grow with the file.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterator

from .errors import ContextError


def iter_lines(path: str) -> Iterator[tuple[int, bytes, int]]:
    """Yield ``(line_number, raw_line, bytes_read_so_far)`` for every non-blank line (``-``: stdin)."""
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise ContextError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    done = 0
    with stream:
        for n, line in enumerate(stream, 1):
            done += len(line)
            if line.strip():
                yield n, line, done


def decode_object(path: str, n: int, line: bytes, *, what: str = "a JSON object") -> dict[str, Any]:
    """One line as a dict; ContextError naming ``path:n`` when it is not JSON or not an object."""
    try:
        item = json.loads(line)
    except ValueError as exc:  # includes invalid UTF-8
        raise ContextError(f"line is not JSON: {exc}", file=f"{path}:{n}") from None
    except RecursionError:  # thousands of brackets deep: a clear error, not a traceback
        raise ContextError("line is nested too deeply to be read as JSON", file=f"{path}:{n}") from None
    if not isinstance(item, dict):
        raise ContextError(f"each line must be {what}", file=f"{path}:{n}")
    return item


def iter_objects(path: str, *, what: str = "a JSON object") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``("path:line", object)`` for every non-blank line."""
    for n, line, _ in iter_lines(str(path)):
        yield f"{path}:{n}", decode_object(str(path), n, line, what=what)
