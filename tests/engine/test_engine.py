"""Engine-level behaviour: determinism, fix/drop/reject/record semantics, E001, E002,
select/ignore, and caller errors that name their file and field.

The rules under test here are small plugin rules defined in this file (prefix
``TST``), so the engine is tested independently of the built-in catalogue.
"""

from __future__ import annotations

import copy
import json
import types

import pytest

import memvet
from memvet import Config, ConfigError, ContextError, Engine, Finding, Rule, RuleOptions, hookimpl
from memvet.config import config_from_dict, discover_config, find_config, load_config_file
from memvet.registry import build_registry
from memvet.testing import build_context, build_output

from conftest import REPO


class StripTodo(Rule):
    """Removes the word TODO (test rule)."""

    code, name, target, action = "TST001", "strip-todo", "memory", "fix"

    def check(self, memory, ctx):
        if "TODO" in memory["content"]:
            fixed = memory["content"].replace("TODO", "").strip()
            yield Finding("content carries TODO; removed", path="/content",
                          fix=[{"op": "replace", "path": "/content", "value": fixed}])


class Witness(Rule):
    """Records what it saw (test rule)."""

    code, name, target, action = "TST002", "witness", "memory", "warn"
    seen: list[tuple[str, str]] = []

    def check(self, memory, ctx):
        Witness.seen.append((memory["content"], ctx.original["content"]))
        return iter(())


class DropMarked(Rule):
    """Drops memories whose content starts with 'drop' (test rule)."""

    code, name, target, action = "TST003", "drop-marked", "memory", "drop"

    def check(self, memory, ctx):
        if memory["content"].startswith("drop"):
            yield Finding("marked for dropping")


class RejectMarked(Rule):
    """Rejects memories that mention 'reject' (test rule)."""

    code, name, target, action = "TST004", "reject-marked", "memory", "reject"

    class Options(RuleOptions):
        word: str = "reject"

    def check(self, memory, ctx):
        if self.options.word in memory["content"]:
            yield Finding(f"mentions {self.options.word!r}", path="/content")


class Crashes(Rule):
    """Raises on 'crash' (test rule)."""

    code, name, target, action = "TST005", "crashes", "memory", "warn"

    def check(self, memory, ctx):
        if "crash" in memory["content"]:
            raise KeyError("owner")
        return iter(())


class BadScene(Rule):
    """Rejects the scene named demo｜bad (test rule)."""

    code, name, target, action = "TST006", "bad-scene", "scene", "reject"

    def check(self, scene, ctx):
        if scene.get("new_scene_name") == "demo｜bad":
            yield Finding("bad scene", path="/new_scene_name")


class RecordNote(Rule):
    """Notes every record's kind (test rule)."""

    code, name, target, action = "TST007", "record-note", "record", "warn"

    def check(self, record, ctx):
        yield Finding(f"kind {record.get('kind')}", path="/content")


PLUGIN = types.ModuleType("engine_test_plugin")
PLUGIN.memvet_rules = hookimpl(lambda: [StripTodo, Witness, DropMarked, RejectMarked, Crashes, BadScene, RecordNote])
REGISTRY = build_registry(entry_points=False, plugins=(PLUGIN,))

MESSAGES = ["user: 部署脚本必须先跑数据库迁移再切流量", "assistant: 好的，已经按这个顺序改了部署脚本"]
CONTEXT = build_context({"messages": MESSAGES})


def engine(**config) -> Engine:
    config.setdefault("select", ["TST"])
    return Engine(config_from_dict(config), REGISTRY)


def memory(content: str, **extra) -> dict:
    return {"content": content, "type": "work_fact", "priority": 80, **extra}


def scene(*memories, name="demo｜部署流程") -> dict:
    return {"new_scene_name": name, "new_scene_reason": "池为空", "memories": list(memories)}


def answer(*scenes) -> list:
    return build_output(list(scenes), CONTEXT)


def pairs(report) -> list[tuple[str, str, str]]:
    return [(v.code, v.action, v.path) for v in report.violations]


@pytest.fixture(autouse=True)
def _reset_witness():
    Witness.seen.clear()


