"""The optional LLM judge plugin (JDG001/JDG002): off by default, cached, costed."""

from __future__ import annotations

from loopback import CONTEXT, LoopbackServer, Reply, client_for, dumps
from memvet import validate
from memvet.extractor.judge import Judge, Verdict, VerdictCache, judge_engine
from memvet.registry import default_registry

CONFIG = {"select": ["S", "I", "JDG"]}
METHOD = {"content": "接入 Redis 的服务必须按压测峰值配置连接池大小，不要沿用客户端默认值。", "type": "work_method",
          "priority": 88, "source_message_ids": ["m41"], "metadata": {"scope": "global", "method_type": "constraint"}}
HIGH_FACT = {"content": "auth-service 登录超时的根因是 Redis 连接池太小。", "type": "work_fact", "priority": 95,
             "source_message_ids": ["m41"], "metadata": {}}
ANSWER = [{"scene_id": "sc0003", "message_ids": ["m41", "m42"], "memories": [METHOD, HIGH_FACT]}]


def verdict(**fails):
    v = {"stripping": True, "one_time": True, "provenance": True, "method": True, "reason": "理由"}
    v.update({k: False for k in fails})
    return Reply(dumps(v))


def judged(replies, cache=None, config=CONFIG):
    with LoopbackServer(replies) as server:
        judge = Judge(client_for(server, retries=0, timeout=1), cache=cache)
        engine = judge_engine(config, judge)
        first = engine.validate(dumps(ANSWER), CONTEXT)
        second = engine.validate(dumps(ANSWER), CONTEXT)
        return judge, first, second, server.requests


def test_judge_is_not_loaded_by_default():
    assert not any(code.startswith("JDG") for code in default_registry().rules)
    assert "JDG" not in " ".join(validate(dumps(ANSWER), CONTEXT).codes())


def test_failed_gate_drops_the_memory_and_verdicts_are_cached():
    judge, first, second, requests = judged([verdict(one_time=True)])
    assert [(v.code, v.action, v.path) for v in first.violations] == [("JDG001", "drop", "/0/memories/0")]
    assert "one-time" in first.violations[0].message and "理由" in first.violations[0].message
    assert first.dropped == [{"path": "/0/memories/0", "codes": ["JDG001"]}]
    assert second.to_dict() == first.to_dict()
    # one call: the high-priority fact is not uncertain, the second run and the second rule hit the cache
    assert len(requests) == 1 and judge.calls == 1 and judge.hits >= 1
    cost = judge.cost()
    assert cost["calls"] == 1 and cost["total_tokens"] > 0
    assert requests[0]["response_format"]["json_schema"]["name"] == "memvet_judge_verdict"
    assert METHOD["content"] in requests[0]["messages"][-1]["content"]   # the memory and its sources are shown
    assert '<message id="m41"' in requests[0]["messages"][-1]["content"]


def test_failed_method_check_warns_by_default():
    _, report, _, _ = judged([verdict(method=True)])
    v = report.violations[0]
    assert (v.code, v.action, v.path) == ("JDG002", "warn", "/0/memories/0/type")
    assert report.output[0]["memories"][0] == METHOD   # shown, not applied
    assert report.ok


def test_failed_method_check_downgrades_to_fact_when_configured():
    _, report, _, _ = judged([verdict(method=True)], config={**CONFIG, "actions": {"JDG002": "fix"}})
    v = report.violations[0]
    assert (v.code, v.action, v.path) == ("JDG002", "fix", "/0/memories/0/type")
    memory = report.output[0]["memories"][0]
    assert memory["type"] == "work_fact" and memory["metadata"] == {}
    assert report.ok


def test_judge_endpoint_failure_is_a_warning_not_a_crash():
    judge, report, _, _ = judged([Reply(status=500)] * 4)
    assert report.ok
    assert {(v.code, v.action) for v in report.violations} == {("JDG001", "warn")}
    assert "LLM judge unavailable" in report.violations[0].message


def test_verdict_cache_file_survives_a_new_process(tmp_path):
    path = tmp_path / "judge-cache.json"
    judge, *_ = judged([verdict(one_time=True)], cache=VerdictCache(path))
    judge.cache.save()
    again, report, _, requests = judged([], cache=VerdictCache(path))
    assert requests == [] and again.calls == 0 and again.hits >= 1
    assert report.codes() == ["JDG001"]


def test_damaged_cache_file_starts_over(tmp_path):
    path = tmp_path / "judge-cache.json"
    path.write_text("{not json", "utf-8")
    assert len(VerdictCache(path)) == 0


# --- replay: `memvet check --judge-verdicts` (no model is called) ----------------------------

