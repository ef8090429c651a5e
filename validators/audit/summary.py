"""The audit's totals: what would be dropped, rejected, rerouted or fixed, by code."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .check import RecordResult


@dataclass
class Summary:
    records: int = 0
    kept: int = 0
    verdicts: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)     # code -> records left out for it
    rejected: Counter = field(default_factory=Counter)    # code -> records that break the contract
    rerouted: Counter = field(default_factory=Counter)    # code -> records sent to another kind
    fixed: Counter = field(default_factory=Counter)
    warned: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)     # code -> records it could not run on
    secrets: int = 0
    personal_data: int = 0
    duplicates: int = 0

    def add(self, r: RecordResult) -> None:
        self.records += 1
        self.verdicts[r.verdict] += 1
        self.kept += r.cleaned is not None
        codes = {v.code for v in r.findings}
        for code in sorted({v.code for v in r.findings if v.action == "reject"}):
            self.rejected[code] += 1
        if r.verdict == "drop":
            for code in r.dropped_codes:
                self.dropped[code] += 1
        if r.verdict == "reroute":
            for code in sorted(codes & {"W005", "W006"}) or ["routing"]:
                self.rerouted[code] += 1
        for code in sorted({v.code for v in r.findings if v.action == "fix"}):
            self.fixed[code] += 1
        for code in sorted({v.code for v in r.findings if v.action == "warn"}):
            self.warned[code] += 1
        for code in r.skipped:
            self.skipped[code] += 1
        self.secrets += sum(v.code == "P001" for v in r.findings)
        self.personal_data += sum(v.code == "P002" for v in r.findings)
        self.duplicates += any(v.code == "Q001" and v.message.startswith("the same memory as record")
                               for v in r.findings)

    def to_dict(self) -> dict[str, Any]:
        def plain(c: Counter) -> dict[str, int]:
            return dict(sorted(c.items()))

        return {"records": self.records, "kept": self.kept, "left_out": self.records - self.kept,
                "verdicts": plain(self.verdicts), "dropped": plain(self.dropped), "rejected": plain(self.rejected),
                "rerouted": plain(self.rerouted), "fixed": plain(self.fixed), "warned": plain(self.warned),
                "secrets": self.secrets, "personal_data": self.personal_data, "duplicates": self.duplicates,
                "skipped": plain(self.skipped)}

    def text(self, source: str) -> str:
        def line(title: str, c: Counter) -> str:
            return f"  {title}: " + (", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "none")

        lines = [f"{source}: {self.records} records, {self.kept} kept, {self.records - self.kept} left out",
                 line("dropped", self.dropped), line("rejected", self.rejected), line("rerouted", self.rerouted),
                 line("fixed", self.fixed),
                 f"  secrets: {self.secrets}, personal data: {self.personal_data}, duplicates: {self.duplicates}",
                 line("skipped (could not run on the data)", self.skipped)]
        return "\n".join(lines)
