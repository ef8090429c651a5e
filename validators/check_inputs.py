"""What ``memvet check`` reads and writes per answer, shared with ``memvet commit`` and the Ray driver.

Below :mod:`memvet.cli_check`, :mod:`memvet.store.cli` and
:mod:`memvet.integrations.ray`, so none of them imports another's command
module to read an input file, decode a JSONL line or pick a formatter.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .errors import ContextError, MemvetError
from .jsonl import decode_object
from .registry import default_registry


def read_input(path: str) -> bytes:
    """The bytes of ``path`` (``-``: stdin); MemvetError naming the file when it cannot be read."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise MemvetError(f"cannot read: {exc.strerror or exc}", file=path) from None


def formatter_named(name: str) -> Callable[..., str]:
    """The report formatter called ``name`` (case-insensitive; plugins' formats too)."""
    formats = default_registry().formats
    # --format is case-insensitive, also for a plugin's format whose name has capitals.
    name = next((known for known in formats if known.lower() == name.lower()), name)
    if name not in formats:
        raise MemvetError(f"unknown format {name!r} (known: {', '.join(sorted(formats))})", field="--format")
    return formats[name]


JSONL_SUFFIXES = (".jsonl", ".ndjson")


def is_jsonl(args: argparse.Namespace) -> bool:
    """A ``.jsonl`` file, or stdin without ``--context``: one {context, output} object per line."""
    return args.output.endswith(JSONL_SUFFIXES) or (args.output == "-" and args.context is None)


@dataclass(slots=True)
class LineOutcome:
    """What checking one JSONL line produced, small enough to send between processes."""

    line: int
    ok: bool = True
    text: str | None = None      # the formatted report (every format but sarif)
    violations: list[Any] | None = None  # sarif: the violations, merged into one log
    error: str | None = None     # a caller error on this line


def decode_line(path: str, n: int, line: bytes) -> dict[str, Any]:
    """Parse one JSONL line; ContextError naming ``path:n`` when it is not a {context, output} object."""
    item = decode_object(path, n, line, what='an object with "context" and "output"')
    if "context" not in item or "output" not in item:
        raise ContextError('each line must be an object with "context" and "output"', file=f"{path}:{n}")
    return item
