"""The reference memory store: seed 004's three partitions, statuses and checklist.

>>> from memvet.store import open_store
>>> store = open_store(":memory:")
>>> report = {"ok": True, "records": [
...     {"content": "网关超时临时改为 30 秒，明天回滚。", "type": "work_task", "kind": "task_state",
...      "namespace": "task-demo｜网关", "task_id": "demo｜网关", "new_scene_name": "demo｜网关",
...      "source": [], "confirmed_by": ["user:m1"], "status": "active"}]}
>>> res = store.commit(report, stream="s-1", cursor=1)
>>> res.committed, res.records, res.scene_ids
(True, 1, {'demo｜网关': 'sc0001'})
>>> store.commit(report, stream="s-1", cursor=1).committed    # the same batch again: a no-op
False
>>> [m["content"] for m in store.recall(kind="project_fact", query="网关超时")]
[]
>>> [m["task_id"] for m in store.recall(kind="task_state", task_id="sc0001", query="网关超时")]
['sc0001']

Statuses: ``active`` (recalled), ``pending`` (waits for a person:
unconfirmed long-term memory, or a preference due for review), ``conflict``
(two values of one fact; recalled with the flag, never overwritten),
``invalid`` (a person rejected it) and ``archived`` (its task closed). Every
change appends to the event log (:meth:`Store.events`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

from memvet.config import Config, resolve_config
from memvet.engine import engine_for
from memvet.routing import KINDS, LONG_TERM_KINDS, STATUSES

from .errors import RejectedReportError, StoreError
from .identity import content_key
from .sqlite import SQLiteBackend, now_iso
from .text import classify_question, query_terms, search_text

#: What ``recall`` returns unless asked otherwise: conflicts come back flagged.
RECALL_STATUSES = ("active", "conflict")
_PREFIX = {"project_fact": "f", "task_state": "t", "code_preference": "p"}
_LONG_TERM_NAMESPACE_ENDS = ("-facts", "-prefs")
_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True)
class CommitResult:
    """What :meth:`Store.commit` did: ``committed`` is False for a batch already stored."""

    committed: bool
    records: int
    scene_ids: dict[str, str] = field(default_factory=dict)
    memory_ids: list[str] = field(default_factory=list)
    #: Records not written because the same content is already stored in that namespace.
    duplicates: int = 0


def open_store(path: str | Path | None = None, *, config: Config | dict[str, Any] | str | Path | None = None,
               create: bool = True) -> Store:
    """Open (or create) the store named by ``path``: a SQLite file path, ``sqlite:///path`` or a
    ``postgresql://`` URL (the team store, :mod:`memvet.store.postgres`).

    Default: ``[tool.memvet.store] url``, else ``path`` (``.memvet/memory.db``);
    a relative path from a config file is relative to that file. Creates
    missing folders (SQLite) or the ``memvet`` schema (Postgres) unless
    ``create=False``: read-only commands never create a store. Raises
    :class:`StoreError` for a file or database that is not a memvet store
    (never resets it), a newer schema, or an operating-system failure.
    """
    cfg = resolve_config(config)
    target = store_target(path, cfg)
    timeout = cfg.store.busy_timeout
    scheme = _URL_SCHEME.match(target)
    if scheme is None:
        return Store(SQLiteBackend(target, busy_timeout=timeout, create=create), config=cfg)
    name = scheme.group(1).lower()
    if name == "sqlite":
        return Store(SQLiteBackend(target[len("sqlite://"):], busy_timeout=timeout, create=create), config=cfg)
    if name in ("postgresql", "postgres"):
        try:
            from .postgres import PostgresBackend  # psycopg is the optional extra memvet[postgres]
        except ImportError as exc:
            raise StoreError(f"a PostgreSQL store needs psycopg ({exc}): pip install 'memvet[postgres]'",
                             field="store") from None
        return Store(PostgresBackend(target, busy_timeout=timeout, create=create), config=cfg)
    raise StoreError(f"unsupported store URL scheme {name!r}: use a file path, sqlite:///path or postgresql://...",
                     field="store")


def store_target(path: str | Path | None, cfg: Config) -> str:
    """What ``open_store`` opens: ``path`` as given, else the config's url or path.

    A relative path written in a config file means "next to that file", as a
    user reading the file expects, wherever memvet runs from.
    """
    if path is not None:
        return str(path)
    target = cfg.store.url or cfg.store.path
    if (cfg.source and target != ":memory:" and not _URL_SCHEME.match(target)
            and not Path(target).expanduser().is_absolute()):
        return str(Path(cfg.source).resolve().parent / target)
    return str(Path(target).expanduser()) if target.startswith("~") else target


def batch_key(context: Any) -> str:
    """A stable id for a batch: its new messages' ``(sessionKey, id, content)``."""
    from memvet.context import load_context

    batch = load_context(context)
    h = hashlib.sha256()
    for m in batch.messages:
        h.update(json.dumps([m.sessionKey, m.id, m.content], ensure_ascii=False).encode())
    return "batch:" + h.hexdigest()[:32]


