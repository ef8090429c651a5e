"""Grammatical forms that make a work_method read as a rule without a modal word (M001, M005).

Three forms a careful extractor writes, none of which holds 应/must/should:

* the **imperative mood** at the start of a clause -- after a sentence end, a
  colon or semicolon, a leading "When/Before/If …," or purpose ("To fix X, …") clause and an optional
  adverb of order ("first run one test, then widen"). Verbs that are nouns
  as often as verbs ("commit", "test", "update") count only when an object
  starts right after them ("Update package.json", "Commit the lock file"),
  so the noun compound in "Commit messages follow …" is not an imperative;
* a **rule label**: the content opens with a short noun phrase whose head
  is a norm noun, then a colon ("Markdown conventions: …", "Release
  workflow: …", "命名规范：…", "User preference: …"). A label owned by the
  user ("User's approach when …:", "用户的做法：") also accepts a wider set
  of heads; it attributes the rule to the user, which M005 checks;
* a **wish with a scope**: "the user wants …" / 用户希望 is a one-off wish
  unless a condition or a quantifier gives it a scope ("Before implementing
  a feature, the user wants a plan first"; 每次提交前用户希望…).

Everything here is a word class or a pattern over sentence structure; the
word lists are options of the rules that use them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from memvet.rules import lexicon
from memvet.rules._hant import both_scripts

#: Where a clause starts: the text start, or after a sentence end, a colon, a
#: semicolon, a dash or an arrow (steps of a sequence: "bump → tag → push"). Line breaks after it
#: are crossed by starting after the last one (see memvet.rules._text._SENTENCE_START: linear).
_CLAUSE_START = r"(?:^|(?<=[.;:!?。；：！？\n—–→])[^\S\n]*|(?<=->)[^\S\n]*|(?<=\s[-–—])[^\S\n]*)"
#: A leading condition or purpose before the main clause: "When selectors find nothing, read …",
#: "To fix formatting failures, run Prettier from src-ui". A dot inside a word (".NET", "v1.2") does
#: not end it. A
#: parenthesised aside inside it may hold the punctuation of an example ("When an upload fails
#: (e.g. extra columns), first check …"); each aside is one atomic step, so no backtracking.
_LEAD = (r"(?:(?:when|whenever|where|wherever|before|after|if|once|while|for|in|until|unless|during|on|to)\b"
         r"(?>\([^()\n]{0,160}\)|[^,.;:!?\n]|\.(?=\S)){1,200},\s*)?")
#: Adverbs of order or frequency that may stand before an imperative verb.
_ADVERB = r"(?:(?:first|then|always|never|also|just|only|instead|please|still|next|finally|afterwards),?\s+)?"
#: What starts an object or a complement right after an ambiguous noun/verb:
#: a determiner, pronoun or quantifier, a preposition or particle, code or a
#: quotation, or a name (a capital, a digit or a path character inside it).
_OBJECT_START = (
    r"(?=\s+(?:(?:the|a|an|all|each|every|any|it|them|this|that|these|those|its|their|your|our|my|both|one|"
    r"only|new|existing|such|whatever|no|with|to|into|from|before|after|on|in|for|via|through|against|back|"
    r"up|down|out|off|over|first|again|locally|directly|immediately|manually|explicitly|together|once|"
    # people the rule sends somewhere ("direct users to the built-in type")
    r"users|callers|clients|developers|people)\b"
    # a gerund ("stop shrinking the excerpt", "start using the cache")
    r"|[a-z]{2,}ing\b(?!\s+(?:is|are|was|were|has|have|runs|uses|takes)\b)"
    r"|[`'\"“(\[<]|(?-i:\S*[A-Z0-9_./:#@])))")


@lru_cache(maxsize=64)
def _compile_imperatives(verbs: tuple[str, ...], noun_verbs: tuple[str, ...]) -> re.Pattern[str] | None:
    plain = lexicon.compile_words(verbs)
    ambiguous = lexicon.compile_words(noun_verbs)
    branches = []
    if plain is not None:
        branches.append(f"(?:{plain.pattern})")
    if ambiguous is not None:
        branches.append(f"(?:{ambiguous.pattern}){_OBJECT_START}")
    if not branches:
        return None
    return re.compile(_CLAUSE_START + _LEAD + _ADVERB + "(?:" + "|".join(branches) + ")", re.IGNORECASE)


def compile_imperatives(verbs: Iterable[str], noun_verbs: Iterable[str]) -> re.Pattern[str] | None:
    """A pattern for an imperative clause: ``verbs`` anywhere a clause starts, ``noun_verbs`` with an object."""
    return _compile_imperatives(tuple(verbs), tuple(noun_verbs))


# --- rule labels -------------------------------------------------------------------------

#: The label: text before the first colon, with no sentence end before it.
_LABEL = re.compile(r"^\s*([^:：。！？!?\n]{1,160}?)\s*[:：]\s*\S")
_PARENTHESES = re.compile(r"\([^()]*\)|（[^（）]*）")
#: Where a label's head noun phrase ends: a preposition, a subordinator or a comma.
_HEAD_END = re.compile(r"\s(?:for|in|of|on|at|when|whenever|if|to|with|during|before|after|from|under|across)\s|[,，、]",
                       re.IGNORECASE)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_USER_OWNER = re.compile(both_scripts(r"^(?:the\s+)?user(?:'s|’s|s'|s)?\b|^用户"), re.IGNORECASE)
_MAX_LABEL_WORDS = 10
_MAX_LABEL_CJK = 24


def rule_label(text: str, heads: Iterable[str], user_heads: Iterable[str]) -> tuple[str, bool] | None:
    """``(label, owned_by_user)`` when ``text`` opens with a rule label, else None.

    ``heads`` are norm nouns that make any label a rule ("conventions",
    "workflow", 规范); ``user_heads`` are accepted only in a label the user
    owns ("User's approach", 用户的做法). Both match the head noun: the last
    word of the label's first noun phrase (parentheses removed, cut at a
    preposition or a comma); for Chinese the phrase's ending.
    """
    m = _LABEL.match(text)
    if m is None:
        return None
    label = _PARENTHESES.sub(" ", m.group(1)).strip()
    if ". " in label or not label:
        return None
    cut = _HEAD_END.search(label)
    phrase = (label[:cut.start()] if cut else label).strip()
    if not phrase:
        return None
    words = _LATIN_WORD.findall(phrase)
    cjk = sum(1 for ch in phrase if "\u4e00" <= ch <= "\u9fff")
    if len(words) > _MAX_LABEL_WORDS or cjk > _MAX_LABEL_CJK:
        return None
    owned = _USER_OWNER.search(label) is not None
    candidates = [h.strip().lower() for h in heads if h.strip()]
    if owned:
        candidates += [h.strip().lower() for h in user_heads if h.strip()]
    lowered = phrase.lower()
    last = words[-1].lower() if words and lowered.endswith(words[-1].lower()) else None
    for head in candidates:
        if head.isascii() and head[:1].isalpha():
            if last == head:
                return label, owned
        elif lowered.endswith(head):
            return label, owned
    return None


# --- wishes with a scope ------------------------------------------------------------------

#: A Chinese condition clause: "…时，" / "…前，" / "…后，" (每完成一步时，提交前，) or 当…时.
# (traditional 時/後/當 too: the word lists fold them, see memvet.rules._hant)
_ZH_CONDITION = re.compile(both_scripts(r"[^，,。；;！？!?\n]{1,40}?(?:[时時]|之前|之[后後]|前|[后後])[，,]|[当當][^，,。；;！？!?\n]{1,40}?[时時]"))


def has_scope(text: str, scope_words: re.Pattern[str] | None) -> bool:
    """Does a condition or a quantifier give the text a scope beyond one occasion?"""
    if scope_words is not None and scope_words.search(text):
        return True
    return _ZH_CONDITION.search(text) is not None


# --- Chinese imperatives -----------------------------------------------------------------

#: Where a Chinese clause starts for an imperative: the text start, a sentence end or a
#: colon, or right after a leading "…时 / …后 / …前" clause (重命名文件时用 git mv), which may
#: hold a parenthesised aside (上传失败时（例如列数多，或缺表头），检查模板), one atomic step each.
_ZH_ASIDE = r"（[^（）\n]{0,80}）|\([^()\n]{0,80}\)"
_ZH_CLAUSE_START = re.compile(both_scripts(rf"(?:^|[。；;：:！？!?\n])\s*(?:(?>{_ZH_ASIDE}|[^，,。；;：:！？!?\n]){{1,40}}?"
                              rf"(?:时|之后|之前|后|前)(?:{_ZH_ASIDE})?[，,]?\s*)?"))
#: A procedure: 先 … 再 / 然后, or … 后再 (without 了, which narrates what was done).
_ZH_CLAUSE_END = re.compile(r"[，,。；;！？!?\n]")
_ZH_PROCEDURE = re.compile(both_scripts(r"先[^。；;！？!?\n了]{1,60}?(?:再|然后|之后再|随后)|[^。；;！？!?\n了]{2,60}?(?:后再|之后再|然后再)"))


def zh_imperative(text: str, verbs: Iterable[str], not_verbs: Iterable[str]) -> bool:
    """Does a Chinese clause open with an imperative verb (使用/把/先/运行…), or state a 先…再 procedure?

    ``not_verbs`` are compounds that start like a verb but are nouns or
    adverbs (用户, 用于, 将来, 先前): a clause that opens with one is not an
    imperative.
    """
    for m in _ZH_PROCEDURE.finditer(text):
        # The whole sentence, not only the match, must be free of 了 ("查了代码后再改").
        start = max(text.rfind(end, 0, m.start()) for end in "。；;！？!?\n") + 1
        stop = min([i for i in (text.find(end, m.end()) for end in "。；;！？!?\n") if i >= 0] or [len(text)])
        if "了" not in text[start:stop]:
            return True
    verbs = [v.strip() for v in verbs if v.strip()]
    not_verbs = [w.strip() for w in not_verbs if w.strip()]
    if not verbs:
        return False
    for m in _ZH_CLAUSE_START.finditer(text):
        for pos in {m.start(), m.end()}:  # the clause itself, or its main clause after a 时-clause
            rest = text[pos:].lstrip()
            if any(rest.startswith(v) for v in verbs) and not any(rest.startswith(w) for w in not_verbs):
                # 了 in the clause narrates what was done ("先查了日志"), an order never has it.
                if "了" not in _ZH_CLAUSE_END.split(rest, 1)[0]:
                    return True
    return False
