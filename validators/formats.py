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
from .secrets import SecretSet, describe, is_placeholder_only

_COLORS = {"reject": "\033[31m", "drop": "\033[35m", "fix": "\033[36m", "warn": "\033[33m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
_POINTER, _GREEN = "\033[34m", "\033[32m"
_MISSING = object()


def offending_value(report: Report, path: str) -> Any:
    """The value at ``path`` in the original output (``_MISSING`` when absent)."""
    if report.original is None:
        return _MISSING
    return jp.resolve(report.original, path, _MISSING)


def _shorten(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_value(report: Report, path: str, limit: int = 120) -> str | None:
    """The offending value at ``path``, shortened and scrubbed; None when there is none to show.

    The value comes from the ORIGINAL output, before any redaction. A value
    that is or holds a secret (anything a privacy rule found anywhere in the
    batch) is shown with each secret replaced by its placeholder; a value
    that IS a secret is described by kind and length (``<github-token, 40
    characters>``).
    """
    if not path:
        return None  # the whole output: the pointer says it all
    value = offending_value(report, path)
    if value is _MISSING:
        return None  # e.g. a required key that is absent
    if report.secrets:
        secrets = SecretSet(report.secrets)
        scrubbed = secrets.scrub_value(value)
        if scrubbed is not value:
            if isinstance(value, str) and is_placeholder_only(scrubbed):
                return describe(value, scrubbed)  # the value IS a secret: its kind and length
            # Scrubbed before it is cut, so a secret is never left half-visible at the edge.
            return _shorten(scrubbed, limit)
    return _shorten(value, limit)


def _scrub_value(value: Any, secrets: dict[str, str]) -> Any:
    return SecretSet(secrets).scrub_value(value) if secrets else value


def _has_line(source: str) -> bool:
    """``answers.jsonl:12`` already names a line (a JSONL answer): no second one is added."""
    head, _, tail = source.rpartition(":")
    return bool(head) and tail.isdigit()


def format_text(report: Report, *, source: str = "<output>", color: bool = False) -> str:
    """One line per violation (``source:pointer: CODE action message``), its value, its fix, a verdict."""
    def paint(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    lines = []
    report.annotate()
    for v in report.violations:
        where = paint(v.path or "/", _POINTER)
        # file:line:col: as compilers and linters print it, when the answer text has lines of its own
        at = f"{source}:{v.line}:{v.column}" if v.line is not None and not _has_line(source) else source
        lines.append(f"{at}: {where}: {paint(v.code, _BOLD)} {paint(v.action, _COLORS.get(v.action, ''))} "
                     f"{v.message}")
        value = v.value if v.value is not None else shown_value(report, v.path)
        if value is not None:
            lines.append(paint(f"    value: {value}", _DIM))
        if v.fix:
            lines.append(paint(f"    fix: {_shorten(_scrub_value(v.fix, report.secrets), 160)}", _DIM))
    s = report.stats
    verdict = paint("ok", _GREEN) if report.ok else paint("rejected", _COLORS["reject"])
    lines.append(f"{source}: {verdict} -- {s.get('scenes', 0)} scenes, {s.get('memories', 0)} memories, "
                 f"{s.get('records', 0)} records, {s.get('dropped', 0)} dropped, {s.get('fixed', 0)} fixed, "
                 f"{s.get('rejected', 0)} rejected")
    return "\n".join(lines)


def format_json(report: Report, *, source: str = "<output>", color: bool = False) -> str:
    """The report as JSON (``Report.to_json``, fields in docs/formats.md): byte-identical for identical input."""
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
