"""tests/rules/ holds one case file per rule code, and no family file waits to be split."""

import pathlib

import pytest
import yaml

from memvet.registry import build_registry
from memvet.testing import load_cases

HERE = pathlib.Path(__file__).parent
CASE_FILES = sorted(HERE.glob("*.yaml"))


def test_each_case_file_is_named_after_its_rule_and_no_case_overrides_it():
    assert len(CASE_FILES) >= 40
    for path in CASE_FILES:
        data = yaml.safe_load(path.read_text("utf-8"))
        assert data["rule"] == path.stem, path.name
        assert not [name for name, spec in data["cases"].items() if "rule" in spec], path.name
        assert {case.rule for case in load_cases(path)} == {path.stem}


def test_every_case_file_names_a_registered_rule():
    codes = set(build_registry().rules)
    assert {path.stem for path in CASE_FILES} <= codes


def test_no_family_case_file_is_left_unsplit():
    left = sorted(HERE.parent.glob("cases/*.y*ml")) + sorted(HERE.parent.glob("cases/*.json"))
    assert not left, f"run `python tests/rules/split_cases.py` to move {[p.name for p in left]} into tests/rules/"


def test_split_script_moves_a_family_file_case_by_case(tmp_path):
    import split_cases

    (tmp_path / "cases").mkdir()
    (tmp_path / "rules").mkdir()
    family = tmp_path / "cases" / "family.yaml"
    family.write_text(
        "# a family file\nrule: T001\ncases:\n  # --- T001 -------\n  a_fact:\n    kind: pass\n"
        "    output: {content: x, type: work_fact, priority: 80}\n\n  # why b\n  b_date:\n    rule: T002\n"
        "    kind: pass\n    output: {content: y, type: work_fact, priority: 80}\n", "utf-8")
    before = sorted((c.rule, c.name, c.kind) for c in load_cases(family))
    assert split_cases.main(["--sources", str(tmp_path / "cases"), "--dest", str(tmp_path / "rules")]) == 0
    assert not (tmp_path / "cases").exists()
    after = sorted((c.rule, c.name, c.kind) for p in (tmp_path / "rules").glob("*.yaml") for c in load_cases(p))
    assert after == before == [("T001", "a_fact", "pass"), ("T002", "b_date", "pass")]
    assert "  # why b\n  b_date:\n    kind: pass" in (tmp_path / "rules" / "T002.yaml").read_text("utf-8")
    family.parent.mkdir()
    family.write_text("rule: T001\ncases:\n  a_fact:\n    kind: fail\n    output: {content: x, type: work_fact}\n"
                      "    expect: [{code: T001}]\n", "utf-8")
    assert split_cases.main(["--sources", str(tmp_path / "cases"), "--dest", str(tmp_path / "rules")]) == 2
    assert split_cases.main(["--sources", str(tmp_path / "cases"), "--dest", str(tmp_path / "rules"),
                             "--replace"]) == 0
    assert [c.kind for c in load_cases(tmp_path / "rules" / "T001.yaml")] == ["fail"]


def test_split_script_takes_a_file_whose_cases_each_name_their_rule(tmp_path):
    import split_cases

    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "topic.yaml").write_text(
        "cases:\n  a:\n    rule: T001\n    output: {content: x, type: work_fact, priority: 80}\n"
        "  b:\n    output: {content: y, type: work_fact, priority: 80}\n", "utf-8")
    assert split_cases.main(["--sources", str(tmp_path / "cases"), "--dest", str(tmp_path), "--check"]) == 2  # b: no rule
    (tmp_path / "cases" / "topic.yaml").write_text(
        "cases:\n  a:\n    rule: T001\n    output: {content: x, type: work_fact, priority: 80}\n", "utf-8")
    assert split_cases.main(["--sources", str(tmp_path / "cases"), "--dest", str(tmp_path)]) == 0
    assert [(c.rule, c.name) for c in load_cases(tmp_path / "T001.yaml")] == [("T001", "a")]


def test_a_prose_value_cut_at_a_comment_is_refused(tmp_path):
    # YAML reads " #" after a plain scalar as a comment: "On PR #412 failed" would load as "On PR"
    cut = tmp_path / "cut.yaml"
    cut.write_text("rule: G002\ncases:\n  c:\n    messages: ['user: ci?']\n"
                   "    output:\n      content: On PR #412, 3 tests failed\n      type: work_fact\n      priority: 70\n",
                   encoding="utf-8")
    with pytest.raises(ValueError, match=r"cut\.yaml:6: the unquoted content value stops at ' #'"):
        load_cases(cut)
    fine = tmp_path / "fine.yaml"
    fine.write_text("rule: G002\ncases:\n  c:\n    messages: ['user: ci?']  # a comment after quoted text\n"
                    "    output:\n      content: 'On PR #412, 3 tests failed'\n      type: work_fact\n"
                    "      priority: 70  # a comment after a number is a comment\n", encoding="utf-8")
    assert load_cases(fine)[0].output[0]["memories"][0]["content"] == "On PR #412, 3 tests failed"
