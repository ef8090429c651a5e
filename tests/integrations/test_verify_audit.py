"""Verify (issues 12 + 14): `memvet audit` never echoes a secret held in a record's other fields.

Found on main: the audit redacted content and metadata (the engine does),
but a secret in a record's ``id``, ``scene_name``, ``taskId`` or
``source_message_ids`` -- or in an archive message's ``id`` -- was printed
in the JSON report (``"id": "sk-proj-…"``) and written verbatim to
``--clean-out`` (records and conversations). Issue 12: every string that can
reach a report or a record is scanned, ids and scene names included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SK = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
MISSING = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
PLANTED = [GH, SK, MISSING, "Tr0ub4dor9zq", "zhang.wei@corp-mail.cn"]


def _row(**fields) -> str:
    return json.dumps(fields, ensure_ascii=False) + "\n"


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    root = tmp_path / "tdb"
    (root / "records").mkdir(parents=True)
    (root / "conversations").mkdir()
    common = {"sessionKey": "s-a1", "sessionId": "s-a1-run1", "recordedAt": "2026-11-30T02:00:30Z"}
    (root / "conversations" / "2026-11-30.jsonl").write_text(
        _row(**common, id="m1", role="user", content=f"部署 token 是 {GH} ，数据库 password: Tr0ub4dor9zq",
             timestamp=1796004000000)
        + _row(**common, id=GH, role="user", content="登录服务默认超时为 10 秒，这是和网关约定的。",
               timestamp=1796004001000), "utf-8")
    stamps = {"timestamps": [], "createdAt": "2026-11-30T02:01:00Z", "updatedAt": "2026-11-30T02:01:00Z",
              "version": 1, "sessionKey": "s-a1", "sessionId": "s-a1-run1"}
    (root / "records" / "2026-11-30.jsonl").write_text(
        _row(id="r-1", content="部署时用 Tr0ub4dor9zq 登录数据库。", type="work_fact", priority=85,
             scene_name=f"billing-api｜{SK}", source_message_ids=["m1"],
             metadata={"work_object": "zhang.wei@corp-mail.cn"}, **stamps)
        + _row(id=SK, content="登录服务默认超时为 10 秒。", type="work_fact", priority=85,
               scene_name="billing-api｜登录", source_message_ids=[GH], metadata={}, taskId=GH, **stamps)
        + _row(id="r-3", content="网关重试间隔为 2 秒。", type="work_fact", priority=85,
               scene_name="billing-api｜网关", source_message_ids=[MISSING], metadata={}, **stamps),
        "utf-8")
    return root


def _memvet(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memvet", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_no_planted_secret_in_any_audit_format(data_dir: Path, fmt: str):
    proc = _memvet("audit", str(data_dir), "--format", fmt, cwd=data_dir.parent)
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout + proc.stderr
    assert "REDACTED" in out or "<" in out
    for secret in PLANTED:
        assert secret not in out, (secret, fmt)


def test_the_clean_copy_holds_no_planted_secret_and_loads_back(data_dir: Path):
    out = data_dir.parent / "cleaned"
    proc = _memvet("audit", str(data_dir), "--clean-out", str(out), cwd=data_dir.parent)
    assert proc.returncode in (0, 1), proc.stderr
    written = "".join(p.read_text("utf-8") for p in sorted(out.rglob("*.jsonl")))
    assert written
    for secret in PLANTED:
        assert secret not in written, secret
    # The record that cites the secret-named message still resolves it: same placeholder both sides.
    records = [json.loads(line) for line in (out / "records" / "2026-11-30.jsonl").read_text("utf-8").splitlines()]
    cited = {mid for r in records for mid in r["source_message_ids"]}
    archived = {json.loads(line)["id"] for line in
                (out / "conversations" / "2026-11-30.jsonl").read_text("utf-8").splitlines()}
    assert "[REDACTED:github-token]" in cited and "[REDACTED:github-token]" in archived
    again = _memvet("audit", str(out), "--format", "json", cwd=data_dir.parent)
    assert again.returncode in (0, 1), again.stderr
    summary = json.loads(again.stdout.splitlines()[-1])["summary"]
    assert summary["secrets"] == 0 and summary["personal_data"] == 0


def test_the_api_result_scrubs_the_id_and_the_audits_own_messages(data_dir: Path):
    from memvet.audit import audit_source

    results = []
    audit_source(str(data_dir), on_result=results.append, config={})
    dumped = json.dumps([r.to_dict() for r in results], ensure_ascii=False)
    for secret in PLANTED:
        assert secret not in dumped, secret
    # The I002 of the record citing a secret-named id that is nowhere: said by kind and length.
    assert any(f.code == "I002" and "slack-token" in f.message for r in results for f in r.findings), dumped
