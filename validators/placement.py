"""Where a record belongs: its task and namespace -- shared by routing and the W rules.

A leaf below the rule API: the W rules that reroute a record to task state
(W005/W006) need the same placement the router gives, without importing an
engine stage.
"""

from __future__ import annotations

from typing import Any


def task_id_of(record: dict[str, Any]) -> str | None:
    """The task a record belongs to: its scene's id, or a new scene's name."""
    return record.get("scene_id") or record.get("new_scene_name") or None


def namespace_for(kind: str, *, repo: str, task_id: str | None, templates: dict[str, str]) -> str | None:
    """Render the namespace template of ``kind`` (None for a kind without one)."""
    template = templates.get(kind)
    if template is None:
        return None
    try:
        return template.format(repo=repo, task_id=task_id or "")
    except (KeyError, IndexError, ValueError):
        return template


def task_fields(record: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """The fields that make ``record`` a task_state write (used by W005/W006 reroutes)."""
    routing = ctx.config.routing
    task_id = task_id_of(record)
    return {
        "kind": "task_state",
        "namespace": namespace_for("task_state", repo=routing.repo, task_id=task_id, templates=routing.namespaces),
        "task_id": task_id,
        "ttl": routing.ttl.get("task_state", "on_task_close"),
        "scope": f"task:{task_id}" if task_id else None,
    }
