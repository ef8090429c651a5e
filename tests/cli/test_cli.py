"""The ``memvet`` command line: subcommands, formats, exit codes, JSONL streaming, --jobs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import memvet
from memvet.cli import main
from memvet.cli_check import Progress
from memvet.registry import default_registry

from conftest import REPO

MEMVET = str(Path(sys.executable).parent / "memvet")
CONTEXT_FILE = REPO / "examples" / "context.json"
CONTEXT = json.loads(CONTEXT_FILE.read_text("utf-8"))
EXAMPLE_OUTPUT = REPO / "examples" / "output.json"
# A contract fault (S004) rejects whatever the content rules think: stable across rule changes.
REJECTED = '[{"message_ids": ["m41"], "memories": [{"content": "连接池必须按压测峰值配置", "priority": 80,\n' \
           ' "source_message_ids": ["m41"]}]}]'
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ok.json").write_text("[]", "utf-8")
    (tmp_path / "rejected.json").write_text(REJECTED, "utf-8")
    return tmp_path


def jsonl(path: Path, outputs: list, context=CONTEXT) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for output in outputs:
            f.write(json.dumps({"context": context, "output": output}, ensure_ascii=False) + "\n")
    return path


# --- --version, rules, rule -------------------------------------------------------------

def test_version(capsys):
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.strip() == f"memvet {memvet.__version__}"


def test_no_command_is_a_usage_error(capsys):
    assert cli(capsys)[0] == 2
    assert cli(capsys, "check")[0] == 2  # OUTPUT missing
    assert cli(capsys, "check", "x.json", "--jobs", "many")[0] == 2


def test_rules_lists_every_loaded_rule_with_code_name_action_origin(capsys):
    code, out, _ = cli(capsys, "rules")
    assert code == 0
    registry = default_registry()
    header, *rows = out.splitlines()
    assert header.split() == ["CODE", "NAME", "ACTION", "ON", "TARGET", "ORIGIN"]
    lines = {line.split()[0]: line.split() for line in rows if line.strip()}
    assert set(lines) == set(registry.rules)
    for code_, cls in registry.rules.items():
        fields = lines[code_]
        assert fields[1] == cls.name and fields[2] == cls.action and fields[-1] == registry.origins[code_]


def test_rules_shows_configured_actions(capsys, tmp_path):
    config = tmp_path / "memvet.toml"
    config.write_text('actions = { S009 = "reject" }\nignore = ["S005"]\n', "utf-8")
    _, out, _ = cli(capsys, "rules", "--config", str(config))
    by_code = {line.split()[0]: line.split() for line in out.splitlines()}
    assert by_code["S009"][2] == "reject" and by_code["S005"][3] == "off" and by_code["S004"][3] == "on"


def test_rule_prints_its_documentation(capsys):
    code, out, _ = cli(capsys, "rule", "s006")
    assert code == 0
    assert out.startswith("S006 scene-mixed-forms")
    for section in ("What it does:", "Why is this bad?", "Example:", "Use instead:"):
        assert section in out
    assert cli(capsys, "rule", "Z999")[0] == 2


# --- check: exit codes and errors ---------------------------------------------------------

def test_exit_codes(capsys, files):
    assert cli(capsys, "check", str(files / "ok.json"), "--context", str(CONTEXT_FILE))[0] == 0
    assert cli(capsys, "check", str(files / "rejected.json"), "--context", str(CONTEXT_FILE))[0] == 1
    assert cli(capsys, "check", str(files / "rejected.json"), "--context", str(CONTEXT_FILE), "--exit-zero")[0] == 0


def test_bad_context_exits_2_naming_file_and_field(capsys, files):
    bad = files / "context.json"
    bad.write_text(json.dumps({"messages": [{"id": "m1", "sessionKey": "s", "role": "bot", "content": "x"}]}), "utf-8")
    code, out, err = cli(capsys, "check", str(files / "ok.json"), "--context", str(bad))
    assert code == 2 and out == ""
    assert str(bad) in err and "/messages/0/role" in err
    code, _, err = cli(capsys, "check", str(files / "ok.json"), "--context", str(files / "nope.json"), "--exit-zero")
    assert code == 2 and "nope.json" in err


def test_bad_config_exits_2_naming_file_and_field(capsys, files):
    config = files / "memvet.toml"
    config.write_text("selekt = ['S']\n", "utf-8")
    code, _, err = cli(capsys, "check", str(files / "ok.json"), "--context", str(CONTEXT_FILE), "--config", str(config))
    assert code == 2 and str(config) in err and "selekt" in err


def test_config_is_discovered_from_the_working_directory(capsys, files, monkeypatch):
    (files / "pyproject.toml").write_text('[tool.memvet]\nactions = { S004 = "warn" }\n', "utf-8")
    monkeypatch.chdir(files)
    code, out, _ = cli(capsys, "check", "rejected.json", "--context", str(CONTEXT_FILE), "--format", "json")
    assert {v["action"] for v in json.loads(out)["violations"] if v["code"] == "S004"} == {"warn"}


def test_missing_output_file_and_unknown_format_exit_2(capsys, files):
    code, _, err = cli(capsys, "check", str(files / "missing.json"), "--context", str(CONTEXT_FILE))
    assert code == 2 and "missing.json" in err
    code, _, err = cli(capsys, "check", str(files / "ok.json"), "--context", str(CONTEXT_FILE), "--format", "xml")
    assert code == 2 and "--format" in err and "sarif" in err


def test_output_from_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(REJECTED.encode())))
    code, out, _ = cli(capsys, "check", "-", "--context", str(CONTEXT_FILE), "--format", "json")
    assert code == 1 and json.loads(out)["ok"] is False


# --- formats -------------------------------------------------------------------------------

def test_text_shows_pointer_code_action_value_and_verdict(capsys):
    code, out, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE), "--color", "never")
    report = memvet.validate(EXAMPLE_OUTPUT.read_text("utf-8"), CONTEXT_FILE)
    assert not ANSI.search(out)
    for v in report.annotate().violations:
        assert f"{EXAMPLE_OUTPUT}:{v.line}:{v.column}: {v.path or '/'}: {v.code} {v.action} {v.message}" in out
    # The offending value of the invented scene id and the dropped snapshot are shown.
    assert '    value: "sc0007"' in out
    assert out.rstrip().splitlines()[-1].startswith(f"{EXAMPLE_OUTPUT}: rejected -- 1 scenes, 3 memories")
    assert code == 1


def test_text_colour_only_when_asked_or_on_a_terminal(capsys):
    _, out, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE), "--color", "always")
    assert ANSI.search(out)
    _, plain, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE))  # auto, not a tty
    assert not ANSI.search(plain) and ANSI.sub("", out) == plain


def test_text_never_echoes_a_secret_as_the_offending_value():
    from memvet.formats import format_text
    from memvet.report import Report, Violation

    secret = "sk-live-0123456789abcdef0123456789"
    original = [{"memories": [{"content": f"token {secret} 必须轮换"}]}]
    report = Report(ok=False, violations=[Violation("L002", "x", "reject", "/0/memories/0/content", "m", "r")],
                    original=original, secrets={secret: "[REDACTED:api-key]"})
    text = format_text(report, source="o.json")
    assert secret not in text and "[REDACTED:api-key]" in text


def test_json_is_the_report_byte_for_byte(capsys):
    _, out, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE), "--format", "json")
    _, again, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE), "--format", "json")
    expected = memvet.validate(EXAMPLE_OUTPUT.read_text("utf-8"), CONTEXT_FILE).to_json()
    assert out == again == expected + "\n"
    assert list(json.loads(out)) == ["ok", "violations", "records", "dropped", "output", "stats"]


# A subset of the SARIF 2.1.0 schema (OASIS): the objects memvet writes, their
# required members, enums, and no member SARIF does not define.
_MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}},
            "additionalProperties": False}
_MULTIFORMAT = {"type": "object", "required": ["text"], "additionalProperties": False,
                "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}}}
SARIF_SUBSET = {
    "type": "object", "required": ["version", "runs"], "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string", "format": "uri"}, "version": {"const": "2.1.0"},
        "runs": {"type": "array", "items": {"$ref": "#/$defs/run"}},
    },
    "$defs": {
        "run": {"type": "object", "required": ["tool"], "additionalProperties": False, "properties": {
            "tool": {"type": "object", "required": ["driver"], "additionalProperties": False,
                     "properties": {"driver": {"$ref": "#/$defs/driver"}}},
            "results": {"type": "array", "items": {"$ref": "#/$defs/result"}},
            "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]}}},
        "driver": {"type": "object", "required": ["name"], "additionalProperties": False, "properties": {
            "name": {"type": "string"}, "version": {"type": "string"}, "informationUri": {"type": "string"},
            "rules": {"type": "array", "items": {"$ref": "#/$defs/rule"}}}},
        "rule": {"type": "object", "required": ["id"], "additionalProperties": False, "properties": {
            "id": {"type": "string"}, "name": {"type": "string"}, "shortDescription": _MESSAGE,
            "fullDescription": _MESSAGE, "help": _MULTIFORMAT,
            "helpUri": {"type": "string"}, "properties": {"type": "object"},
            "defaultConfiguration": {"type": "object", "additionalProperties": False, "properties": {
                "level": {"enum": ["none", "note", "warning", "error"]}}}}},
        "result": {"type": "object", "required": ["message"], "additionalProperties": False, "properties": {
            "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": -1},
            "level": {"enum": ["none", "note", "warning", "error"]}, "message": _MESSAGE,
            "properties": {"type": "object"},
            "locations": {"type": "array", "items": {"type": "object", "additionalProperties": False, "properties": {
                "physicalLocation": {"type": "object", "additionalProperties": False, "properties": {
                    "artifactLocation": {"type": "object", "required": ["uri"], "additionalProperties": False,
                                         "properties": {"uri": {"type": "string"}}},
                    "region": {"type": "object", "additionalProperties": False,
                               "properties": {"startLine": {"type": "integer", "minimum": 1},
                                              "startColumn": {"type": "integer", "minimum": 1}}}}},
                "logicalLocations": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "properties": {
                        "fullyQualifiedName": {"type": "string"}, "kind": {"type": "string"}}}}}}}}},
    },
}


def check_sarif(log: dict, violations: list[dict]) -> None:
    Draft202012Validator(SARIF_SUBSET).validate(log)
    run = log["runs"][0]
    rules, results = run["tool"]["driver"]["rules"], run["results"]
    assert len(results) == len(violations)
    level = {"reject": "error", "drop": "warning", "warn": "warning", "fix": "note"}
    for result, v in zip(results, violations):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == v["code"]
        assert result["level"] == level[v["action"]]
        assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == (v["path"] or "/")
        assert result["properties"]["pointer"] == v["path"]
    assert len({r["id"] for r in rules}) == len(rules)


def test_sarif_is_valid_sarif_2_1_0(capsys):
    code, out, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE), "--format", "sarif")
    report = memvet.validate(EXAMPLE_OUTPUT.read_text("utf-8"), CONTEXT_FILE)
    check_sarif(json.loads(out), [v.to_dict() for v in report.violations])
    assert code == 1


def test_github_annotates_rejects_and_warnings_at_their_line_and_folds_fixes(capsys):
    code, out, _ = cli(capsys, "check", str(EXAMPLE_OUTPUT), "--context", str(CONTEXT_FILE), "--format", "github")
    report = memvet.validate(EXAMPLE_OUTPUT.read_text("utf-8"), CONTEXT_FILE).annotate()
    annotations = [line for line in out.splitlines() if line.startswith("::") and not line.startswith("::group")
                   and line != "::endgroup::"]
    shown = [v for v in report.violations if v.action != "fix"]
    assert len(annotations) == len(shown) and shown
    # Errors first (GitHub keeps only the first ten of each level), each at its pointer's line and column.
    shown.sort(key=lambda v: v.action != "reject")
    kinds = {"reject": "error", "drop": "warning", "warn": "warning"}
    for line, v in zip(annotations, shown):
        m = re.match(r"^::(error|warning) file=([^,]+),line=(\d+),col=(\d+),title=([^:]+)::(.+)$", line)
        assert m, line
        assert m.group(1) == kinds[v.action] and m.group(2) == str(EXAMPLE_OUTPUT)
        assert (int(m.group(3)), int(m.group(4))) == (v.line, v.column) and m.group(5).startswith(v.code)
    assert {v.line for v in shown} != {1}  # not every finding on line 1
    # The fixes memvet applied are folded into one collapsed group, not one notice each.
    fixes = [v for v in report.violations if v.action == "fix"]
    group = out[out.index("::group::"):out.index("::endgroup::")].splitlines()
    assert f"{len(fixes)} more findings" in group[0] and len(group) == 1 + len(fixes)
    assert "::notice" not in out
    assert out.splitlines()[-1].startswith(f"memvet: {EXAMPLE_OUTPUT}: rejected")
    assert code == 1


def test_github_keeps_to_ten_errors_and_ten_warnings_per_step():
    from memvet.ci_formats import GithubAnnotations
    from memvet.report import Violation

    many = [Violation("I001", "x", "reject", f"/{k}/scene_id", "m", "r", line=k + 1, column=3) for k in range(13)]
    many += [Violation("G002", "y", "drop", f"/{k}/memories/0", "m", "r", line=k + 1, column=5) for k in range(12)]
    github = GithubAnnotations()
    lines = github.render(many[:7], "a.json") + github.render(many[7:], "b.json")  # one step, two files
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert sum(line.startswith("::warning ") for line in lines) == 10
    folded = [line for line in lines if not line.startswith("::")]
    assert len(folded) == 5 and all(": I001 reject" in x or ": G002 drop" in x for x in folded)
    assert github.summary() == "memvet: 13 errors, 12 warnings, 0 fixes applied; 5 not annotated (see the groups above)"


def test_github_escapes_newlines_and_separators():
    from memvet.ci_formats import github_annotation
    from memvet.report import Violation

    line = github_annotation(Violation("S004", "schema", "reject", "/0/a,b", "bad:\nvalue 100%", "r"), "x,y.jsonl:3")
    assert "\n" not in line
    assert line.startswith("::error file=x%2Cy.jsonl,line=3,title=S004 schema at /0/a%2Cb::bad:%0Avalue 100%25")


# --- JSONL ---------------------------------------------------------------------------------

def test_jsonl_reports_each_line_and_a_summary(capsys, tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", ["[]", REJECTED, []])
    code, out, _ = cli(capsys, "check", str(path), "--format", "json")
    lines = out.splitlines()
    assert len(lines) == 4
    assert [json.loads(x)["ok"] for x in lines[:3]] == [True, False, True]
    assert json.loads(lines[1]) == memvet.validate(REJECTED, CONTEXT).to_dict()
    assert json.loads(lines[3]) == {"summary": {"answers": 3, "ok": 2, "rejected": 1, "errors": 0}}
    assert code == 1
    code, out, _ = cli(capsys, "check", str(path))
    assert f"{path}:2: /0/memories/0/type: S004 reject" in out
    assert out.splitlines()[-1] == f"{path}: 3 answers, 2 ok, 1 rejected"


def test_jsonl_all_ok_exits_0_and_blank_lines_are_skipped(capsys, tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", ["[]", []])
    path.write_text(path.read_text("utf-8") + "\n\n", "utf-8")
    code, out, _ = cli(capsys, "check", str(path), "--format", "json")
    assert code == 0 and json.loads(out.splitlines()[-1])["summary"]["answers"] == 2


def test_jsonl_broken_line_is_reported_the_rest_still_checked_and_exit_is_2(capsys, tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", [REJECTED])
    with path.open("a", encoding="utf-8") as f:
        f.write("{not json\n")
        f.write(json.dumps({"context": {"messages": [], "scenepool": []}, "output": "[]"}) + "\n")
        f.write(json.dumps({"output": "[]"}) + "\n")
        f.write(json.dumps({"context": CONTEXT, "output": "[]"}) + "\n")
    code, out, err = cli(capsys, "check", str(path), "--format", "json", "--exit-zero")
    assert code == 2
    assert f"{path}:2: line is not JSON" in err
    assert f"{path}:3: /context/scenepool" in err
    assert f'{path}:4: each line must be an object with "context" and "output"' in err
    lines = out.splitlines()
    assert [json.loads(x).get("ok") for x in lines[:2]] == [False, True]
    assert json.loads(lines[-1]) == {"summary": {"answers": 5, "ok": 1, "rejected": 1, "errors": 3}}


def test_jsonl_sarif_is_one_log_with_every_lines_results(capsys, tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", [REJECTED, "[]", EXAMPLE_OUTPUT.read_text("utf-8")])
    code, out, err = cli(capsys, "check", str(path), "--format", "sarif")
    log = json.loads(out)
    violations = [v.to_dict() for text in (REJECTED, EXAMPLE_OUTPUT.read_text("utf-8"))
                  for v in memvet.validate(text, CONTEXT).violations]
    check_sarif(log, violations)
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in log["runs"][0]["results"]]
    assert set(lines) == {1, 3} and lines == sorted(lines)
    assert "3 answers" in err and code == 1


def test_jsonl_github_annotations_point_at_their_line(capsys, tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", ["[]", REJECTED])
    _, out, _ = cli(capsys, "check", str(path), "--format", "github")
    assert f"::error file={path},line=2,title=S004 schema at /0/memories/0/type::" in out


@pytest.mark.parametrize("fmt", ["json", "text", "sarif"])
def test_jobs_give_the_same_output_in_the_same_order(tmp_path, fmt):
    # 80 lines: three chunks of work in flight at once; results must come back in file order.
    outputs = [REJECTED if k % 3 == 0 else "[]" if k % 3 == 1 else EXAMPLE_OUTPUT.read_text("utf-8")
               for k in range(80)]
    path = jsonl(tmp_path / "answers.jsonl", outputs)
    serial = subprocess.run([MEMVET, "check", str(path), "--format", fmt], capture_output=True, text=True)
    parallel = subprocess.run([MEMVET, "check", str(path), "--format", fmt, "--jobs", "3"],
                              capture_output=True, text=True)
    assert serial.returncode == parallel.returncode == 1
    assert parallel.stdout == serial.stdout and parallel.stderr == serial.stderr
    if fmt == "json":
        assert [json.loads(x).get("ok") for x in serial.stdout.splitlines()[:6]] == [False, True, False] * 2


def test_jobs_aggregate_a_broken_line_into_exit_2(tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", ["[]"] * 70)
    with path.open("a", encoding="utf-8") as f:
        f.write("[1, 2]\n")
    result = subprocess.run([MEMVET, "check", str(path), "--format", "json", "-j", "2"], capture_output=True, text=True)
    assert result.returncode == 2 and f"{path}:71:" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["summary"] == {"answers": 71, "ok": 70, "rejected": 0, "errors": 1}


def test_jsonl_streams_each_report_before_the_next_line_arrives():
    proc = subprocess.Popen([MEMVET, "check", "-", "--format", "json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for output in (REJECTED, "[]"):
            proc.stdin.write(json.dumps({"context": CONTEXT, "output": output}, ensure_ascii=False) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, "no report before the next line was written"
            report = json.loads(proc.stdout.readline())
            assert report["ok"] is (output == "[]")
        proc.stdin.close()
        assert json.loads(proc.stdout.readline())["summary"]["answers"] == 2
        assert proc.wait(30) == 1
    finally:
        proc.kill()


def test_jsonl_memory_does_not_grow_with_the_file(tmp_path):
    def peak(lines: int) -> int:
        path = jsonl(tmp_path / f"a{lines}.jsonl", [REJECTED, "[]"] * (lines // 2))
        main(["check", str(path), "--format", "json"])  # warm up caches outside the measurement
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            tracemalloc.start()
            main(["check", str(path), "--format", "json"])
            _, top = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        return top
    small, large = peak(40), peak(400)
    assert large < small * 1.5 + 200_000, (small, large)


# --- progress bar ---------------------------------------------------------------------------

def test_progress_bar_draws_throttled_and_clears():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    bar = Progress(term, total_bytes=1000, interval=3600)
    bar.update(1, 100)
    bar.update(2, 200)  # within the interval: not redrawn
    bar.update(10, 1000, force=True)
    bar.clear()
    text = term.getvalue()
    assert text.count("memvet check") == 2 and "10 lines" in text and "100%" in text
    assert text.endswith("\r\x1b[K")


def test_progress_bar_only_on_a_terminal(tmp_path):
    path = jsonl(tmp_path / "answers.jsonl", ["[]"] * 5)
    piped = subprocess.run([MEMVET, "check", str(path), "--format", "json"], capture_output=True, text=True)
    assert piped.stderr == ""
    import pty

    for extra, drawn in (([], True), (["--no-progress"], False)):
        master, slave = pty.openpty()
        try:
            proc = subprocess.run([MEMVET, "check", str(path), "--format", "json", *extra], stdout=subprocess.PIPE,
                                  stderr=slave, timeout=60)
        finally:
            os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        assert (b"memvet check" in seen) is drawn, seen
        assert proc.returncode == 0 and b"memvet check" not in proc.stdout
