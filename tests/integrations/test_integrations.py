"""memvet from pre-commit (``.pre-commit-hooks.yaml``) and from a GitHub workflow (``action.yml``).

The hook is run for real with ``pre-commit try-repo`` against a git copy of
this checkout; its Python environment is built offline from the machine's
local package index. The action's check step is its script, run with the
environment a GitHub runner gives it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import memvet

from conftest import REPO, SOURCE_PARTS

CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
REJECTED = (REPO / "examples" / "output.json").read_text("utf-8")
LOCAL_INDEX = Path("/opt/pypi/simple")  # the machine's offline package index (no network in tests)
BIN = Path(sys.executable).parent


def recording(path: Path, *outputs: str) -> Path:
    path.write_text("".join(json.dumps({"context": CONTEXT, "output": o}, ensure_ascii=False) + "\n"
                            for o in outputs), "utf-8")
    return path


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env, timeout=60)


# --- pre-commit -----------------------------------------------------------------------------

def test_the_hook_definition():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    hook = next(h for h in hooks if h["id"] == "memvet")
    assert hook["entry"] == "memvet check" and hook["language"] == "python"
    assert re.search(hook["files"], "recordings/2026-12-01.answers.jsonl")
    assert not re.search(hook["files"], "src/app.py") and not re.search(hook["files"], "data.jsonl")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_pre_commit_try_repo_passes_good_recordings_and_fails_a_rejected_one(tmp_path):
    if not LOCAL_INDEX.is_dir():
        pytest.fail(f"the offline package index {LOCAL_INDEX} is missing: the hook's environment cannot be built "
                    "without network")
    hook_repo = tmp_path / "memvet-src"
    hook_repo.mkdir()
    for part in (*SOURCE_PARTS, ".pre-commit-hooks.yaml"):
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, hook_repo / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, hook_repo / part)
    git(hook_repo, "init", "-q")
    git(hook_repo, "add", ".")
    git(hook_repo, "commit", "-q", "-m", "memvet")

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    recording(project / "good.answers.jsonl", "[]")
    (project / "notes.jsonl").write_text("not an answer file\n", "utf-8")  # not matched by `files`
    git(project, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_CONFIG_FILE": os.devnull,
           "PIP_INDEX_URL": LOCAL_INDEX.as_uri(), "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PIP_FIND_LINKS", None)
    env.pop("PIP_EXTRA_INDEX_URL", None)

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "pre-commit"), "try-repo", str(hook_repo), "memvet", "--all-files"],
                              cwd=project, capture_output=True, text=True, env=env, timeout=600)

    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"memvet\.+Passed", passed.stdout)

    recording(project / "bad.answers.jsonl", "[]", REJECTED)
    git(project, "add", ".")
    failed = try_repo()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert re.search(r"memvet\.+Failed", failed.stdout)
    assert "bad.answers.jsonl:2: /0/scene_id: I001 reject" in failed.stdout
    assert "good.answers.jsonl: 1 answers, 1 ok" in failed.stdout  # every matched file was checked


# --- the GitHub Action ---------------------------------------------------------------------------

def action() -> dict:
    return yaml.safe_load((REPO / "action.yml").read_text("utf-8"))


def test_action_is_composite_and_never_interpolates_inputs_into_scripts():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    steps = spec["runs"]["steps"]
    for step in steps:
        if "run" in step:
            assert "${{" not in step["run"], step["run"]  # inputs go through env: no script injection
            assert step["shell"] == "bash"
    check = next(s for s in steps if s.get("id") == "check")
    script = re.search(r'\$GITHUB_ACTION_PATH/(\S+?)"', check["run"]).group(1)
    assert (REPO / script).is_file()
    assert {"MEMVET_FILES", "MEMVET_CONTEXT", "MEMVET_ARGS", "MEMVET_SARIF", "MEMVET_FAIL_ON_REJECT"} <= set(check["env"])
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert "always()" in upload["if"] and "steps.check.outputs.sarif-file" in upload["with"]["sarif_file"]
    assert set(spec["outputs"]) == {"sarif-file", "exit-code"}


def run_action(workspace: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, dict[str, str], str]:
    outputs, summary = workspace / "gh-output", workspace / "gh-summary"
    outputs.write_text("", "utf-8")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "GITHUB_ACTIONS": "true",
           "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary),
           **{f"MEMVET_{k.upper()}": v for k, v in inputs.items()}}
    result = subprocess.run(["bash", str(REPO / "scripts" / "memvet-action.sh")], cwd=workspace,
                            capture_output=True, text=True, env=env, timeout=300)
    values = dict(line.split("=", 1) for line in outputs.read_text("utf-8").splitlines() if "=" in line)
    return result, values, summary.read_text("utf-8") if summary.exists() else ""


def test_action_script_annotates_writes_sarif_and_a_summary(tmp_path):
    (tmp_path / "rec").mkdir()
    recording(tmp_path / "rec" / "a.answers.jsonl", "[]", REJECTED)
    recording(tmp_path / "rec" / "b.answers.jsonl", "[]")
    result, outputs, summary = run_action(tmp_path)
    assert result.returncode == 1, result.stderr
    assert outputs == {"sarif-file": "memvet.sarif", "exit-code": "1"}
    assert "::error file=rec/a.answers.jsonl,line=2,title=I001 scene-id-not-in-pool at /0/scene_id::" in result.stdout
    log = json.loads((tmp_path / "memvet.sarif").read_text("utf-8"))
    expected = memvet.validate(REJECTED, CONTEXT).codes()
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == expected
    assert {r["helpUri"] for r in log["runs"][0]["tool"]["driver"]["rules"]} == {
        f"https://github.com/memvet/memvet/blob/main/docs/rules/{code}.md" for code in expected}
    assert "### memvet: 2 file(s)" in summary and re.search(r"1\s+I001\s+scene-id-not-in-pool", summary)


def test_action_script_options(tmp_path):
    recording(tmp_path / "a.answers.jsonl", REJECTED)
    result, outputs, _ = run_action(tmp_path, fail_on_reject="false", args="--ignore G", sarif="out/x.sarif")
    assert result.returncode == 0 and outputs["exit-code"] == "1"  # rejected, but the step may pass
    assert "title=G00" not in result.stdout and "::error file=a.answers.jsonl,line=1,title=I001" in result.stdout
    assert json.loads((tmp_path / "out" / "x.sarif").read_text("utf-8"))["runs"][0]["results"]
    result, outputs, _ = run_action(tmp_path, files="nothing/*.jsonl")
    assert result.returncode == 0 and "::warning title=memvet::no file matches" in result.stdout
    single = tmp_path / "one.json"
    single.write_text(REJECTED, "utf-8")
    result, outputs, _ = run_action(tmp_path, files="one.json", context=str(REPO / "examples" / "context.json"))
    assert result.returncode == 1 and "::error file=one.json,line=3,col=4,title=I001" in result.stdout
