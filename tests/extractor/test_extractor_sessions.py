"""``memvet run``: sessions files, windows, cursors, pool carry-forward, concurrency."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from loopback import LOOP_CONFIG, LoopbackServer, MemoryStore, Reply, dumps, settings_for
from memvet import ContextError
from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.extractor.sessions import Progress, read_messages, run_sessions, time_order, windows

ENGINE = Engine(config_from_dict(LOOP_CONFIG))
NEW_BLOCK = re.compile(r'<message id="([^"]+)" sessionKey="([^"]+)"')


def message(mid, session, ts=None, role="user", content=None):
    return {"id": mid, "sessionKey": session, "role": role, "content": content or f"message {mid}",
            "timestamp": ts, "recordedAt": 1_900_000_000_000}


def write_jsonl(path, messages):
    path.write_text("\n".join(json.dumps(m) for m in messages) + "\n", "utf-8")
    return path


@pytest.fixture
def sessions_file(tmp_path):
    base = 1_780_000_000_000
    msgs = [message(f"a{i}", "s-a", base + i * 60_000 if i % 2 else None) for i in range(1, 6)]
    msgs += [message(f"b{i}", "s-b", base + i) for i in range(1, 3)]
    return write_jsonl(tmp_path / "sessions.jsonl", msgs)


def user_text(body):
    return body["messages"][-1]["content"]


def parts(body):
    """Pool, background and new-message parts of an extraction request's data block."""
    pool_part, rest = user_text(body).split("【已知项目】", 1)
    background, new = rest.split("【新消息】", 1)
    return pool_part, background, new


def echo(reuse=True, bad_ids=()):
    """A model stand-in: one scene per batch, reusing the newest pool scene when there is one."""
    def respond(body):
        text = user_text(body)
        if "【需要修正的情境】" in text:  # a repair: the ids come from its message index
            pool_part = text.split("【已知项目】")[0]
            index = text.split("【可用的新消息】")[1].split("【相关消息原文】")[0]
            ids = re.findall(r"^(\S+) \| ", index, re.M)
        else:
            pool_part, _, new = parts(body)
            ids = [i for i, _ in NEW_BLOCK.findall(new)]
        pool = re.findall(r"^(sc\d+) \| (.+)$", pool_part, re.M)
        if ids and ids[0] in bad_ids:
            scene = {"scene_id": "sc4242"}  # invented, every time
        elif reuse and pool:
            scene = {"scene_id": pool[-1][0]}
        else:
            scene = {"new_scene_name": f"demo｜topic {ids[0]}", "new_scene_reason": "nothing in the pool fits"}
        memory = {"content": f"a fact first said in {ids[0]}", "type": "work_fact", "priority": 80,
                  "source_message_ids": [ids[0]], "metadata": {}}
        return Reply(dumps([{**scene, "message_ids": ids, "memories": [memory]}]))
    return respond


def run(path, store, responder, **options):
    values = {"window": 2, "background": 1, "concurrency": 2, "engine": ENGINE}
    values.update(options)
    with LoopbackServer(responder) as server:
        summary = asyncio.run(run_sessions(read_messages(path), settings=settings_for(server, structured="off"),
                                           store=store, **values))
        return summary, server


# --- reading -----------------------------------------------------------------------------

def test_messages_are_grouped_by_session_in_time_order(tmp_path):
    path = write_jsonl(tmp_path / "m.jsonl", [
        message("x2", "s", 2_000_000_000_000), message("y1", "t", None), message("x3", "s", None),
        message("x1", "s", 1_900_000_000_000), message("x0", "s", None),
    ])
    sessions = read_messages(path)
    assert list(sessions) == ["s", "t"]
    # x0 has no time: it stays after x1, the last timed message before it in the file;
    # x3 has no time and follows x2.
    assert [m.id for m in sessions["s"]] == ["x1", "x0", "x2", "x3"]


def test_untimed_session_keeps_file_order():
    msgs = [message(f"m{i}", "s") for i in range(5)]
    from memvet.context import Message
    assert [m.id for m in time_order([Message.model_validate(m) for m in reversed(msgs)])] == \
        ["m4", "m3", "m2", "m1", "m0"]


@pytest.mark.parametrize("line, where, needle", [
    ("{not json", ":2", "line is not JSON"),
    ('{"id": "m9", "sessionKey": "s", "role": "robot", "content": "x"}', ":2", "role"),
    ('{"id": "m1", "sessionKey": "s", "role": "user", "content": "again"}', ":2", "appears twice"),
])
def test_bad_sessions_file_names_file_and_line(tmp_path, line, where, needle):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(message("m1", "s")) + "\n" + line + "\n", "utf-8")
    with pytest.raises(ContextError) as info:
        read_messages(path)
    assert f"{path}{where}" in str(info.value) and needle in str(info.value)


def test_windows_cut_new_and_background(sessions_file):
    msgs = read_messages(sessions_file)["s-a"]
    cut = list(windows("s-a", msgs, 1, window=2, background=3))
    assert [([m.id for m in w.new], [m.id for m in w.background]) for w in cut] == [
        (["a2", "a3"], ["a1"]), (["a4", "a5"], ["a1", "a2", "a3"])]
    assert [(w.start, w.end, w.batch_id) for w in cut] == [(1, 3, "s-a@1-3"), (3, 5, "s-a@3-5")]


# --- running ---------------------------------------------------------------------------------

