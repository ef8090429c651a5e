"""Traditional Chinese read as simplified: one character for one, so every offset stays.

The word lists are written in simplified Chinese (应, 必须, 决定, 用户…). A user in
Taiwan or Hong Kong writes 應, 必須, 決定, 用戶; the same word. :func:`to_simplified`
folds a text's traditional characters to the simplified ones (the table of
:mod:`memvet.rules._hant_table`), and :func:`char_pattern` gives, for one character of
an entry, the class of every character that folds like it -- so a word-list pattern
and the text layer's folded scan find the same words in both scripts.

Only characters are folded, not words (OpenCC's phrase tables are not used): where
the two scripts use different words (软件/軟體), an entry needs both.
"""

from __future__ import annotations

import re

from memvet.rules._hant_table import SIMPLIFIED, TRADITIONAL

_TO_SIMPLIFIED = str.maketrans(TRADITIONAL, SIMPLIFIED)
#: Any character that folds: most texts hold none and are returned as they are.
_FOLDS = re.compile("[" + TRADITIONAL + "]")


def _fold_groups() -> dict[str, str]:
    """A character -> every character that folds to the same one (itself included), for those that have others."""
    groups: dict[str, str] = {}
    for traditional, simplified in zip(TRADITIONAL, SIMPLIFIED):
        groups[simplified] = groups.get(simplified, simplified) + traditional
    return {member: group for group in set(groups.values()) for member in group}


_SAME = _fold_groups()


def to_simplified(text: str) -> str:
    """``text`` with each traditional character replaced by its simplified one (same length)."""
    return text.translate(_TO_SIMPLIFIED) if _FOLDS.search(text) else text


def fold_char(ch: str) -> str:
    """The character ``ch`` folds to."""
    return ch.translate(_TO_SIMPLIFIED)


def same_as(ch: str) -> str:
    """Every character that folds like ``ch``, ``ch`` among them ("应應" for 应 or 應; "a" for "a")."""
    return _SAME.get(ch, ch)


def char_pattern(ch: str) -> str:
    """A regex for ``ch`` that also matches every character folding like it ("[应應]" for 应 or 應)."""
    group = _SAME.get(ch)
    return re.escape(ch) if group is None else "[" + group + "]"
