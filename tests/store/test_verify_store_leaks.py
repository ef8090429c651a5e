"""Verify (issue 12, item 1): the store's hand-written paths never store or echo a secret.

Found on main: `memvet store add` redacted --content but stored --source,
--confirmed-by, --scope and --task-id verbatim (they are recalled with the
memory), and `memvet store review invalidate --reason` echoed the raw
reason although the store had redacted it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SK = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
EMAIL = "zhang.wei@corp-mail.cn"


def _memvet(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memvet", *args], cwd=cwd, capture_output=True, text=True)


def test_store_add_review_and_close_task_keep_secrets_out_of_the_store_and_the_output(tmp_path: Path):
    db = str(tmp_path / "m.db")
    outputs = [
        _memvet("store", "add", "--store", db, "--kind", "project_fact", "--content", "CI 的令牌放在 vault 里。",
                "--source", f"tool:{SK}", "--confirmed-by", EMAIL, "--scope", f"repo:{SK}", "--format", "json",
                cwd=tmp_path),
        _memvet("store", "add", "--store", db, "--kind", "task_state", "--content", "发布前要轮换部署令牌。",
                "--task-id", GH, "--format", "json", cwd=tmp_path),
        _memvet("store", "review", "invalidate", "f-1", "--reason", f"leaked {GH}", "--by", "alice",
                "--store", db, cwd=tmp_path),
        _memvet("store", "close-task", GH, "--store", db, cwd=tmp_path),
        _memvet("store", "events", "--store", db, "--format", "json", cwd=tmp_path),
        _memvet("store", "recall", "令牌", "--all-statuses", "--store", db, "--format", "json", cwd=tmp_path),
    ]
    for proc in outputs:
        assert proc.returncode == 0, proc.stderr
    printed = "".join(p.stdout + p.stderr for p in outputs)
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("m.db*"))
    for secret in (GH, SK, EMAIL):
        assert secret not in printed, secret
        assert secret.encode() not in stored, secret
    assert "invalid (leaked [REDACTED:github-token])" in outputs[2].stdout
    # The task is found by the token the user typed: closing it archived its state.
    assert outputs[3].stdout.strip().endswith("1 task state(s) archived")
    added = json.loads(outputs[0].stdout)
    assert added["source"] == ["tool:[REDACTED:api-key]"] and added["confirmed_by"] == ["[REDACTED:email]"]


def test_recall_finds_a_task_by_the_token_typed_and_reviewer_names_are_redacted(tmp_path: Path):
    """A task id that is a token is stored redacted, so recall must redact it too; --by is stored."""
    db = str(tmp_path / "m.db")
    outputs = [
        _memvet("store", "add", "--store", db, "--kind", "task_state", "--content", "发布前要轮换部署令牌。",
                "--task-id", GH, "--format", "json", cwd=tmp_path),
        _memvet("store", "recall", "--task", GH, "--kind", "task_state", "--store", db, "--format", "json",
                cwd=tmp_path),
        _memvet("store", "add", "--store", db, "--kind", "project_fact", "--content", "CI 的令牌放在 vault 里。",
                "--format", "json", cwd=tmp_path),
    ]
    fid = json.loads(outputs[2].stdout)["id"]
    outputs += [
        _memvet("store", "review", "confirm", fid, "--by", EMAIL, "--store", db, cwd=tmp_path),
        _memvet("store", "review", "invalidate", fid, "--reason", "wrong", "--by", SK, "--store", db,
                cwd=tmp_path),
        _memvet("store", "review", "restore", fid, "--by", EMAIL, "--store", db, cwd=tmp_path),
        _memvet("store", "events", "--store", db, "--format", "json", cwd=tmp_path),
    ]
    for proc in outputs:
        assert proc.returncode == 0, proc.stderr
    recalled = json.loads(outputs[1].stdout)
    assert [m["content"] for m in recalled] == ["发布前要轮换部署令牌。"]
    assert outputs[3].stdout.strip() == f"{fid}: active (confirmed by [REDACTED:email])"
    assert outputs[5].stdout.strip() == f"{fid}: pending (restored by [REDACTED:email])"
    printed = "".join(p.stdout + p.stderr for p in outputs)
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("m.db*"))
    for secret in (GH, SK, EMAIL):
        assert secret not in printed, secret
        assert secret.encode() not in stored, secret
