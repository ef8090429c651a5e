"""The report ``validate()`` returns (fields: docs/formats.md).

``to_dict()`` / ``to_json()`` give exactly the contract's shape; the same
input and config give byte-identical JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .vocabulary import Action


@dataclass(slots=True)
class Violation:
    code: str
    name: str
    action: Action
    path: str
    message: str
    rule: str
    fix: list[dict[str, Any]] | None = None
    #: "high" or "low": how sure the rule is (a low finding warns by default).
    confidence: str = "high"
    #: Where ``path`` sits in the raw answer text (1-based; None when the answer was not text).
    line: int | None = None
    column: int | None = None
    #: The offending value as the text format shows it (redacted, shortened); None when absent.
    value: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "action": self.action, "path": self.path,
                "line": self.line, "column": self.column, "value": self.value,
                "message": self.message, "rule": self.rule, "fix": self.fix, "confidence": self.confidence}


@dataclass
class Report:
    ok: bool
    violations: list[Violation] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    output: Any = None
    stats: dict[str, int] = field(default_factory=dict)
    #: The parsed output before any fix (None when it did not parse); not serialised.
    original: Any = field(default=None, repr=False, compare=False)
    #: Pointer of each record in the original output, parallel to ``records``; not serialised.
    record_paths: list[str] = field(default_factory=list, repr=False, compare=False)
    #: Text privacy rules redacted -> its placeholder, so that formatters that show
    #: offending values from ``original`` never echo a secret; not serialised.
    secrets: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    #: Fills the violations' line, column and value on first use (memvet.locations); not serialised.
    annotator: Any = field(default=None, repr=False, compare=False)

    def annotate(self) -> "Report":
        """Give every violation its line, column and shown value (once, when first needed)."""
        if self.annotator is not None:
            annotator, self.annotator = self.annotator, None
            annotator(self)
        return self

    def to_dict(self) -> dict[str, Any]:
        self.annotate()
        return {
            "ok": self.ok,
            "violations": [v.to_dict() for v in self.violations],
            "records": self.records,
            "dropped": self.dropped,
            "output": self.output,
            "stats": self.stats,
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def codes(self) -> list[str]:
        return [v.code for v in self.violations]

    def by_action(self, action: Action) -> list[Violation]:
        return [v for v in self.violations if v.action == action]
