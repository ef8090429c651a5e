"""memvet audit: stored memories vetted without being changed (issue 14, item 1)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from memvet.audit import PROVENANCE_CODES, audit_source
from memvet.cli import main

ROOT = Path(__file__).parents[2]
SAMPLES = ROOT / "examples" / "tencentdb"


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def _results(source: str, **kw) -> tuple[dict[str, dict], object]:
    got: dict[str, dict] = {}
    summary = audit_source(source, on_result=lambda r: got.__setitem__(r.id, r.to_dict()), **kw)
    return got, summary


def _codes(result: dict) -> set[str]:
    return {f["code"] for f in result["findings"]}


def test_clean_sample_passes(capsys):
    assert main(["audit", str(SAMPLES / "clean")]) == 0
    got, summary = _results(str(SAMPLES / "clean"))
    assert summary.records == 4 and summary.kept == 4
    assert all(r["verdict"] in ("ok", "warn") for r in got.values()), got
    assert all(r["skipped"] == [] for r in got.values())  # every source resolves: nothing skipped


def test_newest_version_of_a_record_wins():
    got, _ = _results(str(SAMPLES / "clean"))
    assert list(got).count("r-1") == 1
    lines = [json.loads(x) for x in (SAMPLES / "clean/records/2026-11-30.jsonl").read_text().splitlines()]
    assert [x["version"] for x in lines if x["id"] == "r-1"] == [1, 2]


def test_planted_sample_findings():
    before = _digest(SAMPLES / "planted")
    got, summary = _results(str(SAMPLES / "planted"))
    assert "P001" in _codes(got["p-secret"]) and got["p-secret"]["verdict"] == "fix"
    assert "I005" in _codes(got["p-other-session"]) and got["p-other-session"]["verdict"] == "reject"
    assert "I002" in _codes(got["p-nowhere"]) and got["p-nowhere"]["verdict"] == "reject"
    assert "G001" in _codes(got["p-changelog"]) and got["p-changelog"]["verdict"] == "drop"
    assert "G002" in _codes(got["p-snapshot"]) and got["p-snapshot"]["verdict"] == "drop"
    assert got["p-temp"]["verdict"] == "reroute" and got["p-temp"]["kind"] == "task_state"
    assert "W005" in _codes(got["p-temp"])
    assert got["p-duplicate"]["verdict"] == "drop" and "Q001" in _codes(got["p-duplicate"])
    # The records whose provenance is broken are not judged on it: skipped, never passed.
    assert set(got["p-nowhere"]["skipped"]) >= {"I003", "W008", "L001"}
    s = summary.to_dict()
    assert s["secrets"] == 1 and s["duplicates"] == 1
    assert s["rejected"] == {"I002": 1, "I005": 1}
    assert s["rerouted"] == {"W005": 1}
    assert s["dropped"] == {"G001": 1, "G002": 1, "Q001": 1}
    assert s["skipped"]["W008"] == 2
    assert _digest(SAMPLES / "planted") == before  # the source is never written


def test_secret_never_printed(capsys):
    for fmt in ("text", "json", "sarif"):
        main(["audit", str(SAMPLES / "planted"), "--format", fmt])
        out, err = capsys.readouterr()
        assert "ghp_16C7e42F" not in out + err


def test_clean_out_loads_back_in_the_same_format(tmp_path, capsys):
    out = tmp_path / "cleaned"
    assert main(["audit", str(SAMPLES / "planted"), "--clean-out", str(out), "--format", "json"]) == 1
    text = "".join(p.read_text() for p in out.rglob("*.jsonl"))
    assert "ghp_16C7e42F" not in text          # neither in records nor in the archive copy
    assert "[REDACTED:" in text
    records = [json.loads(x) for x in (out / "records/2026-11-30.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in records]
    assert "p-duplicate" not in ids and "p-changelog" not in ids and "p-nowhere" not in ids
    temp = next(r for r in records if r["id"] == "p-temp")
    assert temp["type"] == "work_task"          # task state in a format that only has `type`
    capsys.readouterr()
    # The copy is a TencentDB directory again, and nothing in it is left out any more.
    assert main(["audit", str(out), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])["summary"]
    assert summary["records"] == len(records) and summary["left_out"] == 0


def test_jsonl_records_with_and_without_archive(tmp_path):
    rows = [{"id": "a", "content": "CI 部署使用的 GitHub token 为 ghp_16C7e42F292c6912E7710c838347Ae178B4a。",
             "type": "work_fact", "source_message_ids": ["m5"], "sessionKey": "s-a1"},
            {"content": "登录服务的默认超时为 10 秒。", "type": "work_fact"}]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    got, summary = _results(str(path))
    assert got["a"]["verdict"] == "fix" and set(got["a"]["skipped"]) >= set(PROVENANCE_CODES) - {"I011"}
    assert "T005" in got["line-2"]["skipped"]   # no stored priority: the threshold check cannot run
    got, _ = _results(str(path), archive=str(SAMPLES / "planted"))
    assert got["a"]["skipped"] == ["T005"]       # m5 of s-a1 resolves in the archive
    out = tmp_path / "clean"
    audit_source(str(path), clean_out=str(out))
    assert "ghp_" not in (out / "records.jsonl").read_text()


def test_broken_records_become_findings_not_crashes(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "x", "content": 42, "type": "work_fact", "priority": 80}\n'
                    '{"id": "y", "content": "ok", "type": "persona", "priority": "high", "metadata": []}\n')
    got, summary = _results(str(path))
    assert got["x"]["verdict"] == "reject" and "S004" in _codes(got["x"])
    assert got["y"]["verdict"] == "reject" and "S004" in _codes(got["y"])
    assert summary.kept == 0


def test_memvet_store(tmp_path, capsys):
    from memvet.store import open_store

    db = tmp_path / "memory.db"
    records = [
        {"content": "网关默认超时为 10 秒。", "type": "work_fact", "kind": "project_fact", "namespace": "proj-x-facts",
         "source": ["tool:m1"], "confirmed_by": [], "status": "active", "sessionKey": "s"},
        {"content": "部署口令是 postgres://admin:hunter2secret@db.internal:5432/prod", "type": "work_fact",
         "kind": "project_fact", "namespace": "proj-x-facts", "source": [], "confirmed_by": ["user:m2"],
         "status": "active", "sessionKey": "s"},
    ]
    with open_store(str(db)) as store:
        store.commit({"ok": True, "records": records}, stream="s", cursor=1)
        hand = store.write("project_fact", "支付服务的默认重试次数为 3 次，与下游约定。", source=["commit:3e1f0aa"])
    got, summary = _results(str(db))
    assert got.pop(hand)["verdict"] in ("ok", "warn")   # written by hand: no type stored, its kind says it
    assert len(got) == 2
    secret = next(r for r in got.values() if "P001" in _codes(r))
    assert secret["verdict"] == "fix"
    assert all("W008" in r["skipped"] for r in got.values())   # no archive: provenance skipped
    out = tmp_path / "clean"
    assert main(["audit", str(db), "--clean-out", str(out), "--format", "json"]) == 0
    with open_store(str(out / "memory.db")) as copy:
        contents = [m["content"] for m in copy.backend.find()]
    assert len(contents) == 3 and not any("hunter2secret" in c for c in contents)


def test_sarif_output(capsys):
    main(["audit", str(SAMPLES / "planted"), "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"P001", "I002", "I005", "G001", "Q001"}


@pytest.mark.parametrize("source", ["nope/", "missing.jsonl", "nothing-here.db"])
def test_unreadable_source_is_exit_2(tmp_path, capsys, source):
    assert main(["audit", str(tmp_path / source)]) == 2
    assert source.rstrip("/") in capsys.readouterr().err


def test_directory_that_is_not_tencentdb(tmp_path, capsys):
    assert main(["audit", str(tmp_path)]) == 2
    assert "records/" in capsys.readouterr().err


def test_malformed_record_line_names_file_and_line(tmp_path, capsys):
    d = tmp_path / "data"
    shutil.copytree(SAMPLES / "clean", d)
    with open(d / "records/2026-11-30.jsonl", "a") as f:
        f.write("{not json\n")
    assert main(["audit", str(d)]) == 2
    assert "2026-11-30.jsonl:6" in capsys.readouterr().err


def test_record_without_session_key_resolves_through_the_archive(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps({"id": "a", "content": "登录服务的默认超时为 10 秒，是与网关团队约定的值，不要随意修改。",
                                "type": "work_fact", "priority": 85, "source_message_ids": ["m1"]},
                               ensure_ascii=False) + "\n")
    got, _ = _results(str(path), archive=str(SAMPLES / "clean" / "conversations"))
    # m1 exists in s-a1 and s-b2: which session is meant cannot be told, so provenance is skipped
    assert "W008" in got["a"]["skipped"] and got["a"]["verdict"] in ("ok", "warn")
    path.write_text(json.dumps({"id": "b", "content": "数据库迁移上线生产前必须先在 staging 执行 dry-run，因为直接上线曾导致锁表。",
                                "type": "work_method", "priority": 85, "source_message_ids": ["m3"],
                                "metadata": {"scope": "global", "method_type": "constraint"}},
                               ensure_ascii=False) + "\n")
    got, _ = _results(str(path), archive=str(SAMPLES / "clean"))
    assert got["b"]["skipped"] == [] and got["b"]["verdict"] == "ok"   # m3 lives in s-a1 only


def test_a_code_switched_off_in_config_is_not_emitted():
    got, summary = _results(str(SAMPLES / "planted"), config={"ignore": ["I002", "Q001"]})
    assert "I002" not in _codes(got["p-nowhere"]) and "Q001" not in _codes(got["p-duplicate"])
    assert "I005" in _codes(got["p-other-session"])


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                               max_size=3), max_leaves=8)
_record = st.fixed_dictionaries({}, optional={
    "id": st.text(max_size=5) | st.integers(), "content": st.text(max_size=40) | _json,
    "type": st.sampled_from(["work_fact", "work_task", "work_method", "work_artifact", "persona"]) | _json,
    "priority": st.integers(-5, 120) | _json, "source_message_ids": st.lists(st.sampled_from(["m1", "m5", "m7", "zz"]))
    | _json, "metadata": st.dictionaries(st.sampled_from(["scope", "deadline", "project", "x"]), _json) | _json,
    "sessionKey": st.sampled_from(["s-a1", "s-b2", "nope"]) | _json, "taskState": _json, "scene_name": _json})


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(records=st.lists(_record, min_size=1, max_size=4))
def test_arbitrary_records_never_crash_the_audit(tmp_path_factory, records):
    path = tmp_path_factory.mktemp("fuzz") / "records.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    got: list = []
    summary = audit_source(str(path), archive=str(SAMPLES / "planted"), on_result=got.append)
    assert summary.records == len(records) == len(got)
    for r in got:
        assert r.verdict in ("ok", "warn", "fix", "reroute", "drop", "reject")
        assert all(v.code != "E001" for v in r.findings), [v.message for v in r.findings]


def test_a_source_cited_twice_is_i007_not_a_crash(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps({"id": "a", "content": "数据库迁移上线生产前必须先在 staging 执行 dry-run，因为直接上线曾导致锁表。",
                                "type": "work_method", "priority": 85, "source_message_ids": ["m3", "m3"],
                                "sessionKey": "s-a1", "metadata": {"scope": "global", "method_type": "constraint"}},
                               ensure_ascii=False) + "\n")
    got, _ = _results(str(path), archive=str(SAMPLES / "clean"))
    assert "I007" in _codes(got["a"]) and got["a"]["skipped"] == []


def test_empty_session_key_is_no_session_key(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text('{"id": "a", "content": "登录服务的默认超时为 10 秒。", "type": "work_fact", "priority": 80, '
                    '"sessionKey": ""}\n')
    got, _ = _results(str(path))
    assert got["a"]["verdict"] in ("ok", "warn", "fix") and "W008" in got["a"]["skipped"]
