"""Every rule's declaration (memvet.needs) is sound: where it says "cannot", check() finds nothing.

Over EVERY registered rule (the default registry: built-ins and installed
plugins; plus a test plugin with a declaration of its own): the engine runs
with the declarations switched off, and each call where a declaration says
"cannot" is checked to yield nothing, on generated answers whose texts are
made of the rules' own word-list entries (cut, re-cased, full-width, wrapped
in code, next to word characters) and random text.
"""

from __future__ import annotations

import copy
from dataclasses import replace
import unicodedata
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from memvet import Finding, Rule
from memvet.engine import Engine
from memvet.needs import Needs, declaration_met
from memvet.registry import build_registry, default_registry
from memvet.secrets import BATCH_SECRETS
from memvet.rules import rule_classes
from memvet.rules._textlayer import word_lists_of
from memvet.testing.strategies import valid_pairs


class _PluginPlatitude(Rule):
    """A plugin rule with a declaration (the property test covers plugins too)."""

    code = "XND001"
    name = "plugin-platitude"
    target = "memory"
    action = "warn"
    needs = Needs(fields=("content",), words=("phrases",))

    from memvet.rule import RuleOptions as _Base

    class Options(_Base):
        phrases: list[str] = ["leverage synergies", "最佳姿势"]

    def check(self, memory: dict[str, Any], ctx: Any):
        from memvet.rules import lexicon

        m = lexicon.compile_words(self.options.phrases).search(memory.get("content", ""))
        if m:
            yield Finding(f"platitude {m.group(0)!r}", path="/content")


class _Plugin:
    from memvet import hookimpl

    @staticmethod
    @hookimpl
    def memvet_rules():
        return [_PluginPlatitude]


REGISTRY = build_registry(plugins=[_Plugin])
assert not REGISTRY.problems, REGISTRY.problems
CLASSES = REGISTRY.ordered()
DECLARING = [cls for cls in CLASSES if getattr(cls, "needs", None) is not None]
ENTRIES = sorted({w for cls in DECLARING for name in cls.needs.words
                  for w in word_lists_of(cls()).get(name, ())}
                 | {a for cls in DECLARING for a in cls.needs.anchors}
                 | {"be careful", "this time"})
#: Texts the declarations' forms and the privacy rules' detectors are about (P001/P002
#: anchors come from ENTRIES): values, numbers, base64 runs.
VALUES = ["9fKq2LmZ7xR4tWb8NcE1uVyH3sDj6AoP0gQi", "ghp_9fKq2LmZ7xR4tWb8NcE1uVyH3sDj6AoP0gQi", "13800138000",
          "138 0013 8000", "110101199003077777", "4111 1111 1111 1111", "liu.yang@corp-example.com",
          "Z2hwXzlmS3EyTG1aN3hSNHRXYjhOY0UxdVZ5SDNzRGo2QW9QMGdRaQ==", "=Qw7xZ9kL2m", ": Qw7xZ9kL2m", "2026-12-28"]


def test_the_registry_holds_builtins_plugins_and_declarations() -> None:
    codes = {cls.code for cls in CLASSES}
    assert {cls.code for cls in rule_classes()} <= codes
    assert "XND001" in codes
    assert {"L002", "L004", "L006", "M001", "M002", "M003", "M004", "M005", "P001", "P002", "XND001"} <= {
        cls.code for cls in DECLARING}
    assert {cls.code for cls in default_registry().ordered() if getattr(cls, "needs", None)} >= {"M003", "M004"}


FILLER = ["Redis pool size follows the load test peak", "连接池上限按压测峰值配置", "the API", "接口", " x ",
          "use `pg_dump` for backups", "always"]


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@st.composite
def contents(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 2)) == 0:  # neutral filler: most texts hold one list's entries only
            parts.append(draw(st.sampled_from(FILLER)))
            continue
        entry = draw(st.sampled_from(ENTRIES if draw(st.integers(0, 3)) else VALUES))
        how = draw(st.integers(0, 8))
        if how == 1:
            entry = entry.upper()
        elif how == 2:
            entry = _full_width(entry)
        elif how == 3:
            entry = f"`{entry}`"
        elif how == 4:
            entry = entry[: draw(st.integers(0, len(entry)))]
        elif how == 5:
            entry = "x" + entry + "y"
        elif how == 6:
            entry = entry.replace(" ", draw(st.sampled_from(["\n", "  ", "(basis: x)", "。", "-"])))
        elif how == 7:
            entry = unicodedata.normalize("NFKD", entry.title())
        parts.append(entry)
        parts.append(draw(st.sampled_from([" ", "，", "。", ". ", "; ", "\n", " 因为 ", " 依据：", " (basis: ", "1", ""])))
    return "".join(parts)


