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

A rule that looks at every string of its target (P001 and P002 redact a
scene's names, each memory's content and metadata keys and values at any
depth) declares ``text_field=ANY_STRING``; literals its detectors cannot do
without are ``anchors`` (matched like the entries of one more word list,
case ignored), forms no literal stands for are ``forms`` (regular
expressions), and ``batch_secrets`` says that a value the batch-wide secret
scan registered for the rule's code may turn up anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memvet.rules._textlayer import TextFacts, TextLayer, fold

from .secrets import BATCH_SECRETS, strings_of

__all__ = ["ANY_STRING", "Needs", "TextLayer", "declaration_met", "declared_layer", "facts_of", "needs_problem"]

#: ``Needs.text_field`` for "any string of the target": keys and values at any depth.
ANY_STRING = "*"


@dataclass(frozen=True, slots=True)
class Needs:
    """When a rule can find something at all.

    ``fields``: keys of the target that must hold a non-blank string.
    ``words``: option names (word lists) of the rule; when given, at least one
    of them must (possibly) hit in the text of ``text_field``.
    ``text_field``: the field whose text ``words`` are looked for in
    (:data:`ANY_STRING`: each string of the target, keys included, at any depth).
    ``anchors``: literals that count as the entries of one more word list
    (case ignored): one of ``words`` or ``anchors`` must (possibly) hit.
    ``forms``: regular expressions; a text one of them matches in can always hit (with
    ``ANY_STRING`` they search the strings joined by line breaks: no ``\\A`` or ``\\Z``).
    ``batch_secrets``: also met where a value the batch-wide secret scan registered
    for the rule's code occurs (such a value may turn up in any text).
    """

    fields: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    text_field: str = "content"
    anchors: tuple[str, ...] = ()
    forms: tuple[str, ...] = ()
    batch_secrets: bool = False


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
    for attr in ("fields", "words", "anchors", "forms"):
        value = getattr(needs, attr)
        if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
            return f"needs.{attr} {value!r} must be a tuple of names"
    if not isinstance(needs.text_field, str) or not needs.text_field:
        return f"needs.text_field {needs.text_field!r} must be a field name"
    for form in needs.forms:
        try:
            re.compile(form)
        except re.error as exc:
            return f"needs.forms holds {form!r}, which is not a regular expression ({exc})"
    if not isinstance(needs.batch_secrets, bool):
        return f"needs.batch_secrets {needs.batch_secrets!r} must be True or False"
    if (needs.forms or needs.batch_secrets) and not (needs.words or needs.anchors):
        return "needs.forms and needs.batch_secrets widen needs.words or needs.anchors, which are empty"
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
    if not needs.fields and not needs.words and not needs.anchors:
        return True
    if not isinstance(target, dict):  # no field at all
        return False
    for name in needs.fields:
        value = target.get(name)
        if not isinstance(value, str) or not value or value.isspace():
            return False
    if not needs.words and not needs.anchors:
        return True
    # One mask for all the lists: any(may_hit(list) for list in needs.words + anchors), in one test.
    mask = _mask(rule, needs, layer)
    if needs.text_field == ANY_STRING:
        text, folded = _strings(target, ctx)
        if layer.may_hit_folded(mask, folded):
            return True
    else:
        text = target.get(needs.text_field)
        if not isinstance(text, str):
            return False
        if facts_of(layer, ctx, text).may_hit_mask(mask):
            return True
    for form in needs.forms:
        if _compiled(form).search(text) is not None:
            return True
    if needs.batch_secrets:
        # A value the batch-wide scan found elsewhere is redacted wherever it occurs.
        known = _batch_secrets(ctx, rule)
        return known is not None and known.holds(text)
    return False


_FORMS: dict[str, re.Pattern[str]] = {}


def _compiled(form: str) -> re.Pattern[str]:
    found = _FORMS.get(form)
    if found is None:
        found = _FORMS[form] = re.compile(form)
    return found


def _mask(rule: Any, needs: Needs, layer: TextLayer) -> int:
    if not needs.anchors:
        return layer.lists_mask(rule, needs.words)
    return layer.lists_mask(rule, needs.words, anchors=needs.anchors)


def _batch_secrets(ctx: Any, rule: Any) -> Any:
    """The values (a ``SecretSet``) the batch-wide scan registered for the rule's code, or None."""
    scratch = getattr(ctx, "scratch", None)
    by_code = scratch.get(BATCH_SECRETS) if scratch else None
    found = by_code.get(getattr(rule, "code", None)) if by_code else None
    return found if found else None


_STRINGS = "memvet.needs.strings"


def _strings(target: Any, ctx: Any) -> tuple[str, str]:
    """Every string of ``target`` (keys too, any depth) joined by line breaks, and folded; for the
    target object last asked about (a fix replaces the target, copy-on-write, and then they are
    read again).

    One text, one fold, one scan of the declaration's own pieces (no other rule asks about
    this text): a piece (no white space) occurs in it exactly when it occurs in one of the
    strings, and a form that matches in a string matches there too (it may also match
    across a line break, which only lets more through).
    """
    hit = ctx.scratch.get(_STRINGS)
    if hit is not None and hit[0] is target:
        return hit[1]
    # Each distinct string once: the keys of every memory repeat ("content", "type"...).
    joined = "\n".join(dict.fromkeys(strings_of(target)))
    found = (joined, fold(joined))
    ctx.scratch[_STRINGS] = (target, found)
    return found
