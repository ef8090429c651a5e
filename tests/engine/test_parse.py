"""Stage 1, parse: raw LLM text to a JSON value, never raising (S001, S002, S003, S010)."""

from __future__ import annotations

import json

import pytest

import memvet
from memvet.parse import parse_output

from conftest import REPO

CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
MEMORY = {"content": "接入 Redis 的服务必须按压测峰值配置连接池大小。", "type": "work_fact", "priority": 80,
          "source_message_ids": ["m41"]}
SCENE = {"new_scene_name": "auth-service｜连接池", "new_scene_reason": "池中没有连接池议题。", "message_ids": ["m41"],
         "memories": [MEMORY]}
ANSWER = json.dumps([SCENE], ensure_ascii=False)


def test_bare_json_parses_as_is():
    result = parse_output(ANSWER)
    assert (result.ok, result.value, result.unwrapped, result.repairs) == (True, [SCENE], None, [])


@pytest.mark.parametrize("raw, how", [
    (f"```json\n{ANSWER}\n```", "fence"),
    (f"```\n{ANSWER}\n```", "fence"),
    (f"下面是提取结果：\n```json\n{ANSWER}\n```\n以上。", "fence"),
    (f"Here are the memories: {ANSWER} Let me know.", "prose"),
    (f"{ANSWER}\n\nI skipped the greeting.", "prose"),
])
def test_wrapped_json_is_unwrapped(raw, how):
    result = parse_output(raw)
    assert result.ok and result.value == [SCENE] and result.unwrapped == how


@pytest.mark.parametrize("raw, kind, path", [
    ('[{"message_ids": ["m1",], "memories": []}]', "trailing-comma", "/0/message_ids"),
    ('[{"message_ids": [], "memories": [],}]', "trailing-comma", "/0"),
    ('[{"message_ids": [], "memories": [{"content": "a\nb"}]}]', "control-character", "/0/memories/0/content"),
    ('[{"message_ids": [], "memories": [{"priority": high}]}]', "bare-word", "/0/memories/0/priority"),
    ('[{"message_ids": [], "memories": [{"priority": NaN}]}]', "bare-word", "/0/memories/0/priority"),
])
def test_each_lenient_repair_is_reported_at_its_pointer(raw, kind, path):
    result = parse_output(raw)
    assert result.ok
    assert [(r.kind, r.path) for r in result.repairs] == [(kind, path)]


@pytest.mark.parametrize("raw", ["", "   \n", "no json here", ANSWER[:-3], '[{"content": "cut off', "[" * 5000,
                                 "[" * 5000 + "]" * 5000])
def test_unrecoverable_text_is_not_ok_with_a_reason(raw):
    result = parse_output(raw)
    assert not result.ok and result.error


def test_non_array_json_parses_but_the_report_says_s003():
    report = memvet.validate('{"scenes": []}', CONTEXT)
    assert report.codes() == ["S003"] and not report.ok
    assert report.violations[0].path == ""


@pytest.mark.parametrize("raw", [b"\xef\xbb\xbf[]", "\ufeff[]", b"[]", bytearray(b"[]"), b"\xff\xfe[]"])
def test_bytes_and_byte_order_marks(raw):
    result = parse_output(raw)
    assert result.ok and result.value == []


def test_already_parsed_values_pass_through():
    value = [SCENE]
    assert parse_output(value).value is value
    assert parse_output({"a": 1}).ok


@pytest.mark.parametrize("raw, codes", [
    (f"```json\n{ANSWER}\n```", ["S002"]),
    (ANSWER.replace('"m41"]', '"m41",]', 1), ["S010"]),
    ("[" * 5000, ["S001"]),
    ("", ["S001"]),
])
def test_parse_findings_in_the_report(raw, codes):
    report = memvet.validate(raw, CONTEXT, config={"select": ["S001", "S002", "S003", "S010"]})
    assert report.codes() == codes


def test_repair_pointer_reaches_the_report_and_the_schema_points_at_the_field():
    raw = ANSWER.replace('"priority": 80', '"priority": high')
    report = memvet.validate(raw, CONTEXT, config={"select": ["S"]})
    # Rules of one family run in code order: the schema error, then the repair that exposed it.
    assert [(v.code, v.path) for v in report.violations] == [
        ("S004", "/0/memories/0/priority"), ("S010", "/0/memories/0/priority")]


def test_deeply_nested_text_is_an_s001_not_a_crash():
    report = memvet.validate("[" * 50_000 + "]" * 50_000, CONTEXT)
    assert report.codes() == ["S001"]
    report = memvet.validate("[" * 995 + "]" * 995, CONTEXT)  # parses, but too deep for the validators
    assert not report.ok and report.codes()[0] in ("S001", "S004")


LINEAR_FAMILIES = {
    "repairs-in-a-wide-array": lambda n: "[" + ",".join(['{"content": "x\u0001y", "priority": high,}'] * n) + ",]",
    "unclosed-fence": lambda n: "```json\n" + "[" * n,
    "prose-without-json": lambda n: "prose " * n + "[",
    "quotes": lambda n: '"' * n,
    "trailing-commas": lambda n: "[" + ",".join(["[]"] * n) + ",,,",
    # One bare word per nesting level: each repair needs the pointer of its
    # level, which used to be rebuilt from the whole stack (quadratic).
    "bare-word-per-level": lambda n: "[x," * n + "]" * n,
    "bare-key-per-level": lambda n: "[" + "{a:" * n + "}" * n + "]",
    "bare-words-500-deep": lambda n: "[" * 500 + "x," * n + "]" * 500,
}

# Work per character of input: scanner steps, pointer tokens and decoder
# passes (ParseResult.steps). A quadratic pass exceeds any such bound.
STEPS_PER_CHAR = 6


@pytest.mark.parametrize("name", sorted(LINEAR_FAMILIES))
def test_parse_work_is_linear(name):
    make = LINEAR_FAMILIES[name]
    sizes = (500, 2_000, 8_000)
    steps = []
    for n in sizes:
        text = make(n)
        result = parse_output(text)
        assert result.steps <= STEPS_PER_CHAR * len(text) + 100, (n, result.steps, len(text))
        steps.append(result.steps)
    # 16x the input, at most ~16x the work (a quadratic pass would do 256x).
    assert steps[-1] <= 17 * max(steps[0], 1)


def test_repair_pointers_stay_right_with_the_cached_prefixes():
    result = parse_output('[{"a": [1, x, {"b~/c": y}], "d": z,}]')
    assert [(r.kind, r.path) for r in result.repairs] == [
        ("bare-word", "/0/a/1"), ("bare-word", "/0/a/2/b~0~1c"), ("bare-word", "/0/d"), ("trailing-comma", "/0")]
    assert result.value == [{"a": [1, "x", {"b~/c": "y"}], "d": "z"}]


def test_nesting_beyond_the_repair_bound_is_s001_not_a_crash():
    result = parse_output("[x," * 600 + "]" * 600)
    assert not result.ok and "nested more than" in result.error
    shallow = parse_output("[x," * 300 + "]" * 300)
    assert shallow.ok and sum(r.kind == "bare-word" for r in shallow.repairs) == 300
