"""Repair requests: ask again only about what failed, then merge the answer back.

A rejected report names its faults by JSON Pointer (``/N/...`` = scene N of
the answer). The repair request carries just those scenes, their
violations (code, pointer, message, offending value), the output contract
and what is needed to fix ids: the scene pool, the list of new message ids
and short excerpts of the messages those scenes cite. Never the growing
conversation: each repair is one fresh, small request.

The model answers one corrected scene per failing scene, in order; a scene
it cannot save comes back with ``"memories": []`` (removed by S005) or as
``null``. When a single scene was sent, any number of scenes may come back
(the model may split it). The corrected scenes replace the failing ones in
the answer, which is then validated again as a whole.

When nothing usable was parsed (S001 not JSON or cut off, S003 not an
array, or a fault of the whole output) there are no scenes to send: the
batch is asked again in full, with a note on what went wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from memvet import pointer as jp
from memvet.context import Batch
from memvet.report import Report, Violation

from .prompt import (PromptTemplate, _package_text, batch_values, fill, format_messages, format_pool,
                     format_projects, message_time)

_MISSING = object()
VALUE_LIMIT = 200
REPAIR_FIELDS = frozenset({"contract", "scene_pool", "known_projects", "message_index", "evidence",
                           "scenes", "violations", "count", "hint"})


@cache
def repair_template() -> PromptTemplate:
    return PromptTemplate.from_text(_package_text("repair-zh.md"), source="memvet.extractor/repair-zh.md",
                                    fields=REPAIR_FIELDS)


@dataclass
class RepairPlan:
    """What to ask next: ``kind`` is ``repair`` (some scenes) or ``reask`` (the whole batch)."""

    kind: str
    messages: list[dict[str, str]]
    scenes: list[int] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)


def rejections(report: Report) -> list[Violation]:
    return [v for v in report.violations if v.action == "reject"]


def scene_of(path: str) -> int | None:
    """The scene index a pointer falls in, or None for the whole output."""
    tokens = jp.split(path) if path else []
    if tokens and tokens[0].isdigit():
        return int(tokens[0])
    return None


def offending_value(report: Report, path: str) -> Any:
    if report.original is None:
        return _MISSING
    return jp.resolve(report.original, path, _MISSING)


def _short(value: Any, limit: int = VALUE_LIMIT) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_violation(report: Report, v: Violation) -> str:
    line = f"- {v.code} {v.path or '/'}: {v.message}"
    value = offending_value(report, v.path) if v.path else _MISSING
    if value is not _MISSING:
        line += f"\n  当前值: {_short(value)}"
    return line


def format_violations(report: Report, violations: list[Violation]) -> str:
    return "\n".join(format_violation(report, v) for v in violations) or "(无)"


def _message_index(batch: Batch) -> str:
    lines = [f"{m.id} | {m.sessionKey} | {m.role} | {message_time(m)}" for m in batch.messages]
    return "\n".join(lines) or "(无)"


def _cited(batch: Batch, scenes: list[Any]) -> list[Any]:
    """New messages the failing scenes cite (scene range and memory sources), in batch order."""
    ids: set[str] = set()
    for scene in scenes:
        if not isinstance(scene, dict):
            continue
        for key in ("message_ids",):
            ids.update(i for i in scene.get(key) or () if isinstance(i, str))
        for memory in scene.get("memories") or ():
            if isinstance(memory, dict):
                ids.update(i for i in memory.get("source_message_ids") or () if isinstance(i, str))
    return [m for m in batch.messages if m.id in ids]


def plan_repair(report: Report, batch: Batch, template: PromptTemplate, *, truncated: bool = False,
                excerpt_chars: int = 600) -> RepairPlan | None:
    """The next request for a rejected report, or None when nothing is rejected."""
    faults = rejections(report)
    if not faults:
        return None
    answer = report.original
    indices = sorted({i for v in faults if (i := scene_of(v.path)) is not None})
    whole = (not isinstance(answer, list) or any(scene_of(v.path) is None for v in faults)
             or any(i >= len(answer) for i in indices))
    if whole:
        return _reask(report, faults, batch, template, truncated=truncated)
    rt = repair_template()
    scenes = [answer[i] for i in indices]
    shown = "\n\n".join(f"### 情境 {k + 1}（原位置 /{i}）\n{json.dumps(s, ensure_ascii=False, indent=1)}"
                        for k, (i, s) in enumerate(zip(indices, scenes)))
    values = {
        "contract": template.contract,
        "scene_pool": format_pool(batch.pool),
        "known_projects": format_projects(batch.known_projects),
        "message_index": _message_index(batch),
        "evidence": format_messages(_cited(batch, scenes), limit=excerpt_chars),
        "scenes": shown,
        "violations": format_violations(report, faults),
        "count": str(len(indices)),
    }
    user = fill(rt.user, values)
    messages = [{"role": "system", "content": fill(rt.system, values)}, {"role": "user", "content": user}]
    return RepairPlan("repair", messages, indices, faults)


def _reask(report: Report, faults: list[Violation], batch: Batch, template: PromptTemplate, *,
           truncated: bool) -> RepairPlan:
    rt = repair_template()
    hint = ("上一次的回答在中途被截断了：请合并相近的记忆、只保留最有价值的内容，让回答更短。"
            if truncated else "")
    values = {**batch_values(batch)}
    note = fill(rt.reask, {"violations": format_violations(report, faults), "hint": hint})
    user = fill(template.user, values) + "\n\n" + note
    messages = []
    if template.system:
        messages.append({"role": "system", "content": fill(template.system, values)})
    messages.append({"role": "user", "content": user})
    return RepairPlan("reask", messages, [], faults)


def merge(answer: list[Any], scenes: list[int], repaired: Any) -> tuple[list[Any] | None, str | None]:
    """Put the corrected scenes in place of the failing ones.

    Returns ``(merged, None)``, or ``(None, reason)`` when the repair answer
    cannot be merged (not an array, or the wrong number of scenes).
    """
    if not isinstance(repaired, list):
        return None, f"the repair answer is not a JSON array (got {type(repaired).__name__})"
    if len(scenes) == 1:
        replacement = {scenes[0]: [s for s in repaired if s is not None]}
    elif len(repaired) != len(scenes):
        return None, f"the repair answer has {len(repaired)} scenes for the {len(scenes)} that were sent"
    else:
        replacement = {i: ([] if s is None else [s]) for i, s in zip(scenes, repaired)}
    merged: list[Any] = []
    for i, scene in enumerate(answer):
        merged.extend(replacement[i] if i in replacement else [scene])
    return merged, None