def _checked_engine(violations: list[str]) -> Engine:
    """The default rules plus the plugin, declarations off; each "cannot" call must find nothing."""
    engine = Engine(registry=REGISTRY)
    for bounds in engine.by_target.values():
        for bound in bounds:
            needs = bound.needs
            if needs is None:
                continue
            rule, real = bound.rule, bound.check

            def check(target: Any, ctx: Any, rule: Rule = rule, needs: Needs = needs, real: Any = real):
                met = declaration_met(rule, needs, target, engine.text_layer, ctx)
                if needs.batch_secrets and met:
                    _check_without_batch_secrets(rule, needs, target, ctx, real, violations, engine.text_layer)
                findings = list(real(target, ctx) or ())
                if findings and not met:
                    violations.append(f"{rule.code} found {findings[0].message!r} on {target!r}")
                return findings

            bound.check = check
            bound.needs = None
    return engine


def _check_without_batch_secrets(rule: Rule, needs: Needs, target: Any, ctx: Any, real: Any,
                                 violations: list[str], layer: Any) -> None:
    """The rest of a ``batch_secrets`` declaration is sound on its own: where it says "cannot",
    check() finds nothing once the values the batch-wide scan registered are taken away
    (otherwise every answer holding a value would meet it, whatever its anchors)."""
    held = ctx.scratch.pop(BATCH_SECRETS, None)
    secrets = dict(ctx.secrets)
    try:
        if not declaration_met(rule, replace(needs, batch_secrets=False), target, layer, ctx):
            found = list(real(target, ctx) or ())
            if found:
                violations.append(f"{rule.code} found {found[0].message!r} without its anchors on {target!r}")
    finally:
        if held is not None:
            ctx.scratch[BATCH_SECRETS] = held
        ctx.secrets.clear()
        ctx.secrets.update(secrets)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=valid_pairs(min_scenes=1, max_scenes=2), data=st.data())
def test_no_rule_finds_anything_where_its_declaration_says_it_cannot(pair, data) -> None:
    context, output = pair
    output = copy.deepcopy(output)
    for scene in output:
        for memory in scene["memories"]:
            memory["content"] = data.draw(contents())
            if data.draw(st.booleans()):
                memory["type"] = "work_method"
                memory.setdefault("metadata", {})
            if data.draw(st.integers(0, 3)) == 0:  # the privacy rules read every string, metadata too
                memory.setdefault("metadata", {})[data.draw(contents())] = [data.draw(contents())]
        if "new_scene_reason" in scene and data.draw(st.integers(0, 3)) == 0:
            scene["new_scene_reason"] = data.draw(contents())
    violations: list[str] = []
    engine = _checked_engine(violations)
    engine.validate(output, context)
    assert violations == []


def test_a_declaration_that_cannot_be_met_skips_check() -> None:
    """The engine itself honours a declaration: the plugin rule is not called without its words."""
    calls: list[str] = []

    class Counting(_PluginPlatitude):
        code = "XND002"
        name = "counting"

        def check(self, memory, ctx):
            calls.append(memory["content"])
            return super().check(memory, ctx)

    class P:
        from memvet import hookimpl

        @staticmethod
        @hookimpl
        def memvet_rules():
            return [Counting]

    import json
    from pathlib import Path

    repo = Path(__file__).parents[2]
    context = json.loads((repo / "examples" / "context.json").read_text("utf-8"))
    engine = Engine(registry=build_registry(entry_points=False, plugins=[P]))
    answer = [{"new_scene_name": "auth-service｜连接池", "new_scene_reason": "池中没有连接池议题。",
               "message_ids": ["m41"],
               "memories": [{"content": "We leverage synergies across the Redis pool.", "type": "work_fact",
                             "priority": 60, "source_message_ids": ["m41"]},
                            {"content": "Redis 连接池上限按压测峰值配置。", "type": "work_fact",
                             "priority": 60, "source_message_ids": ["m41"]}]}]
    report = engine.validate(answer, context)
    assert calls == ["We leverage synergies across the Redis pool."]
    assert any(v.code == "XND002" for v in report.violations)


def test_a_malformed_declaration_is_refused_at_load_time() -> None:
    bad = [
        ("needs = 'content'", "must be a memvet.needs.Needs"),
        ("needs = Needs(words=('no_such_list',))", "not an option of the rule"),
        ("needs = Needs(fields='content')", "must be a tuple of names"),
        ("needs = Needs(words=('limit',))", "not a list of strings"),
    ]
    for source, why in bad:
        namespace: dict[str, Any] = {"Needs": Needs}
        exec(source, namespace)

        class Bad(_PluginPlatitude):
            code = "XND003"
            name = "bad-declaration"
            needs = namespace["needs"]

            class Options(_PluginPlatitude.Options):
                limit: int = 3

        class P:
            from memvet import hookimpl

            @staticmethod
            @hookimpl
            def memvet_rules():
                return [Bad]

        registry = build_registry(entry_points=False, plugins=[P])
        assert "XND003" not in registry.rules
        assert any("XND003" in p and why in p for p in registry.problems), (source, registry.problems)
