"""The PostgreSQL backend (the team store): the same methods as :mod:`memvet.store.sqlite`.

Chosen by URL wherever a store is named (``--store postgresql://...``,
``[tool.memvet.store] url``, ``open_store(url)``). psycopg 3, one connection
in autocommit mode; every write is one explicit transaction.

Guarantees, the same as SQLite's:

- Everything lives in the schema ``memvet`` of the database, so the store
  can share a database with other applications without touching their
  tables. A ``memvet`` schema without memvet's marker (another
  application's) or with a newer schema version is a
  :class:`~memvet.store.StoreError`, never a reset. Older versions are
  upgraded by the versioned :data:`MIGRATIONS` in one transaction.
- Many writers: every write transaction first takes one transaction-scoped
  advisory lock (``pg_advisory_xact_lock``), so writers queue exactly as
  SQLite's ``BEGIN IMMEDIATE`` makes them queue: the cursor check, the
  content-identity check and the inserts of one commit see no other
  writer's half-done work. UNIQUE keys (``batches.batch_id``,
  ``memories.content_key``) back this up in the database itself. A killed
  client's transaction is rolled back by the server and its lock released.
- ``events`` is append-only: a trigger raises on UPDATE, DELETE and TRUNCATE.
- Full-text search, Chinese included: the content is cut into the same
  bigrams as SQLite's (:mod:`memvet.store.text`) and stored as a
  ``tsvector`` built with ``array_to_tsvector`` -- no text-search parser,
  dictionary or locale is involved, so a database created with any
  locale matches Chinese the same way. A GIN index serves ``@@``;
  ranking is ``ts_rank``.
- A URL's password never appears in a message (:func:`redact_url`).
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from typing import Any, Iterator

import psycopg

from .errors import StoreError
from .identity import first_occurrences
from .sqlite import APP_ID, now_iso

SCHEMA_VERSION = 2
SCHEMA = "memvet"
#: One advisory lock key for every write transaction of a memvet store ("memvet" in ASCII).
WRITE_LOCK = 0x6D656D766574

_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cursors (stream TEXT PRIMARY KEY, cursor BIGINT NOT NULL, batch_id TEXT, updated_at TEXT NOT NULL);
CREATE TABLE batches (batch_id TEXT PRIMARY KEY, stream TEXT NOT NULL, cursor BIGINT NOT NULL,
                      records INTEGER NOT NULL, committed_at TEXT NOT NULL);
CREATE TABLE scenes (id TEXT PRIMARY KEY, label TEXT NOT NULL UNIQUE, batch_id TEXT, created_at TEXT NOT NULL);
CREATE TABLE tasks (task_id TEXT PRIMARY KEY, state TEXT NOT NULL, closed_at TEXT);
CREATE TABLE memories (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('project_fact', 'task_state', 'code_preference')),
    status TEXT NOT NULL CHECK (status IN ('active', 'pending', 'conflict', 'invalid', 'archived')),
    namespace TEXT, scope TEXT, task_id TEXT, ttl TEXT, type TEXT,
    content TEXT NOT NULL, search TEXT NOT NULL, tsv TSVECTOR NOT NULL,
    source TEXT NOT NULL, confirmed_by TEXT NOT NULL, conflicts_with TEXT NOT NULL,
    record TEXT NOT NULL, session_key TEXT, batch_id TEXT, reason TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, reviewed_at TEXT NOT NULL
);
CREATE INDEX memories_by_kind ON memories (kind, status, scope);
CREATE INDEX memories_by_task ON memories (task_id, kind, status);
CREATE INDEX memories_search ON memories USING GIN (tsv);
CREATE TABLE events (
    seq BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, memory_id TEXT, event TEXT NOT NULL,
    actor TEXT, detail TEXT NOT NULL
);
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'events are append-only'; END $$;
CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();
"""


def _migrate_content_keys(c: psycopg.Connection) -> None:
    """v2: content identity per namespace (see :mod:`memvet.store.identity`), and the review evidence
    (the source messages and the codes memvet reported for each memory, JSON)."""
    c.execute("ALTER TABLE memories ADD COLUMN evidence TEXT")
    c.execute("ALTER TABLE memories ADD COLUMN content_key TEXT")
    rows = c.execute("SELECT seq, kind, namespace, content FROM memories ORDER BY seq").fetchall()
    with c.cursor() as cur:
        cur.executemany("UPDATE memories SET content_key = %s WHERE seq = %s", first_occurrences(rows))
    c.execute("CREATE UNIQUE INDEX memories_identity ON memories (content_key)")


#: Version -> how to reach it from the one before (SQL scripts, or a function of the connection).
MIGRATIONS: dict[int, list[Any]] = {1: [_V1], 2: [_migrate_content_keys]}

