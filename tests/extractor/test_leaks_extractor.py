"""``memvet extract`` never writes a secret: not in the answer, an attempt's raw text or a report."""

from __future__ import annotations

import copy
import json

from loopback import CONTEXT, GOOD_ANSWER, LoopbackServer, Reply, dumps
from memvet.cli import main

SECRET = "ghp_9fKq2LmZ7xR4tWb8NcE1uVyH3sDj6AoP0gQi"


def test_extract_output_holds_no_secret(tmp_path, monkeypatch, capsys):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MEMVET_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "context.json").write_text(dumps(CONTEXT), "utf-8")
    leaky = copy.deepcopy(GOOD_ANSWER)
    memory = leaky[0]["memories"][0]
    memory["content"] += f" 调试时用 token {SECRET}。"
    memory.setdefault("metadata", {})[SECRET] = "x"
    invented = {**leaky[0], "scene_id": "sc0007"}  # rejected first: a repair round, two attempts
    with LoopbackServer([Reply(dumps([invented])), Reply(dumps(leaky))]) as server:
        code = main(["extract", "context.json", "--base-url", server.url, "--model", "m", "--timeout", "1",
                     "--retries", "0", "--structured", "off", "--out", "result.json"])
    captured = capsys.readouterr()
    text = (tmp_path / "result.json").read_text("utf-8")
    doc = json.loads(text)
    assert code in (0, 1) and len(doc["attempts"]) >= 2
    assert SECRET not in text and SECRET not in captured.out and SECRET not in captured.err
    assert "[REDACTED:github-token]" in text
