"""``memvet extract`` / ``run`` / ``demo`` through the real CLI entry point."""

from __future__ import annotations

import json

import pytest

from loopback import CONTEXT, GOOD_ANSWER, REPO, LoopbackServer, Reply, dumps
from memvet.cli import main

INVENTED = {**GOOD_ANSWER[0], "scene_id": "sc0007"}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A folder with a context, a config selecting the S and I families, and no endpoint in the env."""
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MEMVET_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "memvet.toml").write_text('select = ["S", "I"]\n[store]\npath = "store/memory.db"\n', "utf-8")
    (tmp_path / "context.json").write_text(dumps(CONTEXT), "utf-8")
    return tmp_path


def endpoint(server, *more):
    return ["--base-url", server.url, "--model", "m", "--timeout", "1", "--retries", "0", *more]


def test_dry_run_prints_the_prompt_and_calls_nothing(workdir, capsys):
    assert main(["extract", "context.json", "--dry-run", "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("=== system ===\n") and "=== user ===" in out
    assert '<message id="m41" sessionKey="s-7f2" role="user" time="2026-11-28T' in out
    assert main(["extract", "context.json", "--dry-run"]) == 0
    messages = json.loads(capsys.readouterr().out)
    assert [m["role"] for m in messages] == ["system", "user"]


def test_extract_writes_answer_report_and_attempts(workdir, capsys):
    with LoopbackServer([Reply(dumps([INVENTED])), Reply(dumps(GOOD_ANSWER))]) as server:
        code = main(["extract", "context.json", *endpoint(server, "--structured", "off", "--out", "result.json")])
    assert code == 0
    doc = json.loads((workdir / "result.json").read_text("utf-8"))
    assert doc["ok"] is True and doc["repairs"] == 1 and doc["answer"] == GOOD_ANSWER
    assert [a["kind"] for a in doc["attempts"]] == ["extract", "repair"]
    assert doc["attempts"][0]["report"]["violations"][0]["code"] == "I001"
    assert doc["report"]["records"][0]["content"] == GOOD_ANSWER[0]["memories"][0]["content"]
    assert "extract: ok after 1 repair(s)" in capsys.readouterr().err


def test_extract_exits_1_when_repairs_run_out(workdir, capsys):
    with LoopbackServer([Reply(dumps([INVENTED]))] * 3) as server:
        code = main(["extract", "context.json", *endpoint(server, "--max-repairs", "1", "--format", "text")])
    captured = capsys.readouterr()
    assert code == 1
    assert "I001" in captured.out and "rejected (max_repairs)" in captured.err


def test_extract_exits_2_with_a_clear_error_when_the_server_never_answers(workdir, capsys):
    with LoopbackServer([Reply("[]", delay=30)]) as server:
        code = main(["extract", "context.json", "--base-url", server.url, "--model", "m",
                     "--timeout", "0.3", "--retries", "0"])
        url = server.url
    assert code == 2
    assert f"no answer from {url} within 0.3 s" in capsys.readouterr().err


def test_extract_without_a_model_is_a_usage_error(workdir, capsys):
    assert main(["extract", "context.json", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "no model given" in capsys.readouterr().err


def test_run_commits_then_resumes(workdir, capsys):
    lines = [{"id": f"m{i}", "sessionKey": "s-1", "role": "user", "content": f"消息 {i}",
              "timestamp": 1_780_000_000_000 + i} for i in range(1, 4)]
    (workdir / "sessions.jsonl").write_text("\n".join(dumps(x) for x in lines), "utf-8")

    def answer(first, ids):
        return Reply(dumps([{"new_scene_name": f"demo｜议题{first}", "new_scene_reason": "池中没有",
                             "message_ids": ids, "memories": [
                                 {"content": f"事实 {first}", "type": "work_fact", "priority": 80,
                                  "source_message_ids": [first], "metadata": {}}]}]), match=f'id="{first}"')

    with LoopbackServer([answer("m1", ["m1", "m2"]), answer("m3", ["m3"])]) as server:
        code = main(["run", "sessions.jsonl", *endpoint(server, "--window", "2", "--no-progress")])
        out = capsys.readouterr().out
        assert code == 0, out
        assert out.splitlines()[2].split()[:7] == ["s-1", "3", "3", "2", "2", "0", "2"]
        assert (workdir / "store" / "memory.db").is_file()
        code = main(["run", "sessions.jsonl", *endpoint(server, "--format", "json")])
        doc = json.loads(capsys.readouterr().out)
        assert code == 0 and doc["sessions"][0]["status"] == "up-to-date" and len(server.requests) == 2


def test_demo_runs_the_whole_cycle_offline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no config here: the demo runs every built-in rule
    code = main(["demo", "--dir", str(REPO / "examples" / "demo"), "--store", str(tmp_path / "demo.db")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "I001 reject /0/scene_id" in out                 # the invented scene id...
    assert "attempt 2: repair of scene(s) /0 -> ok" in out  # ...is repaired
    assert "S002 fix" in out                                # a fenced answer is unwrapped
    assert "(answer cut off)" in out and "reask -> ok" in out
    assert "new scenes: auth-service｜Redis 连接池 -> " in out
    assert "not committed" not in out and "were not asked for" not in out
    from memvet.store import open_store

    store = open_store(tmp_path / "demo.db")
    try:
        assert store.get_cursor("demo-auth") == 8 and store.get_cursor("demo-web") == 4
        labels = [p["label"] for p in store.scene_pool()]
        assert "auth-service｜Redis 连接池" in labels and "shop-web｜checkout page rendering" in labels
    finally:
        store.close()


def test_demo_without_its_files_says_where_it_looked(tmp_path, capsys):
    assert main(["demo", "--dir", str(tmp_path)]) == 2
    assert "no demo found" in capsys.readouterr().err
