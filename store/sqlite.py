"""The SQLite backend: every SQL statement of the store lives in this module.

:class:`memvet.store.Store` speaks to a backend through the methods below
(plain Python values in, plain dicts out); :mod:`memvet.store.postgres` has
the same methods, so no caller knows which backend it uses.

Guarantees:

- WAL journal, ``synchronous=FULL``, ``foreign_keys=ON``; every write is
  one ``BEGIN IMMEDIATE`` transaction, so a process killed mid-commit leaves
  all or nothing, and two writers queue on the lock (``busy_timeout``).
- The file is never reset: a file that is not a SQLite database, a SQLite
  database of another application, a newer schema or a damaged file is a
  :class:`~memvet.store.StoreError` naming the path. An older schema is
  upgraded in place by the versioned :data:`MIGRATIONS`, in one transaction.
- Operating-system failures (a directory given as the store, an unwritable
  folder, a full disk) are a ``StoreError`` that says so, never a raw
  ``sqlite3.OperationalError``.
- ``create=False`` (read-only commands) never creates a file or a folder.
- ``events`` is append-only: triggers abort any UPDATE or DELETE on it.
- Full-text search is FTS5 over a bigram-segmented copy of the content
  (``search`` column), so Chinese matches word-order-free ("超时默认" finds
  "默认超时"), and ranking is ``bm25``.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .errors import StoreError
from .identity import first_occurrences
from .text import fts_query

APP_ID = "memvet-store"
SCHEMA_VERSION = 2
_SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cursors (stream TEXT PRIMARY KEY, cursor INTEGER NOT NULL, batch_id TEXT, updated_at TEXT NOT NULL);
CREATE TABLE batches (batch_id TEXT PRIMARY KEY, stream TEXT NOT NULL, cursor INTEGER NOT NULL,
                      records INTEGER NOT NULL, committed_at TEXT NOT NULL);
CREATE TABLE scenes (id TEXT PRIMARY KEY, label TEXT NOT NULL UNIQUE, batch_id TEXT, created_at TEXT NOT NULL);
CREATE TABLE tasks (task_id TEXT PRIMARY KEY, state TEXT NOT NULL, closed_at TEXT);
CREATE TABLE memories (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('project_fact', 'task_state', 'code_preference')),
    status TEXT NOT NULL CHECK (status IN ('active', 'pending', 'conflict', 'invalid', 'archived')),
    namespace TEXT, scope TEXT, task_id TEXT, ttl TEXT, type TEXT,
    content TEXT NOT NULL, search TEXT NOT NULL,
    source TEXT NOT NULL, confirmed_by TEXT NOT NULL, conflicts_with TEXT NOT NULL,
    record TEXT NOT NULL, session_key TEXT, batch_id TEXT, reason TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, reviewed_at TEXT NOT NULL
);
CREATE INDEX memories_by_kind ON memories (kind, status, scope);
CREATE INDEX memories_by_task ON memories (task_id, kind, status);
CREATE VIRTUAL TABLE memories_fts USING fts5 (search, content='memories', content_rowid='seq',
                                              tokenize='unicode61 remove_diacritics 0');
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, search) VALUES (new.seq, new.search);
END;
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, memory_id TEXT, event TEXT NOT NULL,
    actor TEXT, detail TEXT NOT NULL
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""

#: Version -> how to reach it from the one before (SQL statements, or a function of the connection).
MIGRATIONS: dict[int, list[Any]] = {}


def _migrate_content_keys(c: sqlite3.Connection) -> None:
    """v2: content identity per namespace (see :mod:`memvet.store.identity`), and the review evidence
    (the source messages and the codes memvet reported for each memory, JSON)."""
    c.execute("ALTER TABLE memories ADD COLUMN evidence TEXT")
    c.execute("ALTER TABLE memories ADD COLUMN content_key TEXT")
    rows = c.execute("SELECT seq, kind, namespace, content FROM memories ORDER BY seq").fetchall()
    c.executemany("UPDATE memories SET content_key = ? WHERE seq = ?", first_occurrences(rows))
    c.execute("CREATE UNIQUE INDEX memories_identity ON memories (content_key)")


MIGRATIONS[2] = [_migrate_content_keys]

_COLUMNS = ("id", "kind", "status", "namespace", "scope", "task_id", "ttl", "type", "content", "source",
            "confirmed_by", "conflicts_with", "session_key", "batch_id", "reason", "created_at", "updated_at",
            "reviewed_at")
_SELECT = "SELECT " + ", ".join(f"m.{c}" for c in _COLUMNS) + " FROM memories m"
_JSON_COLUMNS = ("source", "confirmed_by", "conflicts_with")


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class SQLiteBackend:
    """One connection to one database file (or ``:memory:``)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 10.0, create: bool = True):
        self.path = str(path)
        self._check_file(create)
        try:
            self.conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None,
                                        check_same_thread=False)
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self._init_schema()
            if self.path != ":memory:":
                self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self.conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        except OSError as exc:
            raise _os_error(exc, self.path) from None

    # --- opening: never reset what is there ----------------------------------
    def _check_file(self, create: bool) -> None:
        if self.path == ":memory:":
            return
        p = Path(self.path)
        if p.is_dir():
            raise StoreError("is a directory, not a store file (name a file inside it, e.g. memory.db)",
                             file=self.path)
        if not p.exists():
            if not create:
                raise StoreError("no store here (nothing was created; commit a batch first, or check --store)",
                                 file=self.path)
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise _os_error(exc, self.path) from None
            if not os.access(p.parent, os.W_OK):
                raise StoreError(f"the folder {p.parent} is not writable", file=self.path)
        if p.exists() and p.stat().st_size > 0:
            with p.open("rb") as fh:
                head = fh.read(16)
            if head != _SQLITE_MAGIC:
                raise StoreError("not a SQLite database (refusing to touch it; move it away or pick another "
                                 "--store path)", file=self.path)

    def _error(self, exc: Exception) -> StoreError:
        text = str(exc)
        if isinstance(exc, OSError):
            return _os_error(exc, self.path)
        if "disk is full" in text or getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL":
            return StoreError("the disk is full (SQLite: database or disk is full); nothing of this "
                              "transaction was written -- free some space and run it again", file=self.path)
        if "readonly" in text or "unable to open" in text or "disk I/O error" in text:
            return StoreError(f"cannot write the store ({text}): check that the path is a file in a writable, "
                              "mounted folder", file=self.path)
        if "malformed" in text or "not a database" in text or "corrupt" in text:
            return StoreError(f"the database is damaged ({text}); it was left as it is -- restore a backup or "
                              "move it away", file=self.path)
        return StoreError(f"database error: {text}", file=self.path)

    def _init_schema(self) -> None:
        c = self.conn
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            with self.transaction():
                # Re-check inside the lock: another process may have created it meanwhile.
                if not c.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]:
                    for statement in _statements(SCHEMA):   # version 1; _upgrade() takes it further
                        c.execute(statement)
                    c.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                                  [("app", APP_ID), ("schema_version", "1"), ("created_at", now_iso())])
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" not in tables:
            raise StoreError(f"a SQLite database of another application (tables: {', '.join(sorted(tables))}); "
                             "refusing to write into it", file=self.path)
        meta = dict(c.execute("SELECT key, value FROM meta"))
        if meta.get("app") != APP_ID:
            raise StoreError("a SQLite database of another application (no memvet-store marker)", file=self.path)
        version = int(meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION or version < 1:
            raise StoreError(f"schema version {version}, this memvet reads versions 1 to {SCHEMA_VERSION} "
                             "(a newer memvet wrote it: upgrade memvet; the file was left as it is)", file=self.path)
        if version < SCHEMA_VERSION:
            self._upgrade()

    def _upgrade(self) -> None:
        """Apply the missing migrations in ONE transaction (a crash leaves the old version intact)."""
        c = self.conn
        with self.transaction():
            version = int(c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for step in MIGRATIONS[target]:
                    step(c) if callable(step) else c.execute(step)
                c.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(target),))
                c.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                          "SET value = excluded.value", (f"migrated_to_{target}", now_iso()))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; any exception rolls everything back."""
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        try:
            yield c
        except BaseException as exc:
            try:
                c.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass  # SQLite already rolled back (e.g. after SQLITE_FULL); the original error matters
            if isinstance(exc, (sqlite3.DatabaseError, OSError)):
                raise self._error(exc) from None
            raise
        else:
            try:
                c.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                try:
                    c.execute("ROLLBACK")
                except sqlite3.DatabaseError:
                    pass
                raise self._error(exc) from None

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None

    def _rows(self, c: sqlite3.Connection | None, sql: str, params: Any = ()) -> list[Any]:
        return c.execute(sql, params).fetchall() if c is not None else self._read(sql, tuple(params))

    def close(self) -> None:
        self.conn.close()

    # --- the batch cursor ------------------------------------------------------
    def get_cursor(self, stream: str) -> int:
        rows = self._read("SELECT cursor FROM cursors WHERE stream = ?", (stream,))
        return int(rows[0][0]) if rows else 0

    def batch_committed(self, c: sqlite3.Connection, batch_id: str) -> bool:
        return c.execute("SELECT 1 FROM batches WHERE batch_id = ?", (batch_id,)).fetchone() is not None

    def cursor_in(self, c: sqlite3.Connection, stream: str) -> int:
        row = c.execute("SELECT cursor FROM cursors WHERE stream = ?", (stream,)).fetchone()
        return int(row[0]) if row else 0

    def set_cursor(self, c: sqlite3.Connection, stream: str, cursor: int, batch_id: str, records: int) -> None:
        at = now_iso()
        c.execute("INSERT INTO cursors (stream, cursor, batch_id, updated_at) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (stream) DO UPDATE SET cursor = excluded.cursor, batch_id = excluded.batch_id, "
                  "updated_at = excluded.updated_at", (stream, cursor, batch_id, at))
        c.execute("INSERT INTO batches (batch_id, stream, cursor, records, committed_at) VALUES (?, ?, ?, ?, ?)",
                  (batch_id, stream, cursor, records, at))

    # --- scenes ------------------------------------------------------------------
    def scene_id_for(self, c: sqlite3.Connection, label: str, batch_id: str) -> str:
        """The id of the scene labelled ``label``; created (``sc0001``, ``sc0002`` ...) when new."""
        row = c.execute("SELECT id FROM scenes WHERE label = ?", (label,)).fetchone()
        if row:
            return row[0]
        n = int(c.execute("SELECT value FROM meta WHERE key = 'scene_seq'").fetchone()[0]
                if c.execute("SELECT 1 FROM meta WHERE key = 'scene_seq'").fetchone() else 0) + 1
        c.execute("INSERT INTO meta (key, value) VALUES ('scene_seq', ?) "
                  "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(n),))
        sid = f"sc{n:04d}"
        c.execute("INSERT INTO scenes (id, label, batch_id, created_at) VALUES (?, ?, ?, ?)",
                  (sid, label, batch_id, now_iso()))
        return sid

    def scene_pool(self) -> list[dict[str, str]]:
        return [{"id": r[0], "label": r[1]} for r in self._read("SELECT id, label FROM scenes ORDER BY id")]

    # --- memories ------------------------------------------------------------------
    def insert_memory(self, c: sqlite3.Connection, row: dict[str, Any], prefix: str) -> str:
        """Insert one memory; its id is ``<prefix>-<seq>`` (``f-12``, ``t-3``, ``p-7``)."""
        at = now_iso()
        # Inside the write lock, so the next sequence number is ours.
        last = c.execute("SELECT seq FROM sqlite_sequence WHERE name = 'memories'").fetchone()
        mid = f"{prefix}-{(last[0] if last else 0) + 1}"
        c.execute(
            "INSERT INTO memories (id, kind, status, namespace, scope, task_id, ttl, type, content, search, "
            "source, confirmed_by, conflicts_with, record, session_key, batch_id, reason, created_at, updated_at, "
            "reviewed_at, content_key, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (mid, row["kind"], row["status"], row.get("namespace"), row.get("scope"), row.get("task_id"),
             row.get("ttl"), row.get("type"), row["content"], row["search"],
             json.dumps(row.get("source", []), ensure_ascii=False),
             json.dumps(row.get("confirmed_by", []), ensure_ascii=False),
             json.dumps(row.get("conflicts_with", []), ensure_ascii=False),
             json.dumps(row.get("record", {}), ensure_ascii=False, sort_keys=True),
             row.get("session_key"), row.get("batch_id"), row.get("reason"), at, at, at, row.get("content_key"),
             json.dumps(row.get("evidence") or {}, ensure_ascii=False, sort_keys=True)))
        return mid

    def evidence(self, memory_ids: list[str]) -> dict[str, dict[str, Any]]:
        """``id -> {"messages": [...], "codes": [...]}`` as stored at commit (``{}`` when none was given)."""
        if not memory_ids:
            return {}
        rows = self._read(f"SELECT id, evidence FROM memories WHERE id IN ({', '.join('?' * len(memory_ids))})",
                          tuple(memory_ids))
        return {r[0]: json.loads(r[1]) if r[1] else {} for r in rows}

    def find_key(self, c: sqlite3.Connection, key: str) -> dict[str, Any] | None:
        """The memory stored under content identity ``key`` (see :mod:`memvet.store.identity`)."""
        rows = c.execute(_SELECT + " WHERE m.content_key = ?", (key,)).fetchall()
        return _row(rows[0]) if rows else None

    def update_memory(self, c: sqlite3.Connection, memory_id: str, **fields: Any) -> None:
        allowed = {"status", "reason", "confirmed_by", "conflicts_with", "reviewed_at"}
        assert set(fields) <= allowed, fields
        values = [json.dumps(v, ensure_ascii=False) if k in _JSON_COLUMNS else v for k, v in fields.items()]
        sets = ", ".join(f"{k} = ?" for k in fields)
        c.execute(f"UPDATE memories SET {sets}, updated_at = ? WHERE id = ?", (*values, now_iso(), memory_id))

    def log(self, c: sqlite3.Connection, event: str, memory_id: str | None, detail: dict[str, Any],
            actor: str | None = None) -> None:
        c.execute("INSERT INTO events (at, memory_id, event, actor, detail) VALUES (?, ?, ?, ?, ?)",
                  (now_iso(), memory_id, event, actor, json.dumps(detail, ensure_ascii=False, sort_keys=True)))

    def get(self, memory_id: str, c: sqlite3.Connection | None = None) -> dict[str, Any] | None:
        sql, params = _SELECT + " WHERE m.id = ?", (memory_id,)
        rows = self._rows(c, sql, params)
        return _row(rows[0]) if rows else None

    def find(self, *, kinds: tuple[str, ...] | None = None, statuses: tuple[str, ...] | None = None,
             scope: str | None = None, task_id: str | None = None, terms: list[str] | None = None,
             limit: int | None = None, c: sqlite3.Connection | None = None) -> list[dict[str, Any]]:
        """Filter by kind, status, scope and task FIRST; then rank by ``bm25`` when ``terms`` are given."""
        fts = fts_query(terms) if terms else None
        where, params = [], []
        if kinds:
            where.append(f"m.kind IN ({', '.join('?' * len(kinds))})")
            params.extend(kinds)
        if statuses:
            where.append(f"m.status IN ({', '.join('?' * len(statuses))})")
            params.extend(statuses)
        if scope is not None:
            where.append("m.scope = ?")
            params.append(scope)
        if task_id is not None:
            where.append("m.task_id = ?")
            params.append(task_id)
        if fts:
            sql = ("SELECT " + ", ".join(f"m.{col}" for col in _COLUMNS) + ", bm25(memories_fts) AS rank "
                   "FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ?")
            params.insert(0, fts)
            sql += "".join(f" AND {w}" for w in where) + " ORDER BY rank, m.seq DESC"
        else:
            sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY m.seq"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_row(r) for r in self._rows(c, sql, params)]

    def tasks_closed(self) -> list[str]:
        return [r[0] for r in self._read("SELECT task_id FROM tasks WHERE state = 'closed' ORDER BY task_id")]

    def mark_task(self, c: sqlite3.Connection, task_id: str, state: str) -> None:
        c.execute("INSERT INTO tasks (task_id, state, closed_at) VALUES (?, ?, ?) ON CONFLICT (task_id) DO UPDATE "
                  "SET state = excluded.state, closed_at = excluded.closed_at",
                  (task_id, state, now_iso() if state == "closed" else None))

    def task_closed(self, c: sqlite3.Connection, task_id: str) -> bool:
        return c.execute("SELECT 1 FROM tasks WHERE task_id = ? AND state = 'closed'", (task_id,)).fetchone() is not None

    def events(self, memory_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT seq, at, memory_id, event, actor, detail FROM events"
        params: tuple[Any, ...] = ()
        if memory_id is not None:
            sql, params = sql + " WHERE memory_id = ?", (memory_id,)
        return [{"seq": r[0], "at": r[1], "memory_id": r[2], "event": r[3], "actor": r[4],
                 "detail": json.loads(r[5])} for r in self._read(sql + " ORDER BY seq", params)]

    def counts(self) -> dict[str, int]:
        return {f"{k}/{s}": n for k, s, n in
                self._read("SELECT kind, status, count(*) FROM memories GROUP BY kind, status ORDER BY kind, status")}

    def integrity(self) -> str:
        return self._read("PRAGMA quick_check")[0][0]


def _os_error(exc: OSError, path: str) -> StoreError:
    """An operating-system failure, said plainly (errno name and text), naming the store file."""
    if exc.errno == errno.ENOSPC:
        return StoreError("the disk is full; nothing was written -- free some space and run it again", file=path)
    name = errno.errorcode.get(exc.errno or 0, "")
    where = f" ({exc.filename})" if exc.filename and str(exc.filename) != path else ""
    return StoreError(f"cannot use the store: {exc.strerror or exc}{where}" + (f" [{name}]" if name else ""),
                      file=path)


def _row(r: sqlite3.Row | tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(_COLUMNS, r))
    for k in _JSON_COLUMNS:
        out[k] = json.loads(out[k]) if out[k] else []
    if len(r) > len(_COLUMNS):
        out["rank"] = r[len(_COLUMNS)]
    return out



def _statements(script: str) -> Iterator[str]:
    """Split a script into complete statements (trigger bodies keep their inner ``;``)."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            yield buf.strip()
            buf = ""
