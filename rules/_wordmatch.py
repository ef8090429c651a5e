"""A faster matcher for lexicon word lists, with the semantics of :mod:`memvet.rules.lexicon`.

``lexicon.compile_words`` builds one alternation with ``\\b`` anchors and
``re.IGNORECASE``; both switch off the first-character prefilter of
Python's regex engine, so a search costs 1-3 microseconds per character of
text -- more than the whole per-memory budget on a typical memory. This
matcher compiles the lower-cased entries into a plain trie of literals
(which keeps the prefilter, and tries one branch per position instead of
one per entry), searches the lower-cased text and checks the word
boundaries of Latin entries in Python afterwards.

Same meaning as lexicon: entries with CJK match as substrings, Latin entries
case-insensitively on word boundaries (a CJK character next to a Latin
entry is a word character, as with ``\\b``). At each position the longest
entry is the candidate. Text whose lower-casing changes its length (rare
Unicode) falls back to the lexicon pattern.

A rule that asks several lists about one text lower-cases it once and
passes ``lowered=`` to every call.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator

from memvet.rules import _text, lexicon


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def literal_trie(words: Iterable[str]) -> str:
    """One regex for literal ``words`` that matches, at each position, the longest of them.

    The same matches as the alternation of the words sorted longest first,
    but shared prefixes are factored out: the regex engine tries one branch
    per distinct next character instead of every word in turn.
    """
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


class WordMatcher:
    """One compiled, prefilter-friendly pattern for one word list."""

    __slots__ = ("words", "_pattern", "_fallback")

    def __init__(self, words: tuple[str, ...]):
        self.words = words
        entries = {w.strip().lower() for w in words if w.strip()}
        self._pattern = re.compile(literal_trie(entries)) if entries else None
        self._fallback = lexicon.compile_words(words)

    def finditer(self, text: str, start: int = 0, end: int | None = None, *,
                 lowered: str | None = None) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each match in ``text[start:end]``, left to right, non-overlapping.

        ``lowered`` is ``text.lower()`` when the caller has it already.
        """
        if self._pattern is None:
            return
        end = len(text) if end is None else end
        if lowered is None:
            lowered = text.lower()
        if len(lowered) != len(text):
            for m in self._fallback.finditer(text, start, end):  # type: ignore[union-attr]
                yield m.span()
            return
        search = self._pattern.search
        pos = start
        while pos < end:
            m = search(lowered, pos, end)
            if m is None:
                return
            a, b = m.span()
            if _bounded(text, a, b) or lexicon.has_cjk(lowered[a:b]):
                yield a, b
                pos = b
            else:
                pos = a + 1

    def search(self, text: str, start: int = 0, end: int | None = None, *,
               lowered: str | None = None) -> tuple[int, int] | None:
        """The first match, as :meth:`finditer` would yield it (no generator on the common path)."""
        if self._pattern is None:
            return None
        if end is None:
            end = len(text)
        if lowered is None:
            lowered = text.lower()
        if len(lowered) != len(text):
            for span in self.finditer(text, start, end, lowered=lowered):
                return span
            return None
        search = self._pattern.search
        pos = start
        while pos < end:
            m = search(lowered, pos, end)
            if m is None:
                return None
            a, b = m.span()
            if _bounded(text, a, b) or lexicon.has_cjk(lowered[a:b]):
                return a, b
            pos = a + 1
        return None

    def find(self, text: str, start: int = 0, end: int | None = None, *, lowered: str | None = None) -> str | None:
        """The first entry found (as it appears in ``text``), or None."""
        span = self.search(text, start, end, lowered=lowered)
        return text[span[0]:span[1]] if span else None

    def match(self, text: str, *, lowered: str | None = None) -> str | None:
        """An entry at the very start of ``text``."""
        span = self.search(text, 0, len(text), lowered=lowered)
        return text[:span[1]] if span and span[0] == 0 else None


def _bounded(text: str, a: int, b: int) -> bool:
    """Latin edges of a match must sit on word boundaries, like ``\\b`` in lexicon."""
    first, last = text[a], text[b - 1]
    if first.isascii() and _is_word_char(first) and a > 0 and _is_word_char(text[a - 1]):
        return False
    if last.isascii() and _is_word_char(last) and b < len(text) and _is_word_char(text[b]):
        return False
    return True


@lru_cache(maxsize=512)
def _matcher(words: tuple[str, ...]) -> WordMatcher:
    return WordMatcher(words)


def matcher(words: Iterable[str]) -> WordMatcher:
    """The cached :class:`WordMatcher` of a word list (an option value)."""
    return _matcher(tuple(words))


def option_matcher(rule: object, option: str) -> WordMatcher:
    """The matcher of one word-list option of ``rule``, kept on the rule instance.

    Options are frozen, so the matcher is built once per rule; this avoids
    hashing a long tuple on every call, which costs more than the search.
    """
    cache = rule.__dict__.setdefault("_word_matchers", {})
    found = cache.get(option)
    if found is None:
        found = cache[option] = matcher(getattr(rule.options, option))  # type: ignore[attr-defined]
    return found


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



