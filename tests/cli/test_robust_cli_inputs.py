"""Hostile answers through the CLI: every format and ``--commit`` write them, nothing crashes.

Lone surrogates, NUL and control characters, bytes that are not UTF-8,
values nested thousands deep and huge inputs, planted at every string
position of an answer that would otherwise commit. stdout is a strict UTF-8
stream (what a terminal or a pipe is), so an unencodable character fails
the test the way it failed a user.
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import memvet
from memvet.cli import main
from memvet.testing.hostile import deep_json, huge_text, invalid_text
from memvet.textcheck import INVALID

CONTEXT = {"messages": [
    {"id": "m1", "sessionKey": "s-1", "role": "user", "content": "网关默认超时为 30 秒，由 config/gateway.yaml 配置。",
     "timestamp": 1795831200000},
    {"id": "m2", "sessionKey": "s-1", "role": "tool", "content": "$ git log -1 --oneline\n9c2d7b1 gateway: timeout 30s",
     "timestamp": 1795831260000}], "scenePool": [], "knownProjects": ["demo"]}
SCENE = {"new_scene_name": "demo｜网关超时", "new_scene_reason": "池中没有网关超时议题。", "message_ids": ["m1", "m2"],
         "memories": [{"content": "网关默认超时为 30 秒，由 config/gateway.yaml 配置。", "type": "work_fact",
                       "priority": 82, "source_message_ids": ["m1", "m2"], "metadata": {"work_object": "网关"}}]}
FORMATS = ("text", "json", "sarif", "github")
POSITIONS = ("content", "metadata-key", "metadata-value", "scene-name", "scene-reason", "source-id", "message-id")

# Invalid characters (or none) among ordinary and look-alike ones.
hostile_text = st.one_of(invalid_text(), invalid_text(min_invalid=0))


def planted(position: str, text: str) -> list[dict]:
    scene = json.loads(json.dumps(SCENE))
    memory = scene["memories"][0]
    if position == "content":
        memory["content"] += text
    elif position == "metadata-key":
        memory["metadata"][text] = "x"
    elif position == "metadata-value":
        memory["metadata"]["work_object"] += text
    elif position == "scene-name":
        scene["new_scene_name"] += text
    elif position == "scene-reason":
        scene["new_scene_reason"] += text
    elif position == "source-id":
        memory["source_message_ids"][0] += text
    elif position == "message-id":
        scene["message_ids"].append(text)
    return [scene]


class Run:
    def __init__(self, code: int, out: bytes, err: bytes):
        self.code, self.out, self.err = code, out, err


def run_cli(argv: list[str]) -> Run:
    """``memvet ARGV`` in this process, with strict UTF-8 stdout and stderr."""
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sys, "stdout", stdout)
        m.setattr(sys, "stderr", stderr)
        code = main(argv)
        stdout.flush()
        stderr.flush()
    return Run(code, out.getvalue(), err.getvalue())


def check_everywhere(answer: bytes, *, expect_s011: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out_file, ctx_file, db = Path(tmp, "out.json"), Path(tmp, "ctx.json"), Path(tmp, "m.db")
        out_file.write_bytes(answer)
        ctx_file.write_text(json.dumps(CONTEXT, ensure_ascii=False), "utf-8")
        base = ["check", str(out_file), "--context", str(ctx_file), "--color", "never"]
        for fmt in FORMATS:
            run = run_cli([*base, "--format", fmt])
            assert run.code in (0, 1), (fmt, run.err)
            text = run.out.decode("utf-8")  # strict: every byte written is UTF-8
            if fmt in ("json", "sarif"):
                document = json.loads(text)
                if fmt == "json" and expect_s011:
                    assert "S011" in [v["code"] for v in document["violations"]]
            assert "\x00" not in text
        run = run_cli([*base, "--format", "json", "--commit", "--store", str(db)])
        assert run.code in (0, 1), run.err
        report = json.loads(run.out.decode("utf-8"))
        if run.code == 0:
            assert report["ok"]
            # What was stored is valid text, readable by any client (sqlite3 decodes TEXT as strict UTF-8).
            with sqlite3.connect(db) as conn:
                for table, in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
                    for row in conn.execute(f'SELECT * FROM "{table}"'):
                        for cell in row:
                            if isinstance(cell, str):
                                assert "\x00" not in cell and not any("\ud800" <= c <= "\udfff" for c in cell)


def test_the_clean_answer_commits():
    answer = json.dumps([SCENE], ensure_ascii=False).encode("utf-8")
    assert memvet.validate(answer, CONTEXT).ok  # the hostile cases below start from an answer that commits
    check_everywhere(answer, expect_s011=False)


@pytest.mark.slow
@settings(max_examples=25)
@given(position=st.sampled_from(POSITIONS), text=hostile_text, ascii_escapes=st.booleans())
def test_invalid_text_at_any_position_is_written_by_every_format_and_the_store(position, text,
                                                                            ascii_escapes):
    answer = planted(position, text)
    # As JSON escapes (\ud800, \u0000) or, where the JSON allows it, as raw characters.
    raw = json.dumps(answer, ensure_ascii=ascii_escapes).encode("utf-8", "surrogatepass")
    # As escapes, a high and a low surrogate side by side are one valid character (json decodes the
    # pair); written raw, each surrogate is bytes that are not UTF-8.
    decoded = json.loads(json.dumps(text)) if ascii_escapes else text
    invalid = INVALID.search(decoded) is not None
    check_everywhere(raw, expect_s011=invalid)


@settings(max_examples=10)
@given(position=st.sampled_from(("content", "scene-name", "metadata-value")), junk=st.binary(min_size=1, max_size=4)
       .filter(lambda b: not _is_utf8(b)))
def test_bytes_that_are_not_utf8_are_s011(position, junk):
    marker = "@@JUNK@@"
    text = json.dumps(planted(position, marker), ensure_ascii=False).encode("utf-8")
    check_everywhere(text.replace(marker.encode(), junk.replace(b'"', b"").replace(b"\\", b"") or b"\xff"),
                     expect_s011=True)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@settings(max_examples=12)
@given(deep=deep_json((1, 20, 40, 500, 990, 3_000, 60_000)),
       position=st.sampled_from(("metadata-value", "content", "memory-key", "answer")))
def test_deep_nesting_anywhere_is_a_violation_not_a_crash(deep, position):
    text = json.dumps([SCENE], ensure_ascii=False)
    if position == "metadata-value":
        text = text.replace('{"work_object": "网关"}', '{"work_object": "网关", "trace": ' + deep + "}")
    elif position == "content":
        text = text.replace('"content": "网关默认超时为 30 秒，由 config/gateway.yaml 配置。"', '"content": ' + deep)
    elif position == "memory-key":
        text = text.replace('"type": "work_fact"', '"type": "work_fact", "trace": ' + deep)
    else:
        text = "[" + text + "," + deep + "]"
    check_everywhere(text.encode("utf-8"), expect_s011=False)


@settings(max_examples=3)
@given(text=huge_text(units=("超时", "[x,", "依据：因为 because "), sizes=(200_000,)))
def test_huge_raw_answers_are_violations_not_crashes(text):
    check_everywhere(text.encode("utf-8"), expect_s011=False)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["content", "memories", "bare-words"])
def test_huge_inputs_go_through_every_format(kind):
    if kind == "content":  # one memory of a million characters
        text = json.dumps(planted("content", "超时" * 500_000), ensure_ascii=False)
    elif kind == "memories":  # 2,000 memories in one scene
        scene = json.loads(json.dumps(SCENE))
        scene["memories"] = scene["memories"] * 2_000
        text = json.dumps([scene], ensure_ascii=False)
    else:  # 3,000 lenient repairs (one S010 each, every format writes each)
        text = "[" + ",".join(["x"] * 3_000) + "]"
    check_everywhere(text.encode("utf-8"), expect_s011=False)
