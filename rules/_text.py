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
helper is linear in the text.

Speed: nothing here is cached across ``validate()`` calls by text (the
benchmark re-validates the same documents; such a cache would flatter it).
What several rules ask about one memory is computed once per call through
:func:`view` (a :class:`View` kept in ``ctx.scratch``). Whether a rule's
word list can match at all is its declaration's question (:mod:`memvet.needs`,
answered by the text layer's one scan), not a test here.
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from collections import defaultdict
from functools import lru_cache
from typing import Any, Iterable

from memvet.rules import lexicon
from memvet.rules._hant import both_scripts
from memvet.rules._hant_table import SIMPLIFIED, TRADITIONAL
from memvet.rules._patterns import literal_trie
from memvet.rules._scripts import CJK_CHARS, WORD_LETTERS, is_cjk

_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")  # Han and kana (rules/_scripts.py)
_LATIN_WORD = re.compile(f"[{WORD_LETTERS}][{WORD_LETTERS}0-9_']*")  # accented letters too

#: Specifics the stripping test removes, most specific first. Each
#: alternative is a single pass over a character class (no nesting).
_SPECIFICS = re.compile(
    both_scripts(r"""
      `[^`\n]{0,400}`                                   # inline code
    | https?://\S+                                      # URLs
    | (?<![\w.@~-])[\w.@~-]*[/\\][\w./\\@~*{}-]+       # paths (a slash inside)
    | (?<![\w-])[\w-]+\.[a-z]{1,5}\b                    # file names with an extension
    | \b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b   # commit-like hashes
    | (?<![\w.:-])v?\d+(?:[.:_-]\d+)+\w*                 # versions, dates, times
    | (?<![\d.,])\d+(?:[.,]\d+)*\s?(?:%|ms|秒|分钟|小时|天|倍|条|个|次|行|轮|    # numbers with units
        (?!(?:to|for|and|or|of|in|on|at|by|if|is|as|so|but|not|the|an?|via|per)\b)[A-Za-z]{1,3}\b)?  # (not "18 for")
    | \b[A-Za-z]+_\w+                                   # snake_case identifiers
    | \b[a-z]+[A-Z]\w*                                  # camelCase identifiers
    | \b[A-Z][a-z]+[A-Z]\w*                             # PascalCase identifiers
    | \b[A-Z]{2,}\w*                                    # CONSTANTS and acronyms
    | [#@$][\w.{}:-]+                                   # tickets, handles, variables
    """),
    re.VERBOSE | re.ASCII,  # \w and \b stop at CJK: "超时是30秒" still masks "30秒"
)

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*$", re.MULTILINE)
#: A whole fenced block, fences included; one left open runs to the end of the text (a message cut
#: short). Groups: 1 the fence, 2 the info string, 3 the body. Possessive runs: an opening line with
#: no line break after it would otherwise be retried with every shorter fence (quadratic in a long
#: line of backticks), and giving back never finds the \n.
FENCED_BLOCK = re.compile(r"(?ms)^[ \t]*(`{3,}+|~{3,}+)([^\n]*+)\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)")
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


#: Full-width punctuation Chinese text is full of, with its NFKC form.
_FULL_WIDTH = (("，", ","), ("：", ":"), ("；", ";"), ("（", "("), ("）", ")"), ("！", "!"), ("？", "?"),
               ("\u3000", " "))
assert all(unicodedata.normalize("NFKD", wide) == narrow for wide, narrow in _FULL_WIDTH)


def normalize(text: str) -> str:
    """NFKC (full-width letters and digits fold to ASCII), lower-cased."""
    if text.isascii():  # NFKC leaves ASCII as it is
        return text.lower()
    # Replacing a character by its compatibility decomposition does not change
    # the NFKC form; if what remains is already NFKC (the quick check is
    # cheap), that is the result, without the slow full normalisation.
    quick = text
    for wide, narrow in _FULL_WIDTH:
        if wide in quick:
            quick = quick.replace(wide, narrow)
    if unicodedata.is_normalized("NFKC", quick):
        return quick.lower()
    return unicodedata.normalize("NFKC", text).lower()


def has_cjk(text: str) -> bool:
    return _CJK_RUN.search(text) is not None


