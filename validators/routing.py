"""Route a kept memory to its write-layer kind, namespace and lifetime.

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

``task_id`` is the scene's id (for a new scene, its name until the store
assigns an id at commit; an unclassified scene has none, so W002 rejects a
task there). ``scope`` is ``repo:{repo}`` (``routing.scope``) and is what
W007 compares facts within.

Provenance comes from the ROLES of the memory's source messages, never from
what the text claims:

- ``source``: ``tool:<id>`` for each tool message, ``artifact:<ref>`` for
  ``metadata.artifact_ref``, ``commit:<sha>`` for a commit named in the
  content or in a user/tool source ("commit 3e1f0aa", a ``/commit/<sha>``
  link);
- ``confirmed_by``: ``user:<id>`` for each user message.

An assistant message is neither: the agent saying something is not a source
and not a confirmation (W003, W006). ``status`` starts ``active``; the W
rules may set ``pending`` (W003) or ``conflict`` (W007).

>>> from memvet.config import Config
>>> class Ctx:  # the two things route() reads
...     config = Config()
...     def sources(self, record): return []
>>> r = route({"type": "work_task", "scene_id": "sc0003", "content": "补测试"}, Ctx())
>>> r["kind"], r["namespace"], r["task_id"], r["ttl"], r["status"]
('task_state', 'task-sc0003', 'sc0003', 'on_task_close', 'active')
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .placement import namespace_for, task_fields, task_id_of  # noqa: F401 - re-exported
from .vocabulary import KINDS, LONG_TERM_KINDS, STATUSES, TTLS  # noqa: F401 - re-exported, their home

if TYPE_CHECKING:
    from .rule_context import RuleContext

# "commit 3e1f0aa" / "commit: 3e1f0aa" or a web link to a commit.
_COMMIT = re.compile(r"\bcommit[:\s]\s*([0-9a-f]{7,40})\b|/commits?/([0-9a-f]{7,40})\b", re.IGNORECASE)


def scope_for(routing: Any) -> str:
    try:
        return routing.scope.format(repo=routing.repo)
    except (KeyError, IndexError, ValueError, AttributeError):
        return f"repo:{getattr(routing, 'repo', 'default')}"


def commits_in(text: str) -> list[str]:
    return [a or b for a, b in _COMMIT.findall(text)] if "ommit" in text or "OMMIT" in text else []


def _message_provenance(m: Any) -> tuple[str | None, str | None, list[str]]:
    """``(source tag, confirmation tag, commit tags)`` of one message."""
    role = m.role
    if role != "tool" and role != "user":
        return _NO_TAGS
    content = m.content
    # commits_in's own test first: most messages name no commit (no list to build).
    commits = [f"commit:{sha}" for sha in commits_in(content)] if "ommit" in content or "OMMIT" in content else []
    if role == "tool":
        return f"tool:{m.id}", None, commits
    return None, f"user:{m.id}", commits


_NO_TAGS: tuple[None, None, tuple[str, ...]] = (None, None, ())  # an assistant (or system) message


def provenance(record: dict[str, Any], ctx: RuleContext,
               messages: list[Any] | None = None) -> tuple[list[str], list[str]]:
    """``(source, confirmed_by)`` from the roles of the memory's source messages.

    ``messages``: the record's resolved source messages when the caller has
    them already (the engine does); else ``ctx.sources(record)``.
    """
    return _provenance(record, ctx.sources(record) if messages is None else messages, _tag_memo(ctx))


def _tag_memo(ctx: Any) -> dict[int, Any] | None:
    # A message is cited by many memories of its batch: tag it once per batch,
    # keyed by id(): the batch holds its messages, so the ids stay theirs.
    memo = getattr(getattr(ctx, "batch", None), "memo", None)
    if memo is None:
        return None
    tags_of = memo.get("routing.provenance")
    if tags_of is None:
        tags_of = memo["routing.provenance"] = {}
    return tags_of


def _provenance(record: dict[str, Any], messages: list[Any],
                tags_of: dict[int, Any] | None) -> tuple[list[str], list[str]]:
    if tags_of is None:
        tags_of = {}  # no batch to remember the tags in: this call's own
    source: list[str] = []
    confirmed: list[str] = []
    for m in messages:
        tags = tags_of.get(id(m))
        if tags is None:
            tags = tags_of[id(m)] = _message_provenance(m)
        if tags[0]:
            source.append(tags[0])
        elif tags[1]:
            confirmed.append(tags[1])
        if tags[2]:
            source.extend(tags[2])
    meta = record.get("metadata")
    ref = meta.get("artifact_ref") if isinstance(meta, dict) else None
    if isinstance(ref, str) and ref.strip():
        source.append(f"artifact:{ref.strip()}")
    content = record.get("content")
    if isinstance(content, str) and ("ommit" in content or "OMMIT" in content):  # commits_in's own test, inlined
        source.extend(f"commit:{sha}" for sha in commits_in(content))
    return (list(dict.fromkeys(source)) if len(source) > 1 else source), confirmed


def _placement_memo(routing: Any, ctx: Any) -> dict[Any, tuple[str | None, str | None]]:
    """The batch's cache of rendered ``(namespace, scope)`` per ``(kind, task_id)``, for ``routing``."""
    memo = getattr(getattr(ctx, "batch", None), "memo", None)
    cached = None if memo is None else memo.get("routing.placement")
    if cached is None or cached[0] is not routing:  # a batch may be checked under another config
        cached = (routing, {})
        if memo is not None:
            memo["routing.placement"] = cached
    return cached[1]


def _placement(kind: str, task_id: str | None, routing: Any,
               rendered: dict[Any, tuple[str | None, str | None]]) -> tuple[str | None, str | None]:
    """``(namespace, scope)`` of a kind (and task), rendered once per batch: most records share them."""
    if task_id is not None and not isinstance(task_id, str):
        rendered = {}  # not a key: remember nothing
    key = (kind, task_id)
    found = rendered.get(key)
    if found is None:
        namespace = namespace_for(kind, repo=routing.repo, task_id=task_id, templates=routing.namespaces)
        scope = (f"task:{task_id}" if task_id else None) if kind == "task_state" else scope_for(routing)
        found = rendered[key] = (namespace, scope)
    return found


def route(record: dict[str, Any], ctx: RuleContext) -> dict[str, Any]:
    """Add the write-layer fields to one record (in place; returns it)."""
    route_all([(record, ctx.sources(record))], ctx)
    return record


def route_all(items: list[tuple[dict[str, Any], list[Any]]], ctx: RuleContext) -> None:
    """:func:`route` for many ``(record, its source messages)`` of one batch, in place.

    The per-batch caches and the routing tables are looked up once for all.
    """
    routing = ctx.config.routing
    kinds, ttls = routing.kinds, routing.ttl
    tags_of = _tag_memo(ctx)
    rendered = _placement_memo(routing, ctx)
    for record, messages in items:
        kind = kinds.get(record.get("type", ""), "unknown")
        task_id = task_id_of(record) if kind == "task_state" else None
        source, confirmed_by = _provenance(record, messages, tags_of)
        record["kind"] = kind
        # Most records share a (kind, task) whose placement the batch has rendered already.
        placed = rendered.get((kind, task_id)) if task_id is None or isinstance(task_id, str) else None
        namespace, scope = placed if placed is not None else _placement(kind, task_id, routing, rendered)
        record["namespace"] = namespace  # key order is the report's: keep it
        record["task_id"] = task_id
        record["scope"] = scope
        record["source"] = source
        record["confirmed_by"] = confirmed_by
        record["ttl"] = ttls.get(kind, "none")
        record["status"] = "active"