# --- shared per-text facts and word-list filters -------------------------------------
#
# A regex that scans for many words costs ~50 instructions per character even when
# nothing is found, and several times that on English text, where the first letters
# of the words are everywhere. The filters below ask instead a set built once per
# text and validate() call (``ctx.scratch``) and shared by every rule that uses it:
# the maximal runs of ASCII letters of the folded text. A Latin entry is then a set
# intersection in C, and the CJK entries one scan anchored at rare characters, made
# only when the text has a non-ASCII character. A filter is False only when no entry
# of its word list can be in the text (True: the rule runs its real test, unchanged).

_LETTERS_ONLY = bytes(c if 97 <= c <= 122 else 32 for c in range(256))  # a-z kept, the rest a space
_FACTS = "memvet.rules._wordmatch.facts"


class TextFacts:
    """What the word-list filters ask of one text, built lazily once per ``validate()`` call.

    ``view``: the shared :class:`~memvet.rules._text.View` (``folded`` is its
    folded text); ``words``: the maximal runs of ASCII letters of the folded
    text (bytes, in order; any other character ends a run); ``word_set``: the
    same as a set.
    """

    __slots__ = ("view", "folded", "is_ascii", "_words", "_word_set")

    def __init__(self, view: object):
        self.view = view
        self.folded: str = view.folded  # type: ignore[attr-defined]
        self.is_ascii = self.folded.isascii()
        self._words: list[bytes] | None = None
        self._word_set: frozenset[bytes] | None = None

    @property
    def words(self) -> list[bytes]:
        if self._words is None:
            # "replace" turns every non-ASCII character into "?", which becomes a space.
            self._words = self.folded.encode("ascii", "replace").translate(_LETTERS_ONLY).split()
        return self._words

    @property
    def word_set(self) -> frozenset[bytes]:
        if self._word_set is None:
            self._word_set = frozenset(self.words)
        return self._word_set


def text_facts(ctx: object, text: str) -> TextFacts:
    """The :class:`TextFacts` of ``text`` for this ``validate()`` call (kept in ``ctx.scratch``)."""
    scratch = getattr(ctx, "scratch", None)
    if scratch is None:
        return TextFacts(_text.view(ctx, text))
    facts = scratch.get(_FACTS)
    if facts is None:
        facts = scratch[_FACTS] = {}
    found = facts.get(text)
    if found is None:
        found = facts[text] = TextFacts(_text.view(ctx, text))
    return found


_LETTER_RUNS = re.compile(r"[a-z]+")
#: Words too common to key an entry on when it has a rarer one ("per the" -> "per").
_COMMON_WORDS = frozenset("the a an is are in on at of to as and or it be by for this that with".split())


class WordFilter:
    """A cheap necessary condition for a word list: :meth:`may_match` is False only when no entry can match.

    ``bounded=True`` (the lexicon semantics, also :class:`WordMatcher`'s): an
    entry that starts with an ASCII letter matches case-insensitively on word
    boundaries. Then every maximal run of letters of the folded entry is a
    maximal run of ASCII letters of the folded text (a word boundary or a
    non-letter of the entry ends it), so the entry is keyed by its rarest run
    and confirmed as a substring of the folded text.

    ``bounded=False`` (G001's change verbs, searched on word boundaries in a
    text derived from the content by blanking specifics out): such an entry
    is keyed by its first run. In the content that run is whole too, except
    that blanking can free it from letters glued to it: a unit before it
    ("5msrenamed") or a URL after it ("renamedhttps://..."), so those runs
    are keys as well.

    Any other entry (CJK, or one that starts with a non-letter) must be a
    substring of the folded text: one scan anchored at rare characters
    (:func:`any_substring`) for the entries with a non-ASCII character, made
    only when the text has one; ``in`` for the others. An entry
    :func:`~memvet.rules._text.fold` is not checked for makes the filter
    always True.
    """

    __slots__ = ("_always", "_by_word", "_words", "_substrings", "_plain")

    def __init__(self, words: Iterable[str], *, bounded: bool = True):
        self._always = False
        by_word: dict[bytes, set[str | None]] = {}
        substrings: set[str] = set()
        plain: set[str] = set()
        for raw in words:
            word = raw.strip()
            if not word:
                continue
            if not _text.foldable(word):
                self._always = True
                continue
            folded = _text.fold(word)
            runs = _LETTER_RUNS.findall(folded)
            latin = folded[0].isascii() and folded[0].isalpha() and not lexicon.has_cjk(word)
            if latin and bounded:
                key = max(runs, key=lambda r: (r not in _COMMON_WORDS, len(r)))
                by_word.setdefault(key.encode(), set()).add(None if folded == key else folded)
            elif latin:
                first = runs[0]
                for glued in (first, "ms" + first):
                    for key in (glued, glued + "http", glued + "https"):
                        by_word.setdefault(key.encode(), set()).add(None)
            elif not folded.isascii():
                substrings.add(folded)
            else:
                plain.add(folded)
        self._by_word = {k: tuple(v) for k, v in by_word.items()}
        self._words = frozenset(by_word)
        self._substrings = any_substring(substrings) if substrings else None
        self._plain = tuple(sorted(plain))

    def may_match(self, facts: TextFacts) -> bool:
        if self._always:
            return True
        folded = facts.folded
        if self._words and not self._words.isdisjoint(facts.word_set):
            for word in self._words.intersection(facts.word_set):
                for entry in self._by_word[word]:
                    if entry is None or entry in folded:
                        return True
        if self._substrings is not None and not facts.is_ascii and self._substrings.search(folded) is not None:
            return True
        for entry in self._plain:
            if entry in folded:
                return True
        return False
