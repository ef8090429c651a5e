"""Deep nesting anywhere is a violation at its pointer or a context error, never a RecursionError."""

from __future__ import annotations

import copy
import json

import pytest

import memvet
from memvet.depth import MAX_ANSWER_DEPTH, too_deep
from memvet.parse import parse_output

from conftest import REPO

CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
ANSWER = parse_output((REPO / "examples" / "output.json").read_text("utf-8")).value


def nested(depth: int, leaf: object = "x", key: str | None = None) -> object:
    value = leaf
    for _ in range(depth):
        value = [value] if key is None else {key: value}
    return value


def placed(where: str, value: object) -> list:
    answer = copy.deepcopy(ANSWER)
    memory = answer[0]["memories"][0]
    if where == "metadata":
        memory["metadata"] = {"k": value}
    elif where == "content":
        memory["content"] = value
    elif where == "memory-key":
        memory["zzz"] = value
    elif where == "scene-key":
        answer[0]["zzz"] = value
    elif where == "source-id":
        memory["source_message_ids"] = [value]
    return answer


@pytest.mark.parametrize("depth", [40, 500, 100_000])
@pytest.mark.parametrize("where", ["metadata", "content", "memory-key", "scene-key", "source-id"])
def test_a_deep_value_in_the_answer_is_s004_at_its_pointer(where, depth):
    report = memvet.validate(placed(where, nested(depth, key="a" if where == "metadata" else None)), CONTEXT)
    assert "E001" not in report.codes() and not report.ok
    s004 = [v for v in report.violations if v.code == "S004"]
    assert s004 and all(v.path.startswith("/0/") for v in s004)
    if where == "metadata":
        (v,) = s004
        assert v.path == "/0/memories/0/metadata/k" + "/a" * (MAX_ANSWER_DEPTH - 5)
        assert "nested more than" in v.message
    # the report serialises, whatever the depth of the answer
    json.loads(report.to_json())
    assert report.records == []


def test_the_metadata_case_of_the_issue_500_deep_no_longer_crashes_p001_p002():
    report = memvet.validate(json.dumps(placed("metadata", nested(500, key="a"))), CONTEXT)
    assert [v.code for v in report.violations] == ["S004"]


def test_a_deep_value_below_the_bound_still_reaches_the_privacy_rules():
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    report = memvet.validate(placed("metadata", nested(20, leaf=secret, key="a")), CONTEXT)
    assert "P001" in report.codes() and secret not in report.to_json()


@pytest.mark.parametrize("depth", [40, 5_000, 100_000])
@pytest.mark.parametrize("form", ["dict", "text"])
def test_a_deep_context_is_a_context_error_naming_the_field(depth, form):
    context = copy.deepcopy(CONTEXT)
    if form == "dict":
        context["messages"][0]["trace"] = nested(depth)
    else:
        context = json.dumps(context, ensure_ascii=False).replace(
            '"role": "user"', '"trace": ' + "[" * depth + "]" * depth + ', "role": "user"', 1)
    with pytest.raises(memvet.ContextError) as err:
        memvet.validate(ANSWER, context)
    assert "nested" in str(err.value)
    if form == "dict" or depth < 900:
        assert err.value.field.startswith("/messages/0/trace/0/0")


def test_too_deep_walks_without_recursion_and_in_document_order():
    value = {"a": nested(10), "b": [nested(3), nested(10)]}
    assert list(too_deep(value, 5)) == ["/a/0/0/0/0", "/b/1/0/0/0"]
    assert list(too_deep(nested(200_000), 3)) == ["/0/0/0"]
