"""What ``memvet check`` does with its output: ``--output-file``, ``--statistics``, ``-q``."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Iterable, Iterator

from .errors import MemvetError
from .report import Violation

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The text format's last line: "<source>: ok -- 1 scenes, ..." / "<source>: rejected -- ...".
_VERDICT = re.compile(r"^.*: (ok|rejected) -- [0-9]+ scenes, ")


@contextlib.contextmanager
def write_to(path: str) -> Iterator[None]:
    """Send everything ``check`` prints on stdout to ``path`` (stderr stays the terminal's)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # reports/memvet.sarif in a fresh CI checkout
        handle = open(path, "w", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise MemvetError(f"cannot write: {exc.strerror or exc}", file=path, field="--output-file") from None
    with handle, contextlib.redirect_stdout(handle):
        yield
    sys.stdout.flush()


def quiet_text(text: str, fmt: str) -> str:
    """``-q``: the findings only -- no verdict or summary line (documents like json/sarif stay whole)."""
    if fmt == "text":
        lines = text.split("\n")
        if lines and _VERDICT.match(_ANSI.sub("", lines[-1])):
            lines.pop()
        return "\n".join(lines)
    if fmt == "github":
        return "\n".join(line for line in text.split("\n") if not line.startswith("memvet: "))
    return text


class Statistics:
    """``--statistics``: how often each code occurred, over one answer or a whole JSONL file."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.about: dict[str, tuple[str, str]] = {}

    def add(self, violations: Iterable[Violation]) -> None:
        for v in violations:
            self.counts[v.code] += 1
            self.about.setdefault(v.code, (v.name, v.action))

    def rows(self) -> list[dict[str, object]]:
        order = sorted(self.counts, key=lambda code: (-self.counts[code], code))
        return [{"code": code, "name": self.about[code][0], "action": self.about[code][1],
                 "count": self.counts[code]} for code in order]

    def render(self, fmt: str) -> str:
        rows = self.rows()
        if fmt == "json":
            return json.dumps(rows, ensure_ascii=False, indent=2)
        if not rows:
            return "no findings"
        width = max(len(str(r["count"])) for r in rows)
        name_width = max(len(str(r["name"])) for r in rows)
        return "\n".join(f"{r['count']:>{width}}  {r['code']:8} {r['name']:{name_width}}  {r['action']}" for r in rows)
