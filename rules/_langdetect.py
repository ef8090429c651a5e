"""Which natural language a text is written in: Chinese, English, or neither.

memvet only needs one question answered: is this free text in the same
language as the conversation? So the measure is deliberately simple and
linear -- count the *prose* of each script, after removing everything that
is not natural language in either one:

* fenced code blocks, inline code, URLs and e-mail addresses;
* log and code lines (a line without Chinese whose punctuation density, or
  whose opening -- ``$ ``, ``Traceback``, ``at foo(``, ``[INFO]`` ... --
  says it is output rather than talk);
* identifiers and terms: tokens with digits, ``_``, ``.``, ``/``, ``::``,
  an inner capital (``camelCase``, ``LiDAR``) or all capitals (``GT``,
  ``API``), which Chinese writers use as often as English ones.

What is left is scored in *word units*: every English word is one unit and
:data:`CJK_CHARS_PER_WORD` Chinese characters are one unit (a Chinese word
averages about 1.6 characters). ``zh_share`` is the Chinese part of the
units. A Chinese sentence full of English library names keeps a high share
because those names are removed or few; an English sentence that quotes a
Chinese UI label keeps a low one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Chinese characters per English-word-equivalent unit.
CJK_CHARS_PER_WORD = 1.6
#: Weight of a non-function English word inside a clause that has Chinese.
TERM_WEIGHT_IN_CHINESE = 0.3

#: English function words: they make a clause English, terms do not.
FUNCTION_WORDS = frozenset("""
a an the this that these those is are was were be been being am do does did done have has had
to of in on at by for with from into onto over under about as than then so if when while because
and or but not no nor never always only also must should shall will would can could may might
it its it's they them their we our you your he she his her i me my which who whom whose what where
why how there here all any each every some most more less such very just before after until since
don't doesn't isn't aren't can't won't shouldn't mustn't instead rather both either neither
""".split())

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_HAN}]")
_INLINE_CODE = re.compile(r"`[^`\n]{1,400}`")
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,20}://\S{1,2000}")
_CLAUSE_BREAK = re.compile(r"[。！？；;\n，,!?：:]|\.\s")
# A whole token (between spaces, Chinese characters or CJK punctuation) that is one
# plain word, maybe wrapped in quotes, brackets or trailing punctuation. Tokens with
# digits, "_", ".", "/", "@"... inside never match: they are names, not prose.
_TOKEN_EDGE = f"\\s{_HAN}\u3000-\u303f\uff00-\uffef\u2018-\u201f\u2026\u00b7"
_PROSE_WORD = re.compile(
    f"(?<![^{_TOKEN_EDGE}])[\"'(\\[“‘]*([A-Za-z]+(?:['\u2019-][A-Za-z]+)*)[\"')\\],.;:!?”’*]*(?![^{_TOKEN_EDGE}])")
_HAS_ASCII_LETTER = re.compile(r"[A-Za-z]")
_LOG_LINE = re.compile(
    r"^\s*(?:\$ |> |>>> |#!|at [\w$.<>]+ ?\(|File \"|Traceback|\[(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE)\]|"
    r"(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)[: ]|npm (?:ERR|WARN)|\d{2,4}[-/:]\d{1,2}[-/:]\d{1,2}|"
    r"[A-Za-z]*(?:Error|Exception|Warning):|[+-]{3} |@@ )")


@dataclass(frozen=True, slots=True)
class LangCounts:
    """Prose measured in one text: Han characters and English words."""

    cjk: int = 0
    en: float = 0.0

    @property
    def zh_units(self) -> float:
        return self.cjk / CJK_CHARS_PER_WORD

    @property
    def units(self) -> float:
        return self.zh_units + self.en

    @property
    def zh_share(self) -> float | None:
        """The Chinese part of the prose, 0..1; None when there is no prose."""
        total = self.units
        return self.zh_units / total if total else None

    def __add__(self, other: LangCounts) -> LangCounts:
        return LangCounts(self.cjk + other.cjk, self.en + other.en)


def strip_code(text: str) -> str:
    """``text`` without fenced code blocks, inline code and URLs (linear)."""
    if "```" in text:
        parts: list[str] = []
        pos = 0
        while True:
            start = text.find("```", pos)
            if start < 0:
                parts.append(text[pos:])
                break
            parts.append(text[pos:start])
            end = text.find("```", start + 3)
            if end < 0:
                break  # an unclosed fence (a cut message): the rest is code
            pos = end + 3
        text = "\n".join(parts)
    if "`" in text:
        text = _INLINE_CODE.sub(" ", text)
    if "://" in text:
        text = _URL.sub(" ", text)
    return text


def _is_log_line(line: str) -> bool:
    if _CJK_CHAR.search(line):
        return False
    if _LOG_LINE.match(line):
        return True
    stripped = line.strip()
    if len(stripped) < 12:
        return False
    symbols = sum(1 for ch in stripped if not (ch.isalpha() or ch.isspace()))
    return symbols / len(stripped) >= 0.25


def prose_words(text: str) -> tuple[int, int]:
    """``(function words, other words)`` of English prose in ``text`` (identifiers left out)."""
    function = other = 0
    for word in _PROSE_WORD.findall(text):
        # camelCase, LiDAR, GT, API: names and acronyms, not prose.
        if len(word) > 1 and any(c.isupper() for c in word[1:]):
            continue
        if word.lower() in FUNCTION_WORDS:
            function += 1
        else:
            other += 1
    return function, other


def _clause_counts(text: str) -> LangCounts:
    if not _HAS_ASCII_LETTER.search(text):
        return LangCounts(len(_CJK_CHAR.findall(text)), 0.0)
    if not _CJK_CHAR.search(text):
        function, other = prose_words(text)
        return LangCounts(0, float(function + other))
    cjk = 0
    en = 0.0
    for clause in _CLAUSE_BREAK.split(text):
        han = len(_CJK_CHAR.findall(clause))
        function, other = prose_words(clause)
        cjk += han
        # Inside a Chinese clause, an English word that is not a function word
        # is a term ("先 docker compose up 再 make dev"), worth a fraction.
        en += function + (other * TERM_WEIGHT_IN_CHINESE if han else other)
    return LangCounts(cjk, en)


def measure(text: str, *, drop_log_lines: bool = True) -> LangCounts:
    """Han characters and English prose words of ``text`` after removing code."""
    if not text:
        return LangCounts()
    text = strip_code(text)
    if drop_log_lines and "\n" in text:
        text = "\n".join(line for line in text.split("\n") if not _is_log_line(line))
    elif drop_log_lines and _is_log_line(text):
        return LangCounts()
    return _clause_counts(text)


def language_of(counts: LangCounts, *, zh_at_least: float, en_at_most: float) -> str:
    """``"zh"``, ``"en"`` or ``"mixed"`` from a share and two thresholds; ``"none"`` without prose."""
    share = counts.zh_share
    if share is None:
        return "none"
    if share >= zh_at_least:
        return "zh"
    if share <= en_at_most:
        return "en"
    return "mixed"
