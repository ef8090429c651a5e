"""The reference store: commit semantics, recall by kind, the checklist, the seed 004 scenario, the CLI.

Every test that takes ``store`` or ``store_url`` runs twice: on SQLite and on
a real PostgreSQL server (tests/pgserver.py).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

import memvet
from memvet.cli import main
from memvet.config import config_from_dict
from memvet.store import RejectedReportError, StoreError, open_store

CFG = config_from_dict({"routing": {"repo": "demo"}})


def record(content, kind="project_fact", **kw):
    base = {"content": content, "type": "work_fact", "kind": kind, "scope": "repo:demo", "status": "active",
            "source": ["tool:m2"], "confirmed_by": ["user:m1"], "namespace": "proj-demo-facts", "task_id": None}
    if kind == "task_state":
        base.update(namespace=f"task-{kw.get('task_id', 'sc0001')}", scope=None, type="work_task", task_id="sc0001")
    base.update(kw)
    return base


def report(*records, ok=True):
    return {"ok": ok, "records": list(records)}


@pytest.fixture
def store(store_url):
    s = open_store(store_url, config=CFG)
    yield s
    s.close()


def test_commit_writes_records_and_cursor_once(store):
    res = store.commit(report(record("API 前缀统一用 /v2")), stream="s", cursor=3)
    assert (res.committed, res.records) == (True, 1) and store.get_cursor("s") == 3
    again = store.commit(report(record("API 前缀统一用 /v2")), stream="s", cursor=3)
    older = store.commit(report(record("别的")), stream="s", cursor=2)
    same_id = store.commit(report(record("别的")), stream="s", cursor=9, batch_id="s@3")
    assert not again.committed and not older.committed and not same_id.committed
    assert store.get_cursor("s") == 3 and store.get_cursor("never") == 0
    assert store.stats() == {"project_fact/active": 1}


def test_new_scenes_get_ids_and_task_records_move_under_them(store):
    r = record("补齐压测报告", kind="task_state", task_id="demo｜压测", new_scene_name="demo｜压测",
               namespace="task-demo｜压测")
    res = store.commit(report(r), stream="s", cursor=1)
    assert res.scene_ids == {"demo｜压测": "sc0001"}
    assert store.scene_pool() == [{"id": "sc0001", "label": "demo｜压测"}]
    hit = store.recall(kind="task_state", task_id="sc0001", query="压测")[0]
    assert (hit["task_id"], hit["namespace"]) == ("sc0001", "task-sc0001")
    res2 = store.commit(report(record("x", kind="task_state", task_id="demo｜压测", new_scene_name="demo｜压测")),
                        stream="s", cursor=2)
    assert res2.scene_ids == {"demo｜压测": "sc0001"}


def test_rejected_or_malformed_reports_write_nothing(store):
    with pytest.raises(RejectedReportError):
        store.commit(report(record("a"), ok=False), stream="s", cursor=1)
    with pytest.raises(StoreError, match="task_id"):
        store.commit(report(record("a"), record("b", kind="task_state", task_id=None)), stream="s", cursor=1)
    with pytest.raises(StoreError, match="long-term namespace"):
        store.commit(report(record("b", kind="task_state", namespace="proj-demo-facts")), stream="s", cursor=1)
    with pytest.raises(StoreError, match="kind"):
        store.commit(report(record("b", kind="note")), stream="s", cursor=1)
    assert store.stats() == {} and store.get_cursor("s") == 0


def test_store_downgrades_unsourced_long_term_memory(store):
    store.commit(report(record("Redis 是 6.2", source=[], confirmed_by=[])), stream="s", cursor=1)
    assert store.stats() == {"project_fact/pending": 1}


def test_recall_filters_by_kind_first_and_matches_chinese_in_any_order(store):
    store.commit(report(
        record("网关默认超时为 10 秒。"),
        record("网关超时临时改为 30 秒，明天回滚。", kind="task_state", task_id="sc0001"),
        record("日志里不要打印完整手机号。", kind="code_preference", namespace="proj-demo-prefs"),
        record("The billing service retries webhooks five times.")), stream="s", cursor=1)
    facts = store.recall(kind="project_fact", query="超时默认是多少")
    assert [m["content"] for m in facts] == ["网关默认超时为 10 秒。"]
    assert store.recall(kind="task_state", query="超时") == []          # not in a task
    assert [m["kind"] for m in store.recall(kind="task_state", task_id="sc0001", query="超时")] == ["task_state"]
    assert [m["kind"] for m in store.recall(query="代码风格：日志里手机号怎么处理")] == ["code_preference"]
    assert [m["content"] for m in store.recall(query="how often are webhooks retried")] == [
        "The billing service retries webhooks five times."]
    ranked = store.recall(kind="project_fact", query="网关 超时 默认", limit=1)
    assert ranked[0]["content"] == "网关默认超时为 10 秒。"


def test_close_task_and_expire(store):
    store.commit(report(record("临时开着 feature flag", kind="task_state", task_id="sc0007"),
                        record("日志不打完整手机号", kind="code_preference", namespace="proj-demo-prefs")),
                 stream="s", cursor=1)
    assert store.close_task("sc0007") == 1
    assert store.recall(kind="task_state", task_id="sc0007", query="feature flag") == []
    # A late record of a closed task is archived on arrival; expire finds nothing left.
    store.commit(report(record("还有一条", kind="task_state", task_id="sc0007")), stream="s", cursor=2)
    assert store.stats()["task_state/archived"] == 2
    # "Today" is the day the store stamped the preference (its own clock, at commit), not a clock read here.
    [pref] = store.recall(kind="code_preference", query="手机号")
    stamped = datetime.strptime(pref["reviewed_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    later = stamped + timedelta(days=91)
    listed = store.expire(now=later, dry_run=True)
    assert [m["kind"] for m in listed["review_due"]] == ["code_preference"] and listed["archived"] == []
    assert store.stats()["code_preference/active"] == 1
    store.expire(now=later)
    assert store.stats()["code_preference/pending"] == 1
    assert store.expire(now=stamped)["review_due"] == []


def test_audit_downgrades_long_term_without_provenance(store_url):
    path = store_url
    with open_store(path) as s:
        s.commit(report(record("有来源的事实")), stream="s", cursor=1)
        mid = s.commit(report(record("无来源的事实")), stream="s", cursor=2).memory_ids[0]
        # A store written by an older pipeline without the check: simulate by editing the row.
        s.backend.conn.execute(f"UPDATE memories SET source = '[]', confirmed_by = '[]' WHERE id = '{mid}'")
    with open_store(path) as s:
        assert [m["id"] for m in s.audit(fix=False)] == [mid] and s.get(mid)["status"] == "active"
        assert [m["id"] for m in s.audit()] == [mid] and s.get(mid)["status"] == "pending"


def test_events_are_append_only(store):
    mid = store.commit(report(record("API 前缀统一用 /v2")), stream="s", cursor=1).memory_ids[0]
    store.invalidate(mid, reason="superseded", by="bob")
    assert [e["event"] for e in store.events(mid)] == ["commit", "invalidate"]
    with pytest.raises(Exception, match="append-only"):   # sqlite3.DatabaseError / psycopg RaiseException
        store.backend.conn.execute("DELETE FROM events")
    with pytest.raises(Exception, match="append-only"):
        store.backend.conn.execute("UPDATE events SET event = 'x'")
    assert [e["event"] for e in store.events(mid)] == ["commit", "invalidate"]


def test_foreign_or_damaged_files_are_refused_never_reset(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a SQLite database"):
        open_store(junk)
    assert junk.read_bytes() == b"not a database at all" * 100
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE users (id INTEGER)")
    with pytest.raises(StoreError, match="another application"):
        open_store(foreign)
    with sqlite3.connect(foreign) as c:
        assert [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")] == ["users"]
    damaged = tmp_path / "damaged.db"
    with open_store(damaged) as s:
        s.commit(report(*[record(f"事实 {n} " + "长文本" * 200) for n in range(200)]), stream="s", cursor=1)
    data = bytearray(damaged.read_bytes())
    data[4096 * 3:4096 * 12] = b"\xff" * (4096 * 9)   # garble pages after the header page
    damaged.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="damaged"):
        with open_store(damaged) as s:
            s.recall(kind="project_fact", query="事实")
            s.verify()


# --- seed 004's scenario, end to end ------------------------------------------------

SESSION_1 = {"messages": [
    {"id": "m1", "sessionKey": "s-1", "role": "user", "content": "先把网关超时改成 30 秒，明天回滚，这只是临时调整",
     "timestamp": 1795831200000},
    {"id": "m2", "sessionKey": "s-1", "role": "assistant", "content": "好的，已把网关超时改为 30 秒。",
     "timestamp": 1795831260000}], "scenePool": [], "knownProjects": ["demo"]}
WRONG_ANSWER = json.dumps([{"new_scene_name": "demo｜网关超时", "new_scene_reason": "池中没有网关超时议题。",
                            "message_ids": ["m1", "m2"],
                            "memories": [{"content": "网关默认超时为 30 秒。", "type": "work_fact", "priority": 82,
                                          "source_message_ids": ["m1", "m2"]}]}], ensure_ascii=False)


def test_seed_004_scenario_temporary_change_stays_in_its_task(store_url):
    with open_store(store_url, config=CFG) as store:
        report_ = memvet.validate(WRONG_ANSWER, SESSION_1, config=CFG, store=store)
        assert report_.ok and "W005" in report_.codes()
        res = store.commit(report_, stream="s-1", cursor=2)
        task = res.scene_ids["demo｜网关超时"]
    with open_store(store_url, config=CFG) as new_session:
        assert all("30" not in m["content"] for m in new_session.recall(kind="project_fact", query="默认超时"))
        assert new_session.crosscheck("这个项目的默认超时是多少", "当前任务进度")["task"]["answers"] == []
        mine = new_session.recall(kind="task_state", task_id=task, query="默认超时")
        assert [m["content"] for m in mine] == ["网关默认超时为 30 秒。"]


def test_seed_004_correction_path(store_url):
    # Without W005 the wrong fact reaches long-term memory...
    unguarded = config_from_dict({"routing": {"repo": "demo"}, "ignore": ["W005"]})
    with open_store(store_url, config=CFG) as store:
        store.commit(memvet.validate(WRONG_ANSWER, SESSION_1, config=unguarded), stream="s-1", cursor=2)
        wrong = store.recall(kind="project_fact", query="默认超时")
        assert [m["content"] for m in wrong] == ["网关默认超时为 30 秒。"]
        # ...locate its source, invalidate it, back-fill the true default with a source, ask again.
        assert wrong[0]["confirmed_by"] == ["user:m1"]
        store.invalidate(wrong[0]["id"], reason="temporary change until the rollback, not a default", by="alice")
        fixed = store.write("project_fact", "网关默认超时为 10 秒。", source=["commit:9c2d7b1"], actor="alice")
        answer = store.recall(kind="project_fact", query="默认超时")
        assert [m["id"] for m in answer] == [fixed] and answer[0]["source"] == ["commit:9c2d7b1"]
        assert [e["event"] for e in store.events(wrong[0]["id"])] == ["commit", "invalidate"]


# --- CLI -----------------------------------------------------------------------------

def test_check_commit_and_store_commands(tmp_path, capsys, store_url):
    ctx, out, db = tmp_path / "ctx.json", tmp_path / "out.json", store_url
    ctx.write_text(json.dumps(SESSION_1, ensure_ascii=False), "utf-8")
    out.write_text(WRONG_ANSWER, "utf-8")
    assert main(["check", str(out), "--context", str(ctx), "--commit", "--store", db]) == 0
    assert "committed 1 record" in capsys.readouterr().err
    assert main(["check", str(out), "--context", str(ctx), "--commit", "--store", db]) == 0
    assert "nothing written" in capsys.readouterr().err
    assert main(["store", "recall", "默认超时", "--store", db, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["store", "recall", "默认超时", "--kind", "task_state", "--task", "sc0001", "--store", db]) == 0
    assert "网关默认超时为 30 秒" in capsys.readouterr().out
    assert main(["store", "crosscheck", "--project", "默认超时是多少", "--task", "任务进度", "--store", db]) == 0
    text = capsys.readouterr().out
    assert "(no project fact)" in text and "(not in the current task)" in text
    assert main(["store", "add", "--kind", "project_fact", "--content", "网关默认超时为 10 秒。", "--store", db]) == 0
    assert "pending" in capsys.readouterr().out      # no source, no confirmation
    assert main(["store", "review", "--store", db]) == 0
    assert "[pending]" in capsys.readouterr().out
    assert main(["store", "review", "confirm", "f-2", "--by", "alice", "--store", db]) == 0
    assert main(["store", "recall", "默认超时", "--store", db, "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["store", "close-task", "sc0001", "--store", db]) == 0
    assert "1 task state(s) archived" in capsys.readouterr().out
    for cmd in (["expire", "--dry-run"], ["audit", "--report-only"], ["events"], ["stats"]):
        assert main(["store", *cmd, "--store", db]) == 0
    assert main(["store", "review", "invalidate", "nope", "--reason", "x", "--store", db]) == 2


def test_check_commit_refuses_a_rejected_report(tmp_path, capsys, store_url):
    ctx, out, db = tmp_path / "ctx.json", tmp_path / "out.json", store_url
    ctx.write_text(json.dumps(SESSION_1, ensure_ascii=False), "utf-8")
    bad = json.loads(WRONG_ANSWER)
    bad[0]["memories"][0]["source_message_ids"] = ["m9"]        # an id of no message: I002 / S rejects
    out.write_text(json.dumps(bad, ensure_ascii=False), "utf-8")
    code = main(["check", str(out), "--context", str(ctx), "--commit", "--store", str(db)])
    report = memvet.validate(json.dumps(bad), SESSION_1)
    assert code == (0 if report.ok else 1)
    if not report.ok:
        assert "not committed" in capsys.readouterr().err
        with open_store(db) as s:
            assert s.stats() == {} and s.get_cursor("cli") == 0


def test_docstring_examples_run():
    import doctest

    import memvet.routing
    import memvet.store
    import memvet.store.core

    for module in (memvet.store, memvet.store.core, memvet.routing):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