# --- determinism ------------------------------------------------------------------

def test_identical_input_and_config_give_byte_identical_json():
    out = answer(scene(memory("TODO 部署先迁移"), memory("drop 这条"), memory("reject 这条")),
                 scene(memory("crash 这里"), name="demo｜bad"))
    first = engine().validate(out, CONTEXT).to_json()
    assert engine().validate(copy.deepcopy(out), copy.deepcopy(CONTEXT)).to_json() == first
    text = json.dumps(out, ensure_ascii=False)
    as_text = engine().validate(text, json.dumps(CONTEXT)).to_json()
    assert engine().validate(text, json.dumps(CONTEXT)).to_json() == as_text
    # Only a text answer has lines and columns; everything else is the same.
    unplaced = json.loads(as_text)
    assert all(v["line"] == 1 and v["column"] >= 1 for v in unplaced["violations"])
    for v in unplaced["violations"]:
        v["line"] = v["column"] = None
    assert unplaced == json.loads(first)


def test_builtin_example_report_is_byte_identical_across_engines():
    context, output = REPO / "examples" / "context.json", (REPO / "examples" / "output.json").read_text("utf-8")
    reports = {Engine(Config()).validate(output, context).to_json() for _ in range(3)}
    reports.add(memvet.validate(output, str(context)).to_json())
    assert len(reports) == 1


def test_validate_never_mutates_the_callers_values():
    out = answer(scene(memory("TODO 部署先迁移"), memory("drop 这条")))
    before_out, before_ctx = copy.deepcopy(out), copy.deepcopy(CONTEXT)
    engine().validate(out, CONTEXT)
    assert out == before_out and CONTEXT == before_ctx


# --- fix / drop / reject / warn --------------------------------------------------------

def test_fix_is_applied_at_once_reported_as_absolute_patch_and_seen_by_later_rules():
    out = answer(scene(memory("TODO 部署先迁移")), scene(memory("TODO 回滚要走流水线")))
    report = engine().validate(out, CONTEXT)
    fixes = [v for v in report.violations if v.code == "TST001"]
    assert [v.path for v in fixes] == ["/0/memories/0/content", "/1/memories/0/content"]
    assert fixes[1].fix == [{"op": "replace", "path": "/1/memories/0/content", "value": "回滚要走流水线"}]
    # TST002 runs after TST001: it sees the fixed value, ctx.original keeps the LLM's.
    assert Witness.seen == [("部署先迁移", "TODO 部署先迁移"), ("回滚要走流水线", "TODO 回滚要走流水线")]
    assert report.output[0]["memories"][0]["content"] == "部署先迁移"
    assert [r["content"] for r in report.records] == ["部署先迁移", "回滚要走流水线"]
    assert report.ok and report.stats["fixed"] == 2


def test_drop_leaves_the_memory_out_of_records_and_output():
    out = answer(scene(memory("drop 今天跑了三次"), memory("部署先迁移")), scene(memory("drop 全部"), name="demo｜别的"))
    report = engine().validate(out, CONTEXT)
    assert report.ok
    assert report.dropped == [{"path": "/0/memories/0", "codes": ["TST003"]},
                              {"path": "/1/memories/0", "codes": ["TST003"]}]
    assert [r["content"] for r in report.records] == ["部署先迁移"]
    # The scene whose every memory was dropped is gone from the output.
    assert len(report.output) == 1 and [m["content"] for m in report.output[0]["memories"]] == ["部署先迁移"]
    assert report.stats["dropped"] == 2 and report.stats["records"] == 1


def test_reject_blocks_commit_of_that_memory_only():
    out = answer(scene(memory("reject 这条"), memory("部署先迁移")))
    report = engine().validate(out, CONTEXT)
    assert not report.ok and report.stats["rejected"] == 1
    assert [r["content"] for r in report.records] == ["部署先迁移"]


def test_scene_reject_blocks_every_memory_of_the_scene():
    out = answer(scene(memory("部署先迁移"), name="demo｜bad"), scene(memory("回滚走流水线")))
    report = engine().validate(out, CONTEXT)
    assert pairs(report)[0] == ("TST006", "reject", "/0/new_scene_name")
    assert [r["content"] for r in report.records] == ["回滚走流水线"]


