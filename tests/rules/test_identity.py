"""I family: what the case files cannot say -- messages, several rules at once,
"one fault, one violation", the CLI demo, real transcript contexts, properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.rules.identity import INVISIBLE, closest_pool_id, fold_id, lookalike_detail

TRANSCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "transcripts"
TS = 1_795_831_200_000

ONLY_I = Engine(config_from_dict({"select": ["I"]}))
I_AND_T = Engine(config_from_dict({"select": ["I", "T"]}))


def message(mid: str, content: str = "接入 Redis 的服务必须按压测峰值配置连接池", *, session: str = "s-7f2",
            role: str = "user", ts: int | None = TS) -> dict:
    return {"id": mid, "sessionKey": session, "role": role, "content": content, "timestamp": ts,
            "recordedAt": TS + 300_000}


def context(*messages: dict, background: tuple[dict, ...] = (), pool: dict[str, str] | None = None) -> dict:
    return {"messages": list(messages), "background": list(background),
            "scenePool": [{"id": k, "label": v} for k, v in (pool or {}).items()]}


def memory(*sources: str, **extra) -> dict:
    return {"content": "接入 Redis 的服务按压测峰值配置连接池大小。", "type": "work_fact", "priority": 85,
            "source_message_ids": list(sources), **extra}


def reuse(scene_id: str, ids: list[str], *memories: dict) -> dict:
    return {"scene_id": scene_id, "message_ids": ids, "memories": list(memories)}


def new(ids: list[str], *memories: dict) -> dict:
    return {"new_scene_name": "auth-service｜Redis 连接池", "new_scene_reason": "池中没有连接池议题。",
            "message_ids": ids, "memories": list(memories)}


def found(report) -> list[tuple[str, str]]:
    return [(v.code, v.path) for v in report.violations]


def message_of(report, code: str) -> str:
    messages = [v.message for v in report.violations if v.code == code]
    assert len(messages) == 1, found(report)
    return messages[0]


POOL = {"sc0003": "auth-service｜登录接口性能", "sc0011": "auth-service｜部署流水线"}


# --- I001: the headline demo -------------------------------------------------------

def test_invented_scene_id_names_the_pool_id_it_resembles():
    report = ONLY_I.validate([reuse("sc0007", ["m41"], memory("m41"))], context(message("m41"), pool=POOL))
    assert found(report) == [("I001", "/0/scene_id")]
    assert message_of(report, "I001") == "scene_id 'sc0007' is not in the scene pool (did you mean 'sc0003'?)"
    assert not report.ok and report.records == []


def test_empty_pool_says_only_new_scenes_are_allowed():
    report = ONLY_I.validate([reuse("sc0003", ["m41"], memory("m41"))], context(message("m41")))
    text = message_of(report, "I001")
    assert "pool is empty" in text and "only new scenes" in text and "'sc0003'" in text


def test_label_copied_as_id_suggests_that_scene():
    report = ONLY_I.validate([reuse("auth-service｜部署流水线", ["m41"], memory("m41"))], context(message("m41"), pool=POOL))
    assert "did you mean 'sc0011'?" in message_of(report, "I001")


def test_scene_name_equal_to_a_label_points_at_its_id():
    # The difflib-closest id would be sc0003; the label the model copied says sc0011.
    scene = {"scene_id": "sc0001", "scene_name": POOL["sc0011"], "message_ids": ["m41"], "memories": [memory("m41")]}
    report = ONLY_I.validate([scene], context(message("m41"), pool=POOL))
    assert "did you mean 'sc0011'?" in message_of(report, "I001")


def test_closest_pool_id_prefers_the_nearest_id():
    assert closest_pool_id("sc0007", POOL) == "sc0003"
    assert closest_pool_id("sc0012", POOL) == "sc0011"


def test_cli_check_prints_I001_with_the_resembled_pool_id(tmp_path, capsys):
    from memvet.cli import main

    ctx_file = tmp_path / "context.json"
    out_file = tmp_path / "answer.txt"
    config = tmp_path / "memvet.toml"
    config.write_text("", "utf-8")  # defaults: every rule on
    ctx_file.write_text(json.dumps(context(message("m41"), message("m42", role="assistant", content="已调到 64"),
                                           pool=POOL), ensure_ascii=False), "utf-8")
    out_file.write_text(json.dumps([reuse("sc0007", ["m41", "m42"], memory("m41", "m42"))], ensure_ascii=False),
                        "utf-8")
    code = main(["check", str(out_file), "--context", str(ctx_file), "--color", "never", "--config", str(config)])
    stdout = capsys.readouterr().out
    assert code == 1, stdout
    line = next(x for x in stdout.splitlines() if " I001 " in x)
    # One line of JSON: the scene id is on line 1, after `[{"scene_id": ` (column 3: its key).
    assert line.startswith(f"{out_file}:1:3: /0/scene_id: I001 reject ")
    assert "did you mean 'sc0003'?" in line


# --- one fault, one violation --------------------------------------------------------

@pytest.mark.parametrize("fake, real", [
    ("sc0003\u200b", "sc0003"),   # zero-width space
    ("\ufeffsc0003", "sc0003"),   # BOM
    ("ｓｃ０００３", "sc0003"),    # full width
    ("SC0003", "sc0003"),         # case
    ("sc 0003", "sc0003"),        # whitespace
])
def test_lookalike_scene_id_is_I010_only(fake, real):
    report = ONLY_I.validate([reuse(fake, ["m41"], memory("m41"))], context(message("m41"), pool=POOL))
    assert found(report) == [("I010", "/0/scene_id")]
    assert f"imitates {real!r}" in report.violations[0].message


def test_full_width_message_id_is_I010_only_everywhere():
    ids = ["ｍ41"]
    out = [new(ids, memory("ｍ41", metadata={"project": "auth-service", "projectEvidence": ["ｍ41"]}))]
    report = ONLY_I.validate(out, context(message("m41", "auth-service 的 Redis 连接池必须按压测峰值配置")))
    assert found(report) == [
        ("I010", "/0/message_ids/0"),
        ("I010", "/0/memories/0/source_message_ids/0"),
        ("I010", "/0/memories/0/metadata/projectEvidence/0"),
    ]
    assert all("'m41'" in v.message and "full-width" in v.message for v in report.violations)


def test_zero_width_message_id_message_names_the_code_point():
    report = ONLY_I.validate([new(["m41"], memory("m41\u200b"))], context(message("m41")))
    assert found(report) == [("I010", "/0/memories/0/source_message_ids/0")]
    assert "U+200B" in report.violations[0].message and "'m41'" in report.violations[0].message


def test_background_id_is_I003_not_I002():
    ctx = context(message("m41"), background=(message("m38", "今天先看登录超时"),))
    report = ONLY_I.validate([new(["m41", "m38"], memory("m41", "m38"))], ctx)
    assert found(report) == [("I003", "/0/message_ids/1"), ("I003", "/0/memories/0/source_message_ids/1")]


def test_unknown_source_is_I002_not_also_I004():
    report = ONLY_I.validate([new(["m41"], memory("m41", "m99"))], context(message("m41")))
    assert found(report) == [("I002", "/0/memories/0/source_message_ids/1")]


def test_paths_point_into_the_original_after_deduplication():
    # I007 removes the duplicate first; I002 must still point at index 2 of what the LLM wrote.
    report = ONLY_I.validate([new(["m41"], memory("m41", "m41", "m99"))], context(message("m41")))
    assert found(report) == [("I002", "/0/memories/0/source_message_ids/2"),
                             ("I007", "/0/memories/0/source_message_ids/1")]
    assert report.violations[1].fix == [{"op": "replace", "path": "/0/memories/0/source_message_ids",
                                         "value": ["m41", "m99"]}]


def test_clean_answer_on_real_transcript_contexts_raises_nothing():
    checked = 0
    for path in sorted(TRANSCRIPTS.glob("*/batch-*.json")):
        ctx = json.loads(path.read_text("utf-8"))
        by_session: dict[str, list[str]] = {}
        for m in ctx["messages"]:
            by_session.setdefault(m["sessionKey"], []).append(m["id"])
        session, ids = next(iter(by_session.items()))
        scene = ({"scene_id": ctx["scenePool"][0]["id"]} if ctx["scenePool"]
                 else {"new_scene_name": "demo｜transcript", "new_scene_reason": "The pool is empty."})
        out = [{**scene, "message_ids": ids,
                "memories": [{"content": "A fact drawn from the transcript.", "type": "work_fact", "priority": 80,
                              "source_message_ids": ids[:2]}]}]
        report = ONLY_I.validate(out, ctx)
        assert found(report) == [], (path, found(report))
        # The same answer with one source id hidden behind a zero-width space.
        out[0]["memories"][0]["source_message_ids"] = [ids[0] + "\u200b"]
        report = ONLY_I.validate(out, ctx)
        assert found(report) == [("I010", "/0/memories/0/source_message_ids/0")], path
        checked += 1
    assert checked >= 15


# --- sessions ------------------------------------------------------------------------

def test_cross_session_message_names_both_sessions():
    ctx = context(message("m1", session="s-a"), message("m2", session="s-b"))
    report = ONLY_I.validate([new(["m1", "m2"], memory("m1", "m2"))], ctx)
    assert found(report) == [("I005", "/0/memories/0/source_message_ids")]
    assert "'s-a': m1" in report.violations[0].message and "'s-b': m2" in report.violations[0].message


def test_same_id_in_two_sessions_is_one_session_when_the_other_ids_agree():
    ctx = context(message("m1", session="s-a"), message("m1", session="s-b"), message("m2", session="s-b"))
    report = I_AND_T.validate([new(["m1", "m2"], memory("m1", "m2"))], ctx)
    assert found(report) == []
    assert report.records[0]["sessionKey"] == "s-b"


def test_message_under_two_scenes_warns_at_the_later_one():
    ctx = context(message("m1"), message("m2"))
    out = [new(["m1", "m2"], memory("m1")), {**new(["m1"], memory("m1")), "new_scene_name": "auth-service｜部署"}]
    report = ONLY_I.validate(out, ctx)
    assert found(report) == [("I006", "/1/message_ids/0")]
    assert report.ok and "scene /0" in report.violations[0].message


# --- project claims ------------------------------------------------------------------

def test_project_claim_removed_keeps_the_memory():
    out = [new(["m41"], memory("m41", metadata={"project": "auth-service", "scope": "self"}))]
    report = ONLY_I.validate(out, context(message("m41")))
    assert found(report) == [("I008", "/0/memories/0/metadata/project")]
    assert report.ok and report.records[0]["metadata"] == {"scope": "self"}


def test_evidence_outside_sources_removes_both_keys():
    ctx = context(message("m41", "auth-service 的连接池"), message("m42"))
    out = [new(["m41", "m42"], memory("m42", metadata={"project": "auth-service", "projectEvidence": ["m41"]}))]
    report = ONLY_I.validate(out, ctx)
    assert found(report) == [("I009", "/0/memories/0/metadata/projectEvidence/0")]
    assert report.output[0]["memories"][0]["metadata"] == {}
    assert out[0]["memories"][0]["metadata"]["project"] == "auth-service"  # the caller's value is never mutated


# --- folding ---------------------------------------------------------------------------

def test_fold_id():
    assert fold_id("ｍ４１") == "m41"
    assert fold_id(" M\u200b4\u00ad1\u2069 ") == "m41"
    assert fold_id("sc\u30000003") == "sc0003"  # ideographic space
    assert lookalike_detail("Ｍ41\u200b", "m41") == "invisible U+200B, full-width or compatibility characters, letter case"


REAL_IDS = st.from_regex(r"[a-z]{1,3}[0-9]{1,4}", fullmatch=True)


@given(real=REAL_IDS, junk=st.lists(st.sampled_from(sorted(INVISIBLE)), min_size=1, max_size=3),
       where=st.integers(min_value=0, max_value=8), wide=st.booleans(), upper=st.booleans())
def test_any_disguised_id_is_a_lookalike_and_only_that(real, junk, where, wide, upper):
    fake = real.upper() if upper else real
    if wide:
        fake = "".join(chr(ord(c) + 0xFEE0) for c in fake)  # ASCII -> full-width forms
    cut = min(where, len(fake))
    fake = fake[:cut] + "".join(junk) + fake[cut:]
    report = ONLY_I.validate([new([real], memory(fake))], context(message(real)))
    assert found(report) == [("I010", "/0/memories/0/source_message_ids/0")]
    assert f"imitates {real!r}" in report.violations[0].message


def test_evidence_path_indexes_the_list_as_emitted():
    ctx = context(message("m41", "auth-service 的连接池"), message("m42"))
    meta = {"project": "auth-service", "projectEvidence": ["m42", "m42", "m41"]}
    report = ONLY_I.validate([new(["m41", "m42"], memory("m42", metadata=meta))], ctx)
    assert found(report) == [("I007", "/0/memories/0/metadata/projectEvidence/1"),
                             ("I009", "/0/memories/0/metadata/projectEvidence/2")]
    assert report.output[0]["memories"][0]["metadata"] == {}


def test_several_faulty_lists_of_one_scene_each_get_their_code_in_document_order():
    # The four list rules share one walk of the scene: every faulty list must
    # still be found, by the right rule, at its own pointer.
    c = context(message("m1"), message("m2"), message("m3"), message("m4"), background=(message("m0"),))
    out = [new(["m1", "m9", "m2", "m3"],
               memory("m1", "m1"),
               memory("m2", "m0"),
               memory("m3", metadata={"project": "demo", "projectEvidence": ["m3", "ｍ3"]}),
               memory("m2"))]
    got = found(ONLY_I.validate(out, c))
    assert [g for g in got if g[0] in ("I002", "I003", "I007", "I010")] == [
        ("I002", "/0/message_ids/1"),
        ("I003", "/0/memories/1/source_message_ids/1"),
        ("I007", "/0/memories/0/source_message_ids/1"),
        ("I010", "/0/memories/2/metadata/projectEvidence/1"),
    ]
    # A clean scene after a faulty one is not confused with it.
    out.append(new(["m4"], memory("m4")))
    assert not [g for g in found(ONLY_I.validate(out, c)) if g[1].startswith("/1/")]
