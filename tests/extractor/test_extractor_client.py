"""The OpenAI-compatible client against a real loopback HTTP server: modes, retries, timeouts."""

from __future__ import annotations

import copy
import time

import pytest

from loopback import (CONTEXT, GOOD_ANSWER, LOOP_CONFIG, LoopbackServer, Reply, client_for, dumps,
                      settings_for)
from memvet import MemvetError
from memvet.extractor.client import LOCAL_API_KEY, ChatRequest, EndpointError, resolve_settings
from memvet.extractor.extract import extract
from memvet.schemas import strict_output_schema


def run(replies, refuse=(), **client_changes):
    with LoopbackServer(replies, refuse_formats=refuse) as server:
        client = client_for(server, **client_changes)
        result = extract(CONTEXT, client, config=LOOP_CONFIG)
        client.close()
        return result, server.requests


def with_strict_nulls(answer):
    """What a strict-mode model sends: every optional field present as null."""
    out = copy.deepcopy(answer)
    for scene in out:
        for key in ("new_scene_name", "new_scene_reason", "scene_name"):
            scene.setdefault(key, None)
        for memory in scene["memories"]:
            memory.setdefault("taskState", None)
            memory["metadata"] = {**{k: None for k in ("work_object", "deadline", "scope", "project")},
                                  **memory.get("metadata", {})}
    return {"scenes": out}


def test_clean_answer_in_structured_mode_is_unwrapped_and_accepted():
    result, requests = run([Reply(dumps(with_strict_nulls(GOOD_ANSWER)))])
    assert result.ok and result.stop == "ok" and result.repairs == 0
    assert result.report.codes() == []
    assert result.report.original == GOOD_ANSWER          # nulls stripped, wrapper gone
    fmt = requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"] == strict_output_schema()
    assert requests[0]["model"] == "test-model"
    assert '{"scenes": [...]}' in requests[0]["messages"][-1]["content"]  # the model is told the wrapper
    assert result.attempts[0].mode == "json_schema"
    assert result.usage.total_tokens > 0 and not result.usage.estimated


def test_plain_mode_sends_no_response_format_and_no_wrapper_note():
    result, requests = run([Reply(dumps(GOOD_ANSWER))], structured="off")
    assert result.ok
    assert "response_format" not in requests[0]
    assert '{"scenes"' not in requests[0]["messages"][-1]["content"]


def test_fenced_answer_is_unwrapped_without_a_repair():
    fenced = "好的，结果如下：\n```json\n" + dumps(GOOD_ANSWER) + "\n```"
    result, requests = run([Reply(fenced)], structured="off")
    assert result.ok and len(requests) == 1
    assert result.report.codes() == ["S002"]
    assert result.report.violations[0].action == "fix"


def test_endpoint_without_structured_outputs_falls_back_to_json_object():
    result, requests = run([Reply(dumps({"scenes": GOOD_ANSWER}))], refuse=["json_schema"])
    assert result.ok
    assert [r.get("response_format", {}).get("type") for r in requests] == ["json_schema", "json_object"]
    assert result.attempts[0].mode == "json_object"


def test_endpoint_refusing_every_json_mode_gets_plain_requests():
    with LoopbackServer([Reply(dumps(GOOD_ANSWER))] * 2, refuse_formats=["json_schema", "json_object"]) as server:
        client = client_for(server)
        schema = strict_output_schema()
        first = client.complete(ChatRequest([{"role": "user", "content": "x"}], schema))
        # json_schema refused -> json_object refused -> plain: the third request gets the answer
        assert first.mode == "off" and first.text == dumps(GOOD_ANSWER)
        assert [r.get("response_format", {}).get("type") for r in server.requests] == \
            ["json_schema", "json_object", None]
        client.complete(ChatRequest([{"role": "user", "content": "y"}], schema))
        assert "response_format" not in server.requests[-1]  # the working mode is remembered


def test_explicit_mode_is_not_silently_downgraded():
    with LoopbackServer([Reply("[]")], refuse_formats=["json_schema"]) as server:
        client = client_for(server, structured="json_schema")
        with pytest.raises(EndpointError, match="HTTP 400.*response_format"):
            client.complete(ChatRequest([{"role": "user", "content": "x"}], strict_output_schema()))
        assert len(server.requests) == 1


def test_rate_limit_then_success_is_retried():
    result, requests = run([Reply(status=429, headers={"retry-after-ms": "5"}), Reply(dumps(GOOD_ANSWER))])
    assert result.ok and len(requests) == 2
    assert result.attempts[0].retries == 1


