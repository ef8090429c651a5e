"""Every violation of a text answer carries the line and column of its pointer, and its shown value."""

from __future__ import annotations

import json

import pytest

import memvet
from memvet.positions import MAX_DEPTH, Positions, scan

from conftest import REPO

CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
EXAMPLE = (REPO / "examples" / "output.json").read_text("utf-8")


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the ``nth`` occurrence of ``needle`` in ``text`` (found independently)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def by_path(report) -> dict[str, tuple[int | None, int | None]]:
    return {v.path: (v.line, v.column) for v in report.annotate().violations}


def test_the_example_answer_places_each_finding_at_its_pointer():
    report = memvet.validate(EXAMPLE, CONTEXT)
    places = by_path(report)
    assert places["/0/scene_id"] == where(EXAMPLE, '"scene_id"') == (3, 4)
    assert places["/0/scene_name"] == where(EXAMPLE, '"scene_name"')
    assert places["/0/memories/1/source_message_ids/1"] == where(EXAMPLE, '"m38"')
    assert places["/0/memories/2/content"] == where(EXAMPLE, '"content"', nth=2)
    assert places[""] == (2, 1)  # S002: the JSON starts after the fence line
    assert len({line for line, _ in places.values()}) > 1


def test_json_report_carries_line_column_and_the_shown_value():
    report = json.loads(memvet.validate(EXAMPLE, CONTEXT).to_json())
    i001 = next(v for v in report["violations"] if v["code"] == "I001")
    assert (i001["line"], i001["column"], i001["value"]) == (3, 4, '"sc0007"')
    assert list(i001)[:7] == ["code", "name", "action", "path", "line", "column", "value"]


def test_prose_before_a_fence_and_a_repaired_answer_keep_their_lines():
    # Prose, then a fence, then JSON that needs three lenient repairs: a raw
    # newline inside a string (which moves every later line), a trailing comma
    # and a bare word where a number belongs.
    body = ('[\n  {"scene_id": "sc0003",\n   "message_ids": ["m41"],\n   "memories": [\n'
            '     {"content": "连接池\n必须按压测峰值配置", "type": "work_method",\n'
            '      "priority": high, "source_message_ids": ["m41", "m99"],}\n   ]}\n]')
    raw = f"Here is the result you asked for.\n\n```json\n{body}\n```\nDone."
    report = memvet.validate(raw, CONTEXT)
    places = by_path(report)
    codes = {v.code for v in report.violations}
    assert {"S002", "S010"} <= codes
    assert places["/0/memories/0/priority"] == where(raw, '"priority"')
    assert places["/0/memories/0/content"] == where(raw, '"content"')  # the raw newline repair
    assert places["/0/memories/0"] == where(raw, '{"content"')  # the trailing comma's object
    # After the raw newline inside "content", lines still count the file's own lines.
    assert places["/0/memories/0/priority"][0] == where(raw, '"content"')[0] + 2
    assert places[""] == where(raw, "[\n  {")


def test_a_missing_member_is_placed_at_its_object_and_a_scalar_answer_at_its_start():
    raw = '[\n {"message_ids": ["m41"],\n  "memories": [\n   {"content": "x", "type": "work_fact",\n' \
          '    "source_message_ids": ["m41"]}]}]'
    report = memvet.validate(raw, CONTEXT)
    missing = [v for v in report.annotate().violations if v.path == "/0/memories/0/priority"]
    assert missing and (missing[0].line, missing[0].column) == where(raw, '{"content"')
    assert missing[0].value is None  # nothing to show: the key is absent
    scalar = memvet.validate('  \n  "just text"', CONTEXT).annotate()
    assert [(v.code, v.line, v.column) for v in scalar.violations] == [("S003", 2, 3)]


def test_an_answer_given_already_parsed_has_no_line_but_keeps_its_value():
    report = memvet.validate(json.loads(EXAMPLE.strip().strip("`").removeprefix("json")), CONTEXT).annotate()
    assert report.violations and all(v.line is None and v.column is None for v in report.violations)
    assert next(v.value for v in report.violations if v.code == "I001") == '"sc0007"'


def test_the_shown_value_never_holds_a_secret():
    secret = "sk-proj-Q7h2Lm9Vb4Tz8Rw1Nc6Jd3Fk5Gs0Pa2Ye7Ui4Ow"
    raw = json.dumps([{"scene_id": "sc0003", "message_ids": ["m41"], "memories": [
        {"content": f"调用 OpenAI 用的 key 是 {secret}，连接池必须按压测峰值配置。", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m41"]}]}], ensure_ascii=False, indent=1)
    text = memvet.validate(raw, CONTEXT).to_json()
    assert secret not in text
    shown = [v["value"] for v in json.loads(text)["violations"] if v["path"] == "/0/memories/0/content"]
    assert shown and all("[REDACTED:" in value for value in shown)


def test_fix_findings_carry_their_patch_or_say_why_not():
    report = memvet.validate(EXAMPLE, CONTEXT)
    fixes = [v for v in report.violations if v.action == "fix"]
    assert fixes
    for v in fixes:
        assert v.fix or "no patch:" in v.message, (v.code, v.message)


def test_scan_is_iterative_and_tolerates_broken_text():
    deep = "[" * 50_000 + "]" * 50_000
    found = scan(deep)  # no recursion, and pointers only down to MAX_DEPTH (their total length is quadratic)
    assert found[""] == 0 and len(found) == MAX_DEPTH + 1
    assert Positions(deep, 0).locate("/0" * 1000) == (1, MAX_DEPTH + 1)
    assert Positions('[{"a": [1, 2,', 0).locate("/0/a/1") == (1, 12)  # cut off: still located
    assert Positions('{"a" 1 "b": 2}', 0).locate("/b") == (1, 8)
    report = memvet.validate("[" * 20_000, CONTEXT)
    assert report.annotate().violations[0].code == "S001" and report.violations[0].line == 1


@pytest.mark.parametrize("text, pointer, expected", [
    ('[{"k": "a\\"b", "n": 1}]', "/0/n", (1, 16)),
    ('[{"a~b/c": 1}]', "/0/a~0b~1c", (1, 3)),
    ('[1,\n 2,\n 3]', "/2", (3, 2)),
    ('[{"x": {"y": [true, null]}}]', "/0/x/y/1", (1, 21)),
])
def test_scan_pointer_positions(text, pointer, expected):
    assert Positions(text, 0).locate(pointer) == expected


def test_a_plugin_pointer_without_a_slash_never_breaks_the_report():
    from memvet.locations import annotator
    from memvet.parse import parse_output
    from memvet.report import Report, Violation

    raw = '[{"a": 1}]'
    report = Report(ok=True, violations=[Violation("ACME001", "x", "warn", "content", "m", "acme")],
                    original=[{"a": 1}])
    annotator(raw, parse_output(raw))(report)
    assert (report.violations[0].value, report.violations[0].line) == (None, 1)


def test_a_report_still_pickles_before_and_after_it_is_annotated():
    import pickle

    report = memvet.validate(EXAMPLE, CONTEXT)
    lazy = pickle.loads(pickle.dumps(report))
    assert lazy.to_json() == report.to_json()  # annotated after the round trip, the same
    assert pickle.loads(pickle.dumps(report)).to_json() == report.to_json()
