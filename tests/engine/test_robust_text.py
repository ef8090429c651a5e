"""S011: text that is not valid Unicode or not printable is replaced with U+FFFD and reported."""

from __future__ import annotations

import copy
import json

import pytest

import memvet
from memvet.parse import parse_output
from memvet.textcheck import replace_invalid

from conftest import REPO

CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
ANSWER = parse_output((REPO / "examples" / "output.json").read_text("utf-8")).value


def s011(report):
    return [(v.path, v.message) for v in report.violations if v.code == "S011"]


@pytest.mark.parametrize("form", ["value", "text", "bytes"])
def test_content_key_and_id_are_fixed_and_reported_at_their_pointers(form):
    answer = copy.deepcopy(ANSWER)
    answer[0]["memories"][0]["content"] += "\ud800\x00"
    answer[0]["memories"][0]["metadata"] = {"k\udfff": "v"}
    answer[0]["scene_id"] = "sc\x01"
    before = copy.deepcopy(answer)
    raw = {"value": answer, "text": json.dumps(answer),
           "bytes": json.dumps(answer).encode("utf-8")}[form]
    report = memvet.validate(raw, CONTEXT)
    assert s011(report) == [
        ("/0/memories/0/content", "replaced a lone surrogate (U+D800), NUL (U+0000) with U+FFFD"),
        ("/0/memories/0/metadata/k\ufffd", "replaced a lone surrogate (U+DFFF) in the key with U+FFFD"),
        ("/0/scene_id", "replaced a control character (U+0001) with U+FFFD"),
    ]
    assert [v.action for v in report.violations if v.code == "S011"] == ["fix"] * 3
    report.to_json().encode("utf-8")  # strict: no surrogate left anywhere in the report
    assert answer == before  # the caller's value is never changed


def test_bytes_that_are_not_utf8_are_reported_by_the_byte():
    raw = json.dumps(ANSWER, ensure_ascii=False).replace("Redis", "Re@dis", 1).encode("utf-8").replace(b"@", b"\xff")
    report = memvet.validate(raw, CONTEXT)
    assert s011(report) == [("/0/memories/0/content", "replaced a byte that is not UTF-8 (0xff) with U+FFFD")]
    assert "Re\ufffddis" in report.output[0]["memories"][0]["content"]


def test_tab_newline_and_valid_pairs_are_left_alone():
    answer = copy.deepcopy(ANSWER)
    answer[0]["memories"][0]["content"] += "\t第二行\n😀 é"
    for raw in (answer, json.dumps(answer), json.dumps(answer, ensure_ascii=False)):
        assert s011(memvet.validate(raw, CONTEXT)) == []


def test_a_fixed_key_never_overwrites_another_key():
    value, found = replace_invalid({"a\x00": 1, "a\ufffd": 2}, owned=False)
    assert value == {"a\ufffd\ufffd": 1, "a\ufffd": 2} and len(found) == 1


def test_nested_values_are_copied_on_write_only_on_their_path():
    shared = {"untouched": [1, 2]}
    value = {"x": [{"y": "bad\x00"}], "z": shared}
    fixed, _ = replace_invalid(value, owned=False)
    assert fixed == {"x": [{"y": "bad\ufffd"}], "z": shared} and fixed["z"] is shared
    assert value["x"][0]["y"] == "bad\x00"


def test_a_context_with_a_lone_surrogate_is_a_context_error():
    context = copy.deepcopy(CONTEXT)
    context["messages"][1]["content"] += "\ud800"
    with pytest.raises(memvet.ContextError) as err:
        memvet.validate(ANSWER, context)
    assert err.value.field == "/messages/1/content"


def test_s011_switched_off_still_replaces_the_text():
    answer = copy.deepcopy(ANSWER)
    answer[0]["memories"][0]["content"] += "\ud800"
    report = memvet.validate(answer, CONTEXT, config={"ignore": ["S011"]})
    assert s011(report) == [] and "\ud800" not in report.to_json()
