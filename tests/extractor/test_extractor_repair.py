"""The extract -> validate -> repair loop, end to end over the loopback server."""

from __future__ import annotations

import copy
import json

from loopback import CONTEXT, GOOD_ANSWER, LOOP_CONFIG, LoopbackServer, Reply, client_for, dumps, request_text
from memvet.extractor.extract import extract
from memvet.extractor.repair import merge

SECOND = {"new_scene_name": "auth-service｜Redis 连接池", "new_scene_reason": "池中没有连接池配置的议题。",
          "message_ids": ["m41", "m43"], "memories": [
              {"content": "接入 Redis 的服务必须按压测峰值配置连接池大小，不要沿用客户端默认值。", "type": "work_method",
               "priority": 88, "source_message_ids": ["m41"], "metadata": {"scope": "global"}}]}
INVENTED = {**{k: v for k, v in SECOND.items() if not k.startswith("new_")}, "scene_id": "sc0007"}


def rejects(report):
    return [v.code for v in report.violations if v.action == "reject"]


def run(replies, **options):
    with LoopbackServer(replies) as server:
        client = client_for(server, structured="off")
        result = extract(CONTEXT, client, config=LOOP_CONFIG, **options)
        client.close()
        return result, [request_text(r) for r in server.requests]


def test_invented_scene_id_is_repaired_with_only_the_failing_scene():
    first = [GOOD_ANSWER[0], INVENTED]
    result, asked = run([Reply(dumps(first)), Reply(dumps([SECOND]))])
    assert result.ok and result.stop == "ok" and result.repairs == 1
    assert [a.kind for a in result.attempts] == ["extract", "repair"]
    assert rejects(result.attempts[0].report) == ["I001"]
    assert result.attempts[1].scenes == [1]
    assert result.report.original == [GOOD_ANSWER[0], SECOND]   # merged in place, the good scene untouched

    repair = asked[1]
    assert "I001 /1/scene_id" in repair and '当前值: "sc0007"' in repair     # code, pointer, offending value
    assert "sc0003 | auth-service｜登录接口性能" in repair                     # the pool, to pick a real id
    assert "m41 | s-7f2 | user |" in repair                                  # the id index
    assert '"scene_id": "sc0007"' in repair                                  # the failing scene
    assert GOOD_ANSWER[0]["memories"][0]["content"] not in repair            # ...and not the good one
    assert "# 任务二" not in repair                                           # not the whole extraction prompt
    assert len(repair) < len(asked[0]) / 2                                   # a small request
    assert "scene_id" in repair and "source_message_ids" in repair           # the contract is restated


def test_repair_that_fails_twice_returns_the_last_report_and_every_attempt():
    still_bad = {**INVENTED, "scene_id": "sc0008"}
    result, asked = run([Reply(dumps([GOOD_ANSWER[0], INVENTED])), Reply(dumps([still_bad])),
                         Reply(dumps([still_bad])), Reply(dumps([SECOND]))])
    assert not result.ok and result.stop == "max_repairs"
    assert len(asked) == 3, "max_repairs=2: one extraction and two repairs, no more"
    assert [a.kind for a in result.attempts] == ["extract", "repair", "repair"]
    assert result.report is result.attempts[-1].report
    assert rejects(result.report) == ["I001"] and "'sc0008'" in result.report.violations[0].message
    assert all(a.raw for a in result.attempts) and all(a.usage.total_tokens > 0 for a in result.attempts)
    # the good scene is still there, and its records are kept (the reject is confined to scene 1)
    assert [r["content"] for r in result.report.records] == [GOOD_ANSWER[0]["memories"][0]["content"]]
    doc = json.loads(json.dumps(result.to_dict()))
    assert len(doc["attempts"]) == 3 and doc["attempts"][2]["report"]["ok"] is False


def test_max_repairs_zero_asks_once():
    result, asked = run([Reply(dumps([INVENTED])), Reply(dumps([SECOND]))], max_repairs=0)
    assert not result.ok and result.stop == "max_repairs" and len(asked) == 1


def test_token_budget_stops_the_loop_before_the_next_request():
    result, asked = run([Reply(dumps([INVENTED])), Reply(dumps([SECOND]))], token_budget=100)
    assert not result.ok and result.stop == "token_budget" and len(asked) == 1
    assert rejects(result.report) == ["I001"]


def test_truncated_answer_is_asked_again_in_full():
    cut = dumps(GOOD_ANSWER)[:120]
    result, asked = run([Reply(cut, finish_reason="length"), Reply(dumps(GOOD_ANSWER))])
    assert result.ok and [a.kind for a in result.attempts] == ["extract", "reask"]
    assert result.attempts[0].finish_reason == "length"
    assert "S001" in result.attempts[0].report.codes()
    again = asked[1]
    assert '<message id="m41"' in again          # the batch itself, since nothing could be kept
    assert "截断" in again and "S001" in again     # and why it is asked again


def test_unmergeable_repair_is_recorded_and_the_loop_goes_on():
    two_bad = [{**INVENTED, "scene_id": "sc0007"}, {**INVENTED, "scene_id": "sc0009"}]
    fixed = [SECOND, {**SECOND, "new_scene_name": "auth-service｜告警"}]
    result, asked = run([Reply(dumps(two_bad)), Reply(dumps([SECOND])), Reply(dumps(fixed))])
    assert result.ok and len(asked) == 3
    assert "1 scenes for the 2 that were sent" in result.attempts[1].error
    assert result.attempts[1].report is result.attempts[0].report   # nothing merged, same report
    assert result.attempts[2].error is None


def test_repair_answer_that_is_not_json_is_recorded_not_raised():
    result, _ = run([Reply(dumps([INVENTED])), Reply("sorry, I cannot"), Reply(dumps([SECOND]))])
    assert result.ok
    assert result.attempts[1].error.startswith("the repair answer is not JSON")


def test_merge_rules():
    answer = ["a", "b", "c"]
    assert merge(answer, [1], ["x", "y"]) == (["a", "x", "y", "c"], None)       # one scene may split
    assert merge(answer, [0, 2], ["x", None]) == (["x", "b"], None)              # null drops a scene
    assert merge(answer, [0, 2], ["x"])[1] == "the repair answer has 1 scenes for the 2 that were sent"
    assert merge(answer, [1], {"scene_id": "x"})[1].startswith("the repair answer is not a JSON array")
    assert answer == ["a", "b", "c"]                                              # never mutated


def test_caller_value_is_not_mutated():
    context = copy.deepcopy(CONTEXT)
    run([Reply(dumps([INVENTED])), Reply(dumps([SECOND]))])
    assert context == CONTEXT
