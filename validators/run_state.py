"""The mutable state of one ``validate()`` call, and the one write every stage shares: a drop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import pointer as jp
from .binding import RuleTable
from .paths import split
from .registry import Registry
from .report import Violation
from .rule_context import RuleContext


@dataclass
class Run:
    """Mutable state of one validate() call."""

    ctx: RuleContext
    table: RuleTable
    registry: Registry
    violations: list[Violation] = field(default_factory=list)
    rejected: set[str] = field(default_factory=set)
    removed_scenes: set[int] = field(default_factory=set)
    copied: set[Any] = field(default_factory=set)
    used_ignores: set[str] = field(default_factory=set)
    raw: Any = None  # the answer as given (text, bytes or a parsed value)
    too_deep: bool = False  # the answer nests deeper than MAX_ANSWER_DEPTH somewhere


def mark_dropped(run: Run, path: str, code: str) -> None:
    """Drop the memory at ``path`` (a scene's pointer: its memories; ``""``: every memory), for ``code``."""
    ctx = run.ctx
    tokens = split(path)
    if len(tokens) >= 3 and tokens[1] == "memories":
        targets = [jp.join(tokens[0], "memories", tokens[2])]
    elif tokens:
        i = int(tokens[0])
        targets = [jp.join(i, "memories", j) for (si, j) in ctx.valid_memories if si == i]
    else:
        targets = [jp.join(i, "memories", j) for (i, j) in ctx.valid_memories]
    for t in targets:
        codes = ctx.dropped.setdefault(t, [])
        if code not in codes:
            codes.append(code)
