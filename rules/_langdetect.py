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

Speed: :func:`measure` runs once per message of a batch and once per text
L001 judges, so every step is a whole-text regex pass, never a Python loop
over characters: Han characters are counted by runs, a text is split into
clauses by replacing the breaks (one pass finds the words of every clause),
and English words are classified in bulk. :func:`may_be_judged` and
:func:`dominant_language` skip the measure altogether when two cheap
counts already settle the verdict.
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
_NOT_HAN_RUN = re.compile(f"[^{_HAN}]+")
_LETTER_RUN = re.compile(r"[A-Za-z]+")
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
# For ASCII text, str.isalpha is [A-Za-z] and str.isspace is \s: what remains
# without them are the "symbols" of a log line.
_LETTERS_AND_SPACES = re.compile(r"[A-Za-z\s]+")
# Over " " + prose words joined by single spaces: a word with a capital after its
# first letter (a name: camelCase, LiDAR, GT). Starts with a literal, so the regex
# engine skips to the spaces.
_NAME_WORD = re.compile(r" ([^ ][^ A-Z]*[A-Z][^ ]*)")


# Han counted by the high byte of each UTF-16 code unit: every range of _HAN is a run
# of whole high bytes, except 0x4D (U+4D00-4DBF is Han, U+4DC0-4DFF is not), and a
# surrogate (D8-DF) is never Han. Three C-level passes instead of a regex substitution.
_HAN_HIGH_BYTES = frozenset([*range(0x34, 0x4D), *range(0x4E, 0xA0), 0xF9, 0xFA])
_NOT_HAN_HIGH = bytes(b for b in range(256) if b not in _HAN_HIGH_BYTES)


def han_count(text: str) -> int:
    """Han characters in ``text``."""
    if text.isascii():
        return 0
    high = text.encode("utf-16-le", "surrogatepass")[1::2]
    if b"\x4d" in high:  # the one high byte that is part Han: count exactly
        return len(_NOT_HAN_RUN.sub("", text))
    return len(high.translate(None, _NOT_HAN_HIGH))


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
    if stripped.isascii():
        symbols = len(_LETTERS_AND_SPACES.sub("", stripped))
    else:
        symbols = sum(1 for ch in stripped if not (ch.isalpha() or ch.isspace()))
    return symbols / len(stripped) >= 0.25


def prose_words(text: str) -> tuple[int, int]:
    """``(function words, other words)`` of English prose in ``text`` (identifiers left out)."""
    words = _PROSE_WORD.findall(text)
    if not words:
        return 0, 0
    # camelCase, LiDAR, GT, API: names and acronyms, not prose. Classified in
    # bulk (C-level passes over all the words instead of a Python loop per word).
    joined = " " + " ".join(words)
    function = sum(map(FUNCTION_WORDS.__contains__, joined.lower().split(" ")))
    names = _NAME_WORD.findall(joined)
    if names:  # "THE", "IT": a name even when it lower-cases to a function word
        function -= sum(map(FUNCTION_WORDS.__contains__, map(str.lower, names)))
    return function, len(words) - len(names) - function


def _is_name(word: str) -> bool:
    tail = word[1:]
    return tail != tail.lower()


def _clause_counts(text: str) -> LangCounts:
    if not _HAS_ASCII_LETTER.search(text):
        return LangCounts(han_count(text), 0.0)
    if not _CJK_CHAR.search(text):
        function, other = prose_words(text)
        return LangCounts(0, float(function + other))
    # Clauses, without splitting: every clause break becomes "\n", which is a
    # token edge like the start and end of a string, and no prose word can span
    # it, so one pass finds the words of every clause.
    flat = _CLAUSE_BREAK.sub("\n", text)
    en = 0.0
    clause_end = -1
    han = False
    function = other = 0
    for m in _PROSE_WORD.finditer(flat):
        start = m.start()
        if start > clause_end:
            if clause_end >= 0:
                en += function + (other * TERM_WEIGHT_IN_CHINESE if han else other)
            function = other = 0
            clause_start = flat.rfind("\n", 0, start) + 1
            clause_end = flat.find("\n", start)
            if clause_end < 0:
                clause_end = len(flat)
            han = _CJK_CHAR.search(flat, clause_start, clause_end) is not None
        word = m.group(1)
        if len(word) > 1 and _is_name(word):
            continue
        if word.lower() in FUNCTION_WORDS:
            function += 1
        else:
            other += 1
    if clause_end >= 0:
        # Inside a Chinese clause, an English word that is not a function word
        # is a term ("先 docker compose up 再 make dev"), worth a fraction.
        en += function + (other * TERM_WEIGHT_IN_CHINESE if han else other)
    return LangCounts(han_count(text), en)


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
    return share_language(share, zh_at_least=zh_at_least, en_at_most=en_at_most)


def share_language(share: float, *, zh_at_least: float, en_at_most: float) -> str:
    """The verdict of :func:`language_of` for a known Chinese share.

    Monotone in ``share``: the shares judged ``"en"`` form a lower interval,
    those judged ``"zh"`` an upper one -- which is what makes the bounds
    below sound.
    """
    if share >= zh_at_least:
        return "zh"
    if share <= en_at_most:
        return "en"
    return "mixed"


# --- verdicts from cheap bounds ------------------------------------------------------
#
# Most texts are plainly in one language, and the full measure (word scan,
# clause split) is the expensive part. Two counts that cost one C-level pass
# each bound it: the Han count is exact when there is no code to strip (log
# lines, the only other thing removed, never hold Han), and an English word
# weighs at most 1 and holds a run of ASCII letters of its own, so the number
# of ASCII characters (or, tighter, of letter runs) bounds the English units
# from above. A verdict is taken from the
# bounds only with a margin (:data:`_MARGIN`) over the threshold, far wider
# than any floating-point rounding; otherwise the text is measured.

