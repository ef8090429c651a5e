"""The labelling-round kit (tests/data/tools/round): prompts as the extractor sends them, and a labeller's
folder that holds what the labeller may see and nothing of memvet's findings."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memvet.extractor.prompt import render

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "tests" / "data" / "tools" / "round"
CHECK = ROOT / "tests" / "data" / "check"
SESSION = "imguiwidgets-searchbox-textfilter"


def _kit():
    spec = importlib.util.spec_from_file_location("make_round", KIT / "make_round.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def round_dir(tmp_path: Path) -> Path:
    """A round with one session of the check set: its transcripts and answers."""
    shutil.copytree(CHECK / "transcripts" / SESSION, tmp_path / "transcripts" / SESSION)
    shutil.copytree(CHECK / "answers" / SESSION, tmp_path / "answers" / SESSION)
    return tmp_path


def test_prompts_are_the_dry_run_of_each_batch(round_dir: Path):
    memvet = str(Path(sys.executable).with_name("memvet"))
    written = _kit().render_prompts(round_dir / "transcripts", round_dir / "prompts", memvet)
    batches = sorted((round_dir / "transcripts" / SESSION).glob("batch-*.json"))
    assert [p.name for p in written] == [b.stem + ".txt" for b in batches]
    first = json.loads(written[0].read_text(encoding="utf-8"))
    context = json.loads(batches[0].read_text(encoding="utf-8"))
    assert first == render(context)


def test_label_dir_holds_what_the_labeller_may_see(round_dir: Path):
    if not (ROOT.parent / "shared" / "seeds").is_dir():
        pytest.fail("../shared is missing: the labeller's folder is built from its seeds and spec")
    out = _kit().label_dir(round_dir / "transcripts", round_dir / "answers", round_dir / "label")
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"spec/CONTRACT.md", "spec/RULES.md", "LABEL_CONVENTIONS.md", "check.py", "example/batch.json",
            "example/answer.txt", "example/label.json"} <= names
    assert any(n.startswith("seeds/000_") for n in names)
    answers = sorted(p.name for p in (round_dir / "answers" / SESSION).iterdir())
    assert sorted(n.rsplit("/", 1)[1] for n in names if n.startswith(f"answers/{SESSION}/")) == answers
    assert (out / "out" / SESSION).is_dir()
    # check.py runs on its own folder, with no memvet import and no finding code of memvet in its output
    assert "memvet" not in (out / "check.py").read_text(encoding="utf-8").split('"""', 2)[2]
    run = subprocess.run([sys.executable, str(out / "check.py")], capture_output=True, text=True, cwd=out)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("=====") == len(answers)
    assert "/0/memories/0" in run.stdout


def test_label_dir_never_overwrites_a_labellers_work(round_dir: Path):
    work = round_dir / "label" / "out" / SESSION / "batch-01.careful.json"
    work.parent.mkdir(parents=True)
    work.write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit, match="not empty"):
        _kit().label_dir(round_dir / "transcripts", round_dir / "answers", round_dir / "label")
    assert work.read_text(encoding="utf-8") == "{}"


def test_the_specstory_converter_reads_cursors_own_export(tmp_path):
    """Cursor's "Export Chat" file (`**User**` / `**Cursor**` between `---` rules) becomes user and
    assistant messages; a bold line inside a reply or a `---` inside a code fence is no turn."""
    spec = importlib.util.spec_from_file_location("specstory_to_batches",
                                                  ROOT / "tests" / "data" / "tools" / "specstory_to_batches.py")
    converter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(converter)
    export = tmp_path / "export.md"
    export.write_text("# Task manager\n_Exported on 19/10/2025 at 12:29:42 GMT+8 from Cursor (1.7.38)_\n\n---\n\n"
                      "**User**\n\nOne Python file, standard library only.\n\n---\n\n"
                      "**Cursor**\n\nI'll write `tasks.py`.\n\n**Cursor**-style notes follow.\n\n```python\nprint('x')\n---\n```\n\n---\n\n"
                      "**User**\n\nNo, keep the data in SQLite.\n\n---\n\n**Cursor**\n\nSwitched to SQLite.\n", encoding="utf-8")
    messages = converter.parse(export)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[2]["content"] == "No, keep the data in SQLite."
    assert "**Cursor**-style notes" in messages[1]["content"] and "print('x')\n---" in messages[1]["content"]


def test_label_dir_of_one_session_holds_no_other(round_dir: Path):
    """``--session``: a labeller sees its own session only, even when the round holds more."""
    other = "kiroview-discord-presence"
    shutil.copytree(CHECK / "transcripts" / other, round_dir / "transcripts" / other)
    shutil.copytree(CHECK / "answers" / other, round_dir / "answers" / other)
    out = _kit().label_dir(round_dir / "transcripts", round_dir / "answers", round_dir / "label", session=SESSION)
    assert sorted(p.name for p in (out / "batches").iterdir()) == [SESSION]
    assert sorted(p.name for p in (out / "answers").iterdir()) == [SESSION]
    with pytest.raises(SystemExit, match="no session 'nope'"):
        _kit().label_dir(round_dir / "transcripts", round_dir / "answers", round_dir / "other", session="nope")


def test_avoid_list_names_every_repository_used_or_left_out(tmp_path: Path):
    data, shared = tmp_path / "data", tmp_path / "shared"
    (data / "check" / "tools" / "specs").mkdir(parents=True)
    (shared / "corpus" / "real").mkdir(parents=True)
    (data / "check" / "README.md").write_text(
        "| `a/` | acme/Widget-Shop | `tests/x.md` |\n- CSCI-435-SE/excalidraw (a class repo): no licence.\n"
        "See https://github.com/Some-One/tool.js/blob/main/LICENSE. Scored 10/12, kept in tests/data.\n",
        encoding="utf-8")
    (shared / "corpus" / "real" / "README.md").write_text("From 0xf1e/health-analyzer-poc.\n", encoding="utf-8")
    (data / "check" / "tools" / "specs" / "a.json").write_text(json.dumps({"repo": "renamed/Spec-Only"}),
                                                                encoding="utf-8")
    names = _kit().avoid_list(data, shared)
    assert names == ["0xf1e/health-analyzer-poc", "acme/Widget-Shop", "CSCI-435-SE/excalidraw", "renamed/Spec-Only",
                     "Some-One/tool.js"]


def test_avoid_list_of_this_checkout_holds_every_spec_repository():
    specs = [json.loads(p.read_text(encoding="utf-8"))["repo"] for p in (ROOT / "tests" / "data").glob("*/tools/specs/*.json")]
    names = {n.lower() for n in _kit().avoid_list()}
    assert specs and {s.lower() for s in specs} <= names