def test_configured_action_overrides_the_default():
    out = answer(scene(memory("reject 这条")))
    assert engine(actions={"TST004": "warn"}).validate(out, CONTEXT).ok
    report = engine(actions={"TST004": "drop"}).validate(out, CONTEXT)
    assert report.dropped == [{"path": "/0/memories/0", "codes": ["TST004"]}] and report.records == []


def test_rule_options_come_from_config():
    out = answer(scene(memory("禁止直接改线上库")))
    assert engine().validate(out, CONTEXT).ok
    assert not engine(rules={"TST004": {"word": "线上库"}}).validate(out, CONTEXT).ok


def test_records_carry_scene_fields_session_and_routing():
    out = answer(scene(memory("部署先迁移")))
    report = engine().validate(out, CONTEXT)
    record = report.records[0]
    assert record["new_scene_name"] == "demo｜部署流程" and record["sessionKey"] == "case"
    assert record["kind"] == "project_fact"
    assert report.record_paths == ["/0/memories/0"]
    # A record rule's path is relative to the memory's pointer.
    assert ("TST007", "warn", "/0/memories/0/content") in pairs(report)


def test_malformed_memories_never_reach_the_rules():
    out = answer(scene(memory("TODO 部署先迁移"), {"content": "TODO 没有类型", "priority": 80}))
    report = engine(select=["TST", "S004"]).validate(out, CONTEXT)
    assert ("S004", "reject", "/0/memories/1/type") in pairs(report)
    assert [v.path for v in report.violations if v.code == "TST001"] == ["/0/memories/0/content"]


# --- E001 / E002 ------------------------------------------------------------------------

def test_a_crashing_rule_becomes_e001_and_the_run_goes_on():
    out = answer(scene(memory("crash 这里"), memory("TODO 部署先迁移")))
    report = engine().validate(out, CONTEXT)
    crashes = [v for v in report.violations if v.code == "E001"]
    assert [(v.action, v.path) for v in crashes] == [("reject", "/0/memories/0")]
    assert "TST005" in crashes[0].message and "crashes" in crashes[0].message and "KeyError" in crashes[0].message
    assert crashes[0].rule == Crashes.__module__
    # Every other rule still ran, on both memories.
    assert [v.path for v in report.violations if v.code == "TST001"] == ["/0/memories/1/content"]
    assert len(Witness.seen) == 2
    assert not report.ok  # fail closed


@pytest.mark.parametrize("config", [{"fail_closed": False}, {"actions": {"E001": "warn"}}])
def test_e001_can_fail_open(config):
    report = engine(**config).validate(answer(scene(memory("crash 这里"))), CONTEXT)
    assert [(v.code, v.action) for v in report.violations] == [("E001", "warn"), ("TST007", "warn")]
    assert report.ok


def test_e002_reports_only_ignore_entries_that_matched_nothing():
    out = answer(scene(memory("reject 这条")))
    report = engine(ignore=["TST004", "TST003"], show_unused_ignores=True).validate(out, CONTEXT)
    unused = [v for v in report.violations if v.code == "E002"]
    assert [(v.action, v.path) for v in unused] == [("warn", "")]
    assert "'TST003'" in unused[0].message
    assert report.ok  # the ignored reject stayed ignored
    assert not [v for v in engine(ignore=["TST004"]).validate(out, CONTEXT).violations if v.code == "E002"]


# --- select / ignore ----------------------------------------------------------------------

@pytest.mark.parametrize("select, ignore, code, on", [
    (["ALL"], [], "S004", True),
    (["ALL"], ["S"], "S004", False),
    (["ALL"], ["S"], "I001", True),
    (["S00"], ["S"], "S004", True),        # longer select beats shorter ignore
    (["S"], ["S00"], "S004", False),       # longer ignore beats shorter select
    (["S00"], ["S004"], "S004", False),
    (["S004"], ["S00"], "S004", True),
    (["S00"], ["S00"], "S004", False),     # a tie goes to ignore
    (["I"], [], "S004", False),            # not selected at all
    (["ALL"], ["ALL"], "S004", False),
    (["TST"], [], "TST001", True),
])
def test_longest_matching_prefix_wins(select, ignore, code, on):
    assert Config(select=select, ignore=ignore).enabled(code) is on


