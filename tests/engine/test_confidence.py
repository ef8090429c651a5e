"""Finding confidence (CONTRACT.md section 3): a low finding warns by default, the report carries it."""

from __future__ import annotations

import json

from loopback import LoopbackServer, Reply, client_for, dumps
from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.extractor.judge import Judge, JudgePlugin
from memvet.hookspecs import hookimpl
from memvet.registry import build_registry
from memvet.rule import Finding, Rule
from rule_sections import SECTIONS

CONTEXT = {"messages": [{"id": "m1", "sessionKey": "s", "role": "user", "content": "导出接口超时改成 30 秒",
                         "timestamp": 1_795_831_200_000}],
           "scenePool": [{"id": "sc0001", "label": "shop-api｜订单导出"}]}
MEMORY = {"content": "订单导出接口超时为 30 秒。", "type": "work_fact", "priority": 95, "source_message_ids": ["m1"]}
ANSWER = json.dumps([{"scene_id": "sc0001", "message_ids": ["m1"], "memories": [MEMORY]}], ensure_ascii=False)


class UnsureDrop(Rule):
    __doc__ = 'Test rule: drops every memory, unsure of it.\n' + SECTIONS

    code = "TSC001"
    name = "unsure-drop"
    target = "memory"
    action = "drop"
    confidence = "low"

    def check(self, memory, ctx):
        yield Finding("maybe not worth keeping", path="/content")


class SureReject(Rule):
    __doc__ = 'Test rule: rejects every memory; this one finding is low, the rule is high.\n' + SECTIONS

    code = "TSC002"
    name = "sure-reject"
    target = "memory"
    action = "reject"

    def check(self, memory, ctx):
        yield Finding("certain")
        yield Finding("a guess", confidence="low")


class Plugin:
    __name__ = "confidence-test"

    @hookimpl
    def memvet_rules(self):
        return [UnsureDrop, SureReject]


def run(config=None, plugins=(Plugin(),)):
    cfg = config_from_dict({"select": ["TSC"], **(config or {})})
    return Engine(cfg, registry=build_registry(plugins=plugins)).validate(ANSWER, CONTEXT)


def test_low_finding_warns_by_default_and_the_report_says_low():
    report = run()
    got = [(v.code, v.action, v.to_dict()["confidence"]) for v in report.violations]
    assert got == [("TSC001", "warn", "low"), ("TSC002", "reject", "high"), ("TSC002", "warn", "low")]
    assert report.dropped == [] and not report.ok            # the certain reject still rejects
    assert all("confidence" in v for v in report.to_dict()["violations"])


def test_low_confidence_keep_applies_the_rules_action():
    report = run({"low_confidence": "keep"})
    assert [(v.code, v.action) for v in report.violations] == [
        ("TSC001", "drop"), ("TSC002", "reject"), ("TSC002", "reject")]
    assert report.dropped == [{"path": "/0/memories/0", "codes": ["TSC001"]}]


def test_an_explicit_action_in_config_is_applied_as_configured():
    report = run({"actions": {"TSC001": "drop"}})
    assert report.violations[0].action == "drop" and report.violations[0].confidence == "low"


def test_bad_low_confidence_value_is_a_config_error():
    import pytest

    from memvet.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        config_from_dict({"low_confidence": "drop"}, source="pyproject.toml")
    assert "low_confidence" in str(err.value)


def test_builtin_findings_are_high_unless_a_rule_says_otherwise():
    from memvet import validate

    report = validate(json.dumps([{"scene_id": "sc0007", "message_ids": ["m1"], "memories": [MEMORY]}]), CONTEXT)
    i001 = [v for v in report.violations if v.code == "I001"]
    assert i001 and i001[0].confidence == "high"


