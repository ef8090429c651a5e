"""memvet serve: the HTTP API answers what the CLI answers (issue 14, item 2).

A real server (``memvet serve`` in a subprocess) on a loopback port; a real
HTTP client. Every example and corpus answer is sent to ``/v1/validate``
and compared byte for byte with ``memvet check --format json``.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from memvet.cli import main

ROOT = Path(__file__).parents[2]
SHARED = Path(__file__).parents[3] / "shared"
TOKEN = "t0k3n-for-tests"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(tmp: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    (tmp / "memvet.toml").write_text("")
    (tmp / "token").write_text(TOKEN + "\n")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from memvet.cli import main; sys.exit(main())", "serve", "--port", str(port), "--workers", "2",
                             "--config", str(tmp / "memvet.toml"), "--token-file", str(tmp / "token"),
                             "--store", str(tmp / "memory.db"), *extra], cwd=tmp,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):  # bounded: the workers are spawned and warmed before the port answers
        if proc.poll() is not None:
            raise RuntimeError(f"memvet serve exited: {proc.stdout.read().decode()}")
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("memvet serve did not come up")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    proc, base = _start(tmp, "--max-bytes", "300000")
    client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    yield client, tmp
    client.close()
    _stop(proc)


def _pairs() -> list[tuple[Path, Path]]:
    pairs = [(ROOT / "examples/output.json", ROOT / "examples/context.json")]
    answers = SHARED / "corpus/real/answers"
    for answer in sorted(answers.glob("*/*.txt")):
        context = SHARED / "corpus/transcripts" / answer.parent.name / (answer.name.split(".")[0] + ".json")
        if context.exists():
            pairs.append((answer, context))
    return pairs


def test_the_corpus_is_there():
    assert len(_pairs()) > 40  # the comparison below must not pass on an empty list


def test_validate_is_byte_identical_to_the_cli(server, capsys):
    client, tmp = server
    for answer, context in _pairs():
        assert main(["check", str(answer), "--context", str(context), "--format", "json", "--exit-zero",
                     "--config", str(tmp / "memvet.toml")]) == 0
        cli = capsys.readouterr().out
        r = client.post("/v1/validate", json={"output": answer.read_text(encoding="utf-8"),
                                              "context": json.loads(context.read_text(encoding="utf-8"))})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/json")
        assert r.content == cli.encode("utf-8"), answer


def test_validate_with_a_config(server, capsys):
    client, tmp = server
    cfg = tmp / "ignore.toml"
    cfg.write_text('ignore = ["S002", "I001"]\n')
    main(["check", str(ROOT / "examples/output.json"), "--context", str(ROOT / "examples/context.json"),
          "--format", "json", "--exit-zero", "--config", str(cfg)])
    cli = capsys.readouterr().out
    r = client.post("/v1/validate", json={"output": (ROOT / "examples/output.json").read_text(),
                                          "context": json.loads((ROOT / "examples/context.json").read_text()),
                                          "config": {"ignore": ["S002", "I001"]}})
    assert r.content == cli.encode()


def test_caller_errors_carry_the_cli_message(server, tmp_path, capsys):
    client, _ = server
    bad = {"messages": [{"id": "m1", "sessionKey": "s", "role": "robot", "content": "x"}]}
    (tmp_path / "ctx.json").write_text(json.dumps(bad))
    (tmp_path / "out.json").write_text("[]")
    assert main(["check", str(tmp_path / "out.json"), "--context", str(tmp_path / "ctx.json")]) == 2
    cli = capsys.readouterr().err.strip()
    r = client.post("/v1/validate", json={"output": "[]", "context": bad})
    assert r.status_code == 400
    message = r.json()["error"]
    # The CLI names the file; the server names the request field. The rest is the same.
    assert cli == "memvet: error: " + message.replace("context: ", f"{tmp_path / 'ctx.json'}: ", 1)
    r = client.post("/v1/validate", json={"output": "[]", "context": {"messages": [], "mesages": []}})
    assert r.status_code == 400 and "unknown key" in r.json()["error"]
    r = client.post("/v1/validate", json={"output": "[]", "context": {"messages": []}, "config": {"selectt": []}})
    assert r.status_code == 400 and "selectt" in r.json()["error"]
    r = client.post("/v1/validate", json={"output": "[]", "context": "/etc/passwd"})  # never a server path
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]


@pytest.mark.parametrize("body,status", [(b"{nope", 400), (b"[]", 400), (b'{"output": "[]"}', 400)])
def test_malformed_bodies(server, body, status):
    client, _ = server
    r = client.post("/v1/validate", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status and r.json()["error"]


def test_a_broken_answer_is_a_report_not_an_error(server):
    client, _ = server
    r = client.post("/v1/validate", json={"output": "[{\"scene_id\": ", "context": {"messages": []}})
    assert r.status_code == 200 and r.json()["ok"] is False and r.json()["violations"][0]["code"] == "S001"


def test_size_limit_and_media_type(server):
    client, _ = server
    r = client.post("/v1/validate", json={"output": "x" * 400_000, "context": {"messages": []}})
    assert r.status_code == 413
    r = client.post("/v1/validate", content=b"output=1", headers={"content-type": "text/plain"})
    assert r.status_code == 415


def test_bearer_token(server):
    client, _ = server
    url = str(client.base_url)
    assert httpx.post(url + "/v1/validate", json={"output": "[]", "context": {"messages": []}}).status_code == 401
    wrong = {"Authorization": "Bearer nope"}
    assert httpx.get(url + "/v1/recall", headers=wrong).status_code == 401
    assert httpx.get(url + "/healthz").status_code == 200  # liveness needs no token


def test_commit_then_recall(server):
    client, _ = server
    context = {"messages": [{"id": "m1", "sessionKey": "s-1", "role": "user", "timestamp": 1767225600000,
                             "content": "网关默认超时定为 10 秒，和运维约定过，不要改。"}]}
    output = [{"new_scene_name": "demo｜网关超时", "new_scene_reason": "池中没有网关超时议题", "message_ids": ["m1"],
               "memories": [{"content": "网关默认超时为 10 秒，是与运维约定的值，不要修改。", "type": "work_fact",
                             "priority": 85, "source_message_ids": ["m1"]}]}]
    r = client.post("/v1/commit", json={"output": output, "context": context, "stream": "s-1", "cursor": 1})
    assert r.status_code == 200, r.text
    assert r.json()["committed"] is True and r.json()["records"] == 1
    again = client.post("/v1/commit", json={"output": output, "context": context, "stream": "s-1", "cursor": 1})
    assert again.json()["committed"] is False
    found = client.get("/v1/recall", params={"query": "网关默认超时", "kind": "project_fact"}).json()["memories"]
    assert [m["content"] for m in found] == ["网关默认超时为 10 秒，是与运维约定的值，不要修改。"]
    rejected = client.post("/v1/commit", json={"output": [{"scene_id": "sc9999", "message_ids": ["m1"],
                                                           "memories": output[0]["memories"]}], "context": context})
    assert rejected.status_code == 422 and rejected.json()["report"]["ok"] is False
    bad = client.post("/v1/commit", json={"output": output, "context": context, "config": {"nope": 1}})
    assert bad.status_code == 400 and "config.nope" in bad.json()["error"]
    assert client.post("/v1/commit", json={"context": context}).status_code == 400
    assert client.post("/v1/commit", json={"output": output, "context": context, "cursor": -1}).status_code == 400
    assert client.get("/v1/recall", params={"kind": "nope"}).status_code == 400
    assert client.get("/v1/recall", params={"limit": "x"}).status_code == 400


def test_timeout(tmp_path):
    proc, base = _start(tmp_path, "--timeout", "0.000001")
    try:
        r = httpx.post(base + "/v1/validate", json={"output": "[]", "context": {"messages": []}},
                       headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
        assert r.status_code == 504 and "longer than" in r.json()["error"]
    finally:
        _stop(proc)


@pytest.mark.parametrize("args,field", [(["--token-file", "/nonexistent/token"], "--token-file"),
                                        (["--timeout", "0"], "--timeout"), (["--max-bytes", "0"], "--max-bytes"),
                                        (["--workers", "-1"], "--workers")])
def test_bad_serve_options_are_exit_2(tmp_path, capsys, args, field):
    assert main(["serve", "--port", "0", *args]) == 2
    assert field in capsys.readouterr().err


def test_empty_token_file_is_refused(tmp_path, capsys):
    (tmp_path / "token").write_text("\n")
    assert main(["serve", "--token-file", str(tmp_path / "token")]) == 2
    assert "empty" in capsys.readouterr().err