def test_ignored_rules_do_not_run():
    out = answer(scene(memory("TODO reject drop")))
    report = engine(select=["TST"], ignore=["TST00"], ).validate(out, CONTEXT)
    assert report.violations == []
    report = engine(select=["TST001"]).validate(out, CONTEXT)
    assert [v.code for v in report.violations] == ["TST001"]


# --- caller errors name the file and the field ---------------------------------------------

@pytest.mark.parametrize("change, field", [
    (lambda c: c.update(scenepool=[]), "/scenepool"),
    (lambda c: c["messages"][1].update(role="robot"), "/messages/1/role"),
    (lambda c: c["messages"][1].update(id="m1"), "/messages/1/id"),           # duplicate in one session
    (lambda c: c.update(scenePool=[{"id": "sc1", "label": "a"}, {"id": "sc1", "label": "b"}]), "/scenePool/1/id"),
    (lambda c: c["messages"][0].pop("sessionKey"), "/messages/0/sessionKey"),
])
def test_context_error_names_file_and_field(tmp_path, change, field):
    context = copy.deepcopy(CONTEXT)
    change(context)
    path = tmp_path / "context.json"
    path.write_text(json.dumps(context), "utf-8")
    with pytest.raises(ContextError) as err:
        memvet.validate("[]", str(path))
    assert err.value.file == str(path) and err.value.field == field
    assert str(path) in str(err.value) and field in str(err.value)


def test_same_id_in_two_sessions_is_fine():
    context = copy.deepcopy(CONTEXT)
    context["messages"][1].update(id="m1", sessionKey="other")
    assert memvet.validate("[]", context).ok


@pytest.mark.parametrize("text, message", [("{not json", "not valid JSON"), ("[]", "must be a JSON object")])
def test_unreadable_context_names_the_file(tmp_path, text, message):
    path = tmp_path / "ctx.json"
    path.write_text(text, "utf-8")
    with pytest.raises(ContextError, match=message) as err:
        memvet.validate("[]", path)
    assert err.value.file == str(path)
    with pytest.raises(ContextError) as err:
        memvet.validate("[]", tmp_path / "missing.json")
    assert err.value.file == str(tmp_path / "missing.json")