_COLUMNS = ("id", "kind", "status", "namespace", "scope", "task_id", "ttl", "type", "content", "source",
            "confirmed_by", "conflicts_with", "session_key", "batch_id", "reason", "created_at", "updated_at",
            "reviewed_at")
_SELECT = "SELECT " + ", ".join(f"m.{c}" for c in _COLUMNS) + " FROM memories m"
_JSON_COLUMNS = ("source", "confirmed_by", "conflicts_with")


def redact_url(url: str) -> str:
    """``postgresql://user:secret@host/db`` -> ``postgresql://user:***@host/db`` (also ``password=`` params)."""
    url = re.sub(r"(://[^:/@?#]*):[^@/?#]*@", r"\1:***@", url)
    return re.sub(r"(?i)(password=)[^&\s]*", r"\1***", url)


class PostgresBackend:
    """One connection to one PostgreSQL database; memvet's tables in its schema ``memvet``."""

    def __init__(self, url: str, *, busy_timeout: float = 10.0, create: bool = True):
        self.path = redact_url(url)
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(busy_timeout)),
                                        application_name="memvet")
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL: {_clean(exc, url)}", file=self.path) from None
        try:
            # A writer waits this long for the write lock of another one (like SQLite's busy_timeout).
            self.conn.execute(f"SET lock_timeout = '{int(busy_timeout * 1000)}ms'")
            self._init_schema(create)
            self.conn.execute(f"SET search_path TO {SCHEMA}")
        except psycopg.Error as exc:
            self.conn.close()
            raise self._error(exc) from None
        except StoreError:
            self.conn.close()
            raise

    # --- opening: never reset what is there ----------------------------------------
    def _error(self, exc: Exception) -> StoreError:
        text = _clean(exc, None)
        if isinstance(exc, psycopg.errors.DiskFull):
            return StoreError(f"the database server's disk is full ({text}); nothing was written", file=self.path)
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return StoreError("another writer held the store's write lock longer than busy_timeout; try again",
                              file=self.path)
        if isinstance(exc, psycopg.OperationalError):
            return StoreError(f"lost the connection to PostgreSQL ({text})", file=self.path)
        return StoreError(f"database error: {text}", file=self.path)

    def _tables(self) -> set[str]:
        rows = self.conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                                 (SCHEMA,)).fetchall()
        return {r[0] for r in rows}

    def _schema_exists(self) -> bool:
        return self.conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (SCHEMA,)).fetchone() is not None

    def _init_schema(self, create: bool) -> None:
        if not self._schema_exists():
            if not create:
                raise StoreError("no memvet store in this database (nothing was created; commit a batch first, "
                                 "or check --store)", file=self.path)
            with self._locked():
                if not self._schema_exists():  # another process may have created it while we waited
                    self.conn.execute(f"CREATE SCHEMA {SCHEMA}")
                    self.conn.execute(f"SET LOCAL search_path TO {SCHEMA}")
                    for step in MIGRATIONS[1]:
                        self.conn.execute(step)
                    self.conn.execute("INSERT INTO meta (key, value) VALUES ('app', %s), ('schema_version', '1'), "
                                      "('created_at', %s)", (APP_ID, now_iso()))
        tables = self._tables()
        if "meta" not in tables:
            listed = ", ".join(sorted(tables)) or "none"
            raise StoreError(f"the schema {SCHEMA!r} belongs to another application (tables: {listed}); "
                             "refusing to write into it", file=self.path)
        meta = dict(self.conn.execute(f"SELECT key, value FROM {SCHEMA}.meta").fetchall())
        if meta.get("app") != APP_ID:
            raise StoreError(f"the schema {SCHEMA!r} belongs to another application (no memvet-store marker)",
                             file=self.path)
        version = int(meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION or version < 1:
            raise StoreError(f"schema version {version}, this memvet reads versions 1 to {SCHEMA_VERSION} "
                             "(a newer memvet wrote it: upgrade memvet; the database was left as it is)",
                             file=self.path)
        if version < SCHEMA_VERSION:
            self._upgrade()

    def _upgrade(self) -> None:
        """Apply the missing migrations in ONE transaction, under the write lock."""
        c = self.conn
        with self._locked():
            c.execute(f"SET LOCAL search_path TO {SCHEMA}")
            version = int(c.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for step in MIGRATIONS[target]:
                    step(c) if callable(step) else c.execute(step)
                c.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", (str(target),))
                c.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                          "SET value = excluded.value", (f"migrated_to_{target}", now_iso()))

    @contextmanager
    def _locked(self) -> Iterator[psycopg.Connection]:
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield self.conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """One transaction holding the store's write lock; any exception rolls everything back."""
        try:
            with self._locked() as c:
                yield c
        except psycopg.Error as exc:
            raise self._error(exc) from None

    def _read(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise self._error(exc) from None

    def _rows(self, c: psycopg.Connection | None, sql: str, params: Any = ()) -> list[Any]:
        return c.execute(sql, params).fetchall() if c is not None else self._read(sql, params)

    def close(self) -> None:
        self.conn.close()

    # --- the batch cursor ------------------------------------------------------------
    def get_cursor(self, stream: str) -> int:
        rows = self._read("SELECT cursor FROM cursors WHERE stream = %s", (stream,))
        return int(rows[0][0]) if rows else 0

    def batch_committed(self, c: psycopg.Connection, batch_id: str) -> bool:
        return c.execute("SELECT 1 FROM batches WHERE batch_id = %s", (batch_id,)).fetchone() is not None

    def cursor_in(self, c: psycopg.Connection, stream: str) -> int:
        row = c.execute("SELECT cursor FROM cursors WHERE stream = %s", (stream,)).fetchone()
        return int(row[0]) if row else 0

    def set_cursor(self, c: psycopg.Connection, stream: str, cursor: int, batch_id: str, records: int) -> None:
        at = now_iso()
        c.execute("INSERT INTO cursors (stream, cursor, batch_id, updated_at) VALUES (%s, %s, %s, %s) "
                  "ON CONFLICT (stream) DO UPDATE SET cursor = excluded.cursor, batch_id = excluded.batch_id, "
                  "updated_at = excluded.updated_at", (stream, cursor, batch_id, at))
        c.execute("INSERT INTO batches (batch_id, stream, cursor, records, committed_at) VALUES (%s, %s, %s, %s, %s)",
                  (batch_id, stream, cursor, records, at))

    # --- scenes ------------------------------------------------------------------------
    def scene_id_for(self, c: psycopg.Connection, label: str, batch_id: str) -> str:
        row = c.execute("SELECT id FROM scenes WHERE label = %s", (label,)).fetchone()
        if row:
            return row[0]
        last = c.execute("SELECT value FROM meta WHERE key = 'scene_seq'").fetchone()
        n = int(last[0] if last else 0) + 1
        c.execute("INSERT INTO meta (key, value) VALUES ('scene_seq', %s) "
                  "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(n),))
        sid = f"sc{n:04d}"
        c.execute("INSERT INTO scenes (id, label, batch_id, created_at) VALUES (%s, %s, %s, %s)",
                  (sid, label, batch_id, now_iso()))
        return sid

    def scene_pool(self) -> list[dict[str, str]]:
        return [{"id": r[0], "label": r[1]} for r in self._read("SELECT id, label FROM scenes ORDER BY id")]

    # --- memories ------------------------------------------------------------------------
    def insert_memory(self, c: psycopg.Connection, row: dict[str, Any], prefix: str) -> str:
        """Insert one memory; its id is ``<prefix>-<seq>`` (``f-12``, ``t-3``, ``p-7``)."""
        at = now_iso()
        seq = c.execute("SELECT nextval(pg_get_serial_sequence('memories', 'seq'))").fetchone()[0]
        mid = f"{prefix}-{seq}"
        c.execute(
            "INSERT INTO memories (seq, id, kind, status, namespace, scope, task_id, ttl, type, content, search, tsv, "
            "source, confirmed_by, conflicts_with, record, session_key, batch_id, reason, created_at, updated_at, "
            "reviewed_at, content_key, evidence) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "array_to_tsvector(%s::text[]), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (seq, mid, row["kind"], row["status"], row.get("namespace"), row.get("scope"), row.get("task_id"),
             row.get("ttl"), row.get("type"), row["content"], row["search"], _lexemes(row["search"]),
             json.dumps(row.get("source", []), ensure_ascii=False),
             json.dumps(row.get("confirmed_by", []), ensure_ascii=False),
             json.dumps(row.get("conflicts_with", []), ensure_ascii=False),
             json.dumps(row.get("record", {}), ensure_ascii=False, sort_keys=True),
             row.get("session_key"), row.get("batch_id"), row.get("reason"), at, at, at, row.get("content_key"),
             json.dumps(row.get("evidence") or {}, ensure_ascii=False, sort_keys=True)))
        return mid

    def evidence(self, memory_ids: list[str]) -> dict[str, dict[str, Any]]:
        if not memory_ids:
            return {}
        rows = self._read("SELECT id, evidence FROM memories WHERE id = ANY(%s)", (list(memory_ids),))
        return {r[0]: json.loads(r[1]) if r[1] else {} for r in rows}

    def find_key(self, c: psycopg.Connection, key: str) -> dict[str, Any] | None:
        rows = c.execute(_SELECT + " WHERE m.content_key = %s", (key,)).fetchall()
        return _row(rows[0]) if rows else None

    def update_memory(self, c: psycopg.Connection, memory_id: str, **fields: Any) -> None:
        allowed = {"status", "reason", "confirmed_by", "conflicts_with", "reviewed_at"}
        assert set(fields) <= allowed, fields
        values = [json.dumps(v, ensure_ascii=False) if k in _JSON_COLUMNS else v for k, v in fields.items()]
        sets = ", ".join(f"{k} = %s" for k in fields)
        c.execute(f"UPDATE memories SET {sets}, updated_at = %s WHERE id = %s", (*values, now_iso(), memory_id))

    def log(self, c: psycopg.Connection, event: str, memory_id: str | None, detail: dict[str, Any],
            actor: str | None = None) -> None:
        c.execute("INSERT INTO events (at, memory_id, event, actor, detail) VALUES (%s, %s, %s, %s, %s)",
                  (now_iso(), memory_id, event, actor, json.dumps(detail, ensure_ascii=False, sort_keys=True)))

    def get(self, memory_id: str, c: psycopg.Connection | None = None) -> dict[str, Any] | None:
        rows = self._rows(c, _SELECT + " WHERE m.id = %s", (memory_id,))
        return _row(rows[0]) if rows else None

    def find(self, *, kinds: tuple[str, ...] | None = None, statuses: tuple[str, ...] | None = None,
             scope: str | None = None, task_id: str | None = None, terms: list[str] | None = None,
             limit: int | None = None, c: psycopg.Connection | None = None) -> list[dict[str, Any]]:
        """Filter by kind, status, scope and task FIRST; then rank by ``ts_rank`` when ``terms`` are given."""
        where: list[str] = []
        params: list[Any] = []
        if kinds:
            where.append("m.kind = ANY(%s)")
            params.append(list(kinds))
        if statuses:
            where.append("m.status = ANY(%s)")
            params.append(list(statuses))
        if scope is not None:
            where.append("m.scope = %s")
            params.append(scope)
        if task_id is not None:
            where.append("m.task_id = %s")
            params.append(task_id)
        if terms:
            query = " | ".join(_quote_lexeme(t) for t in terms)
            where.append("m.tsv @@ %s::tsquery")
            sql = ("SELECT " + ", ".join(f"m.{col}" for col in _COLUMNS) + ", ts_rank(m.tsv, %s::tsquery) AS rank "
                   "FROM memories m WHERE " + " AND ".join(where) + " ORDER BY rank DESC, m.seq DESC")
            params = [query, *params, query]
        else:
            sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY m.seq"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_row(r) for r in self._rows(c, sql, params)]

    def tasks_closed(self) -> list[str]:
        return [r[0] for r in self._read("SELECT task_id FROM tasks WHERE state = 'closed' ORDER BY task_id")]

    def mark_task(self, c: psycopg.Connection, task_id: str, state: str) -> None:
        c.execute("INSERT INTO tasks (task_id, state, closed_at) VALUES (%s, %s, %s) ON CONFLICT (task_id) DO UPDATE "
                  "SET state = excluded.state, closed_at = excluded.closed_at",
                  (task_id, state, now_iso() if state == "closed" else None))

    def task_closed(self, c: psycopg.Connection, task_id: str) -> bool:
        return c.execute("SELECT 1 FROM tasks WHERE task_id = %s AND state = 'closed'",
                         (task_id,)).fetchone() is not None

    def events(self, memory_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT seq, at, memory_id, event, actor, detail FROM events"
        params: tuple[Any, ...] = ()
        if memory_id is not None:
            sql, params = sql + " WHERE memory_id = %s", (memory_id,)
        return [{"seq": r[0], "at": r[1], "memory_id": r[2], "event": r[3], "actor": r[4],
                 "detail": json.loads(r[5])} for r in self._read(sql + " ORDER BY seq", params)]

    def counts(self) -> dict[str, int]:
        return {f"{k}/{s}": n for k, s, n in
                self._read("SELECT kind, status, count(*) FROM memories GROUP BY kind, status ORDER BY kind, status")}

    def integrity(self) -> str:
        """Read every table through (the server checks pages itself; a damaged one raises here)."""
        for table in ("meta", "cursors", "batches", "scenes", "tasks", "memories", "events"):
            self._read(f"SELECT count(*) FROM {table}")
        return "ok"


def _lexemes(search: str) -> list[str]:
    return sorted(set(search.split()))


def _quote_lexeme(term: str) -> str:
    """A tsquery operand taken verbatim (no parser): ``'term'`` with quotes and backslashes escaped."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _clean(exc: Exception, url: str | None) -> str:
    """psycopg's message on one line, with any password in it masked."""
    text = " ".join(str(exc).split())
    return redact_url(text.replace(url, redact_url(url)) if url else text)


def _row(r: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(_COLUMNS, r))
    for k in _JSON_COLUMNS:
        out[k] = json.loads(out[k]) if out[k] else []
    if len(r) > len(_COLUMNS):
        out["rank"] = float(r[len(_COLUMNS)])
    return out
