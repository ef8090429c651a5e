"""The flags a ruff user guesses: --output-file, --select/--ignore/--extend-*, --statistics, -q, --format, -m."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

import memvet
from memvet.cli import main
from memvet.config import Config
from memvet.selection import apply_selection, split_codes

from conftest import REPO

CONTEXT_FILE = REPO / "examples" / "context.json"
CONTEXT = json.loads(CONTEXT_FILE.read_text("utf-8"))
EXAMPLE = REPO / "examples" / "output.json"
ONE = [str(EXAMPLE), "--context", str(CONTEXT_FILE)]


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def codes_of(out: str) -> list[str]:
    return [v["code"] for v in json.loads(out)["violations"]]


def example_codes(**config) -> list[str]:
    return memvet.validate(EXAMPLE.read_text("utf-8"), CONTEXT, config=config).codes()


# --- a single answer needs its context ------------------------------------------------------

def test_a_single_answer_without_context_is_a_usage_error(capsys):
    code, out, err = cli(capsys, "check", str(EXAMPLE))
    assert code == 2 and out == ""
    assert "--context is required" in err and err.count("\n") == 1  # one message, not one per "line"


def test_jsonl_and_stdin_still_need_no_context(capsys, tmp_path, monkeypatch):
    path = tmp_path / "answers.ndjson"
    path.write_text(json.dumps({"context": CONTEXT, "output": "[]"}) + "\n", "utf-8")
    assert cli(capsys, "check", str(path))[0] == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    code, out, _ = cli(capsys, "check", "-", "--format", "json")
    assert code == 0 and json.loads(out.splitlines()[-1])["summary"]["answers"] == 1


# --- --format, --output-file, -q ----------------------------------------------------------------

def test_format_is_case_insensitive(capsys):
    _, upper, _ = cli(capsys, "check", *ONE, "--format", "JSON")
    _, lower, _ = cli(capsys, "check", *ONE, "--output-format", "json")
    assert upper == lower and json.loads(upper)["ok"] is False


def test_output_file_holds_the_report_and_stdout_stays_empty(capsys, tmp_path):
    target = tmp_path / "report.sarif"
    code, out, _ = cli(capsys, "check", *ONE, "--format", "sarif", "--output-file", str(target))
    assert code == 1 and out == ""
    log = json.loads(target.read_text("utf-8"))
    assert len(log["runs"][0]["results"]) == len(example_codes())
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text(json.dumps({"context": CONTEXT, "output": "[]"}) + "\n", "utf-8")
    code, out, _ = cli(capsys, "check", str(jsonl), "-o", str(tmp_path / "r.txt"))
    assert code == 0 and out == "" and "1 answers, 1 ok" in (tmp_path / "r.txt").read_text("utf-8")
    code, _, _ = cli(capsys, "check", *ONE, "--format", "json", "-o", str(tmp_path / "new" / "dir" / "r.json"))
    assert code == 1 and json.loads((tmp_path / "new" / "dir" / "r.json").read_text("utf-8"))["ok"] is False
    (tmp_path / "a-file").write_text("", "utf-8")  # a parent that is a file: cannot be made
    code, _, err = cli(capsys, "check", *ONE, "-o", str(tmp_path / "a-file" / "r.json"))
    assert code == 2 and "--output-file" in err


def test_quiet_prints_only_the_findings_and_qq_nothing(capsys, tmp_path):
    _, full, _ = cli(capsys, "check", *ONE)
    code, quiet, _ = cli(capsys, "check", *ONE, "-q")
    assert code == 1
    assert quiet.splitlines() == full.splitlines()[:-1] and "rejected --" in full.splitlines()[-1]
    code, silent, _ = cli(capsys, "check", *ONE, "-qq")
    assert code == 1 and silent == ""
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text(json.dumps({"context": CONTEXT, "output": "[]"}) + "\n", "utf-8")
    code, out, _ = cli(capsys, "check", str(jsonl), "-q", "--format", "json")
    assert code == 0 and [list(json.loads(x)) for x in out.splitlines()] == [
        ["ok", "violations", "records", "dropped", "output", "stats"]]  # no summary object


# --- --statistics --------------------------------------------------------------------------------

def test_statistics_counts_by_code(capsys):
    code, out, _ = cli(capsys, "check", *ONE, "--statistics")
    assert code == 1
    counted = {line.split()[1]: int(line.split()[0]) for line in out.splitlines()}
    expected = example_codes()
    assert counted == {c: expected.count(c) for c in expected}
    _, out, _ = cli(capsys, "check", *ONE, "--statistics", "--format", "json")
    rows = json.loads(out)
    assert {r["code"]: r["count"] for r in rows} == counted and set(rows[0]) == {"code", "name", "action", "count"}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_statistics_over_a_jsonl_file_add_up_every_line(capsys, tmp_path, jobs):
    text = EXAMPLE.read_text("utf-8")
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps({"context": CONTEXT, "output": o}, ensure_ascii=False) + "\n"
                            for o in (text, "[]", text)), "utf-8")
    code, out, _ = cli(capsys, "check", str(path), "--statistics", "--format", "json", "--jobs", jobs)
    expected = example_codes()
    assert code == 1 and {r["code"]: r["count"] for r in json.loads(out)} == {c: 2 * expected.count(c) for c in expected}


# --- --select / --ignore / --extend-select / --extend-ignore -----------------------------------------

def test_select_replaces_the_selection_and_ignore_adds_to_it(capsys):
    _, out, _ = cli(capsys, "check", *ONE, "--format", "json", "--select", "I,G001")
    assert codes_of(out) == example_codes(select=["I", "G001"]) == ["I001", "I003", "G001"]
    _, out, _ = cli(capsys, "check", *ONE, "--format", "json", "--ignore", "S", "--extend-ignore", "G002")
    assert codes_of(out) == example_codes(ignore=["S", "G002"]) and "S002" not in codes_of(out)


def test_the_command_line_wins_over_the_config_file(capsys, tmp_path):
    config = tmp_path / "memvet.toml"
    config.write_text('select = ["I", "G"]\nignore = ["I003"]\n', "utf-8")
    _, out, _ = cli(capsys, "check", *ONE, "--format", "json", "--config", str(config))
    assert codes_of(out) == ["I001", "G001", "G002"]
    # --extend-select I003 turns back on what the config ignores...
    _, out, _ = cli(capsys, "check", *ONE, "--format", "json", "--config", str(config), "--extend-select", "I003")
    assert codes_of(out) == ["I001", "I003", "G001", "G002"]
    # ...--ignore G beats the config's select of G...
    _, out, _ = cli(capsys, "check", *ONE, "--format", "json", "--config", str(config), "--ignore", "G")
    assert codes_of(out) == ["I001"]
    # ...and --select starts over: neither the config's select nor its ignore applies.
    _, out, _ = cli(capsys, "check", *ONE, "--format", "json", "--config", str(config), "--select", "I")
    assert codes_of(out) == ["I001", "I003"]


def test_selection_flags_apply_to_memvet_rules_too(capsys):
    _, out, _ = cli(capsys, "rules", "--select", "M", "--format", "json")
    on = {r["code"] for r in json.loads(out) if r["enabled"]}
    assert on and all(code[0] in "ME" for code in on)  # E rules are the engine's own, always on


def test_an_unknown_code_on_the_command_line_is_a_usage_error(capsys):
    code, _, err = cli(capsys, "check", *ONE, "--extend-ignore", "I00l")
    assert code == 2 and "--extend-ignore" in err and "I00L" in err


def test_apply_selection_unit():
    assert split_codes(["i,  t001", "ALL"]) == ["I", "T001", "ALL"]
    base = Config(select=["ALL"], ignore=["Q001", "L"])
    assert apply_selection(base) is base
    picked = apply_selection(base, extend_select=["Q"])
    assert picked.enabled("Q001") and not picked.enabled("L001") and picked.enabled("S004")
    assert not apply_selection(base, ignore=["ALL"], extend_select=["M001"]).enabled("S004")
    assert apply_selection(base, ignore=["ALL"], extend_select=["M001"]).enabled("M001")


# --- rules, rule, python -m ----------------------------------------------------------------------

def test_rules_json_lists_every_rule(capsys):
    code, out, _ = cli(capsys, "rules", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and [r["code"] for r in rows] == [cls.code for cls in memvet.Engine().registry.ordered()]
    assert set(rows[0]) == {"code", "name", "action", "enabled", "target", "origin", "summary"}


def test_rule_by_name_shows_the_configured_options_in_full(capsys, tmp_path):
    config = tmp_path / "memvet.toml"
    config.write_text('[rules.M004]\nzero_information = ["拍脑袋决定", "use common sense"]\n', "utf-8")
    code, out, _ = cli(capsys, "rule", "method-not-operable", "--config", str(config))
    assert code == 0 and out.startswith("M004 method-not-operable")
    line = next(x for x in out.splitlines() if x.strip().startswith("zero_information = "))
    value, _, note = line.split(" = ", 1)[1].partition("    # configured; default: ")
    assert json.loads(value) == ["拍脑袋决定", "use common sense"]
    default = memvet.rules.method.MethodNotOperable.Options().zero_information
    assert json.loads(note) == list(default) and len(note) > 200  # in full: never cut into broken JSON
    assert f"as configured in {config}" in out
    # Without a config: the defaults, each a complete JSON value.
    _, out, _ = cli(capsys, "rule", "m004")
    for x in out.splitlines():
        if x.startswith("    ") and " = " in x and not x.startswith("        "):
            json.loads(x.split(" = ", 1)[1])


def test_python_dash_m_memvet_is_the_cli():
    result = subprocess.run([sys.executable, "-m", "memvet", "check", *ONE, "--format", "json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and json.loads(result.stdout)["ok"] is False
    version = subprocess.run([sys.executable, "-m", "memvet", "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == f"memvet {memvet.__version__}"


def test_several_files_give_one_sarif_log_one_json_line_each_and_the_worst_exit(capsys, tmp_path):
    good = tmp_path / "good.json"
    good.write_text("[]", "utf-8")
    both = [str(EXAMPLE), str(good), "--context", str(CONTEXT_FILE)]
    code, out, _ = cli(capsys, "check", *both, "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert code == 1 and [r["ruleId"] for r in results] == example_codes()
    code, out, _ = cli(capsys, "check", *both, "--format", "json")
    assert code == 1 and [json.loads(line)["ok"] for line in out.splitlines()] == [False, True]
    code, _, err = cli(capsys, "check", str(good), str(tmp_path / "missing.json"), "--context", str(CONTEXT_FILE))
    assert code == 2 and "missing.json" in err  # the other file was still checked
