"""Store failures are StoreErrors that say the real cause (exit 2), and read-only commands create nothing.

Also: versioned migrations, newer or foreign schemas refused (never reset),
content identity, restore, and store paths relative to their config file.
The full-disk and read-only-filesystem cases mount a small tmpfs (root,
as in CI); a real full disk, not a simulated error.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from memvet.cli import main
from memvet.store import StoreError, open_store
from test_store import CFG, SESSION_1, WRONG_ANSWER, record, report

READ_ONLY = (["stats"], ["recall", "超时"], ["review"], ["events"], ["expire", "--dry-run"],
             ["audit", "--report-only"], ["crosscheck", "--project", "超时", "--task", "进度"])


def _answer(tmp_path: Path) -> tuple[str, str]:
    ctx, out = tmp_path / "ctx.json", tmp_path / "out.json"
    ctx.write_text(json.dumps(SESSION_1, ensure_ascii=False), "utf-8")
    out.write_text(WRONG_ANSWER, "utf-8")
    return str(out), str(ctx)


# --- read-only commands never create a store ------------------------------------------

@pytest.mark.parametrize("cmd", READ_ONLY, ids=lambda c: c[0])
def test_read_only_commands_never_create_a_sqlite_store(tmp_path, capsys, cmd):
    target = tmp_path / "nonexistent" / "dir" / "x.db"
    assert main(["store", *cmd, "--store", str(target)]) == 2
    assert "no store here" in capsys.readouterr().err
    assert not (tmp_path / "nonexistent").exists()


def test_read_only_commands_never_create_a_postgres_store(pg_url, capsys):
    for cmd in READ_ONLY:
        assert main(["store", *cmd, "--store", pg_url]) == 2, cmd
        assert "no memvet store in this database" in capsys.readouterr().err
    import psycopg

    with psycopg.connect(pg_url) as c:
        assert c.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'memvet'").fetchone()[0] == 0


def test_a_postgres_url_never_becomes_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = f"postgresql://alice:S3cr3t-pw@/nowhere?host={tmp_path / 'no-socket'}&port=5999"
    out, ctx = _answer(tmp_path)
    assert main(["store", "stats", "--store", url]) == 2
    assert main(["check", out, "--context", ctx, "--commit", "--store", url]) == 2
    err = capsys.readouterr().err
    assert "cannot connect to PostgreSQL" in err and "S3cr3t-pw" not in err and "alice:***@" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ctx.json", "out.json"]   # no postgresql: folder


def test_an_unknown_url_scheme_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["store", "add", "--kind", "project_fact", "--content", "x", "--store", "mysql://h/db"]) == 2
    assert "unsupported store URL scheme 'mysql'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# --- operating-system failures: exit 2 with the real cause ---------------------------------

def test_a_directory_as_the_store_is_exit_2(tmp_path, capsys):
    out, ctx = _answer(tmp_path)
    folder = tmp_path / "storedir"
    folder.mkdir()
    assert main(["check", out, "--context", ctx, "--commit", "--store", str(folder)]) == 2
    assert main(["store", "stats", "--store", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("is a directory, not a store file") == 2 and "Traceback" not in err
    with pytest.raises(StoreError, match="is a directory"):
        open_store(folder)


def test_a_path_below_a_file_is_exit_2(tmp_path, capsys):
    out, ctx = _answer(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["check", out, "--context", ctx, "--commit", "--store", str(blocker / "sub" / "m.db")]) == 2
    err = capsys.readouterr().err
    assert "Not a directory" in err and "ENOTDIR" in err


@pytest.fixture
def small_mount(tmp_path):
    """A real tiny filesystem (tmpfs); unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    point = tmp_path / "mnt"
    point.mkdir()
    mounted = []

    def mount(options: str) -> Path:
        if mounted:
            subprocess.run(["umount", str(point)], check=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], check=True)
        mounted.append(options)
        return point

    yield mount
    if mounted:
        subprocess.run(["umount", str(point)], check=True)