def _check(tmp_path, *flags):
    """``memvet check`` of ANSWER under CONFIG's selection, the JSON report and the exit code."""
    import json

    from memvet.cli import main

    (tmp_path / "answer.json").write_text(dumps(ANSWER), "utf-8")
    (tmp_path / "context.json").write_text(json.dumps(CONTEXT, ensure_ascii=False), "utf-8")
    out = tmp_path / "report.json"
    code = main(["check", str(tmp_path / "answer.json"), "--context", str(tmp_path / "context.json"),
                 "--select", "S,I,JDG", "--format", "json", "-o", str(out), *flags])
    return code, (json.loads(out.read_text("utf-8")) if out.is_file() and out.stat().st_size else None)


def test_replay_lists_the_prompts_it_has_no_verdict_for_then_replays_their_answers(tmp_path):
    import json

    empty, pending = tmp_path / "verdicts.jsonl", tmp_path / "pending.jsonl"
    empty.write_text("", "utf-8")
    code, report = _check(tmp_path, "--judge-verdicts", str(empty), "--judge-pending", str(pending))
    # Not judged is said, never silent: a warning on the memory the judge would ask about.
    assert code == 0 and [(v["code"], v["action"], v["path"]) for v in report["violations"]] == [
        ("JDG001", "warn", "/0/memories/0")]
    assert "no recorded verdict" in report["violations"][0]["message"]
    lines = [json.loads(line) for line in pending.read_text("utf-8").splitlines()]
    assert len(lines) == 1 and METHOD["content"] in lines[0]["messages"][-1]["content"]  # the method only
    answered = {"key": lines[0]["key"], "verdict": {"stripping": True, "one_time": False, "provenance": True,
                                                     "method": True, "reason": "某天的读数"}}
    empty.write_text(json.dumps(answered, ensure_ascii=False) + "\n", "utf-8")
    code, report = _check(tmp_path, "--judge-verdicts", str(empty), "--judge-pending", str(pending))
    assert [(v["code"], v["action"]) for v in report["violations"]] == [("JDG001", "drop")]
    assert "某天的读数" in report["violations"][0]["message"] and pending.read_text("utf-8") == ""


def test_replay_of_a_live_judges_cache_gives_the_live_report(tmp_path):
    path = tmp_path / "judge-cache.json"
    judge, live, _, _ = judged([verdict(one_time=True)], cache=VerdictCache(path))
    judge.cache.save()
    code, replayed = _check(tmp_path, "--judge-verdicts", str(path), "--judge-model", judge.model)
    assert code == 0 and replayed["violations"] == live.to_dict()["violations"]
    # Another model's verdicts are not this one's: the key holds the model.
    _, other = _check(tmp_path, "--judge-verdicts", str(path), "--judge-model", "another-model")
    assert [v["action"] for v in other["violations"]] == ["warn"]


def test_replay_refuses_broken_verdicts_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "verdicts.jsonl"
    bad.write_text('{"key": "k", "verdict": {"stripping": "yes"}}\n', "utf-8")
    code, _ = _check(tmp_path, "--judge-verdicts", str(bad))
    err = capsys.readouterr().err
    assert code == 2 and "verdicts.jsonl" in err and "line 1" in err
    (tmp_path / "cache.json").write_text('{"k": {"stripping": true}}', "utf-8")
    code, _ = _check(tmp_path, "--judge-verdicts", str(tmp_path / "cache.json"))
    assert code == 2 and "/k" in capsys.readouterr().err
    code, _ = _check(tmp_path, "--judge-pending", str(tmp_path / "p.jsonl"))  # nothing to replay from
    assert code == 2 and "--judge-verdicts" in capsys.readouterr().err


def test_a_failed_gate_counts_only_on_the_types_its_rule_judges():
    """G001 (stripping) judges facts and artifacts: the judge failing a method on it is shown
    nowhere as a drop; failing it on provenance (G003 judges methods) drops it."""
    judge = Judge(None, cache=VerdictCache())
    engine = judge_engine(CONFIG, judge)
    engine.validate(dumps(ANSWER), CONTEXT)
    (key,) = judge.pending

    def replayed(config=CONFIG, **fails):
        v = {"stripping": True, "one_time": True, "provenance": True, "method": True, "reason": "理由"}
        v.update({k: False for k in fails})
        cache = VerdictCache()
        cache.put(key, Verdict.from_value(v))
        return judge_engine(config, Judge(None, cache=cache)).validate(dumps(ANSWER), CONTEXT)

    assert replayed(stripping=True).violations == []
    assert [(v.code, v.action) for v in replayed(provenance=True).violations] == [("JDG001", "drop")]
    # The types are an option: a team that wants the judge's stripping test on methods says so.
    wider = {**CONFIG, "rules": {"JDG001": {"gate_types": {"stripping": ["work_method"]}}}}
    assert [(v.code, v.action) for v in replayed(wider, stripping=True).violations] == [("JDG001", "drop")]
