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

from memvet.rules import lexicon
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
