"""Report formats for CI: SARIF 2.1.0 (code-scanning UIs) and GitHub annotations.

Both map a violation's ``action`` to a severity -- ``reject`` is an error
(the answer must not be committed), ``drop`` and ``warn`` are warnings, a
``fix`` memvet already applied is a note -- and locate it by the report's
``source``: ``answers.jsonl:12`` points at line 12 of the file, a plain path
at its first line. The JSON Pointer into the answer travels alongside
(SARIF: a logical location and ``properties.pointer``; GitHub: the title),
because an LLM answer has no useful line structure of its own.

SARIF for a JSONL run is one log with one run whose results come from every
line: :class:`SarifStream` writes it piece by piece, so memory stays flat
however long the file is.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any, Iterable, TextIO

from .report import Report, Violation

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/memvet/memvet"

SARIF_LEVEL = {"reject": "error", "drop": "warning", "warn": "warning", "fix": "note"}
GITHUB_LEVEL = {"reject": "error", "drop": "warning", "warn": "warning", "fix": "notice"}

_SOURCE_LINE = re.compile(r"^(?P<file>.*):(?P<line>[0-9]+)$")


def split_source(source: str) -> tuple[str, int]:
    """``"answers.jsonl:12"`` -> ``("answers.jsonl", 12)``; a plain path is line 1."""
    m = _SOURCE_LINE.match(source)
    if m and m.group("file"):
        return m.group("file"), int(m.group("line"))
    return source, 1


def _version() -> str:
    from . import __version__

    return __version__


# --- SARIF -------------------------------------------------------------------

def sarif_rule(code: str, name: str, action: str, summary: str | None = None) -> dict[str, Any]:
    """A ``reportingDescriptor`` for one memvet rule."""
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary or name},
        "helpUri": f"{INFORMATION_URI}#{code.lower()}",
        "defaultConfiguration": {"level": SARIF_LEVEL.get(action, "warning")},
        "properties": {"action": action},
    }


def _rule_summary(code: str) -> str | None:
    from .registry import default_registry

    cls = default_registry().rules.get(code)
    return cls.summary() if cls is not None else None


def sarif_result(v: Violation, source: str, rule_index: int) -> dict[str, Any]:
    """One SARIF ``result`` for one violation."""
    uri, line = split_source(source)
    result: dict[str, Any] = {
        "ruleId": v.code,
        "ruleIndex": rule_index,
        "level": SARIF_LEVEL.get(v.action, "warning"),
        "message": {"text": f"{v.message} [{v.path or '/'}]"},
        "locations": [{
            "physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}},
            "logicalLocations": [{"fullyQualifiedName": v.path or "/", "kind": "member"}],
        }],
        "properties": {"action": v.action, "pointer": v.path, "rule": v.rule},
    }
    if v.fix is not None:
        result["properties"]["fix"] = v.fix
    return result


class SarifStream:
    """Write one SARIF log whose results arrive report by report.

    ``add(report, source)`` writes that report's results at once; ``close()``
    writes the rule table (only rules that produced a result, as SARIF
    recommends) and the end of the log. Results refer to rules by index, so
    the index is assigned on first sight and the table is emitted last.
    """

    def __init__(self, out: TextIO):
        self.out = out
        self.rules: dict[str, dict[str, Any]] = {}
        self.index: dict[str, int] = {}
        self.first = True
        out.write('{"$schema": %s, "version": %s, "runs": [{"results": ['
                  % (json.dumps(SARIF_SCHEMA), json.dumps(SARIF_VERSION)))

    def _index(self, v: Violation) -> int:
        if v.code not in self.index:
            self.index[v.code] = len(self.rules)
            self.rules[v.code] = sarif_rule(v.code, v.name, v.action, _rule_summary(v.code))
        return self.index[v.code]

    def add(self, report: Report, source: str) -> None:
        for v in report.violations:
            text = json.dumps(sarif_result(v, source, self._index(v)), ensure_ascii=False)
            self.out.write(("\n" if self.first else ",\n") + text)
            self.first = False

    def close(self) -> None:
        driver = {"name": "memvet", "version": _version(), "informationUri": INFORMATION_URI,
                  "rules": list(self.rules.values())}
        self.out.write('\n], "tool": {"driver": %s}, "columnKind": "unicodeCodePoints"}]}\n'
                       % json.dumps(driver, ensure_ascii=False))


def sarif_log(reports: Iterable[tuple[Report, str]]) -> dict[str, Any]:
    """A complete SARIF log (as a dict) for ``(report, source)`` pairs."""
    buffer = io.StringIO()
    stream = SarifStream(buffer)
    for report, source in reports:
        stream.add(report, source)
    stream.close()
    return json.loads(buffer.getvalue())  # one code path: the streamed log and this one cannot differ


def format_sarif(report: Report, *, source: str = "<output>", color: bool = False) -> str:
    """One SARIF 2.1.0 log for one report."""
    return json.dumps(sarif_log([(report, source)]), ensure_ascii=False, indent=2)


# --- GitHub workflow annotations ----------------------------------------------

def _escape_data(text: str) -> str:
    # The workflow-command grammar: % and line breaks are escaped in the message...
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    # ...and additionally ':' and ',' inside property values.
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(v: Violation, source: str) -> str:
    """``::error file=F,line=N,title=T::message`` for one violation."""
    file, line = split_source(source)
    title = f"{v.code} {v.name} at {v.path or '/'}"
    return (f"::{GITHUB_LEVEL.get(v.action, 'warning')} file={_escape_property(file)},line={line},"
            f"title={_escape_property(title)}::{_escape_data(f'{v.message} ({v.action})')}")


def format_github(report: Report, *, source: str = "<output>", color: bool = False) -> str:
    """One annotation per violation, then a plain summary line (a log line, not a command)."""
    lines = [github_annotation(v, source) for v in report.violations]
    s = report.stats
    lines.append(f"memvet: {source}: {'ok' if report.ok else 'rejected'} "
                 f"({s.get('rejected', 0)} rejected, {s.get('dropped', 0)} dropped, {s.get('fixed', 0)} fixed)")
    return "\n".join(lines)
