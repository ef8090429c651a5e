"""Word lists as rule options, compiled once into one pattern per list.

Every lexicon a rule uses (normative words, zero-information phrases,
temporal markers...) is a plain list of strings in the rule's ``Options``,
so a team extends it in config without code. :func:`compile_words` turns a
list into ONE alternation (longest first, escaped), so a rule makes one
linear pass over the text per lexicon instead of one per word.

Latin-script entries match on word boundaries and case-insensitively;
entries containing CJK characters match as substrings (Chinese has no
spaces between words).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def _alternative(word: str) -> str:
    escaped = re.escape(word.strip())
    if has_cjk(word):
        return escaped
    # \b only where the entry starts/ends with a word character.
    start = r"\b" if re.match(r"\w", word.strip()) else ""
    end = r"\b" if re.search(r"\w$", word.strip()) else ""
    return f"{start}{escaped}{end}"


@lru_cache(maxsize=512)
def _compile(words: tuple[str, ...]) -> re.Pattern[str] | None:
    words = tuple(w for w in words if w.strip())
    if not words:
        return None
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return re.compile("|".join(_alternative(w) for w in ordered), re.IGNORECASE)


def compile_words(words: Iterable[str]) -> re.Pattern[str] | None:
    """One compiled alternation for ``words`` (None for an empty list); cached."""
    return _compile(tuple(words))


def find(words: Iterable[str], text: str) -> str | None:
    """The first lexicon entry found in ``text`` (as it appears there), or None."""
    pattern = compile_words(words)
    if pattern is None:
        return None
    m = pattern.search(text)
    return m.group(0) if m else None


def find_all(words: Iterable[str], text: str) -> list[str]:
    pattern = compile_words(words)
    return [m.group(0) for m in pattern.finditer(text)] if pattern else []
