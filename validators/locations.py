"""Give each violation of a report its line, column and shown value.

The engine attaches :func:`annotator` to a report that has violations; the
report calls it the first time its violations are serialised or formatted
(``Report.annotate()``), so validating an answer costs nothing extra until
someone looks. Line and column are those of the violation's pointer in the
raw answer text (see :mod:`memvet.positions`); an answer passed in already
parsed has no text, hence no line. The value is the text format's value line
(``formats.shown_value``: redacted, shortened), so the JSON report and the
terminal never show different things.
"""

from __future__ import annotations

from typing import Any

from .formats import shown_value
from .parse import ParseResult, _find_fenced, _find_prose_array
from .positions import Positions
from .report import Report


def _text_of(raw: Any) -> str | None:
    if isinstance(raw, (bytes, bytearray)):
        return bytes(raw).decode("utf-8", errors="replace")  # as parse_output decodes it
    return raw if isinstance(raw, str) else None


def json_start(raw: str, parsed: ParseResult) -> int:
    """Offset in ``raw`` where the JSON that ``parse_output`` read begins."""
    stripped = raw.lstrip()
    lead = len(raw) - len(stripped)
    lead += len(stripped) - len(stripped.lstrip("\ufeff"))
    text = raw[lead:]
    if parsed.unwrapped is None or text[:1] in ("[", "{"):
        return lead
    # The same searches parse_output made, so both agree on which JSON was read.
    body = _find_fenced(text) if parsed.unwrapped == "fence" else _find_prose_array(text)
    if not body:
        return lead
    at = text.find(body)
    at += len(body) - len(body.lstrip())
    return lead + max(at, 0)


class Annotator:
    """Fills ``line``/``column``/``value`` of a report's violations (picklable: a Report may cross processes)."""

    __slots__ = ("raw", "parsed")

    def __init__(self, raw: Any, parsed: ParseResult | None):
        self.raw, self.parsed = raw, parsed

    def __call__(self, report: Report) -> None:
        positions = None
        text = _text_of(self.raw)
        if text is not None and self.parsed is not None and text.strip():
            positions = Positions(text, json_start(text, self.parsed))
        for v in report.violations:
            try:
                v.value = shown_value(report, v.path)
            except ValueError:  # a plugin's malformed pointer: no value to show, never a crash
                v.value = None
            if positions is not None:
                v.line, v.column = positions.locate(v.path)


def annotator(raw: Any, parsed: ParseResult | None) -> Annotator:
    """What the engine attaches to a report with violations (see ``Report.annotate``)."""
    return Annotator(raw, parsed)
