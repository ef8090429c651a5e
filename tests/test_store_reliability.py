"""Crash and concurrency: real subprocesses, bounded in time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from memvet.store import open_store

WRITER = textwrap.dedent("""
    import sys, time
    from memvet.store import open_store
    path, stream, cursor, n, pause_at = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    records = [{"content": f"事实 {k}：网关节点 {k} 的默认超时为 {k % 60} 秒。", "kind": "project_fact",
                "scope": "repo:demo", "status": "active", "source": [f"tool:m{k}"], "confirmed_by": [],
                "namespace": "proj-demo-facts"} for k in range(n)]
    def progress(k):
        if k == pause_at:
            print("inside", flush=True)   # the transaction holds pause_at rows now
            time.sleep(60)                # the parent kills us here
    with open_store(path) as store:
        res = store.commit({"ok": True, "records": records}, stream=stream, cursor=cursor, batch_id="b-1",
                           on_progress=progress)
        print("committed" if res.committed else "noop", res.records, flush=True)
""")


def _writer(path, *args):
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigkill_mid_commit_leaves_nothing_and_cursor_unmoved(tmp_path):
    path = tmp_path / "m.db"
    with open_store(path) as store:
        store.commit({"ok": True, "records": []}, stream="s", cursor=1, batch_id="b-0")
    proc = _writer(path, "s", 2, 5000, 4000)
    try:
        line = proc.stdout.readline().strip()
        assert line == "inside", proc.stderr.read()
        assert os.path.getsize(str(path) + "-wal") > 0   # rows really were written to the log
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    with open_store(path) as store:
        store.verify()
        assert store.get_cursor("s") == 1
        assert store.stats() == {}
        assert [e["event"] for e in store.events()] == ["cursor"]
        # The batch can be committed again afterwards, in full.
        done = _writer(path, "s", 2, 300, -1)
        out, err = done.communicate(timeout=60)
        assert out.split() == ["committed", "300"], err
        assert store.get_cursor("s") == 2 and store.stats() == {"project_fact/active": 300}


def test_two_processes_committing_the_same_batch_store_it_once(tmp_path):
    path = tmp_path / "m.db"
    open_store(path).close()
    procs = [_writer(path, "s", 7, 2000, -1) for _ in range(2)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        outs.append(out.split()[0])
    assert sorted(outs) == ["committed", "noop"]
    with open_store(path) as store:
        assert store.get_cursor("s") == 7
        assert store.stats() == {"project_fact/active": 2000}
        assert sum(e["event"] == "cursor" for e in store.events()) == 1
