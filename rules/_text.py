"""Language-neutral text helpers shared by the content rules (G, M, Q, L, P).

Chinese has no spaces, English has no characters worth counting one by one,
so every measure here treats the two scripts differently:

* CJK text is compared through character n-grams (bigrams by default);
* Latin text through lower-cased word stems (a light suffix strip, so
  "reverted" and "reverts" meet);
* code-ish specifics (paths, hashes, versions, numbers, identifiers, URLs,
  inline code) can be masked out, which is what seed 000's stripping test
  asks for: "remove the names, dates, commits and one-off numbers -- what is
  left?".

Every pattern is compiled once at import; none can backtrack
catastrophically (no nested quantifiers over overlapping classes), so each
helper is linear in the text. Results of the pure string functions are
cached per text, because several rules ask about the same content.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Iterable

from memvet.rules import lexicon

CJK_CHAR = r"\u3400-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{CJK_CHAR}]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_']*")

#: Specifics the stripping test removes, most specific first. Each
#: alternative is a single pass over a character class (no nesting).
_SPECIFICS = re.compile(
    r"""
      `[^`\n]{0,400}`                                   # inline code
    | https?://\S+                                      # URLs
    | (?<![\w.@~-])[\w.@~-]*[/\\][\w./\\@~*{}-]+       # paths (a slash inside)
    | (?<![\w-])[\w-]+\.[a-z]{1,5}\b                    # file names with an extension
    | \b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b   # commit-like hashes
    | (?<![\w.:-])v?\d+(?:[.:_-]\d+)+\w*                 # versions, dates, times
    | (?<![\d.,])\d+(?:[.,]\d+)*\s?(?:%|ms|秒|分钟|小时|天|倍|条|个|次|行|轮|[A-Za-z]{1,3}\b)?  # numbers with units
    | \b[A-Za-z]+_\w+                                   # snake_case identifiers
    | \b[a-z]+[A-Z]\w*                                  # camelCase identifiers
    | \b[A-Z][a-z]+[A-Z]\w*                             # PascalCase identifiers
    | \b[A-Z]{2,}\w*                                    # CONSTANTS and acronyms
    | [#@$][\w.{}:-]+                                   # tickets, handles, variables
    """,
    re.VERBOSE | re.ASCII,  # \w and \b stop at CJK: "超时是30秒" still masks "30秒"
)

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*$", re.MULTILINE)
_PARENS = re.compile(r"\([^()\n]{0,300}\)|（[^（）\n]{0,300}）|\[[^\[\]\n]{0,300}\]")
_SENTENCE_END = re.compile(r"[。！？；;!?]+|\.(?=\s|$)|\n+")

#: Characters that carry no content on their own in Chinese (particles,
#: copulas, conjunctions); left out of unigram measures.
_CJK_FUNCTION_CHARS = frozenset("的了是在和与及或也都就而被把将对从向于以之其这那个一不有为会能要上中下里后前")

_SUFFIXES = ("ingly", "edly", "ally", "ness", "ment", "ing", "ied", "ies", "ed", "es", "ly", "s")

#: Latin words too common to show that a text supports another one.
STOPWORDS = frozenset("""
a an the and or but if then else of to in on at by for from with without into onto over under as is are was
were be been being it its this that these those there here which who whom whose what when where why how
not no nor so such than too very can could should would will shall may might must do does did done have has
had i you he she we they me him her us them my your our their one any all each every some more most other
also just only own same both few again further once about above below up down out off via per e g eg etc
""".split())


def normalize(text: str) -> str:
    """NFKC (full-width letters and digits fold to ASCII), lower-cased."""
    return unicodedata.normalize("NFKC", text).lower()


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


def stem(word: str) -> str:
    """A deliberately light English stemmer: strip one common suffix."""
    word = word.lower().strip("'")
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def latin_stems(text: str, *, drop: Iterable[str] = STOPWORDS) -> list[str]:
    drop = drop if isinstance(drop, (set, frozenset)) else frozenset(drop)
    out = []
    for m in _LATIN_WORD.finditer(text):
        word = m.group(0).lower()
        if len(word) < 3 or word in drop:
            continue
        out.append(stem(word))
    return out


def cjk_ngrams(text: str, n: int = 2) -> list[str]:
    """Character n-grams inside each run of CJK characters (never across punctuation)."""
    out: list[str] = []
    for m in _CJK_RUN.finditer(text):
        run = m.group(0)
        if len(run) < n:
            if n > 1 and len(run) == 1 and run not in _CJK_FUNCTION_CHARS:
                out.append(run)
            continue
        out.extend(run[i:i + n] for i in range(len(run) - n + 1))
    return out


def cjk_chars(text: str) -> list[str]:
    return [c for m in _CJK_RUN.finditer(text) for c in m.group(0) if c not in _CJK_FUNCTION_CHARS]


@lru_cache(maxsize=4096)
def terms(text: str) -> frozenset[str]:
    """Content terms of a text: CJK bigrams plus Latin word stems."""
    text = normalize(text)
    return frozenset(cjk_ngrams(text, 2)) | frozenset(latin_stems(text))


@lru_cache(maxsize=4096)
def chars(text: str) -> frozenset[str]:
    return frozenset(cjk_chars(normalize(text)))


def support(claim: str, evidence_terms: frozenset[str], evidence_chars: frozenset[str],
            *, ignore: re.Pattern[str] | None = None) -> float | None:
    """How much of ``claim`` the evidence contains, 0..1 (None: the claim has no content).

    A weighted mean of two ratios: claim terms (CJK bigrams, Latin stems)
    found in the evidence (weight 2), and claim CJK characters found in it
    (weight 1). Bigrams reward
    shared phrasing; characters forgive the reordering a paraphrase does
    ("同时失效" / "集中失效"). ``ignore`` masks meta words first ("用户",
    "依据", "basis").
    """
    if ignore is not None:
        claim = ignore.sub(" ", claim)
    claim_terms = terms(claim)
    if not claim_terms:
        return None
    term_ratio = len(claim_terms & evidence_terms) / len(claim_terms)
    claim_chars = chars(claim)
    if not claim_chars:
        return term_ratio
    char_ratio = len(claim_chars & evidence_chars) / len(claim_chars)
    latin_only = not has_cjk(claim)
    # Bigrams weigh double: shared characters alone ("数据库") prove little.
    return term_ratio if latin_only else (2 * term_ratio + char_ratio) / 3


@lru_cache(maxsize=4096)
def strip_specifics(text: str) -> str:
    """``text`` with paths, hashes, versions, numbers, identifiers and inline code blanked out."""
    return _SPECIFICS.sub(" ", text)


def mask(pattern: re.Pattern[str] | None, text: str) -> str:
    """Blank out every match of ``pattern`` (keeps offsets of the rest meaningful)."""
    if pattern is None:
        return text
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def mask_words(words: Iterable[str], text: str) -> str:
    return mask(lexicon.compile_words(words), text)


_INLINE_CODE = re.compile(r"`[^`\n]{0,400}`")


def mask_code(text: str) -> str:
    """Blank out fenced blocks and inline code spans."""
    for start, end in reversed(fenced_spans(text)):
        text = text[:start] + " " * (end - start) + text[end:]
    return mask(_INLINE_CODE, text)


def mask_parentheses(text: str) -> str:
    """Blank out parenthesised asides: ``(e.g. …)``, ``（如 …）``, ``[…]``."""
    return mask(_PARENS, text)


def sentences(text: str) -> list[str]:
    """Split on sentence punctuation (Chinese and English) and line breaks."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced code block (an unclosed fence runs to the end)."""
    spans = []
    opening: re.Match[str] | None = None
    for m in _FENCE.finditer(text):
        if opening is None:
            opening = m
        elif m.group(1)[0] == opening.group(1)[0] and len(m.group(1)) >= len(opening.group(1)):
            spans.append((opening.start(), m.end()))
            opening = None
    if opening is not None:
        spans.append((opening.start(), len(text)))
    return spans


def visible_len(text: str) -> int:
    """Characters that are not whitespace."""
    return len(text) - sum(text.count(c) for c in " \t\r\n")


_SENTENCE_START = r"(?:^|(?<=[.;:!?。；：！？\n])\s*)"


@lru_cache(maxsize=256)
def _compile_openers(words: tuple[str, ...]) -> re.Pattern[str] | None:
    inner = lexicon.compile_words(words)
    if inner is None:
        return None
    # Either at the start of a sentence, or right after a leading
    # "When/Before/If …," clause: "When reviewing PRs, be thorough".
    lead = r"(?:(?:when|whenever|before|after|if|once|while|for|in)\b[^,.;:!?\n]{1,100},\s*)?"
    return re.compile(_SENTENCE_START + lead + "(?:" + inner.pattern + ")", re.IGNORECASE)


def compile_openers(words: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching any of ``words`` at the start of a sentence (imperatives)."""
    return _compile_openers(tuple(words))