_MARGIN = 1e-9


def _lowest_share(cjk: int, en_upper: int) -> float:
    zh_units = cjk / CJK_CHARS_PER_WORD
    return zh_units / (zh_units + en_upper) - _MARGIN


def may_be_judged(text: str, language: str, *, zh_at_least: float, en_at_most: float) -> bool:
    """False when ``measure(text, drop_log_lines=False)`` can certainly not be judged ``language``.

    True means "measure it": the bounds could not rule it out. ``language``
    is ``"zh"`` or ``"en"``; the minimum-units rule only turns verdicts into
    ``"none"``, so it is left to the caller.
    """
    return TextScreen(zh_at_least, en_at_most).may_be(text, language)


class TextScreen:
    """:func:`may_be_judged` for fixed thresholds, with the constant verdicts computed once."""

    __slots__ = ("zh_at_least", "en_at_most", "_at_zero", "_at_one")

    def __init__(self, zh_at_least: float, en_at_most: float):
        self.zh_at_least, self.en_at_most = zh_at_least, en_at_most
        self._at_zero = share_language(0.0, zh_at_least=zh_at_least, en_at_most=en_at_most)
        self._at_one = share_language(1.0, zh_at_least=zh_at_least, en_at_most=en_at_most)

    def may_be(self, text: str, language: str) -> bool:
        if "`" in text or "://" in text:
            return True  # code to strip: the Han count of the raw text is not the measure's
        if text.isascii():
            # Without Han the share is 0.0, or there is no prose at all.
            return bool(text) and self._at_zero == language
        cjk = han_count(text)
        if not cjk:
            return self._at_zero == language and len(text.encode("ascii", "ignore")) > 0
        if language == "en":
            # "en" is a lower interval of shares: possible only if the lowest share is in it.
            # The ASCII characters bound the English units loosely; the letter runs (a pass
            # more) tightly -- an identifier like login_timeout is long but two runs.
            return (self._en_possible(cjk, len(text.encode("ascii", "ignore")))
                    and self._en_possible(cjk, len(_LETTER_RUN.findall(text))))
        # "zh" is an upper interval; with Han the share can reach 1.0.
        return self._at_one == "zh"

    def _en_possible(self, cjk: int, en_upper: int) -> bool:
        return share_language(_lowest_share(cjk, en_upper), zh_at_least=self.zh_at_least,
                              en_at_most=self.en_at_most) == "en"


def _english_units(text: str, *, have: float, need: float) -> float:
    """``measure(text).en`` of a text without Han -- or a part of it that brings ``have`` to ``need``.

    Without Han, the measure is the number of prose words that are not names
    (after code and log lines are removed); counting stops as soon as
    ``have + count >= need`` (with a word counted), which is all
    :func:`dominant_language` needs to know.
    """
    text = strip_code(text)
    if "\n" in text:
        text = "\n".join(line for line in text.split("\n") if not _is_log_line(line))
    elif _is_log_line(text):
        return 0.0
    count = 0
    for m in _PROSE_WORD.finditer(text):
        if count and have + count >= need:
            break
        word = m.group(1)
        if len(word) == 1 or not _is_name(word):
            count += 1
    return float(count)


def dominant_language(texts: list[str], *, zh_at_least: float, en_at_most: float, min_units: float) -> str:
    """``language_of`` the sum of ``measure(t)`` over ``texts`` -- ``"none"`` below ``min_units`` units.

    Exactly the verdict of measuring every text, decided from the cheap
    bounds when they settle it: a batch of Chinese prose with a few English
    names is Chinese from its Han count alone, and a batch without any Han
    is judged at share 0.0 as soon as enough English prose is measured.
    """
    thresholds = {"zh_at_least": zh_at_least, "en_at_most": en_at_most}
    if not any("`" in text or "://" in text for text in texts):
        # Han counts are exact (nothing to strip); ASCII characters bound the English units.
        en_upper = sum(len(t) if t.isascii() else len(t.encode("ascii", "ignore")) for t in texts)
        cjk = 0
        for text in texts:
            cjk += han_count(text)
            # units >= zh_units >= min_units, and the share is at least the lowest share;
            # more Han only raises both.
            if cjk and (cjk / CJK_CHARS_PER_WORD - _MARGIN >= min_units
                        and share_language(_lowest_share(cjk, en_upper), **thresholds) == "zh"):
                return "zh"
        if cjk and cjk / CJK_CHARS_PER_WORD - _MARGIN >= min_units:
            # Tighter: letter runs instead of ASCII characters (names with digits and "_" are long).
            en_upper = sum(len(_LETTER_RUN.findall(t)) for t in texts)
            if share_language(_lowest_share(cjk, en_upper), **thresholds) == "zh":
                return "zh"
        if not cjk:
            # The sum of the measures is LangCounts(0, en): "none" below min_units
            # or without prose, else the verdict of share 0.0. en only grows,
            # text by text (added in the same order as the sum).
            en = 0.0
            for text in texts:
                en += _english_units(text, have=en, need=min_units)
                if en >= min_units and en > 0:
                    return share_language(0.0, **thresholds)
            return "none"
    total = LangCounts()
    for text in texts:
        total = total + measure(text)
    if total.units < min_units:
        return "none"
    return language_of(total, **thresholds)
