"""Verify (issue 12, item 1): error messages never echo a secret (CLI and `memvet serve`).

Found on main: `POST /v1/validate` with a ``config`` or ``context`` key that
is a token answered ``{"error": "request: config.ghp_…: unknown key"}`` and
``"context: /ghp_…: unknown key"`` (the CLI redacted the context key, the
server did not), and a ``select`` entry that is a token was quoted back by
both. Messages name a bad value by its kind, never by echoing it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memvet.serve import validate_job

REPO = Path(__file__).parents[2]
GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SK = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"


def _context() -> dict:
    return json.loads((REPO / "examples" / "context.json").read_text("utf-8"))


@pytest.mark.parametrize("secret", [GH, SK])
@pytest.mark.parametrize("where", ["config key", "config select", "context key", "pool id twice"])
def test_serve_errors_name_no_secret(secret: str, where: str):
    context = _context()
    body: dict = {"output": "[]", "context": context}
    if where == "config key":
        body["config"] = {secret: 1}
    elif where == "config select":
        body["config"] = {"select": [secret]}
    elif where == "context key":
        body["context"] = {**context, secret: 1}
    else:
        body["context"] = {**context, "scenePool": [{"id": secret, "label": "a｜b"}, {"id": secret, "label": "c｜d"}]}
    status, text = validate_job(json.dumps(body).encode())
    assert status == 400, text
    assert secret not in text
    assert "[REDACTED:" in text


def test_the_cli_config_error_names_no_secret(tmp_path: Path):
    (tmp_path / "memvet.toml").write_text(f'select = ["{GH}"]\n', "utf-8")
    proc = subprocess.run([sys.executable, "-m", "memvet", "rules"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert GH not in proc.stderr and "[REDACTED:github-token]" in proc.stderr
    assert "select[0]: no loaded rule has a code starting with" in proc.stderr


def test_an_ordinary_error_is_unchanged(tmp_path: Path):
    (tmp_path / "memvet.toml").write_text('select = ["I00l"]\n', "utf-8")
    proc = subprocess.run([sys.executable, "-m", "memvet", "rules"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"memvet: error: {tmp_path / 'memvet.toml'}: select[0]: no loaded rule has a "
                                   "code starting with 'I00l' (did you mean 'I001'?)")