def test_the_judge_is_asked_about_a_memory_with_a_low_finding():
    verdict = {"stripping": True, "one_time": False, "provenance": True, "method": True, "reason": "一次性读数"}
    with LoopbackServer([Reply(dumps(verdict))]) as server:
        judge = Judge(client_for(server, retries=0, timeout=1))
        cfg = config_from_dict({"select": ["G002", "JDG"]})
        # G002 reads a port the assistant printed (no user gave it): a reading, but not surely one.
        context = {"messages": [
            {"id": "m1", "sessionKey": "s", "role": "user", "content": "restart the API", "timestamp": 1_795_831_200_000},
            {"id": "m2", "sessionKey": "s", "role": "assistant", "content": "The API answered on port 8080.",
             "timestamp": 1_795_831_260_000}], "scenePool": [{"id": "sc0001", "label": "shop-api｜API"}]}
        memory = {"content": "The API answers on port 8080.", "type": "work_fact", "priority": 95,
                  "source_message_ids": ["m1", "m2"]}
        answer = json.dumps([{"scene_id": "sc0001", "message_ids": ["m1", "m2"], "memories": [memory]}])
        report = Engine(cfg, registry=build_registry(plugins=(JudgePlugin(judge),))).validate(answer, context)
        asked = len(server.requests)
    # priority 95 is not "uncertain" by priority: the low finding is why the judge was asked
    assert asked == 1
    assert [(v.code, v.action, v.confidence) for v in report.violations] == [
        ("G002", "warn", "low"), ("JDG001", "drop", "high")]


def test_the_judge_is_not_asked_without_a_low_finding():
    with LoopbackServer([]) as server:
        judge = Judge(client_for(server, retries=0, timeout=1))
        cfg = config_from_dict({"select": ["JDG"]})
        report = Engine(cfg, registry=build_registry(plugins=(JudgePlugin(judge),))).validate(ANSWER, CONTEXT)
        assert server.requests == []
    assert report.violations == []


def _g003(tool_text, sources=("m2",)):
    context = {"messages": [
        {"id": "m1", "sessionKey": "s", "role": "user", "content": "check it", "timestamp": 1_795_831_200_000},
        {"id": "m2", "sessionKey": "s", "role": "tool", "content": tool_text, "timestamp": 1_795_831_260_000}],
        "scenePool": [{"id": "sc0001", "label": "shop-api｜gateway"}]}
    memory = {"content": "GATEWAY_HOST is gw.internal.example, GATEWAY_TIMEOUT_MS is 3000 and GATEWAY_RETRIES is 2.",
              "type": "work_fact", "priority": 80, "source_message_ids": list(sources)}
    answer = json.dumps([{"scene_id": "sc0001", "message_ids": ["m1", "m2"], "memories": [memory]}])
    engine = Engine(config_from_dict({"select": ["G003"]}))
    return [(v.code, v.action, v.confidence) for v in engine.validate(answer, context).violations]


def test_restating_a_file_a_tool_read_is_certain():
    text = "$ cat deploy/prod.env\nGATEWAY_HOST=gw.internal.example\nGATEWAY_TIMEOUT_MS=3000\nGATEWAY_RETRIES=2"
    assert _g003(text) == [("G003", "drop", "high")]


def test_restating_a_commands_output_is_a_low_confidence_warning():
    # no file read or written: the output of a probe may be an investigation's result -- when the
    # user who asked for it is among the sources too
    text = "$ ./probe --env prod\nGATEWAY_HOST=gw.internal.example\nGATEWAY_TIMEOUT_MS=3000\nGATEWAY_RETRIES=2"
    assert _g003(text, sources=("m1", "m2")) == [("G003", "warn", "low")]


def test_a_commands_output_only_the_tool_says_is_certain():
    # cited from the tool message alone, explaining nothing: the agent's own account (who said it)
    text = "$ ./probe --env prod\nGATEWAY_HOST=gw.internal.example\nGATEWAY_TIMEOUT_MS=3000\nGATEWAY_RETRIES=2"
    assert _g003(text) == [("G003", "drop", "high")]
