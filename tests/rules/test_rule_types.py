"""``Rule.types``: the engine calls a typed memory/record rule only on memories of those types."""

from __future__ import annotations

from memvet.config import Config
from memvet.engine import Engine
from memvet.hookspecs import hookimpl
from memvet.registry import build_registry
from memvet.rule import Finding, Rule

CONTEXT = {"messages": [{"id": "m1", "sessionKey": "s", "role": "user", "content": "以后改配置前必须先跑测试"}]}
TYPES = ("work_fact", "work_method", "work_task", "work_method", "work_artifact")


def _output() -> list:
    return [{"new_scene_name": "demo｜配置", "new_scene_reason": "池为空", "message_ids": ["m1"],
             "memories": [{"content": f"memory {k}", "type": t, "priority": 80, "source_message_ids": ["m1"]}
                          for k, t in enumerate(TYPES)]}]


def _engine(*classes: type[Rule]) -> tuple[Engine, list[str]]:
    """An engine with only ``classes`` selected (built-ins load but are switched off)."""
    class Plugin:
        @hookimpl
        def memvet_rules(self):
            return list(classes)

    registry = build_registry(entry_points=False, plugins=(Plugin(),))
    assert registry.problems == []
    return Engine(Config(select=["ZZ"]), registry=registry), registry.problems


def _recording(code: str, target: str, types: frozenset[str] | None, seen: list[tuple[str, str]],
               fix_type: str | None = None) -> type[Rule]:
    class Recording(Rule):
        """Records the type of every memory it is called on."""

        name = f"recording-{code.lower()}"
        action = "fix" if fix_type else "warn"

        def check(self, memory, ctx):
            seen.append((self.code, memory["type"]))
            if fix_type and memory["type"] != fix_type:
                yield Finding("retyped", fix=[{"op": "replace", "path": "/type", "value": fix_type}])

    Recording.code, Recording.target, Recording.types = code, target, types
    return Recording


def test_a_typed_rule_is_called_only_on_its_types():
    seen: list[tuple[str, str]] = []
    engine, _ = _engine(_recording("ZZ001", "memory", frozenset({"work_method"}), seen),
                        _recording("ZZ002", "memory", None, seen))
    engine.validate(_output(), CONTEXT)
    assert [t for c, t in seen if c == "ZZ001"] == ["work_method", "work_method"]
    assert [t for c, t in seen if c == "ZZ002"] == list(TYPES)


def test_memory_rules_are_dispatched_on_the_type_the_llm_emitted():
    seen: list[tuple[str, str]] = []
    engine, _ = _engine(
        _recording("ZZ001", "memory", frozenset({"work_method"}), seen, fix_type="work_fact"),  # downgrades
        _recording("ZZ002", "memory", frozenset({"work_method"}), seen),
        _recording("ZZ003", "memory", frozenset({"work_fact"}), seen),
    )
    report = engine.validate(_output(), CONTEXT)
    assert [t for c, t in seen if c == "ZZ001"] == ["work_method", "work_method"]
    # ZZ002 still meets both methods (now facts in the working copy); ZZ003 only the LLM's own fact
    assert [t for c, t in seen if c == "ZZ002"] == ["work_fact", "work_fact"]
    assert [t for c, t in seen if c == "ZZ003"] == ["work_fact"]
    assert [m["type"] for m in report.output[0]["memories"]] == ["work_fact", "work_fact", "work_task",
                                                                  "work_fact", "work_artifact"]


def test_record_rules_can_declare_types_too():
    seen: list[tuple[str, str]] = []
    engine, _ = _engine(_recording("ZZ001", "record", frozenset({"work_task", "work_artifact"}), seen))
    engine.validate(_output(), CONTEXT)
    assert sorted(t for _, t in seen) == ["work_artifact", "work_task"]


def test_a_misspelt_type_or_a_type_on_another_target_is_refused_at_load_time():
    typo = _recording("ZZ001", "memory", frozenset({"work_fct"}), [])
    scene = _recording("ZZ002", "scene", frozenset({"work_fact"}), [])
    fine = _recording("ZZ003", "memory", frozenset({"work_fact"}), [])

    class Plugin:
        @hookimpl
        def memvet_rules(self):
            return [typo, scene, fine]

    registry = build_registry(entry_points=False, plugins=(Plugin(),))
    assert "ZZ003" in registry.rules and "ZZ001" not in registry.rules and "ZZ002" not in registry.rules
    assert any("ZZ001" in p and "work_fct" in p for p in registry.problems)
    assert any("ZZ002" in p and "memory and record rules only" in p for p in registry.problems)
