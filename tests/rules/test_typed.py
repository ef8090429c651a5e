"""T family: the time parser, drops, messages and "one fault, one violation"
across the family -- what the case files cannot say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.rules.typed import ENUMS, VOCABULARY, is_iso_time, parse_time
from workcount import work

TS = 1_795_831_200_000  # 2026-11-28T02:00:00Z
ONLY_T = Engine(config_from_dict({"select": ["T"]}))


def context(*stamps: tuple[int | None, int | None]) -> dict:
    return {"messages": [{"id": f"m{n}", "sessionKey": "s1", "role": "user", "content": "Redis pool raised to 64",
                          "timestamp": ts, "recordedAt": rec} for n, (ts, rec) in enumerate(stamps, 1)]}


def answer(**memory) -> list:
    mem = {"content": "auth-service's Redis pool was raised to 64.", "type": "work_fact", "priority": 80,
           "source_message_ids": ["m1"], **memory}
    return [{"new_scene_name": "auth-service｜Redis pool", "new_scene_reason": "The pool is empty.",
             "message_ids": ["m1"], "memories": [mem]}]


def found(report) -> list[tuple[str, str]]:
    return [(v.code, v.path) for v in report.violations]


# --- the time parser ---------------------------------------------------------------

@pytest.mark.parametrize("text, unit, aware", [
    ("2026-12-04", "day", False),
    ("2026-W49-5", "day", False),
    ("2026-12-04T18", "hour", False),
    ("2026-12-04T18:00Z", "minute", True),
    ("2026-12-04t18:00z", "minute", True),
    ("2026-12-04 18:00:05", "second", False),
    ("20261204T180005+0800", "second", True),
    ("2026-12-04T18:00:05.250-05:00", "second", True),
])
def test_accepted_times(text, unit, aware):
    written = parse_time(text)
    assert written is not None and (written.unit, written.aware) == (unit, aware)
    assert is_iso_time(text)  # T006's check agrees with the parser


@pytest.mark.parametrize("text", [
    "", " 2026-12-04", "2026-12", "12/04/2026", "下周五", "next Friday", "2026-12-04中18:00", "2026-12-04x18:00",
    "２０２６-12-04", "2026-12-04T24:00", "2026-13-01", "1795831200000",
])
def test_rejected_times(text):
    assert parse_time(text) is None
    assert not is_iso_time(text)


def test_offsets_are_honoured():
    assert parse_time("2026-11-28T10:00:00+08:00").start_ms == TS
    assert parse_time("2026-11-28T02:00:00Z").start_ms == TS
    assert parse_time("2026-11-28T02:00:00").start_ms == TS  # naive: read as UTC


# --- drops and fixes in the report ---------------------------------------------------

def test_low_priority_is_dropped_not_rejected():
    report = ONLY_T.validate(answer(priority=60), context((TS, TS)))
    assert found(report) == [("T005", "/0/memories/0/priority")]
    assert report.ok and report.records == []
    assert report.dropped == [{"path": "/0/memories/0", "codes": ["T005"]}]
    assert "below 70" in report.violations[0].message


def test_legacy_done_becomes_task_state_in_the_record():
    report = ONLY_T.validate(answer(type="work_task", metadata={"status": "done", "owner": "AI"}), context((TS, TS)))
    assert found(report) == [("T002", "/0/memories/0/metadata/status")]
    record = report.records[0]
    assert record["taskState"] == "done" and record["metadata"] == {"owner": "AI"}


def test_taskstate_on_a_fact_is_removed_from_the_record():
    report = ONLY_T.validate(answer(taskState="open"), context((TS, TS)))
    assert found(report) == [("T001", "/0/memories/0/taskState")]
    assert "taskState" not in report.records[0]


def test_retired_scope_message_points_at_project():
    report = ONLY_T.validate(answer(type="work_method", metadata={"scope": "project"}), context((TS, TS)))
    assert found(report) == [("T004", "/0/memories/0/metadata/scope")]
    assert "metadata.project" in report.violations[0].message


def test_foreign_key_message_names_its_owner():
    report = ONLY_T.validate(answer(metadata={"artifact_ref": "PR #12"}), context((TS, TS)))
    assert found(report) == [("T003", "/0/memories/0/metadata/artifact_ref")]
    assert "belongs to work_artifact" in report.violations[0].message


def test_recorded_at_message_names_the_message():
    report = ONLY_T.validate(answer(metadata={"activity_start_time": "2026-11-28T02:05:00Z"}),
                             context((TS, TS + 300_000)))
    assert found(report) == [("T009", "/0/memories/0/metadata/activity_start_time")]
    assert "'m1'" in report.violations[0].message and "2026-11-28T02:00:00Z" in report.violations[0].message


# --- one fault, one violation --------------------------------------------------------

@pytest.mark.parametrize("stamps, value, code", [
    # copied from recordedAt: T009 only (not also T008, although it lies outside the span)
    (((TS, TS + 300_000),), "2026-11-28T02:05:00Z", "T009"),
    # not ISO 8601, and no timestamp either: T006 removes it first
    (((None, TS),), "yesterday", "T006"),
    # guessed: no valid timestamp; T008/T009 have nothing to compare
    (((None, TS + 300_000),), "2026-11-28T02:05:00Z", "T007"),
    # epoch seconds is not a valid timestamp
    (((TS // 1000, TS),), "2026-11-28T02:00:00Z", "T007"),
    # outside the span of event times: a warning, the value stays
    (((TS, TS + 300_000),), "2026-11-30T02:00:00Z", "T008"),
])
def test_each_time_fault_is_reported_once(stamps, value, code):
    report = ONLY_T.validate(answer(metadata={"activity_start_time": value}), context(*stamps))
    assert found(report) == [(code, "/0/memories/0/metadata/activity_start_time")]
    kept = report.records[0]["metadata"]
    assert ("activity_start_time" in kept) == (code == "T008")


def test_legacy_status_on_task_is_T002_only():
    report = ONLY_T.validate(answer(type="work_task", metadata={"status": "doing"}), context((TS, TS)))
    assert found(report) == [("T002", "/0/memories/0/metadata/status")]


def test_vocabulary_and_enums_match_the_contract():
    # CONTRACT.md section 2, spelled out once more so that an edit to either is noticed.
    assert VOCABULARY["work_fact"] == ("work_object", "status", "activity_start_time", "activity_end_time")
    assert set(ENUMS["scope"]) == {"self", "global", "unknown"}
    assert len(ENUMS["method_type"]) == 7 and len(ENUMS["artifact_type"]) == 10


# --- cheap enough for every memory ---------------------------------------------------

def test_identity_and_typed_rules_are_cheap():
    """The I and T rules cost a bounded amount of work per memory (lines and calls counted, not timed):
    400 memories at most ~10x the work of 40, and a fixed budget per memory."""
    engine = Engine(config_from_dict({"select": ["I", "T"]}))
    ctx = {"messages": [{"id": f"m{n}", "sessionKey": "s1", "role": "user", "content": "x",
                         "timestamp": TS + n * 60_000, "recordedAt": TS + 3_600_000} for n in range(1, 41)],
           "scenePool": [{"id": f"sc{n:04d}", "label": f"demo｜topic {n}"} for n in range(50)]}
    memories = [{"content": f"memory {k}", "type": ("work_fact", "work_task", "work_method", "work_artifact")[k % 4],
                 "priority": 80, "source_message_ids": [f"m{k % 40 + 1}", f"m{(k + 1) % 40 + 1}"],
                 "metadata": {"activity_start_time": "2026-11-28T02:30:00Z"} if k % 4 == 0 else {}}
                for k in range(400)]

    def answer(n_scenes):
        return [{"scene_id": f"sc{i:04d}", "message_ids": [f"m{n}" for n in range(1, 41)],
                 "memories": memories[i * 40:(i + 1) * 40]} for i in range(n_scenes)]

    engine.validate(answer(10), ctx)  # warm up
    small, _ = work(engine.validate, answer(1), ctx)
    large, report = work(engine.validate, answer(10), ctx)
    assert report.stats["memories"] == 400
    assert large <= 12 * small, (small, large)
    # The whole pipeline (parse, schema, routing) is in this figure; the budget is loose on purpose.
    assert large / 400 < 1_500, f"{large / 400:.0f} events per memory"  # ~640 measured


def test_a_time_is_parsed_once_per_call_and_never_remembered_across_calls(monkeypatch):
    # T006, T008 and T009 share one parse per value within a validate() call;
    # a cache across calls would flatter the benchmark (it re-validates the
    # same answers), so a second call parses again.
    from memvet.rules import typed

    calls = []
    real = typed.parse_time
    monkeypatch.setattr(typed, "parse_time", lambda text: calls.append(text) or real(text))
    when = "2026-11-28T02:05:00Z"
    out = [{"new_scene_name": "auth-service｜Redis pool", "new_scene_reason": "The pool is empty.",
            "message_ids": ["m1"], "memories": [
                {"content": f"auth-service's Redis pool was raised to {n}.", "type": "work_fact", "priority": 80,
                 "source_message_ids": ["m1"], "metadata": {"activity_start_time": when}} for n in (32, 64)]}]
    for _ in range(2):
        report = ONLY_T.validate(out, context((TS, TS + 300_000)))
        assert [v.code for v in report.violations] == ["T009", "T009"]  # the parse is used, not skipped
    assert calls == [when, when]


# --- the labelled dev corpus: clean typing everywhere -----------------------------------

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "dev" / "memories.jsonl"


def test_dev_corpus_raises_no_identity_or_type_finding():
    """Every item is built as the corpus README says; its metadata matches its type and its priority is
    at least 70, so neither family may fire -- whatever G/M/W/P/Q faults the item carries."""
    engine = Engine(config_from_dict({"select": ["I", "T"]}))
    items = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line.strip()]
    for item in items:
        messages = [{"id": f"m{i}", "sessionKey": item["id"], "role": m["role"], "content": m["content"],
                     "timestamp": TS + 60_000 * (i - 1), "recordedAt": TS + 60_000 * (i - 1) + 300_000}
                    for i, m in enumerate(item["messages"], 1)]
        ids = [m["id"] for m in messages]
        reason = "The scene pool is empty, so this is a new scene." if item["lang"] == "en" else "场景池为空，新建情境。"
        output = [{"new_scene_name": f"demo｜{item['id']}", "new_scene_reason": reason, "message_ids": ids,
                   "memories": [{**item["memory"], "source_message_ids": ids}]}]
        report = engine.validate(json.dumps(output, ensure_ascii=False),
                                 {"messages": messages, "background": [], "scenePool": [], "knownProjects": ["demo"]})
        assert found(report) == [], (item["id"], [v.message for v in report.violations])
    assert len(items) >= 100
