"""The report ``validate()`` returns (CONTRACT.md section 3).

``to_dict()`` / ``to_json()`` give exactly the contract's shape; the same
input and config give byte-identical JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .rule import Action


@dataclass(slots=True)
class Violation:
    code: str
    name: str
    action: Action
    path: str
    message: str
    rule: str
    fix: list[dict[str, Any]] | None = None
    #: "high" or "low" (CONTRACT.md section 3).
    confidence: str = "high"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "action": self.action, "path": self.path,
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

    def to_dict(self) -> dict[str, Any]:
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
