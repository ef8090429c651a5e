"""The plugin registry (pluggy, entry-point group ``memvet``) and the example plugin."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import sys
import types

import pytest

import memvet
from memvet import Finding, Rule, hookimpl
from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.registry import BUILTIN_FAMILIES, build_registry
from memvet.testing import doc_examples, iter_case_files, run_case, run_doc_example

from conftest import REPO

ACME = REPO / "examples" / "acme-plugin"
CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
METHOD_WITH_TICKET = json.dumps([{
    "new_scene_name": "auth-service｜连接池", "new_scene_reason": "池中没有连接池议题。", "message_ids": ["m41"],
    "memories": [{"content": "处理 JIRA-4521 这类超时时，应按压测峰值配置 Redis 连接池。", "type": "work_method",
                  "priority": 85, "source_message_ids": ["m41"]}]}], ensure_ascii=False)


def rule(code: str, *, target: str = "memory", action: str = "warn", base: type = Rule, **attrs) -> type:
    def check(self, memory, ctx):
        yield Finding(f"{code} fired")
    return type(f"Rule_{code}", (base,), {"code": code, "name": f"rule-{code.lower()}", "target": target,
                                          "action": action, "check": check, "__doc__": f"{code} test rule.", **attrs})


def plugin(name: str, *rules: type, formats: dict | None = None, raises: Exception | None = None):
    module = types.ModuleType(name)

    def memvet_rules():
        if raises is not None:
            raise raises
        return list(rules)
    module.memvet_rules = hookimpl(memvet_rules)
    if formats is not None:
        module.memvet_formats = hookimpl(lambda: formats)
    return module


def load(*plugins):
    return build_registry(entry_points=False, plugins=plugins)


# --- loading and refusing -------------------------------------------------------------

def test_builtin_rules_register_through_the_same_hook():
    registry = load()
    assert registry.rules and set(registry.origins.values()) == {"builtin"}
    assert {code[0] for code in registry.rules} <= set(BUILTIN_FAMILIES)
    assert {"text", "json", "sarif", "github"} <= set(registry.formats)
    assert registry.problems == []


def test_a_plugin_rule_is_loaded_after_the_builtins():
    registry = load(plugin("acme_test", rule("ACME901")))
    assert registry.origins["ACME901"] == "acme_test"
    assert registry.ordered()[-1].code == "ACME901"
    assert registry.problems == []


def test_duplicate_codes_are_refused_and_reported():
    registry = load(plugin("first", rule("DUP001")), plugin("second", rule("DUP001"), rule("DUP002")))
    assert registry.origins["DUP001"] == "first" and registry.origins["DUP002"] == "second"
    assert len(registry.problems) == 1
    assert "'second'" in registry.problems[0] and "DUP001" in registry.problems[0] and "'first'" in registry.problems[0]


@pytest.mark.parametrize("code", ["S999", "I100", "E003"])
def test_a_third_party_code_with_a_builtin_prefix_is_refused(code):
    registry = load(plugin("sneaky", rule(code)))
    assert registry.origins.get(code) in (None, "builtin")
    assert any("sneaky" in p and code in p for p in registry.problems)


@pytest.mark.parametrize("code", ["acme001", "ACMEX001", "AC01", "A1234", "ACME1234"])
def test_malformed_third_party_codes_are_refused(code):
    registry = load(plugin("odd", rule(code)))
    assert code not in registry.rules and len(registry.problems) == 1


@pytest.mark.parametrize("bad, why", [
    (object, "not a subclass"),
    (rule("XYZ001", target="batch"), "target"),
    (rule("XYZ002", action="explode"), "action"),
    (type("NoCode", (Rule,), {"name": "x", "target": "memory", "action": "warn"}), "code"),
])
def test_malformed_rule_classes_are_refused(bad, why):
    registry = load(plugin("odd", bad, rule("XYZ009")))
    assert "XYZ009" in registry.rules  # the good one still loads
    assert len(registry.problems) == 1 and why in registry.problems[0]


def test_a_plugin_whose_hook_raises_is_reported_not_fatal():
    registry = load(plugin("broken", raises=RuntimeError("boom")), plugin("fine", rule("FINE001")))
    assert "FINE001" in registry.rules
    assert any("broken" in p and "RuntimeError" in p and "boom" in p for p in registry.problems)


def test_an_entry_point_that_fails_to_import_is_reported_not_fatal(monkeypatch):
    broken = importlib.metadata.EntryPoint(name="ghost", value="memvet_ghost_plugin_that_is_not_there",
                                           group="memvet")
    real = importlib.metadata.entry_points

    def entry_points(**kw):
        found = real(**kw)
        return [*found, broken] if kw.get("group") == "memvet" else found

    monkeypatch.setattr("memvet.registry.metadata.entry_points", entry_points)
    registry = build_registry()
    assert registry.rules  # everything else loaded
    assert any("ghost" in p and "failed to load" in p and "ModuleNotFoundError" in p for p in registry.problems)


def test_plugin_formats_are_added_and_clashes_refused():
    mine = lambda report, *, source, color: f"{source}: {len(report.violations)}"  # noqa: E731
    registry = load(plugin("fmt", formats={"count": mine, "json": mine}))
    assert registry.formats["count"] is mine
    assert registry.formats["json"] is not mine
    assert any("'json'" in p for p in registry.problems)


def test_a_plugin_rule_runs_in_a_report_with_its_origin_and_config():
    registry = load(plugin("acme_test", rule("ACME901", action="warn")))
    report = Engine(config_from_dict({"select": ["ACME"], "actions": {"ACME901": "reject"}}), registry).validate(
        METHOD_WITH_TICKET, CONTEXT)
    assert [(v.code, v.action, v.path, v.rule) for v in report.violations] == [
        ("ACME901", "reject", "/0/memories/0", __name__)]


def test_config_may_not_name_a_code_no_plugin_provides():
    with pytest.raises(memvet.ConfigError) as err:
        Engine(config_from_dict({"actions": {"ACME901": "warn"}}), load())
    assert err.value.field == "tool.memvet.actions.ACME901"


# --- the example plugin, in process -------------------------------------------------------

@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    sys.path.insert(0, str(ACME))
    try:
        import acme_memvet
        yield acme_memvet
    finally:
        sys.path.remove(str(ACME))
        sys.modules.pop("acme_memvet", None)


def test_example_plugin_cases_and_doc_examples_pass(acme):
    cases = list(iter_case_files(ACME / "tests" / "cases"))
    examples = [ex for cls in acme.memvet_rules() for ex in doc_examples(cls)]
    assert {c.kind for c in cases} == {"pass", "fail"} and {e.section for e in examples} == {"Example", "Use instead"}
    for case in cases:
        run_case(case, plugins=(acme,))
    for example in examples:
        run_doc_example(example, plugins=(acme,))


def test_example_plugin_registers_cleanly(acme):
    registry = load(acme)
    assert registry.origins["ACME001"] == "acme_memvet" and registry.problems == []


def test_example_plugin_bad_pattern_is_a_config_error(acme):
    with pytest.raises(memvet.ConfigError) as err:
        Engine(config_from_dict({"rules": {"ACME001": {"ticket_pattern": "(["}}}), load(acme))
    assert err.value.field == "tool.memvet.rules.ACME001.ticket_pattern"


# --- the example plugin, installed from its wheel into a fresh venv ---------------------------

def test_installed_plugin_shows_in_memvet_rules(plugin_env):
    result = plugin_env.run("memvet", "rules")
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("ACME001"))
    assert line.split()[1:3] == ["ticket-in-method", "warn"] and line.split()[-1] == "acme"
    assert "warning" not in result.stderr
    doc = plugin_env.run("memvet", "rule", "ACME001")
    assert doc.returncode == 0 and "What it does:" in doc.stdout


def test_installed_plugin_fires_in_a_report(plugin_env, tmp_path):
    (tmp_path / "answer.json").write_text(METHOD_WITH_TICKET, "utf-8")
    result = plugin_env.run("memvet", "check", str(tmp_path / "answer.json"), "--context",
                            str(REPO / "examples" / "context.json"), "--format", "json", "--exit-zero")
    assert result.returncode == 0, result.stderr
    hits = [v for v in json.loads(result.stdout)["violations"] if v["code"] == "ACME001"]
    assert [(v["action"], v["path"], v["rule"]) for v in hits] == [("warn", "/0/memories/0/content", "acme_memvet")]
    assert "JIRA-4521" in hits[0]["message"]


def test_installed_plugin_own_tests_pass(plugin_env, tmp_path):
    # The plugin's ten-line test file, run where the plugin is installed (not on sys.path by hand).
    shutil.copytree(ACME / "tests", tmp_path / "tests")
    result = plugin_env.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "tests"),
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
