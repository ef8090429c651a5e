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


def both_scripts(pattern: str) -> str:
    """A regex written with simplified characters, rewritten to match their traditional spelling too.

    Outside a character class a character becomes the class of its fold group
    (``用户`` -> ``用[户戶]``); inside one its group joins the class
    (``[时后]`` -> ``[时時后後]``). A range endpoint is left as written (a
    class of ranges such as ``[㐀-鿿]`` already spans both scripts), and so
    is an escaped character. Hand-written regexes of the rules go through
    this once, at import, so that they read 當…時 as they read 当…时, the
    way the word lists already do.

    >>> both_scripts(r"[当][^，]{1,40}?时")
    '[当噹當][^，]{1,40}?[时時]'
    >>> both_scripts(r"(?<![意常])见\\s*")
    '(?<![意常])[见見]\\\\s*'
    """
    out: list[str] = []
    in_class = False
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if not in_class:
            if c == "[":
                in_class = True
                # "]" right after "[" or "[^" is a literal member, not the end of the class.
                head = "[^" if pattern.startswith("[^", i) else "["
                i += len(head)
                out.append(head)
                if i < n and pattern[i] == "]":
                    out.append("]")
                    i += 1
                continue
            group = _SAME.get(c)
            out.append(c if group is None else "[" + group + "]")
        elif c == "]":
            in_class = False
            out.append(c)
        else:
            # A range endpoint keeps its place: "时-" starts a range, "-时" ends one.
            starts_range = pattern.startswith("-", i + 1) and i + 2 < n and pattern[i + 2] != "]"
            ends_range = i >= 2 and pattern[i - 1] == "-" and pattern[i - 2] not in "[^"
            out.append(c if starts_range or ends_range or c == "-" else _SAME.get(c, c))
        i += 1
    return "".join(out)
