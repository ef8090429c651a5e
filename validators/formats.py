"""Built-in report formatters: text, json, sarif, github.

A formatter is a function ``(report, *, source, color) -> str``. Plugins
add their own through the ``memvet_formats`` hook.
"""

from __future__ import annotations

import json
from typing import Any

from . import pointer as jp
from .hookspecs import hookimpl
from .report import Report

_COLORS = {"reject": "\033[31m", "drop": "\033[35m", "fix": "\033[36m", "warn": "\033[33m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
_MISSING = object()


def offending_value(report: Report, path: str) -> Any:
    """The value at ``path`` in the original output (``_MISSING`` when absent)."""
    if report.original is None:
        return _MISSING
    return jp.resolve(report.original, path, _MISSING)


def _shorten(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_text(report: Report, *, source: str = "<output>", color: bool = False) -> str:
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines = []
    for v in report.violations:
        where = v.path or "/"
        head = f"{source}:{where}: {paint(v.code, _BOLD)} {paint(v.action, _COLORS.get(v.action, ''))} {v.message}"
        lines.append(head)
        value = offending_value(report, v.path) if v.path else _MISSING
        if value is not _MISSING and not isinstance(value, (list, dict)) or (
                isinstance(value, list) and len(value) <= 8 and all(isinstance(x, str) for x in value)):
            lines.append(paint(f"    value: {_shorten(value)}", _DIM))
        if v.fix:
            lines.append(paint(f"    fix: {_shorten(v.fix, 160)}", _DIM))
    s = report.stats
    verdict = paint("ok", "\033[32m") if report.ok else paint("rejected", _COLORS["reject"])
    lines.append(f"{source}: {verdict} -- {s.get('scenes', 0)} scenes, {s.get('memories', 0)} memories, "
                 f"{s.get('records', 0)} records, {s.get('dropped', 0)} dropped, {s.get('fixed', 0)} fixed, "
                 f"{s.get('rejected', 0)} rejected")
    return "\n".join(lines)


def format_json(report: Report, *, source: str = "<output>", color: bool = False) -> str:
    return report.to_json()


@hookimpl
def memvet_formats() -> dict[str, Any]:
    formats: dict[str, Any] = {"text": format_text, "json": format_json}
    try:
        from .ci_formats import format_github, format_sarif
    except ImportError:  # pragma: no cover - shipped together
        return formats
    formats.update(sarif=format_sarif, github=format_github)
    return formats