class Store:
    """Facts, task state and preferences apart; see the module docstring."""

    def __init__(self, backend: Any, *, config: Config | None = None):
        """``backend``: :class:`~memvet.store.sqlite.SQLiteBackend` or
        :class:`~memvet.store.postgres.PostgresBackend` (the same methods)."""
        self.backend = backend
        self.config = config or Config()

    @property
    def path(self) -> str:
        return self.backend.path

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- commit ------------------------------------------------------------------
    def commit(self, report: Any, *, stream: str, cursor: int | None, batch_id: str | None = None,
               on_progress: Callable[[int], None] | None = None, context: Any = None) -> CommitResult:
        """Write ``report.records`` and the stream's cursor in ONE transaction.

        A no-op (``committed=False``) when the stored cursor of ``stream`` is
        already ``>= cursor`` or ``batch_id`` was committed before, so a batch
        is consumed exactly once, even by two processes at the same time.
        ``cursor=None`` means "the next position of the stream" (then only
        ``batch_id`` dedupes; the CLI uses it). New scenes get ids
        (``sc0001`` ...) and their task records move under them. A record
        with ``conflicts_with`` marks those stored facts ``conflict`` too.
        A record whose content is already stored in its namespace (content
        identity, :mod:`memvet.store.identity`) is not written again; it is
        counted in ``duplicates`` and logged as a ``duplicate`` event of the
        stored memory.
        Raises :class:`RejectedReportError` for a report that is not ok and
        :class:`StoreError` for a malformed record -- before writing anything.
        ``on_progress(n)`` is called after each record written (progress bars).
        With the batch ``context``, each memory keeps its evidence for the
        review page: the text of its source messages (with the report's
        redactions applied) and the codes memvet reported on it.
        """
        ok, records = _report_parts(report)
        if not ok:
            raise RejectedReportError("the report has rejects: ask the batch again, do not store it")
        rows = [self._row(r, n) for n, r in enumerate(records)]
        for row, evidence in zip(rows, review_evidence(report, records, context)):
            row["evidence"] = evidence
        batch_id = batch_id or (f"{stream}@{cursor}" if cursor is not None else None)
        if batch_id is None:
            raise StoreError("commit needs a cursor or a batch_id", field="cursor")
        b = self.backend
        with b.transaction() as c:
            current = b.cursor_in(c, stream)
            if b.batch_committed(c, batch_id) or (cursor is not None and current >= cursor):
                return CommitResult(False, 0, {})
            cursor = current + 1 if cursor is None else cursor
            scene_ids: dict[str, str] = {}
            ids: list[str] = []
            duplicates = 0
            for n, (row, record) in enumerate(zip(rows, records), 1):
                label = record.get("new_scene_name")
                if label and not record.get("scene_id"):
                    if label not in scene_ids:
                        scene_ids[label] = b.scene_id_for(c, label, batch_id)
                    _move_to_scene(row, label, scene_ids[label])
                if row["kind"] == "task_state" and b.task_closed(c, row["task_id"]):
                    row["status"], row["reason"] = "archived", "its task was already closed"
                row["batch_id"] = batch_id
                row["content_key"] = content_key(row["kind"], row.get("namespace"), row["content"])
                same = b.find_key(c, row["content_key"])
                if same is not None:
                    duplicates += 1
                    b.log(c, "duplicate", same["id"], {"batch_id": batch_id, "stream": stream})
                    continue
                mid = b.insert_memory(c, row, _PREFIX[row["kind"]])
                ids.append(mid)
                b.log(c, "commit", mid, {"batch_id": batch_id, "stream": stream, "kind": row["kind"],
                                         "status": row["status"], "namespace": row.get("namespace")})
                self._mark_conflicts(c, mid, row.get("conflicts_with") or [])
                if on_progress is not None:
                    on_progress(n)
            b.set_cursor(c, stream, cursor, batch_id, len(ids))
            b.log(c, "cursor", None, {"stream": stream, "cursor": cursor, "batch_id": batch_id, "records": len(ids),
                                      **({"duplicates": duplicates} if duplicates else {})})
        return CommitResult(True, len(ids), scene_ids, ids, duplicates)

    def _row(self, record: Any, n: int) -> dict[str, Any]:
        """Seed 004's write checks, enforced again at the store (a caller may skip memvet)."""
        where = f"/records/{n}"
        if not isinstance(record, dict):
            raise StoreError("a record must be an object", field=where)
        kind, content = record.get("kind"), record.get("content")
        if kind not in KINDS:
            raise StoreError(f"kind {kind!r} is none of {', '.join(KINDS)}", field=f"{where}/kind")
        if not isinstance(content, str) or not content.strip():
            raise StoreError("content must be a non-empty string", field=f"{where}/content")
        status = record.get("status", "active")
        if status not in STATUSES:
            raise StoreError(f"status {status!r} is none of {', '.join(STATUSES)}", field=f"{where}/status")
        namespace = record.get("namespace")
        if kind == "task_state":
            if not record.get("task_id"):
                raise StoreError("a task_state needs a task_id", field=f"{where}/task_id")
            if isinstance(namespace, str) and namespace.endswith(_LONG_TERM_NAMESPACE_ENDS):
                raise StoreError(f"a task_state may not go to the long-term namespace {namespace!r}",
                                 field=f"{where}/namespace")
        source = _strings(record.get("source"))
        confirmed = _strings(record.get("confirmed_by"))
        reason = None
        if kind in LONG_TERM_KINDS and status == "active" and not source and not confirmed:
            status, reason = "pending", "no source and no confirmation"
        return {"kind": kind, "status": status, "namespace": namespace, "scope": record.get("scope"),
                "task_id": record.get("task_id") if kind == "task_state" else None, "ttl": record.get("ttl"),
                "type": record.get("type"), "content": content, "search": search_text(content),
                "source": source, "confirmed_by": confirmed, "conflicts_with": _strings(record.get("conflicts_with")),
                "record": record, "session_key": record.get("sessionKey"), "reason": reason}

    def _mark_conflicts(self, c: Any, mid: str, others: list[str]) -> None:
        b = self.backend
        for other in others:
            old = b.get(other, c)
            if old is None or old["status"] not in ("active", "conflict"):
                continue
            b.update_memory(c, other, status="conflict", conflicts_with=sorted({*old["conflicts_with"], mid}))
            b.log(c, "conflict", other, {"with": mid})

    # --- reading -------------------------------------------------------------------
    def get_cursor(self, stream: str) -> int:
        """The last committed cursor of ``stream`` (0 when it never committed)."""
        return self.backend.get_cursor(stream)

    def scene_pool(self) -> list[dict[str, str]]:
        """``[{"id", "label"}]``: every scene created by committed batches (feed it to the next batch)."""
        return self.backend.scene_pool()

    def get(self, memory_id: str) -> dict[str, Any] | None:
        return self.backend.get(memory_id)

    def recall(self, kind: str | None = None, scope: str | None = None, task_id: str | None = None,
               query: str | None = None, limit: int = 5, *, statuses: Iterable[str] = RECALL_STATUSES
               ) -> list[dict[str, Any]]:
        """Memories that answer ``query``, filtered by kind FIRST, then ranked by full-text match.

        ``kind=None`` takes the kind of the question (:func:`classify_question`:
        progress -> ``task_state``, style -> ``code_preference``, else
        ``project_fact``), or every long-term kind without a query. Task
        state answers only inside its task: ``task_state`` without
        ``task_id`` returns ``[]`` ("not in the current task"). Returns dicts
        with ``id, kind, status, namespace, scope, task_id, content, source,
        confirmed_by, conflicts_with`` (and ``rank`` with a query).
        """
        if kind is not None and kind not in KINDS:
            raise StoreError(f"kind {kind!r} is none of {', '.join(KINDS)}", field="kind")
        if kind is None:
            kinds: tuple[str, ...] = (classify_question(query),) if query else (
                ("task_state",) if task_id else LONG_TERM_KINDS)
        else:
            kinds = (kind,)
        if kinds == ("task_state",) and task_id is None:
            return []
        if task_id is not None:  # stored redacted (write, commit): a token typed as the id finds its task
            task_id = _redacted(task_id, self.config)
        terms = None
        if query:
            terms = query_terms(query)
            if not terms:
                return []
        return self.backend.find(kinds=kinds, statuses=tuple(statuses), scope=scope,
                                 task_id=task_id if "task_state" in kinds else None, terms=terms, limit=limit)

    def existing(self, scope: str | None = None) -> list[dict[str, Any]]:
        """Active long-term memories in the shape of CONTRACT section 1 ``existing`` (for W007)."""
        return [{"id": m["id"], "kind": m["kind"], "scope": m["scope"], "namespace": m["namespace"],
                 "content": m["content"], "status": m["status"]}
                for m in self.backend.find(kinds=LONG_TERM_KINDS, statuses=("active",), scope=scope)]

    def events(self, memory_id: str | None = None) -> list[dict[str, Any]]:
        """The append-only event log, oldest first."""
        return self.backend.events(memory_id)

    def stats(self) -> dict[str, int]:
        """How many memories per ``kind/status``."""
        return self.backend.counts()

    def verify(self) -> None:
        """Check the whole file (``PRAGMA quick_check``); a damaged store raises :class:`StoreError`."""
        result = self.backend.integrity()
        if result != "ok":
            raise StoreError(f"the database is damaged ({result}); it was left as it is -- restore a backup",
                             file=self.path)

    # --- maintenance (seed 004's checklist) ------------------------------------------
    def write(self, kind: str, content: str, *, scope: str | None = None, task_id: str | None = None,
              source: Iterable[str] = (), confirmed_by: Iterable[str] = (), actor: str | None = None) -> str:
        """Write one memory by hand (the back-fill step of a correction), through the same checks.

        A long-term memory needs a ``source`` or ``confirmed_by`` to be active;
        without either it is stored ``pending``.
        """
        routing = self.config.routing
        content = _redacted(content, self.config)  # by hand or not, no secret reaches the store
        # Nor through the other fields a recalled memory carries (a token pasted as --source...).
        scope, task_id = _redacted(scope, self.config), _redacted(task_id, self.config)
        record: dict[str, Any] = {"kind": kind, "content": content,
                                  "source": [_redacted(x, self.config) for x in source],
                                  "confirmed_by": [_redacted(x, self.config) for x in confirmed_by],
                                  "status": "active"}
        if kind == "task_state":
            record.update(task_id=task_id, scope=f"task:{task_id}",
                          namespace=routing.namespaces.get("task_state", "task-{task_id}").format(
                              repo=routing.repo, task_id=task_id or ""))
        elif kind in LONG_TERM_KINDS:
            record.update(scope=scope or routing.scope.format(repo=routing.repo),
                          namespace=routing.namespaces.get(kind, "").format(repo=routing.repo, task_id=""))
        record["ttl"] = routing.ttl.get(kind, "none")
        row = self._row(record, 0)
        row["content_key"] = content_key(row["kind"], row.get("namespace"), row["content"])
        with self.backend.transaction() as c:
            same = self.backend.find_key(c, row["content_key"])
            if same is not None:
                raise StoreError(f"this memory is already stored as {same['id']} ({same['status']}); "
                                 "confirm or restore that one instead", field="content")
            mid = self.backend.insert_memory(c, row, _PREFIX[kind])
            self.backend.log(c, "write", mid, {"kind": kind, "status": row["status"], "source": row["source"]},
                             actor=actor)
        return mid

    def _must_get(self, c: Any, memory_id: str) -> dict[str, Any]:
        m = self.backend.get(memory_id, c)
        if m is None:
            raise StoreError(f"no memory has the id {memory_id!r}", field="id")
        return m

    def confirm(self, memory_id: str, *, by: str) -> dict[str, Any]:
        """A person confirms a pending or conflicting memory: it becomes active.

        The memories it was in conflict with become ``invalid`` (the person
        chose this value).
        """
        if not by.strip():
            raise StoreError("confirm needs the name of the person (--by)", field="by")
        by = _redacted(by, self.config)  # the name is stored (confirmed_by, the log): no secret through it
        b = self.backend
        with b.transaction() as c:
            m = self._must_get(c, memory_id)
            if m["status"] in ("invalid", "archived"):
                raise StoreError(f"{memory_id} is {m['status']}; write a new memory instead", field="id")
            confirmed = [*m["confirmed_by"], f"person:{by}"]
            b.update_memory(c, memory_id, status="active", confirmed_by=list(dict.fromkeys(confirmed)),
                            reviewed_at=now_iso(), reason=None)
            b.log(c, "confirm", memory_id, {"from": m["status"]}, actor=by)
            if m["status"] == "conflict":
                for other in m["conflicts_with"]:
                    o = b.get(other, c)
                    if o is not None and o["status"] == "conflict":
                        b.update_memory(c, other, status="invalid", reason=f"superseded by {memory_id}")
                        b.log(c, "invalidate", other, {"reason": f"superseded by {memory_id}"}, actor=by)
        return self.get(memory_id)  # type: ignore[return-value]

    def invalidate(self, memory_id: str, *, reason: str, by: str | None = None) -> dict[str, Any]:
        """Mark a memory invalid (out of recall, kept in the log).

        A memory that was in conflict only with invalid ones becomes active
        again: the person settled the conflict.
        """
        if not reason.strip():
            raise StoreError("invalidate needs a reason (--reason)", field="reason")
        reason = _redacted(reason, self.config)
        by = None if by is None else _redacted(by, self.config)
        b = self.backend
        with b.transaction() as c:
            m = self._must_get(c, memory_id)
            b.update_memory(c, memory_id, status="invalid", reason=reason)
            b.log(c, "invalidate", memory_id, {"from": m["status"], "reason": reason}, actor=by)
            for other in m["conflicts_with"]:
                o = b.get(other, c)
                if o is None or o["status"] != "conflict":
                    continue
                rivals = [b.get(x, c) for x in o["conflicts_with"]]
                if all(r is None or r["status"] in ("invalid", "archived") for r in rivals):
                    b.update_memory(c, other, status="active", reason=None)
                    b.log(c, "resolve", other, {"because": f"{memory_id} invalidated"}, actor=by)
        return self.get(memory_id)  # type: ignore[return-value]

    def restore(self, memory_id: str, *, by: str) -> dict[str, Any]:
        """Undo an invalidation: an ``invalid`` memory goes back to ``pending`` for a person to decide again.

        It never becomes active by itself (that is :meth:`confirm`), and a
        memory that is not invalid cannot be restored.
        """
        if not by.strip():
            raise StoreError("restore needs the name of the person (--by)", field="by")
        by = _redacted(by, self.config)
        b = self.backend
        with b.transaction() as c:
            m = self._must_get(c, memory_id)
            if m["status"] != "invalid":
                raise StoreError(f"{memory_id} is {m['status']}, only an invalid memory can be restored", field="id")
            b.update_memory(c, memory_id, status="pending", reason=f"restored by {by}")
            b.log(c, "restore", memory_id, {"from": "invalid"}, actor=by)
        return self.get(memory_id)  # type: ignore[return-value]

    def review(self, statuses: Iterable[str] = ("pending", "conflict")) -> list[dict[str, Any]]:
        """Pending and conflicting memories: what waits for a person (or the memories of ``statuses``)."""
        bad = [s for s in statuses if s not in STATUSES]
        if bad:
            raise StoreError(f"status {bad[0]!r} is none of {', '.join(STATUSES)}", field="status")
        return self.backend.find(statuses=tuple(statuses))

    def evidence(self, memory_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """``id -> {"messages": [{"id", "role", "content"}], "codes": [...]}`` kept at commit."""
        return self.backend.evidence(list(memory_ids))

    def redacted(self, text: str) -> str:
        """``text`` as the store keeps it: what the configured privacy rules find replaced by placeholders."""
        return _redacted(text, self.config)

    def close_task(self, task_id: str) -> int:
        """Close a task: archive its task state (``on_task_close``). Returns how many were archived."""
        task_id = _redacted(task_id, self.config)  # stored redacted (write, commit): found the same way
        b = self.backend
        with b.transaction() as c:
            live = b.find(kinds=("task_state",), statuses=("active", "pending", "conflict"), task_id=task_id, c=c)
            for m in live:
                b.update_memory(c, m["id"], status="archived", reason="task closed")
                b.log(c, "archive", m["id"], {"task_id": task_id})
            b.mark_task(c, task_id, "closed")
            b.log(c, "close_task", None, {"task_id": task_id, "archived": len(live)})
        return len(live)

    def expire(self, *, now: datetime | None = None, dry_run: bool = False) -> dict[str, list[dict[str, Any]]]:
        """Expiry clean-up: task state of closed tasks -> ``archived``; preferences not reviewed
        for ``store.review_days`` -> ``pending`` (review_quarterly). ``dry_run`` only lists them."""
        now = now or datetime.now(timezone.utc)
        due = (now - timedelta(days=self.config.store.review_days)).strftime("%Y-%m-%dT%H:%M:%SZ")
        b = self.backend
        closed = set(b.tasks_closed())
        stale_tasks = [m for m in b.find(kinds=("task_state",), statuses=("active", "pending", "conflict"))
                       if m["task_id"] in closed]
        prefs = [m for m in b.find(kinds=("code_preference",), statuses=("active",)) if m["reviewed_at"] < due]
        if not dry_run and (stale_tasks or prefs):
            with b.transaction() as c:
                for m in stale_tasks:
                    b.update_memory(c, m["id"], status="archived", reason="task closed")
                    b.log(c, "archive", m["id"], {"task_id": m["task_id"]})
                for m in prefs:
                    b.update_memory(c, m["id"], status="pending", reason="quarterly review due")
                    b.log(c, "review_due", m["id"], {"reviewed_at": m["reviewed_at"]})
        return {"archived": stale_tasks, "review_due": prefs}

    def audit(self, *, fix: bool = True) -> list[dict[str, Any]]:
        """Source audit: active long-term memories with neither source nor confirmation.

        With ``fix`` they are downgraded to ``pending``; either way they are returned.
        """
        b = self.backend
        bad = [m for m in b.find(kinds=LONG_TERM_KINDS, statuses=("active",))
               if not m["source"] and not m["confirmed_by"]]
        if fix and bad:
            with b.transaction() as c:
                for m in bad:
                    b.update_memory(c, m["id"], status="pending", reason="audit: no source, no confirmation")
                    b.log(c, "downgrade", m["id"], {"reason": "no source, no confirmation"})
        return bad

    def crosscheck(self, project_question: str, task_question: str, *, task_id: str | None = None,
                   scope: str | None = None) -> dict[str, Any]:
        """Cross-session check: one project question and one task question through :meth:`recall`.

        The project question searches only project facts; the task question
        only the task state of ``task_id`` (none given: a new session, which
        must not answer from an old task). Returns which memory answered each.
        """
        project = self.recall(kind="project_fact", scope=scope, query=project_question, limit=3)
        task = self.recall(kind="task_state", task_id=task_id, query=task_question, limit=3)
        return {"project": {"question": project_question, "answers": project},
                "task": {"question": task_question, "task_id": task_id, "answers": task}}


_EVIDENCE_CHARS = 4000


def review_evidence(report: Any, records: list[Any], context: Any) -> list[dict[str, Any]]:
    """Per record: the codes reported at its pointer and, given the context, its source messages."""
    paths = list(getattr(report, "record_paths", None) or [])
    violations = list(getattr(report, "violations", None) or [])
    secrets = dict(getattr(report, "secrets", None) or {})
    messages: dict[str, Any] = {}
    if context is not None:
        from memvet.context import load_context

        batch = load_context(context)
        for m in [*batch.background, *batch.messages]:
            messages[m.id] = m
    out = []
    for n, record in enumerate(records):
        path = paths[n] if n < len(paths) else None
        codes = sorted({v.code for v in violations if path and (v.path == path or v.path.startswith(path + "/"))})
        evidence: dict[str, Any] = {"codes": codes}
        ids = record.get("source_message_ids") if isinstance(record, dict) else None
        if messages and isinstance(ids, list):
            evidence["messages"] = [{"id": m.id, "role": m.role, "content": _redact(m.content, secrets)}
                                    for m in (messages.get(str(i)) for i in ids) if m is not None]
        out.append(evidence)
    return out


def _redact(text: Any, secrets: dict[str, str]) -> str:
    """A source message as evidence: the report's redactions applied (secrets never reach the page)."""
    text = str(text)
    for secret, placeholder in sorted(secrets.items(), key=lambda kv: -len(kv[0])):
        if secret:
            text = text.replace(secret, placeholder)
    return text[:_EVIDENCE_CHARS] + ("…" if len(text) > _EVIDENCE_CHARS else "")


def _report_parts(report: Any) -> tuple[bool, list[Any]]:
    if isinstance(report, dict):
        records = report.get("records")
        if not isinstance(records, list):
            raise StoreError("the report has no records list", field="records")
        return bool(report.get("ok", False)), records
    try:
        return bool(report.ok), list(report.records)
    except AttributeError:
        raise StoreError(f"not a report: {type(report).__name__}") from None


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def _move_to_scene(row: dict[str, Any], label: str, scene_id: str) -> None:
    """A new scene got its id: its task records move from the name to the id."""
    if row["kind"] != "task_state" or row.get("task_id") != label:
        return
    row["task_id"] = scene_id
    ns = row.get("namespace")
    if isinstance(ns, str) and label in ns:
        row["namespace"] = ns.replace(label, scene_id)
    if row.get("scope") == f"task:{label}":
        row["scope"] = f"task:{scene_id}"
    row["record"] = {**row["record"], "task_id": scene_id, "namespace": row["namespace"], "scope": row["scope"]}


def _redacted(text: Any, config: Config) -> Any:
    """``text`` with what the configured privacy rules (P001, P002) find replaced by placeholders."""
    if not isinstance(text, str) or not text:
        return text
    return engine_for(config).redact_text(text)