def _record_sleeps(monkeypatch) -> list[float]:
    """The backoff delays the client asks for (it still sleeps them: the server sees real retries)."""
    slept: list[float] = []
    real = time.sleep

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        real(seconds)

    monkeypatch.setattr("memvet.extractor.client.time.sleep", sleep)
    return slept


def test_server_errors_back_off_then_succeed(monkeypatch):
    slept = _record_sleeps(monkeypatch)
    result, requests = run([Reply(status=503), Reply(status=500), Reply(dumps(GOOD_ANSWER))])
    assert result.ok and len(requests) == 3 and result.attempts[0].retries == 2
    # Two waits, exponential with jitter: min(backoff x 2^attempt, max_backoff), at most 25 % less
    # (the loopback settings: backoff 0.01 s, max_backoff 0.05 s).
    assert len(slept) == 2
    for attempt, delay in enumerate(slept):
        base = min(0.01 * 2 ** attempt, 0.05)
        assert 0.75 * base <= delay <= base


def test_retries_are_bounded():
    with LoopbackServer([Reply(status=503)] * 5) as server:
        client = client_for(server, retries=2)
        with pytest.raises(EndpointError, match=r"HTTP 503 \(after 3 tries\)"):
            extract(CONTEXT, client, config=LOOP_CONFIG)
        assert len(server.requests) == 3


def test_server_that_never_answers_times_out_with_a_clear_error(monkeypatch):
    slept = _record_sleeps(monkeypatch)
    with LoopbackServer([Reply("[]", delay=30)] * 3) as server:
        url = server.url
        client = client_for(server, timeout=0.3, retries=1)
        assert client.client.timeout == 0.3  # the HTTP client waits 0.3 s per try, not the 30 s of the server
        with pytest.raises(EndpointError) as info:
            extract(CONTEXT, client, config=LOOP_CONFIG)
        tries = len(server.requests)
    message = str(info.value)
    # Only a timeout makes this message, and after two tries the client stopped (one backoff between).
    assert f"no answer from {url} within 0.3 s (after 2 tries)" in message
    assert "--timeout" in message
    assert tries == 2 and len(slept) == 1


def test_refused_credentials_are_not_retried():
    with LoopbackServer([Reply(status=401)] * 3) as server:
        client = client_for(server)
        with pytest.raises(EndpointError, match="HTTP 401.*OPENAI_API_KEY"):
            extract(CONTEXT, client, config=LOOP_CONFIG)
        assert len(server.requests) == 1


def test_unreachable_endpoint_is_a_connection_error():
    with LoopbackServer([]) as server:
        settings = settings_for(server, retries=1, timeout=1)
    from memvet.extractor.client import ChatClient
    client = ChatClient(settings)  # the server is gone: nothing listens on that port any more
    with pytest.raises(EndpointError, match="cannot connect to"):
        client.complete(ChatRequest([{"role": "user", "content": "x"}]))


def test_answer_that_is_not_json_is_a_report_not_an_exception():
    result, _ = run([Reply("I could not find anything worth remembering."),
                     Reply("still no JSON"), Reply("nope")], structured="off")
    assert not result.ok and result.stop == "max_repairs"
    assert all(a.report.codes()[0] == "S001" for a in result.attempts)


def test_missing_usage_is_estimated():
    result, _ = run([Reply(dumps(GOOD_ANSWER), send_usage=False)], structured="off")
    # no usage in the completion: the client estimates and says so
    assert result.usage.estimated and result.usage.total_tokens > 0


# --- settings ---------------------------------------------------------------------------

def test_flags_beat_environment_which_beats_config():
    class Cfg:
        model, base_url, timeout, retries, structured = "cfg-model", "http://cfg/v1", 5.0, 1, "off"

    env = {"MEMVET_MODEL": "env-model", "OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "sk-env"}
    s = resolve_settings(model="flag-model", config=Cfg, env=env)
    assert (s.model, s.base_url, s.api_key, s.timeout, s.structured) == ("flag-model", "http://env/v1", "sk-env",
                                                                          5.0, "off")
    s = resolve_settings(config=Cfg, env={})
    assert (s.model, s.base_url, s.api_key) == ("cfg-model", "http://cfg/v1", LOCAL_API_KEY)
    s = resolve_settings(config=Cfg, env={}, timeout=0.5)
    assert s.timeout == 0.5


def test_missing_model_or_key_is_a_usage_error():
    with pytest.raises(MemvetError, match="no model"):
        resolve_settings(env={})
    with pytest.raises(MemvetError, match="OPENAI_API_KEY"):
        resolve_settings(model="gpt", env={})
