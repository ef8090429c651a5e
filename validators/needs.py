"""What a rule needs before its ``check()`` can find anything: its declaration.

A rule states, as data, when it cannot fire (the way sqlfluff's
``crawl_behaviour`` states what a rule crawls), instead of hand-writing an
early exit in ``check()``::

    class MethodNotOperable(Rule):
        target = "memory"
        types = frozenset({"work_method"})       # memory types (the engine dispatches on them)
        needs = Needs(fields=("content",), words=("zero_information",))

reads: "only a memory with a non-blank string ``content`` in which one of
the option lists named in ``words`` may hit". The target and the memory
types are the rule's ``target`` and ``types``; the engine already dispatches
on them. :func:`declaration_met` is the one test the engine makes before it
calls ``check()``; a declaration must be sound (never "cannot" where
``check()`` would find something), which tests/test_needs.py checks over
every registered rule, plugins included.

Word-list hits come from the text layer (:mod:`memvet.rules._textlayer`):
one Aho-Corasick scan per text for the lists of every enabled rule, shared
through the call's ``ctx.scratch``. ``may_hit`` also covers texts a rule
derives from the field by masking spans or cutting it into sentences, so a
rule may search those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memvet.rules._textlayer import TextFacts, TextLayer

__all__ = ["Needs", "TextLayer", "declaration_met", "declared_layer", "facts_of", "needs_problem"]


@dataclass(frozen=True, slots=True)
class Needs:
    """When a rule can find something at all.

    ``fields``: keys of the target that must hold a non-blank string.
    ``words``: option names (word lists) of the rule; when given, at least one
    of them must (possibly) hit in the text of ``text_field``.
    ``text_field``: the field whose text ``words`` are looked for in.
    """

    fields: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    text_field: str = "content"


def needs_problem(cls: Any) -> str | None:
    """Why a rule class's declaration is malformed (the registry refuses the rule), or None.

    A typo in a declaration would switch a rule off where it should run, or
    crash every call: refused at load time instead, naming the attribute.
    """
    needs = getattr(cls, "needs", None)
    if needs is None:
        return None
    if not isinstance(needs, Needs):
        return f"needs {needs!r} must be a memvet.needs.Needs"
    if getattr(cls, "target", None) not in ("scene", "memory", "record"):
        return f"needs applies to scene, memory and record rules only, not to target {cls.target!r}"
    for attr in ("fields", "words"):
        value = getattr(needs, attr)
        if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
            return f"needs.{attr} {value!r} must be a tuple of names"
    if not isinstance(needs.text_field, str) or not needs.text_field:
        return f"needs.text_field {needs.text_field!r} must be a field name"
    options = getattr(getattr(cls, "Options", None), "model_fields", {}) or {}
    for name in needs.words:
        option = options.get(name)
        if option is None:
            return f"needs.words names {name!r}, which is not an option of the rule"
        default = option.default
        if not isinstance(default, (list, tuple)) or not all(isinstance(w, str) for w in default):
            return f"needs.words names option {name!r}, which is not a list of strings"
    return None


def declared_layer(rules: Any) -> TextLayer:
    """The text layer of the word lists that the declarations of ``rules`` name.

    Declarations are what the engine asks the layer, so only their lists
    enter its automaton: a list no declaration names would only make every
    scan longer (72 lists and 1,708 pieces in the default set, against 6 and
    195 declared; the scan walks the trie per character, slower the more
    pieces start there). The answers are the same, since a list's hits
    depend on its own entries only; a list asked for later (another rule's
    ``option_list``) is still added on first use.
    """
    layer = TextLayer()
    for rule in rules:
        needs = getattr(rule, "needs", None)
        if isinstance(needs, Needs):
            for name in needs.words:
                layer.option_list(rule, name)
    return layer


_FACTS = "memvet.needs.facts"


def facts_of(layer: TextLayer, ctx: Any, text: str) -> TextFacts:
    """The :class:`TextFacts` of ``text`` for this call (one per distinct text, in ``ctx.scratch``)."""
    cache = ctx.scratch.get(_FACTS)
    if cache is None or cache[0] is not layer:
        cache = ctx.scratch[_FACTS] = (layer, {})
    found = cache[1].get(text)
    if found is None:
        found = cache[1][text] = layer.facts(text)
    return found


def declaration_met(rule: Any, needs: Needs, target: Any, layer: TextLayer, ctx: Any) -> bool:
    """Can ``rule`` find anything on ``target``? False only when its declaration says it cannot."""
    if not needs.fields and not needs.words:
        return True
    if not isinstance(target, dict):  # no field at all
        return False
    for name in needs.fields:
        value = target.get(name)
        if not isinstance(value, str) or not value or value.isspace():
            return False
    if needs.words:
        text = target.get(needs.text_field)
        if not isinstance(text, str):
            return False
        # One mask for all the lists: any(may_hit(list) for list in needs.words), in one test.
        return facts_of(layer, ctx, text).may_hit_mask(layer.lists_mask(rule, needs.words))
    return True
