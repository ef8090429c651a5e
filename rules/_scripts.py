"""The characters memvet reads as CJK script: Chinese (Han) and Japanese (kana).

Chinese and Japanese write words without spaces, so a word-list entry in
either matches as a substring, and overlap is measured over character
n-grams, not words. Han characters alone left Japanese prose half unread:
its kana (the inflections, particles and loanwords of every sentence) fell
between the Latin and the Han tests, so 付けない or べき never matched, and a
Japanese sentence counted only its kanji. Korean Hangul is written with
spaces between words and reads as words already.

``CJK_CHARS`` is the body of a regex character class (``f"[{CJK_CHARS}]"``).
"""

from __future__ import annotations

import re

#: Hiragana, katakana (with ー and ・), katakana extensions, CJK ideographs (extension A and the
#: unified block), compatibility ideographs, halfwidth katakana.
CJK_CHARS = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f"


#: Letters of the scripts that put spaces between words: Latin, with the accented letters of
#: Latin-1, Latin Extended-A/B and Latin Extended Additional (Vietnamese), and Cyrillic. A word
#: such as "należy", "für", "không" or "должен" is one word, not pieces (nor nothing).
WORD_LETTERS = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff\u0400-\u04ff"


def is_cjk(ch: str) -> bool:
    """Is the character ``ch`` one of :data:`CJK_CHARS`?"""
    return ("\u3400" <= ch <= "\u9fff" or "\u3040" <= ch <= "\u30ff" or "\uf900" <= ch <= "\ufaff"
            or "\u31f0" <= ch <= "\u31ff" or "\uff66" <= ch <= "\uff9f")


#: One CJK character, or a run of letters of any other script (Latin with its accents,
#: Cyrillic, Greek, Hangul ...): the units a "how much prose is there" count reads. Counting
#: only ``[A-Za-z]`` left a Russian or Vietnamese sentence beside a path weighing nothing.
_WORD_OR_CJK = re.compile(f"[{CJK_CHARS}]|(?:(?![{CJK_CHARS}])[^\\W\\d_])+")


def letter_words(text: str) -> list[str]:
    """The words of ``text`` written in a script that spaces its words (CJK characters left out):
    "Routes are in 路由" -> ["Routes", "are", "in"]."""
    return [w for w in _WORD_OR_CJK.findall(text) if not (len(w) == 1 and is_cjk(w))]


def words_and_cjk(text: str) -> tuple[int, int]:
    """How many words (letter runs of the scripts that space their words) and how many CJK
    characters ``text`` holds: "Routes are in 路由" -> (3, 2)."""
    found = _WORD_OR_CJK.findall(text)
    cjk = sum(1 for w in found if len(w) == 1 and is_cjk(w))
    return len(found) - cjk, cjk