def test_a_full_disk_is_a_store_error_and_keeps_what_was_committed(small_mount, tmp_path, capsys):
    point = small_mount("size=640k")
    path = point / "m.db"
    big = "很长的一条记录，" * 400
    with open_store(path) as store:
        store.commit(report(record("网关默认超时为 10 秒。")), stream="s", cursor=1)
        with pytest.raises(StoreError, match="disk is full") as err:
            for n in range(2, 200):
                store.commit(report(*[record(f"{n}-{k} {big}") for k in range(5)]), stream="s", cursor=n)
        assert "OperationalError" not in str(err.value) and str(path) in str(err.value)
        full_at = store.get_cursor("s")
    with open_store(path) as store:      # still a good store: every completed commit, nothing half-done
        store.verify()
        assert store.get_cursor("s") == full_at
        assert store.stats()["project_fact/active"] == 1 + 5 * (full_at - 1)
        assert store.recall(kind="project_fact", query="默认超时")[0]["content"] == "网关默认超时为 10 秒。"
    # The CLI says it as exit 2, never a traceback.
    out, ctx = _answer(tmp_path)
    big_answer = json.loads(WRONG_ANSWER)
    big_answer[0]["memories"][0]["content"] = "网关的部署说明：" + "内容" * 30000
    Path(out).write_text(json.dumps(big_answer, ensure_ascii=False), "utf-8")
    code = main(["check", out, "--context", ctx, "--commit", "--store", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "disk is full" in err and "Traceback" not in err and "OperationalError" not in err


def test_a_read_only_filesystem_is_exit_2(small_mount, tmp_path, capsys):
    point = small_mount("size=1m,ro")
    out, ctx = _answer(tmp_path)
    assert main(["check", out, "--context", ctx, "--commit", "--store", str(point / "m.db")]) == 2
    assert main(["check", out, "--context", ctx, "--commit", "--store", str(point / "sub" / "m.db")]) == 2
    err = capsys.readouterr().err
    assert "not writable" in err and "Read-only file system" in err and "Traceback" not in err


# --- schemas: migrations, newer and foreign schemas ------------------------------------------

def _make_v1_store(url: str) -> None:
    """A store as memvet 0.1 (schema version 1) wrote it, with a duplicate the old version allowed."""
    rows = [("f-1", "网关默认超时为 10 秒。"), ("f-2", "网关默认超时为 10 秒。"), ("f-3", "API 前缀统一用 /v2")]
    if url.startswith("postgresql://"):
        import psycopg

        from memvet.store.postgres import MIGRATIONS

        with psycopg.connect(url, autocommit=True) as c:
            c.execute("CREATE SCHEMA memvet")
            c.execute("SET search_path TO memvet")
            c.execute(MIGRATIONS[1][0])
            c.execute("INSERT INTO meta VALUES ('app', 'memvet-store'), ('schema_version', '1')")
            for n, (mid, text) in enumerate(rows, 1):
                c.execute("INSERT INTO memories (seq, id, kind, status, namespace, content, search, tsv, source, "
                          "confirmed_by, conflicts_with, record, created_at, updated_at, reviewed_at) VALUES "
                          "(%s, %s, 'project_fact', 'active', 'proj-demo-facts', %s, '', ''::tsvector, '[]', "
                          "'[\"user:m1\"]', '[]', '{}', 't', 't', 't')", (n, mid, text))
            c.execute("SELECT setval(pg_get_serial_sequence('memories', 'seq'), 3)")
        return
    from memvet.store.sqlite import SCHEMA, _statements

    Path(url).parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(url) as c:
        for statement in _statements(SCHEMA):
            c.execute(statement)
        c.executemany("INSERT INTO meta VALUES (?, ?)", [("app", "memvet-store"), ("schema_version", "1")])
        for mid, text in rows:
            c.execute("INSERT INTO memories (id, kind, status, namespace, content, search, source, confirmed_by, "
                      "conflicts_with, record, created_at, updated_at, reviewed_at) VALUES "
                      "(?, 'project_fact', 'active', 'proj-demo-facts', ?, '', '[]', '[\"user:m1\"]', '[]', '{}', "
                      "'t', 't', 't')", (mid, text))


def test_an_old_schema_is_upgraded_in_place_keeping_every_row(store_url):
    _make_v1_store(store_url)
    with open_store(store_url) as store:
        assert store.stats() == {"project_fact/active": 3}          # the old duplicate is kept, not deleted
        meta = dict(store.backend.conn.execute("SELECT key, value FROM meta").fetchall())
        assert meta["schema_version"] == "2" and "migrated_to_2" in meta
        # From now on content identity holds: the same text again is not stored.
        res = store.commit(report(record("API 前缀统一用 /v2"), record("新的事实")), stream="s", cursor=1)
        assert (res.records, res.duplicates) == (1, 1)
    with open_store(store_url) as store:                           # opening again migrates nothing
        assert store.stats() == {"project_fact/active": 4}


def test_a_newer_schema_is_refused_and_left_alone(store_url):
    with open_store(store_url) as store:
        store.commit(report(record("API 前缀统一用 /v2")), stream="s", cursor=1)
        store.backend.conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        open_store(store_url)
    with pytest.raises(StoreError, match="schema version 99"):
        open_store(store_url, create=False)
    if store_url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store_url) as c:
            assert c.execute("SELECT count(*) FROM memvet.memories").fetchone()[0] == 1
    else:
        with sqlite3.connect(store_url) as c:
            assert c.execute("SELECT count(*) FROM memories").fetchone()[0] == 1


def test_a_foreign_postgres_schema_is_refused_and_other_tables_untouched(pg_url):
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("CREATE TABLE public.users (id INTEGER)")       # another application in the same database
    with open_store(pg_url) as store:                              # fine: memvet keeps to its own schema
        store.commit(report(record("x")), stream="s", cursor=1)
    with psycopg.connect(pg_url, autocommit=True) as c:
        assert c.execute("SELECT count(*) FROM public.users").fetchone()[0] == 0
        c.execute("DROP SCHEMA memvet CASCADE")
        c.execute("CREATE SCHEMA memvet")
        c.execute("CREATE TABLE memvet.orders (id INTEGER)")
    with pytest.raises(StoreError, match="another application"):
        open_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as c:
        tables = c.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'memvet'")
        assert [r[0] for r in tables] == ["orders"]


# --- content identity, restore ------------------------------------------------------------------

def test_the_same_records_under_a_new_cursor_are_not_stored_twice(store_url):
    with open_store(store_url, config=CFG) as store:
        batch = report(record("网关默认超时为 10 秒。"), record("API 前缀统一用 /v2"))
        assert store.commit(batch, stream="s", cursor=1).records == 2
        again = store.commit(batch, stream="s", cursor=2)
        assert (again.committed, again.records, again.duplicates) == (True, 0, 2)
        assert store.get_cursor("s") == 2
        other_ns = store.commit(report(record("API 前缀统一用 /v2", namespace="proj-other-facts")),
                                stream="s", cursor=3)
        assert other_ns.records == 1                        # identity is per namespace
        assert store.stats() == {"project_fact/active": 3}
        assert [e["event"] for e in store.events("f-1")] == ["commit", "duplicate"]
        with pytest.raises(StoreError, match="already stored as f-1"):
            store.write("project_fact", "网关默认超时为 10 秒。", source=["commit:1"])


def test_restore_brings_an_invalid_memory_back_to_review(store_url):
    with open_store(store_url) as store:
        mid = store.commit(report(record("Redis 是 6.2")), stream="s", cursor=1).memory_ids[0]
        with pytest.raises(StoreError, match="only an invalid memory"):
            store.restore(mid, by="alice")
        store.invalidate(mid, reason="wrong version", by="bob")
        assert store.restore(mid, by="alice")["status"] == "pending"
        assert [(e["event"], e["actor"]) for e in store.events(mid)] == [
            ("commit", None), ("invalidate", "bob"), ("restore", "alice")]
        assert [m["id"] for m in store.review()] == [mid]


# --- config: url, and paths relative to the config file --------------------------------------

def test_store_path_in_a_config_file_is_relative_to_that_file(tmp_path, monkeypatch, capsys):
    project = tmp_path / "project"
    project.mkdir()
    (project / "memvet.toml").write_text('[store]\npath = "data/memory.db"\n', "utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out, ctx = _answer(tmp_path)
    assert main(["check", out, "--context", ctx, "--commit", "--config", str(project / "memvet.toml")]) == 0
    assert (project / "data" / "memory.db").is_file() and list(elsewhere.iterdir()) == []
    monkeypatch.chdir(project)      # discovered, not named: the same file
    capsys.readouterr()
    assert main(["store", "stats", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"task_state/active": 1}


def test_store_url_in_a_config_file_picks_postgres(tmp_path, pg_url, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text(f'[tool.memvet.store]\nurl = "{pg_url}"\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    out, ctx = _answer(tmp_path)
    assert main(["check", out, "--context", ctx, "--commit"]) == 0
    assert not (tmp_path / ".memvet").exists()
    with open_store(pg_url, create=False) as store:
        assert store.stats() == {"task_state/active": 1}


# --- PostgreSQL: a lost connection, a writer that waits too long ---------------------------------

def test_a_lost_postgres_connection_is_a_store_error(pg_url):
    import psycopg

    with open_store(pg_url) as store:
        pid = store.backend.conn.info.backend_pid
        with psycopg.connect(pg_url, autocommit=True) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0]
        with pytest.raises(StoreError, match="lost the connection") as err:
            store.stats()
        assert "memvet@" in str(err.value)


def test_a_postgres_writer_waiting_past_busy_timeout_gets_a_store_error(pg_url):
    import psycopg

    from memvet.config import config_from_dict
    from memvet.store.postgres import WRITE_LOCK

    impatient = config_from_dict({"store": {"busy_timeout": 0.2}})
    with open_store(pg_url, config=impatient) as store:
        with psycopg.connect(pg_url) as other:           # another writer, mid-transaction, holding the lock
            other.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            with pytest.raises(StoreError, match="write lock"):
                store.commit(report(record("x")), stream="s", cursor=1)
        assert store.get_cursor("s") == 0                 # the other writer is gone: nothing was half-written
        assert store.commit(report(record("x")), stream="s", cursor=1).records == 1
