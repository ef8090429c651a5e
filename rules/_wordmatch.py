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
from memvet.rules._patterns import any_substring, any_substring_pattern, literal_trie  # noqa: F401 - re-exported


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


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
