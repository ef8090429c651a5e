"""Regex builders for literal word lists: a longest-match trie and an existence pattern.

A leaf of the rules' text helpers (it imports only ``re``), shared by
:mod:`memvet.rules._text` and :mod:`memvet.rules._wordmatch`, so neither
needs the other at call time.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable


def literal_trie(words: Iterable[str]) -> str:
    """One regex for literal ``words`` that matches, at each position, the longest of them.

    The same matches as the alternation of the words sorted longest first,
    but shared prefixes are factored out: the regex engine tries one branch
    per distinct next character instead of every word in turn. The regex
    depends on the set of words only, so it is built once per set: every
    engine binds the same default lists (a worker, the judge, each test
    builds its own), and building the tries was most of an engine's start.
    """
    return _literal_trie(frozenset(words))


@lru_cache(maxsize=4096)
def _literal_trie(words: frozenset[str]) -> str:
    root: dict[str, dict] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        # Longer continuations come before the end of a shorter word: the longest wins.
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if "" in node:
            branches.append("")
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return emit(root)



# --- existence prefilters -----------------------------------------------------------
#
# A rule's "can anything match here at all?" test runs on every memory, so it must
# cost well under a microsecond. Python's regex engine skips ahead cheaply only to
# the characters that can start a match (a literal prefix, or a set of first
# characters); at every other position it is a few nanoseconds. A trie of words
# whose first characters are common (上, 前, 以, s, t, p...) stops at most positions
# and tries a branch there. :func:`any_substring` starts every word at its RAREST
# character instead and checks the characters before it with a lookbehind, so the
# engine stops only where a rare character is.

#: Characters by how often they occur in memory text, most common first: ASCII as
#: counted in generated benchmark answers (English words, paths, dates), then the
#: most common Chinese characters. Any other character counts as rare. Only speed depends on this order.
_COMMON_CHARS = (
    " eroaint\nslcp0dhug/2bmy1.f:,v-8w6\"3_k54x`79+zjq" "。，的是一在不了有和人这中大为上个国我以要他时来用们生到作地于出就"
    "分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量"
    "都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又"
    "么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设"
    "及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色"
    "光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场"
    "身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究"
    "观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称"
    "太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该"
    "铁价严")
_RANK = {ch: i for i, ch in enumerate(_COMMON_CHARS)}


def _rarest(word: str) -> int:
    """Index of the character of ``word`` the regex engine should stop at: the rarest, the first on ties."""
    rare = len(_RANK)
    return max(range(len(word)), key=lambda i: _RANK.get(word[i], rare))


def any_substring_pattern(words: Iterable[str]) -> str:
    """A regex that matches somewhere in a text exactly when one of ``words`` occurs in it.

    Each word is split at its rarest character ``a``: ``pre + a + post``
    becomes ``a(?<=pre a)post`` (the lookbehind re-reads what is before). The
    words are grouped by that character, so every branch of the pattern
    starts with a literal and the engine skips to the rare characters. Only
    whether there is a match means anything: not where it is, nor what it
    spans. Empty words are ignored; no words give a pattern that never matches.
    """
    groups: dict[str, dict[str, set[str]]] = {}
    for word in words:
        if not word:
            continue
        k = _rarest(word)
        groups.setdefault(word[k], {}).setdefault(word[:k + 1] if k else "", set()).add(word[k + 1:])
    if not groups:
        return "(?!)"
    branches = []
    for anchor, by_before in sorted(groups.items()):
        alternatives = []
        for before, afters in sorted(by_before.items()):
            if "" in afters:
                afters = {""}  # the word ends at the anchor: any longer one is implied
            tail = literal_trie(afters) if afters != {""} else ""
            look = f"(?<={re.escape(before)})" if before else ""
            alternatives.append(look + tail)
        if "" in alternatives:
            alternatives = [""]  # the anchor alone is a word
        inner = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        branches.append(re.escape(anchor) + inner)
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def any_substring(words: Iterable[str]) -> re.Pattern[str]:
    """:func:`any_substring_pattern`, compiled."""
    return re.compile(any_substring_pattern(words))