#: _SUFFIXES by their last character, in the same order (most words end otherwise).
_SUFFIXES_BY_LAST: dict[str, tuple[str, ...]] = {}
for _suffix in _SUFFIXES:
    _SUFFIXES_BY_LAST[_suffix[-1]] = _SUFFIXES_BY_LAST.get(_suffix[-1], ()) + (_suffix,)


_STEMMABLE_LAST = frozenset(_SUFFIXES_BY_LAST) | {"'"}

#: Irregular past forms of common verbs and their infinitive: "it is built in CI" says what "it
#: builds in CI" says (a suffix stripper cannot see that). Not the forms that are also common
#: words of their own in code talk (left, bound, led, fed, saw).
_IRREGULAR_FORMS = {
    "build": "built", "write": "wrote written", "make": "made", "break": "broke broken",
    "choose": "chose chosen", "keep": "kept", "send": "sent", "find": "found", "take": "took taken",
    "give": "gave given", "get": "got gotten", "begin": "began begun", "hold": "held",
    "lose": "lost", "mean": "meant", "pay": "paid", "show": "shown", "spend": "spent", "think": "thought",
    "tell": "told", "understand": "understood", "go": "went gone", "hide": "hid hidden", "buy": "bought",
    "catch": "caught", "draw": "drew drawn", "fall": "fell fallen", "forget": "forgot forgotten",
    "grow": "grew grown", "know": "knew known", "see": "seen", "speak": "spoke spoken",
    "throw": "threw thrown", "teach": "taught", "seek": "sought", "stick": "stuck", "deal": "dealt",
    "run": "ran", "say": "said", "bring": "brought", "feel": "felt", "drive": "drove driven",
    "rise": "rose risen", "freeze": "froze frozen", "shake": "shook shaken", "steal": "stole stolen",
    "swear": "swore sworn", "wear": "wore worn", "tear": "tore torn", "sell": "sold",
    "stand": "stood", "dig": "dug", "hang": "hung", "spin": "spun",
}
_IRREGULAR: dict[str, str] = {}


