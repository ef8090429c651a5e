"""The optional LLM judge plugin (JDG001/JDG002): off by default, cached, costed."""

from __future__ import annotations

from loopback import CONTEXT, LoopbackServer, Reply, client_for, dumps
from memvet import validate
from memvet.extractor.judge import Judge, VerdictCache, judge_engine
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


def judged(replies, cache=None):
    with LoopbackServer(replies) as server:
        judge = Judge(client_for(server, retries=0, timeout=1), cache=cache)
        engine = judge_engine(CONFIG, judge)
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


def test_failed_method_check_downgrades_to_fact():
    _, report, _, _ = judged([verdict(method=True)])
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
