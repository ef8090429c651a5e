"""Ray Data: the same reports as the local engine, on a real local Ray (issue 14, item 3).

One Ray start for the whole module (2 CPUs, no dashboard, loopback only).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ray  # the [test] extra installs it: a missing Ray fails here, it is never skipped

from memvet.audit import audit_source
from memvet.cli import main
from memvet.integrations.ray import MemvetValidator

ROOT = Path(__file__).parents[2]
SHARED = Path(__file__).parents[3] / "shared"
pytestmark = pytest.mark.slow  # starting Ray alone takes seconds


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ray") / "answers.jsonl"
    lines = []
    for answer in sorted((SHARED / "corpus/real/answers").glob("*/*.txt")):
        context = SHARED / "corpus/transcripts" / answer.parent.name / (answer.name.split(".")[0] + ".json")
        lines.append(json.dumps({"context": json.loads(context.read_text()), "output": answer.read_text()},
                                ensure_ascii=False))
    lines.append(json.dumps({"context": json.loads((ROOT / "examples/context.json").read_text()),
                             "output": (ROOT / "examples/output.json").read_text()}, ensure_ascii=False))
    lines.append('{"context": {"messages": [], "mesages": []}, "output": "[]"}')  # a caller error line
    lines.append("{broken")
    path.write_text("\n".join(lines) + "\n")
    assert len(lines) > 40
    return path


@pytest.mark.parametrize("fmt", ["json", "text", "sarif"])
def test_check_engine_ray_is_identical_to_local(local_ray, answers, capsys, fmt):
    local_rc = main(["check", str(answers), "--format", fmt, "--no-progress"])
    local = capsys.readouterr()
    ray_rc = main(["check", str(answers), "--format", fmt, "--engine", "ray", "--jobs", "2", "--no-progress"])
    remote = capsys.readouterr()
    assert ray_rc == local_rc == 2   # the caller-error lines make both exit 2
    assert remote.out == local.out
    errors = [line for line in remote.err.splitlines() if line.startswith("memvet")]
    assert errors == [line for line in local.err.splitlines() if line.startswith("memvet")]
    assert len(errors) >= 2
    if fmt == "json":
        summary = json.loads(remote.out.splitlines()[-1])["summary"]
        assert summary["answers"] == 45 and summary["errors"] == 2 and summary["rejected"] > 0


def test_validator_on_a_dataset_of_rows(local_ray):
    import memvet

    context = json.loads((ROOT / "examples/context.json").read_text())
    output = (ROOT / "examples/output.json").read_text()
    rows = [{"row": 0, "context": json.dumps(context, ensure_ascii=False), "output": output},
            {"row": 1, "context": json.dumps({"messages": [], "bad": 1}), "output": "[]"},
            {"row": 2, "context": json.dumps(context, ensure_ascii=False), "output": "not json"}]
    ds = ray.data.from_items(rows).map_batches(MemvetValidator, compute=ray.data.ActorPoolStrategy(size=2),
                                               batch_size=2)
    # Two actors may finish in either order: the rows carry their place, and the columns pass through.
    got = sorted(ds.take_all(), key=lambda r: r["row"])
    expected = memvet.validate(output, context)
    assert got[0]["report"] == expected.to_json(indent=None) and list(got[0]["codes"]) == expected.codes()
    assert got[1]["error"] and "unknown key" in got[1]["error"] and got[1]["report"] is None
    assert got[2]["ok"] is False and list(got[2]["codes"]) == ["S001"]


def test_audit_engine_ray_is_identical_to_local(local_ray):
    source = str(ROOT / "examples/tencentdb/planted")
    local, remote = [], []
    s1 = audit_source(source, on_result=lambda r: local.append(r.to_dict()))
    s2 = audit_source(source, on_result=lambda r: remote.append(r.to_dict()), engine="ray")
    assert remote == local and s2.to_dict() == s1.to_dict()
    assert len(local) == 11


def test_chunk_boundaries_keep_file_order(local_ray, answers, capsys, monkeypatch):
    import memvet.integrations.ray as mr

    main(["check", str(answers), "--format", "json", "--no-progress"])
    local = capsys.readouterr().out
    monkeypatch.setattr(mr, "CHUNK_ROWS", 7)  # 45 lines: seven datasets, the last one short
    main(["check", str(answers), "--format", "json", "--engine", "ray", "--jobs", "2", "--no-progress"])
    assert capsys.readouterr().out == local