def test_run_commits_every_batch_with_cursors_and_carries_the_pool(sessions_file):
    store = MemoryStore()
    summary, server = run(sessions_file, store, echo())
    assert summary.exit_code == 0
    assert {o.session: (o.status, o.cursor, o.committed, o.records) for o in summary.outcomes} == {
        "s-a": ("done", 5, 3, 3), "s-b": ("done", 2, 1, 1)}
    assert sorted(store.commits) == [("s-a", 2, "s-a@0-2"), ("s-a", 4, "s-a@2-4"), ("s-a", 5, "s-a@4-5"),
                                     ("s-b", 2, "s-b@0-2")]
    a_requests = [b for b in server.requests if 'sessionKey="s-a"' in parts(b)[2]]
    pool_of_second = parts(a_requests[1])[0]
    # the scene the first batch created is in the pool of the next batch, and is reused
    first_scene = next(p for p in store.pool if p["label"].endswith("topic a1") or p["label"].endswith("topic b1"))
    assert f"{first_scene['id']} | {first_scene['label']}" in pool_of_second
    assert '<message id="a2"' in parts(a_requests[1])[1]          # background: the message before the window
    assert any(r.get("scene_id") for r in store.records)            # later batches reused a pool scene


def test_rerun_resumes_and_never_commits_twice(sessions_file):
    store = MemoryStore()
    run(sessions_file, store, echo())
    committed = list(store.commits)
    summary, server = run(sessions_file, store, echo())
    assert server.requests == []
    assert [o.status for o in summary.outcomes] == ["up-to-date", "up-to-date"]
    assert store.commits == committed


def test_rejected_batch_stops_its_session_and_the_next_run_resumes_there(sessions_file):
    store = MemoryStore()
    summary, _ = run(sessions_file, store, echo(bad_ids={"a3"}))
    outcome = {o.session: o for o in summary.outcomes}
    assert outcome["s-a"].status == "stopped" and outcome["s-a"].cursor == 2
    assert "s-a@2-4 rejected (max_repairs)" in outcome["s-a"].detail
    assert outcome["s-b"].status == "done"
    assert summary.exit_code == 1
    assert store.cursors == {"s-a": 2, "s-b": 2}

    summary, server = run(sessions_file, store, echo())
    asked = sorted(NEW_BLOCK.findall(parts(b)[2])[0][0] for b in server.requests)
    assert asked == ["a3", "a5"]                                   # only what was left
    assert store.cursors == {"s-a": 5, "s-b": 2}
    assert len(store.batches) == len(set(store.batches)) == 4


def test_skip_moves_past_a_rejected_batch_storing_nothing_from_it(sessions_file):
    store = MemoryStore()
    summary, _ = run(sessions_file, store, echo(bad_ids={"a3"}), on_reject="skip")
    a = next(o for o in summary.outcomes if o.session == "s-a")
    assert (a.status, a.cursor, a.committed, a.skipped, a.records) == ("done", 5, 2, 1, 2)
    assert not any("a3" in r["source_message_ids"] for r in store.records)


def test_sessions_run_concurrently_up_to_the_limit(tmp_path):
    msgs = [message(f"{s}1", s, 1_780_000_000_000) for s in ("p", "q", "r")]
    path = write_jsonl(tmp_path / "three.jsonl", msgs)

    def slow(body):
        reply = echo(reuse=False)(body)
        reply.delay = 0.3
        return reply

    _, server = run(path, MemoryStore(), slow, concurrency=3)
    assert server.max_in_flight == 3
    _, server = run(path, MemoryStore(), slow, concurrency=1)
    assert server.max_in_flight == 1


def test_endpoint_failure_stops_only_its_session(sessions_file):
    def refuse_b(body):
        if 'sessionKey="s-b"' in parts(body)[2]:
            return Reply(status=401)
        return echo()(body)

    summary, _ = run(sessions_file, MemoryStore(), refuse_b)
    outcome = {o.session: o for o in summary.outcomes}
    assert outcome["s-a"].status == "done"
    assert outcome["s-b"].status == "error" and "HTTP 401" in outcome["s-b"].detail
    assert summary.exit_code == 2


def test_summary_table_and_json(sessions_file):
    summary, _ = run(sessions_file, MemoryStore(), echo())
    table = summary.table()
    lines = table.splitlines()
    assert lines[0].split() == ["session", "msgs", "cursor", "batches", "committed", "skipped", "records",
                                "repairs", "tokens", "status"]
    assert lines[2].split()[:7] == ["s-a", "5", "5", "3", "3", "0", "3"]
    assert lines[-1].split()[:6] == ["total", "7", "4", "4", "0", "4"]
    assert summary.to_dict()["totals"]["committed"] == 4


def test_progress_bar_draws_on_a_terminal(capsys):
    import io

    stream = io.StringIO()
    bar = Progress(4, stream=stream, enabled=True, width=8)
    bar.advance(100, "s-a")
    bar.advance(50, "s-b")
    bar.close()
    out = stream.getvalue()
    assert "[####....] 2/4 batches · 150 tokens" in out and out.endswith("\n")
    quiet = io.StringIO()
    Progress(4, stream=quiet, enabled=False).advance(1)
    assert quiet.getvalue() == ""


def test_real_store_end_to_end(sessions_file, tmp_path):
    from memvet.store import open_store

    db = tmp_path / "memory.db"
    store = open_store(db)
    try:
        summary, _ = run(sessions_file, store, echo())
        assert summary.exit_code == 0
        assert store.get_cursor("s-a") == 5 and store.get_cursor("s-b") == 2
        assert len(store.scene_pool()) >= 1
    finally:
        store.close()
    store = open_store(db)   # a new process: resumes at the stored cursors
    try:
        summary, server = run(sessions_file, store, echo())
        assert server.requests == [] and {o.status for o in summary.outcomes} == {"up-to-date"}
    finally:
        store.close()