def stem(word: str) -> str:
    """A deliberately light English stemmer: strip one common suffix (irregular past forms: their infinitive)."""
    word = word.lower().strip("'")
    irregular = _IRREGULAR.get(word)
    if irregular is not None:
        return irregular
    for suffix in _SUFFIXES_BY_LAST.get(word[-1:], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


# Each form stems as its infinitive does ("built" as "build", "ran" as "run").
_IRREGULAR.update({form: stem(base) for base, forms in _IRREGULAR_FORMS.items() for form in forms.split()})


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


def terms(text: str) -> frozenset[str]:
    """Content terms of a text: CJK bigrams plus Latin word stems."""
    return _terms(normalize(text))


def chars(text: str) -> frozenset[str]:
    return _chars(normalize(text))


def terms_and_chars(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(terms(text), chars(text))``, normalising the text once."""
    text = normalize(text)
    return _terms(text), _chars(text)


def _terms(normalized: str) -> frozenset[str]:
    # Same set as cjk_ngrams(text, 2) + latin_stems(text), built without a
    # Python loop per character (bigrams are pairwise string concatenation).
    out: set[str] = set()
    for run in _CJK_RUN.findall(normalized):
        if len(run) > 1:
            out.update(map(operator.add, run, run[1:]))
        elif run not in _CJK_FUNCTION_CHARS:
            out.add(run)
    if _HAS_LATIN.search(normalized):  # no ASCII letter: no Latin word
        # latin_stems(normalized) as a set: each distinct word is stemmed once.
        words = set(_LATIN_WORD.findall(normalized))
        words.difference_update(STOPWORDS)
        # stem() leaves a word alone unless it ends in a suffix letter or "'".
        out.update([stem(w) if w[-1] in _STEMMABLE_LAST or w in _IRREGULAR else w for w in words if len(w) >= 3])
    return frozenset(out)


def _chars(normalized: str) -> frozenset[str]:
    return frozenset("".join(_CJK_RUN.findall(normalized))).difference(_CJK_FUNCTION_CHARS)


_HAS_LATIN = re.compile(f"[{WORD_LETTERS}]")


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
    claim_terms, claim_chars = terms_and_chars(claim)
    if not claim_terms:
        return None
    term_ratio = len(claim_terms & evidence_terms) / len(claim_terms)
    if not claim_chars:
        return term_ratio
    char_ratio = len(claim_chars & evidence_chars) / len(claim_chars)
    latin_only = not has_cjk(claim)
    # Bigrams weigh double: shared characters alone ("数据库") prove little.
    return term_ratio if latin_only else (2 * term_ratio + char_ratio) / 3


class SourceText:
    """One evidence text for :func:`support_in`, analysed only as far as a claim asks.

    :func:`support` wants the evidence's terms and characters as sets; for a
    long source message that is a string per character, most of which no
    claim ever asks about. A CJK bigram or character of a claim is looked up
    in the normalised text instead (a substring test); only Latin stems need
    a set, built on first use (its words first: a claim whose words are all
    there needs no stem).
    """

    __slots__ = ("_lone", "_stems", "_words", "text")

    def __init__(self, text: str):
        self.text = normalize(text)
        self._stems: frozenset[str] | None = None
        self._words: frozenset[str] | None = None
        self._lone: frozenset[str] | None = None

    @property
    def lone(self) -> frozenset[str]:
        """The CJK characters that stand alone somewhere in the text (no CJK neighbour).

        One pass, on first use: asking :func:`_has_lone_char` per claim
        rescanned every occurrence of a character that is never alone, once
        per sentence of a long memory (quadratic).
        """
        if self._lone is None:
            self._lone = frozenset(_LONE_CJK.findall(self.text))
        return self._lone

    @property
    def words(self) -> frozenset[str]:
        """Every Latin word of the normalised text (stopwords and short words too)."""
        if self._words is None:
            self._words = frozenset(_LATIN_WORD.findall(self.text))
        return self._words

    @property
    def stems(self) -> frozenset[str]:
        if self._stems is None:
            self._stems = _stems_of(_term_words(self.words))
        return self._stems


_LONE_CJK = re.compile(f"(?<![{CJK_CHARS}])[{CJK_CHARS}](?![{CJK_CHARS}])")


def _lone_in(sources: list[SourceText]) -> frozenset[str]:
    """The lone CJK characters of the sources joined by line breaks (a break is no CJK neighbour)."""
    return sources[0].lone if len(sources) == 1 else frozenset().union(*[source.lone for source in sources])


def _has_lone_char(text: str, char: str) -> bool:
    """Does ``char`` (a CJK character) stand alone in ``text``, between two non-CJK characters?"""
    i = text.find(char)
    while i >= 0:
        if (i == 0 or not is_cjk(text[i - 1])) and (i + 1 == len(text) or not is_cjk(text[i + 1])):
            return True
        i = text.find(char, i + 1)
    return False


def _latin_terms(normalized: str) -> frozenset[str]:
    """The Latin stems :func:`_terms` puts in a normalised text's terms."""
    return _stems_of(_latin_words(normalized))


def _latin_words(normalized: str) -> set[str]:
    """The Latin words of a normalised text that make terms (not a stopword, three letters or more)."""
    if not _HAS_LATIN.search(normalized):
        return set()
    return _term_words(_LATIN_WORD.findall(normalized))


def _term_words(words: Iterable[str]) -> set[str]:
    kept = set(words)
    kept.difference_update(STOPWORDS)
    return {w for w in kept if len(w) >= 3}


def _stems_of(words: Iterable[str]) -> frozenset[str]:
    # stem() leaves a word alone unless it ends in a suffix letter or "'" (the words are lower-case).
    return frozenset([stem(w) if w[-1] in _STEMMABLE_LAST or w in _IRREGULAR else w for w in words])


def _words_found(words: set[str], sources: list[SourceText]) -> bool:
    """Is each of ``words`` a word of some source? (Then so is its stem: a cheap sure yes.)"""
    if len(sources) == 1:
        return words <= sources[0].words
    return all(any(w in source.words for source in sources) for w in words)


def support_in(claim: str, sources: list[SourceText], *, ignore: re.Pattern[str] | None = None) -> float | None:
    """:func:`support` of ``claim`` against the source texts joined by line breaks, the same value.

    No term crosses a line break, so a term of the claim is in the joined
    evidence exactly when one source has it: a CJK bigram as a substring
    (two adjacent CJK characters are inside one run), a lone CJK character
    as a run of its own, a Latin stem in the source's stems; a CJK character
    as a substring.
    """
    if ignore is not None:
        claim = ignore.sub(" ", claim)
    normalized = normalize(claim)
    runs = _CJK_RUN.findall(normalized)
    words = _latin_words(normalized)  # stemmed only when counting: a word found is a stem found
    if not runs:  # no CJK term and no CJK character: the share of the Latin stems found
        if not words:
            return None
        if _words_found(words, sources):
            return 1.0
        stems = _stems_of(words)
        return len(stems & _evidence_stems(sources)) / len(stems)
    # One string: no bigram or character holds a line break, and a lone
    # character stays alone next to one (CJK neighbours only count).
    joined = sources[0].text if len(sources) == 1 else "\n".join([source.text for source in sources])
    if _all_found(runs, words, joined, sources):
        return 1.0
    stems = _stems_of(words)
    bigrams: set[str] = set()
    singles: set[str] = set()
    for run in runs:
        if len(run) > 1:
            bigrams.update(map(operator.add, run, run[1:]))
        elif run not in _CJK_FUNCTION_CHARS:
            singles.add(run)
    total = len(bigrams) + len(singles) + len(stems)  # disjoint: 2 CJK, 1 CJK, ASCII
    if not total:
        return None
    found = sum(map(joined.__contains__, bigrams))
    if singles:
        lone = _lone_in(sources)
        found += sum(1 for c in singles if c in lone)
    if stems:
        found += len(stems & _evidence_stems(sources))
    term_ratio = found / total
    claim_chars = set("".join(runs))  # _chars(normalized), from the runs at hand
    claim_chars.difference_update(_CJK_FUNCTION_CHARS)
    if not claim_chars:
        return term_ratio
    char_ratio = sum(map(joined.__contains__, claim_chars)) / len(claim_chars)
    # NFKC may turn a non-CJK character into one ("⼀" -> "一"): ask the claim itself.
    latin_only = not has_cjk(claim)
    return term_ratio if latin_only else (2 * term_ratio + char_ratio) / 3


class SupportIndex:
    """Which of many source texts may give a claim a :func:`support_in` of at least ``s``.

    Asking every source in turn costs each claim a pass over every source
    (a substring test per term), so a claim against the whole batch is
    quadratic in its size. The index answers with prefix filtering instead:
    a source's support is at most ``(2t+1)/3`` (``t`` the share of the
    claim's terms it holds), so reaching ``s`` needs ``t >= (3s-1)/2``, and
    such a source holds at least one of the claim's ``T - ceil(t*T) + 1``
    terms that the fewest sources hold. Only the sources holding one of
    them are returned; :func:`support_in` then scores them as before, so a
    caller gets the same best source, in the same order. Each source's
    terms are what :func:`support_in` looks for: CJK bigrams of its runs,
    its lone CJK characters and its Latin stems.
    """

    __slots__ = ("_postings", "sources")

    def __init__(self, sources: list[SourceText]):
        self.sources = sources
        postings: defaultdict[str, list[int]] = defaultdict(list)
        for k, source in enumerate(sources):
            held: set[str] = set(source.lone)
            for run in _CJK_RUN.findall(source.text):
                if len(run) > 1:
                    held.update(map(operator.add, run, run[1:]))
            held.update(source.stems)
            for term in held:
                postings[term].append(k)
        self._postings = postings  # read with .get(): a claim's term no source holds adds no key

    def reaching(self, claim: str, min_support: float) -> list[int]:
        """Indices (in order) of the sources that may give ``claim`` a support of ``min_support`` or more."""
        need = (3 * min_support - 1) / 2  # the least share of the claim's terms such a source holds
        if need <= 0:
            return list(range(len(self.sources)))
        terms = _terms(normalize(claim))  # what support_in counts: CJK bigrams and lone characters, Latin stems
        if not terms:
            return []  # no term: support_in says None, which reaches nothing
        held = math.ceil(need * len(terms) - 1e-9)
        postings = self._postings
        wanted = len(terms) - max(held, 1) + 1
        # The rarest terms are first those no source holds: when there are enough of them to fill
        # every place, the union is empty (the usual case for a claim its sources do not repeat),
        # found with one set difference instead of sorting every term.
        if len(terms - postings.keys()) >= wanted:
            return []
        rarest = sorted(terms, key=lambda term: (len(postings.get(term, ())), term))
        found: set[int] = set()
        for term in rarest[:wanted]:
            found.update(postings.get(term, ()))
        return sorted(found)


def _all_found(runs: list[str], words: set[str], joined: str, sources: list[SourceText]) -> bool:
    """Is every term and character of a claim (its CJK ``runs``, its Latin ``words``) in the evidence?

    Then :func:`support_in` is exactly 1.0 (every ratio is n/n), whatever
    the number of distinct terms: a claim copied from its source costs one
    substring test per CJK run instead of a string, a hash and a search per
    bigram and character. Only a sure yes counts: False just means "count".
    """
    has_term = False
    for run in runs:
        if len(run) > 1:
            if run not in joined:  # its bigrams and characters are all there when it is
                return False
            has_term = True
        elif run not in _CJK_FUNCTION_CHARS:
            if run not in _lone_in(sources):  # a lone character is a term of its own
                return False
            has_term = True
    if words:
        if not _words_found(words, sources):
            return False
        has_term = True
    return has_term  # no term at all: support_in says None


def _evidence_stems(sources: list[SourceText]) -> frozenset[str]:
    """The Latin stems of the source texts joined."""
    return sources[0].stems if len(sources) == 1 else frozenset().union(*[source.stems for source in sources])


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


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text`` (as :func:`sentences` splits it), blank ones left out."""
    spans, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        if text[start:end.start()].strip():
            spans.append((start, end.start()))
        start = end.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


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


#: Whitespace after the end may hold line breaks; the match then starts after the last one. (A
#: start after any newline that may cross further newlines rescans a run of blank lines from each
#: of them: quadratic.)
_SENTENCE_START = r"(?:^|(?<=[.;:!?。；：！？\n])[^\S\n]*)"


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


# --- folding and shared views ---------------------------------------------------------

#: What the lower-cased text still folds, in one pass: traditional Chinese to simplified
#: (:mod:`memvet.rules._hant_table`), and the rounded and tall Cyrillic letters of old texts
#: (U+1C80-1C88), which ``re.IGNORECASE`` reads as в, д, о, с, т, т, ъ, ѣ, ꙋ and ``str.lower``
#: leaves alone.
_FOLD_TABLE = str.maketrans(TRADITIONAL + "\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85\u1c86\u1c87\u1c88",
                            SIMPLIFIED + "вдосттъѣꙋ")
#: Any character of ``_FOLD_TABLE``: most texts hold none and are returned as they are.
_FOLDS = re.compile("[" + TRADITIONAL + "\u1c80-\u1c88]")


def fold(text: str) -> str:
    """``text`` lower-cased so that a case-sensitive search finds what ``re.IGNORECASE`` finds,
    and its traditional Chinese characters read as simplified (:mod:`memvet.rules._hant`).

    ``re.IGNORECASE`` also equates ``İ``/``ı`` with ``i`` and ``ſ`` with
    ``s``, which ``str.lower`` does not; those are mapped here. The result
    has the same length, and a character is a word character (``\\w``)
    exactly when its folded form is, so word boundaries stay where they
    were. (Checked for every code point against the characters of the
    default word lists; :func:`foldable` tells the others.) A word-list
    pattern (:func:`memvet.rules.lexicon.compile_words`) matches a Chinese
    character and each one that folds like it, so it finds what a search of
    the folded text finds.
    """
    if text.isascii():
        return text.lower()
    if "İ" in text:
        text = text.replace("İ", "i")  # lower() would make it two characters
    text = text.lower()
    if "ı" in text:
        text = text.replace("ı", "i")
    if "ſ" in text:
        text = text.replace("ſ", "s")
    return text.translate(_FOLD_TABLE) if _FOLDS.search(text) else text


_DIGIT = re.compile(r"\d")


class View:
    """What several rules ask about one text, computed at most once per ``validate()`` call.

    ``folded``: :func:`fold` of the text; ``has_digit``: any Unicode digit;
    ``stripped``: the text without its specifics. Get one through :func:`view`.
    """

    __slots__ = ("_digit", "_stripped", "folded", "text")

    def __init__(self, text: str):
        self.text = text
        self.folded = fold(text)
        self._digit: bool | None = None
        self._stripped: str | None = None

    @property
    def stripped(self) -> str:
        """:func:`strip_specifics` of the text (the gates share one copy)."""
        if self._stripped is None:
            self._stripped = strip_specifics(self.text)
        return self._stripped

    @property
    def has_digit(self) -> bool:
        if self._digit is None:
            self._digit = _DIGIT.search(self.text) is not None
        return self._digit


_VIEW = "memvet.rules._text.view"


def view(ctx: Any, text: str) -> View:
    """The :class:`View` of ``text`` for this ``validate()`` call (kept in ``ctx.scratch``)."""
    scratch = getattr(ctx, "scratch", None)
    if scratch is None:
        return View(text)
    views = scratch.get(_VIEW)
    if views is None:
        views = scratch[_VIEW] = {}
    found = views.get(text)
    if found is None:
        found = views[text] = View(text)
    return found


#: Characters :func:`fold` may fold for a word list: ASCII, CJK ideographs (no case) and
#: those of the default word lists -- punctuation, the accented Latin letters of the
#: German, Portuguese, Spanish, Polish and Vietnamese entries and the Cyrillic of the Russian
#: ones -- for which :func:`fold` was
#: checked against ``re.IGNORECASE`` over every code point (tests/rules/test_content_rules.py
#: checks them again). A list with any other character cannot use the folded scan: its
#: declarations always hold and its hits come from the regex, which costs every memory a call.
_FOLD_CHECKED = frozenset("→：，、。；！？（）《》“”「」…·"
                          "àáâãäåæçèéêëìíîïñòóôöøùúûüýÿăąćčďđęěğıłňőœřśşšťůűźżžơưșțạảấầậắặếềểỉịọốồổỗộớờởợụừử"
                          "абвгдеёжзийклмнопрстуфхцчшщъыьэюя")


def foldable(word: str) -> bool:
    """Can :func:`fold` stand in for ``re.IGNORECASE`` on this word list entry?"""
    return all(c.isascii() or c in _FOLD_CHECKED or _CJK_RUN.match(c) for c in word)


@lru_cache(maxsize=4096)
def _word_search(entries: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """A :class:`WordSearch`'s lexicon pattern and folded-literal scan, once per list of entries (every
    engine builds the same default lists; the patterns are immutable, so engines share them)."""
    literals = None
    if entries and all(map(foldable, entries)):
        literals = re.compile(literal_trie({fold(w) for w in entries}))
    return lexicon.compile_words(entries), literals


class WordSearch:
    """``lexicon.compile_words(words)`` searched through the folded text: the same matches, found faster.

    The lexicon pattern (``re.IGNORECASE`` and ``\\b``) gives the regex engine
    no literal to skip ahead to, so it tries its trie at every character. A
    lexicon match always starts where a folded entry starts in the folded
    text, so a case-sensitive scan for the entries finds the candidate
    positions (with the engine's prefilter), and the lexicon pattern is
    tried only there (``match`` at that position; a word boundary still
    looks at the character before it). The first position where it matches
    is the one ``search`` would find, with the same match. A list with an
    entry :func:`fold` is not checked for falls back to the plain pattern.
    """

    __slots__ = ("_literals", "pattern")

    def __init__(self, words: Iterable[str]):
        self.pattern, self._literals = _word_search(tuple(w.strip() for w in words if w.strip()))

    def search(self, text: str, folded: str | None = None) -> re.Match[str] | None:
        """``pattern.search(text)``; ``folded`` is ``fold(text)`` when the caller has it."""
        pattern = self.pattern
        if pattern is None:
            return None
        literals = self._literals
        if literals is None:
            return pattern.search(text)
        if folded is None:
            folded = fold(text)
        candidate = literals.search(folded)
        while candidate is not None:
            start = candidate.start()
            found = pattern.match(text, start)
            if found is not None:
                return found
            candidate = literals.search(folded, start + 1)
        return None

    def mask(self, text: str, folded: str | None = None) -> str:
        """``mask(pattern, text)``: the text itself when no entry can be in it."""
        if self.pattern is None or self.search(text, folded) is None:
            return text
        return mask(self.pattern, text)