@pytest.mark.parametrize("toml, field", [
    ("selct = ['S']", "tool.memvet.selct"),
    ("actions = { S009 = 'explode' }", "tool.memvet.actions.S009"),
    ("actions = { Z999 = 'warn' }", "tool.memvet.actions.Z999"),
    ("min_priority = 101", "tool.memvet.min_priority"),
    ("[rules.TST004]\nwrod = 'x'", "tool.memvet.rules.TST004.wrod"),
    ("[routing]\nrepo = 3", "tool.memvet.routing.repo"),
])
def test_config_error_names_file_and_field(tmp_path, toml, field):
    path = tmp_path / "pyproject.toml"
    body = "\n".join(line if not line.startswith("[") else "[tool.memvet." + line[1:] for line in toml.splitlines())
    path.write_text("[tool.memvet]\n" + body + "\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        Engine(load_config_file(path), REGISTRY)
    assert err.value.file == str(path) and err.value.field == field


def test_memvet_toml_fields_have_no_tool_prefix(tmp_path):
    path = tmp_path / "memvet.toml"
    path.write_text("ignore = 'S'\n", "utf-8")
    with pytest.raises(ConfigError) as err:
        load_config_file(path)
    assert err.value.field == "ignore" and err.value.file == str(path)


def test_invalid_toml_names_the_file(tmp_path):
    path = tmp_path / "memvet.toml"
    path.write_text("select = [\n", "utf-8")
    with pytest.raises(ConfigError, match="not valid TOML") as err:
        load_config_file(path)
    # tomllib says "at end of document" here: the position is where the text ends (test_verify_config.py).
    assert err.value.file == f"{path}:2:1"


def test_config_is_found_upward_and_pyproject_without_memvet_is_skipped(tmp_path):
    (tmp_path / "memvet.toml").write_text("ignore = ['Q001']\n", "utf-8")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n", "utf-8")
    assert find_config(inner) == tmp_path / "memvet.toml"
    assert discover_config(inner).ignore == ["Q001"]
    (inner / "pyproject.toml").write_text("[tool.memvet]\nignore = ['L006']\n", "utf-8")
    assert discover_config(inner).ignore == ["L006"]
    assert discover_config(inner).source == str(inner / "pyproject.toml")


def test_a_dict_config_is_checked_like_a_file():
    with pytest.raises(ConfigError) as err:
        memvet.validate("[]", CONTEXT, config={"select": ["S"], "colour": True})
    assert err.value.field == "tool.memvet.colour"


# --- fast paths of the engine's dispatch, records and contract --------------------------

class ReturnsNothing(Rule):
    """Finds nothing, as a plain empty tuple or list (test rule)."""

    code, name, target, action = "TST010", "returns-nothing", "memory", "warn"
    calls = 0

    def check(self, memory, ctx):
        ReturnsNothing.calls += 1
        return () if ReturnsNothing.calls % 2 else []


class ReturnsList(Rule):
    """Returns its findings as a list instead of yielding them (test rule)."""

    code, name, target, action = "TST011", "returns-list", "memory", "warn"

    def check(self, memory, ctx):
        return [Finding("listed", path="/content")] if "list" in memory["content"] else ()


class ReturnsNone(Rule):
    """A broken rule: check() returns None, which is not a collection of findings (test rule)."""

    code, name, target, action = "TST012", "returns-none", "memory", "warn"

    def check(self, memory, ctx):
        return None


FAST_PLUGIN = types.ModuleType("engine_fast_path_plugin")
FAST_PLUGIN.memvet_rules = hookimpl(lambda: [ReturnsNothing, ReturnsList, ReturnsNone])
FAST_REGISTRY = build_registry(entry_points=False, plugins=(FAST_PLUGIN,))


def test_rules_may_return_empty_or_listed_findings_and_none_still_crashes():
    eng = Engine(config_from_dict({"select": ["TST"]}), FAST_REGISTRY)
    report = eng.validate(answer(scene(memory("in a list 部署先迁移"), memory("部署先迁移"))), CONTEXT)
    assert ReturnsNothing.calls >= 2  # both the () and the [] form were taken
    assert [(v.code, v.path) for v in report.violations if v.code == "TST011"] == [("TST011", "/0/memories/0/content")]
    crashes = [v for v in report.violations if v.code == "E001"]
    assert [v.path for v in crashes] == ["/0/memories/0", "/0/memories/1"]
    assert all("TST012" in v.message and "NoneType" in v.message for v in crashes)


def test_replacing_a_bound_rule_replaces_what_the_engine_calls():
    # The benchmark wraps rules in a timer by assigning ``bound.rule``; the
    # engine's cached ``check`` must follow, or the timer would see nothing.
    eng = engine()
    seen = []

    class Spy:
        def __init__(self, rule):
            self.rule = rule

        def check(self, target, ctx):
            seen.append(ctx.path)
            return self.rule.check(target, ctx)

    bound = next(b for b in eng.by_target["memory"] if b.code == "TST001")
    bound.rule = Spy(bound.rule)
    report = eng.validate(answer(scene(memory("TODO 部署先迁移"))), CONTEXT)
    assert seen == ["/0/memories/0"]
    assert "TST001" in [v.code for v in report.violations]


def test_records_do_not_share_values_with_the_output():
    out = answer(scene(memory("部署先迁移", metadata={"owner": "ops"})))
    report = engine().validate(out, CONTEXT)
    record = report.records[0]
    assert record["metadata"] == report.output[0]["memories"][0]["metadata"]
    assert record["metadata"] is not report.output[0]["memories"][0]["metadata"]
    assert record["source_message_ids"] is not out[0]["memories"][0]["source_message_ids"]


def test_route_all_routes_like_route_one_record_at_a_time():
    from memvet.routing import route, route_all

    report = memvet.validate(answer(scene(memory("部署先迁移"), memory("补迁移测试", type="work_task", taskState="open"))),
                             CONTEXT)
    bare = [{k: v for k, v in r.items() if k not in ("kind", "namespace", "task_id", "scope", "source",
                                                        "confirmed_by", "ttl", "status")} for r in report.records]
    ctx = memvet.engine.RuleContext(memvet.load_context(CONTEXT), Config())
    one = [route(copy.deepcopy(r), ctx) for r in bare]
    many = copy.deepcopy(bare)
    route_all([(r, ctx.sources(r)) for r in many], ctx)
    assert json.dumps(one, ensure_ascii=False) == json.dumps(many, ensure_ascii=False)
    assert [r["kind"] for r in many] == ["project_fact", "task_state"]


def test_the_contract_fast_path_gives_the_same_answer_in_slices():
    from memvet.models import ACCEPT_SLICE, Output, accepts

    good = answer(*[scene(memory(f"部署先迁移 {k}")) for k in range(ACCEPT_SLICE * 3 + 1)])
    assert accepts(good)
    for where in (0, ACCEPT_SLICE, len(good) - 1):  # a fault in the first, a middle and the last slice
        bad = copy.deepcopy(good)
        bad[where]["memories"][0]["priority"] = None
        assert not accepts(bad)
        with pytest.raises(Exception):
            Output.validate_python(bad)
    assert accepts([]) and not accepts("not a list") and not accepts(None)


def test_a_second_engine_builds_no_word_list_again():
    # Counted, not timed: every engine binds the same default word lists, and their tries
    # and patterns are built once per process (the judge, serve workers and each rule case
    # build engines of their own).
    from memvet.rules import _patterns, _text

    from memvet import binding
    from memvet.rules import _textlayer

    Engine(Config())
    tries, searches = _patterns._literal_trie.cache_info(), _text._word_search.cache_info()
    lists, options = _textlayer._compiled.cache_info(), binding._default_options.cache_info()
    Engine(Config())
    Engine(config_from_dict({"select": ["M001"]}))
    assert _patterns._literal_trie.cache_info().misses == tries.misses
    assert _text._word_search.cache_info().misses == searches.misses
    assert _text._word_search.cache_info().hits > searches.hits
    # Nor does it compile a list for its text layer or validate a rule's default options again.
    assert _textlayer._compiled.cache_info().misses == lists.misses
    assert binding._default_options.cache_info().misses == options.misses
    assert binding._default_options.cache_info().hits > options.hits


def test_engines_share_default_options_but_not_configured_ones():
    plain, other = Engine(Config()), Engine(Config())
    configured = Engine(config_from_dict({"rules": {"M001": {"extend_normative": ["zorgvuldig"]}}}))
    options = {b.code: b.rule.options for b in plain.table.by_target["memory"]}
    assert options["M001"] is next(b.rule.options for b in other.table.by_target["memory"] if b.code == "M001")
    mine = next(b.rule.options for b in configured.table.by_target["memory"] if b.code == "M001")
    assert mine is not options["M001"] and "zorgvuldig" in mine.normative
    assert "zorgvuldig" not in options["M001"].normative


def test_an_extended_word_list_gets_patterns_of_its_own():
    from memvet.rules.method import MethodNotNormative

    plain = Engine(config_from_dict({"select": ["M001"]}))
    extended = Engine(config_from_dict({"select": ["M001"], "rules": {"M001": {"extend_normative": ["zorgvuldig"]}}}))
    context = build_context({"messages": ["user: deploy via staging"]})
    output = build_output({"content": "Deploys gaan zorgvuldig via de staging-omgeving.", "type": "work_method",
                           "priority": 80, "metadata": {"scope": "self", "method_type": "principle"}}, context)
    assert "M001" in plain.validate(output, context).codes()
    # The extended list is another list: it gets its own patterns, not the default list's cached ones.
    assert "M001" not in extended.validate(output, context).codes()
    assert "zorgvuldig" not in MethodNotNormative.Options().normative
