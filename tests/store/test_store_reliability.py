"""Crash and concurrency: real subprocesses, on both backends (SQLite file, real PostgreSQL server).

Nothing here measures time: the writers report where they are ("inside"
the transaction after k rows), the parent kills them there, and the checks
count rows, events and cursors.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from memvet.store import open_store

WRITER = textwrap.dedent("""
    import sys
    from memvet.store import open_store
    path, stream, cursor, n, pause_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    first = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    batch = sys.argv[7] if len(sys.argv) > 7 else "b-1"
    records = [{"content": f"事实 {k}：网关节点 {k} 的默认超时为 {k % 60} 秒。", "kind": "project_fact",
                "scope": "repo:demo", "status": "active", "source": [f"tool:m{k}"], "confirmed_by": [],
                "namespace": "proj-demo-facts"} for k in range(first, first + n)]
    def progress(k):
        if k == pause_at:
            print("inside", flush=True)   # the transaction holds pause_at rows now
            sys.stdin.read()              # blocks until the parent kills us (no timer)
    with open_store(path) as store:
        res = store.commit({"ok": True, "records": records}, stream=stream, cursor=cursor, batch_id=batch,
                           on_progress=progress)
        print("committed" if res.committed else "noop", res.records, res.duplicates, flush=True)
""")


def _writer(path, *args):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), *map(str, args)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _assert_rows_pending(path: str, pause_at: int) -> None:
    """The writer really is inside an open write transaction with rows written (not before it)."""
    if path.startswith("postgresql://"):
        with open_store(path) as probe:
            open_tx = probe.backend.conn.execute(
                "SELECT count(*) FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid "
                "WHERE a.application_name = 'memvet' AND a.state = 'idle in transaction' "
                "AND l.locktype = 'advisory' AND l.granted AND a.backend_xid IS NOT NULL").fetchone()[0]
        assert open_tx == 1       # holds the write lock and has written (it has a transaction id)
    elif pause_at >= 4000:
        # Deep enough that SQLite's page cache spilled: rows really were written to the log.
        assert os.path.getsize(path + "-wal") > 0


def _kill_inside(path: str, cursor: int, n: int, pause_at: int) -> None:
    proc = _writer(path, "s", cursor, n, pause_at)
    try:
        line = proc.stdout.readline().strip()
        if line != "inside":
            proc.kill()  # read stderr only once it has exited: a writer paused mid-commit never closes it
            pytest.fail(f"{line!r}: {proc.stderr.read()}")
        _assert_rows_pending(path, pause_at)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


@pytest.mark.slow
def test_sigkill_mid_commit_leaves_nothing_and_cursor_unmoved(store_url):
    path = store_url
    with open_store(path) as store:
        store.commit({"ok": True, "records": []}, stream="s", cursor=1, batch_id="b-0")
    # Killed again and again, at different depths of the same transaction.
    for pause_at in (1, 37, 400, 4000, 4999):
        _kill_inside(path, 2, 5000, pause_at)
        with open_store(path) as store:
            store.verify()
            assert store.get_cursor("s") == 1
            assert store.stats() == {}
            assert [e["event"] for e in store.events()] == ["cursor"]
    # The batch can be committed again afterwards, in full, exactly once.
    with open_store(path) as store:
        done = _writer(path, "s", 2, 300, -1)
        out, err = done.communicate(timeout=120)
        assert out.split() == ["committed", "300", "0"], err
        assert store.get_cursor("s") == 2 and store.stats() == {"project_fact/active": 300}
        again = _writer(path, "s", 3, 300, -1, 0, "b-2")     # the same records under a new cursor
        out, err = again.communicate(timeout=120)
        assert out.split() == ["committed", "0", "300"], err
        assert store.get_cursor("s") == 3 and store.stats() == {"project_fact/active": 300}


def test_two_processes_committing_the_same_batch_store_it_once(store_url):
    path = store_url
    open_store(path).close()
    procs = [_writer(path, "s", 7, 2000, -1) for _ in range(2)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(out.split()[0])
    assert sorted(outs) == ["committed", "noop"]
    with open_store(path) as store:
        assert store.get_cursor("s") == 7
        assert store.stats() == {"project_fact/active": 2000}
        assert sum(e["event"] == "cursor" for e in store.events()) == 1


@pytest.mark.parametrize("writers", [4])
def test_many_writers_with_overlapping_batches_lose_nothing_and_duplicate_nothing(store_url, writers):
    """Each writer commits its own batch on its own stream; neighbouring batches share half their records."""
    path = store_url
    open_store(path).close()
    n = 400
    procs = [_writer(path, f"w{w}", 1, n, -1, w * n // 2, f"batch-{w}") for w in range(writers)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        results.append(out.split())
    distinct = n // 2 * (writers + 1)              # records 0 .. (writers + 1) * n/2 - 1
    assert all(r[0] == "committed" for r in results)
    assert sum(int(r[1]) for r in results) == distinct
    assert sum(int(r[2]) for r in results) == writers * n - distinct
    with open_store(path) as store:
        assert store.stats() == {"project_fact/active": distinct}
        contents = [m["content"] for m in store.backend.find(kinds=("project_fact",))]
        assert len(contents) == len(set(contents)) == distinct
        assert all(store.get_cursor(f"w{w}") == 1 for w in range(writers))
        assert sum(e["event"] == "duplicate" for e in store.events()) == writers * n - distinct
