"""Route a kept memory to its write-layer kind, namespace and lifetime (seed 004).

Project facts, task state and code preferences are written at different
times, into different namespaces, with different lifetimes; the W rules
then check each write request. Defaults (``[tool.memvet.routing]``):

=============  ===============  ====================  ================
memory type    kind             namespace             ttl
=============  ===============  ====================  ================
work_fact      project_fact     proj-{repo}-facts     none
work_artifact  project_fact     proj-{repo}-facts     none
work_method    code_preference  proj-{repo}-prefs     review_quarterly
work_task      task_state       task-{task_id}        on_task_close
=============  ===============  ====================  ================

``task_id`` is the scene's id (for a new scene, its name until the pipeline
assigns an id). ``source`` lists tool messages, artifact refs and commits
among the sources; ``confirmed_by`` lists the user messages among them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import RuleContext

_COMMIT = re.compile(r"\bcommit\s+([0-9a-f]{7,40})\b", re.IGNORECASE)


def task_id_of(record: dict[str, Any]) -> str | None:
    return record.get("scene_id") or record.get("new_scene_name") or None


def namespace_for(kind: str, *, repo: str, task_id: str | None, templates: dict[str, str]) -> str | None:
    template = templates.get(kind)
    if template is None:
        return None
    try:
        return template.format(repo=repo, task_id=task_id or "")
    except (KeyError, IndexError, ValueError):
        return template


def provenance(record: dict[str, Any], ctx: RuleContext) -> tuple[list[str], list[str]]:
    """``(source, confirmed_by)`` from the roles of the memory's source messages."""
    messages = ctx.sources(record)
    source = [f"tool:{m.id}" for m in messages if m.role == "tool"]
    confirmed = [f"user:{m.id}" for m in messages if m.role == "user"]
    meta = record.get("metadata") or {}
    ref = meta.get("artifact_ref") if isinstance(meta, dict) else None
    if isinstance(ref, str) and ref.strip():
        source.append(f"artifact:{ref.strip()}")
    for sha in _COMMIT.findall(record.get("content", "")):
        source.append(f"commit:{sha}")
    return list(dict.fromkeys(source)), confirmed


def route(record: dict[str, Any], ctx: RuleContext) -> dict[str, Any]:
    """Add the write-layer fields to one record (in place; returns it)."""
    routing = ctx.config.routing
    kind = routing.kinds.get(record.get("type", ""), "unknown")
    task_id = task_id_of(record) if kind == "task_state" else None
    source, confirmed_by = provenance(record, ctx)
    record["kind"] = kind
    record["namespace"] = namespace_for(kind, repo=routing.repo, task_id=task_id, templates=routing.namespaces)
    record["task_id"] = task_id
    record["source"] = source
    record["confirmed_by"] = confirmed_by
    record["ttl"] = routing.ttl.get(kind, "none")
    record["status"] = "active"
    return record
