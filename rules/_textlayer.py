"""The text layer: what rules ask about one text, computed once per ``validate()`` call.

Per text of a call (a memory's content or metadata string, a message) a
:class:`TextFacts` holds, each computed on first use and then shared by every
rule: the folded text (:func:`~memvet.rules._text.fold`), the text with code
spans and quoted spans blanked out, its sentences, its tokens (Latin words,
CJK runs), its numbers, and the hits of every word list of every enabled rule.

The word-list hits come from ONE scan: a :class:`TextLayer` compiles every
list (each rule's ``list[str]`` options, as configured, ``extend_`` included)
into one Aho-Corasick automaton (pyahocorasick) over the folded entries.
Scanning the folded text once yields every occurrence of every entry; from
them the layer derives, per list,

* :meth:`TextFacts.hits`: exactly the matches ``lexicon.compile_words(list)
  .finditer(text)`` gives (word boundaries of Latin entries, case folding,
  the leftmost-longest choice of the regex alternation, bounded entries
  before free ones, as in :mod:`memvet.rules.lexicon`);
* :meth:`TextFacts.may_hit`: a necessary condition that also holds for
  texts a rule DERIVES from this one by blanking or replacing spans with
  whitespace and cutting it into pieces (sentences, masked copies): the
  longest whitespace-free piece of some folded entry occurs in the folded
  text. This is what declarations (:mod:`memvet.needs`) test. It runs on a
  second, smaller automaton holding only those pieces (piece -> bit mask of
  the lists it stands for), scanned lazily: the scan stops at the first piece
  of the asked list and resumes from there for the next list asked, so a text
  in which the asked list has a piece is usually not scanned to its end.

A list with an entry :func:`~memvet.rules._text.fold` is not checked for (see
:func:`~memvet.rules._text.foldable`) can always hit, and its exact hits come
from the lexicon pattern itself; so does every list on a text whose folding
changes its length. Property-tested against the lexicon matcher
(tests/test_textlayer.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

import ahocorasick

from memvet.rules import _text, lexicon
from memvet.rules._scripts import CJK_CHARS, WORD_LETTERS

__all__ = ["TextFacts", "TextLayer", "fold", "word_lists_of"]

fold = _text.fold

_WORD_PIECE = re.compile(r"\S+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_QUOTED = re.compile(r"\"[^\"\n]{0,400}\"|“[^”\n]{0,400}”|「[^」\n]{0,400}」|『[^』\n]{0,400}』")
_LATIN_WORD = re.compile(f"[{WORD_LETTERS}][{WORD_LETTERS}0-9_']*")  # accented letters too
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")

#: :meth:`TextLayer.lists_mask` of lists of which one may always hit.
ALWAYS = -1

# Kind of the exact automaton's payload items (the pieces live in their own automaton).
_EXACT = 0


def _is_word_char(ch: str) -> bool:
    # What ``\b`` of Python's re (str patterns) counts as a word character.
    return ch.isalnum() or ch == "_"


def _boundary(text: str, i: int) -> bool:
    before = i > 0 and _is_word_char(text[i - 1])
    after = i < len(text) and _is_word_char(text[i])
    return before != after


def word_lists_of(rule: Any) -> dict[str, tuple[str, ...]]:
    """The word lists of a rule instance: each option that is a list (or tuple) of strings."""
    options = getattr(rule, "options", None)
    fields = getattr(type(options), "model_fields", None)
    if not fields:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for name in fields:
        value = getattr(options, name, None)
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            out[name] = tuple(value)
    return out


class _WordList:
    """One word list as lexicon compiles it (stripped, deduplicated entries)."""

    __slots__ = ("always", "bit", "entries", "exact_ok", "index", "pattern")

    def __init__(self, index: int, words: tuple[str, ...]):
        self.index = index
        self.bit = 1 << index  # the list's bit in the piece automaton's masks
        self.entries, self.pattern, checked = _compiled(words)
        self.exact_ok = checked  # the automaton's matches stand for re.IGNORECASE
        self.always = not checked  # may_hit cannot rule anything out


@lru_cache(maxsize=4096)
def _compiled(words: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str] | None, bool]:
    """A list's entries, lexicon pattern and whether fold() covers every entry: the same for every
    layer that holds the list, so every engine of a process shares them (all are immutable)."""
    entries = tuple(sorted({w.strip() for w in words if w.strip()}))
    return entries, lexicon.compile_words(words), all(map(_text.foldable, entries))


class TextLayer:
    """Every word list of a set of rules, compiled into one automaton; makes :class:`TextFacts`."""

    def __init__(self, rules: Iterable[Any] = ()):
        self._lists: dict[tuple[str, ...], _WordList] = {}
        #: (id of a rule instance, option name) -> (the rule, the list's words); the rule is kept
        #: so that its id is never reused for another object while the entry lives.
        self._by_option: dict[tuple[int, str], tuple[Any, tuple[str, ...]]] = {}
        #: (id of a rule instance, option name) -> (the rule, its compiled list): what declarations
        #: ask before each check(), so it must not hash the list's words every time.
        self._option_lists: dict[tuple[int, str], tuple[Any, _WordList]] = {}
        #: (id of a rule instance, option names) -> (the rule, :meth:`lists_mask` of them).
        self._masks: dict[tuple[Any, ...], tuple[Any, int]] = {}
        self._pieces: Any = None
        #: mask -> automaton of the pieces of the mask's lists only (:meth:`may_hit_folded`).
        self._mask_automata: dict[int, Any] = {}
        for rule in rules:
            for name, words in word_lists_of(rule).items():
                self._by_option[(id(rule), name)] = (rule, words)
                self.word_list(words)
            anchors = getattr(getattr(rule, "needs", None), "anchors", ())
            if anchors:  # a declaration's literals: one more list (memvet.needs)
                self.word_list(tuple(anchors))
        self._automaton: Any = None

    def word_list(self, words: tuple[str, ...]) -> _WordList:
        found = self._lists.get(words)
        if found is None:
            found = self._lists[words] = _WordList(len(self._lists), words)
            self._automaton = None  # all rebuilt on next use
            self._pieces = None
            self._mask_automata = {}
        return found

    def option_words(self, rule: Any, name: str) -> tuple[str, ...]:
        """The words of option ``name`` of ``rule`` (registered at construction, or read now)."""
        found = self._by_option.get((id(rule), name))
        if found is not None and found[0] is rule:
            return found[1]
        words = tuple(getattr(rule.options, name))
        self._by_option[(id(rule), name)] = (rule, words)
        self.word_list(words)
        return words

    def option_list(self, rule: Any, name: str) -> _WordList:
        """The compiled list of option ``name`` of ``rule``: ``word_list(option_words(rule, name))``, cached."""
        found = self._option_lists.get((id(rule), name))
        if found is not None and found[0] is rule:
            return found[1]
        wl = self.word_list(self.option_words(rule, name))
        self._option_lists[(id(rule), name)] = (rule, wl)
        return wl

    def lists_mask(self, rule: Any, names: tuple[str, ...], anchors: tuple[str, ...] = ()) -> int:
        """The options ``names`` of ``rule`` as one bit mask for :meth:`TextFacts.may_hit_mask`:
        ``ALWAYS`` when one of the lists may always hit, the bits of the others (lists without
        entries add none), cached. ``anchors`` (a declaration's literals) count as one more list."""
        key = (id(rule), names) if not anchors else (id(rule), names, id(anchors))  # anchors: a class attribute
        found = self._masks.get(key)
        if found is not None and found[0] is rule:
            return found[1]
        lists = [self.option_list(rule, name) for name in names]
        if anchors:
            lists.append(self.word_list(tuple(anchors)))
        mask = 0
        for wl in lists:
            if wl.always:
                mask = ALWAYS
                break
            if wl.entries:
                mask |= wl.bit
        self._masks[key] = (rule, mask)
        return mask

    def may_hit_folded(self, mask: int, folded: str) -> bool:
        """:meth:`TextFacts.may_hit_mask` on an already folded text no rule asks anything else about
        (a scene's strings joined, for a declaration that reads them all): an automaton of the
        mask's own pieces, built once per mask, stops at the first one, in C."""
        if mask == ALWAYS:
            return True
        if not mask:
            return False
        automaton = self._mask_automata.get(mask)
        if automaton is None:
            pieces = {}
            for wl in self._lists.values():
                if wl.bit & mask and wl.exact_ok:
                    for entry in wl.entries:
                        pieces[max(_WORD_PIECE.findall(_text.fold(entry)), key=len)] = True
            automaton = self._mask_automata[mask] = _automaton_of(pieces)
        return len(automaton) > 0 and next(automaton.iter(folded), None) is not None

    @property
    def pieces(self) -> Any:
        """The automaton of the lists' longest whitespace-free entry pieces: piece -> bit mask of lists."""
        if self._pieces is None:
            self._pieces = self._build_pieces()
        return self._pieces

    def _build_pieces(self) -> Any:
        masks: dict[str, int] = {}
        for wl in self._lists.values():
            if not wl.exact_ok:
                continue  # such a list may always hit; never looked up here
            for entry in wl.entries:
                piece = max(_WORD_PIECE.findall(_text.fold(entry)), key=len)
                masks[piece] = masks.get(piece, 0) | wl.bit
        return _automaton_of(_without_covered(masks))

    @property
    def automaton(self) -> Any:
        if self._automaton is None:
            self._automaton = self._build()
        return self._automaton

    def _build(self) -> Any:
        payloads: dict[str, list[tuple[int, int, int, bool, bool]]] = {}
        for wl in self._lists.values():
            if not wl.exact_ok:
                continue
            for entry in wl.entries:
                folded = _text.fold(entry)
                bounded = re.match(r"\w", entry) is not None and not lexicon.has_cjk(entry)
                end_bounded = re.search(r"\w$", entry) is not None and not lexicon.has_cjk(entry)
                payloads.setdefault(folded, []).append((_EXACT, wl.index, len(folded), bounded, end_bounded))
        automaton = ahocorasick.Automaton()
        for key, items in payloads.items():
            automaton.add_word(key, tuple(dict.fromkeys(items)))
        if payloads:
            automaton.make_automaton()
        return automaton

    def facts(self, text: str) -> TextFacts:
        return TextFacts(self, text)


def _automaton_of(masks: dict[str, int]) -> Any:
    automaton = ahocorasick.Automaton()
    for key, mask in masks.items():
        automaton.add_word(key, mask)
    if masks:
        automaton.make_automaton()
    return automaton


def _without_covered(masks: dict[str, int]) -> dict[str, int]:
    """``masks`` without the pieces whose lists are all lists of pieces inside them.

    Wherever such a piece occurs, the pieces inside it occur too and bring
    the same lists, so a full scan finds exactly the same lists with fewer
    matches to walk through in Python. (A dropped inner piece is itself
    covered by pieces inside it, which are inside the outer one as well.)
    """
    sized = ahocorasick.Automaton()
    for key, mask in masks.items():
        sized.add_word(key, (len(key), mask))
    if not masks:
        return masks
    sized.make_automaton()
    kept: dict[str, int] = {}
    for key, mask in masks.items():
        inner = 0
        for _end, (n, lists) in sized.iter(key):
            if n < len(key):  # a proper substring (the key itself is the one match of its length)
                inner |= lists
        if mask & ~inner:
            kept[key] = mask
    return kept


class TextFacts:
    """What rules ask about one text; every part computed on first use."""

    __slots__ = ("_by_list", "_found", "_hits", "_masked", "_numbers", "_piece_iter", "_piece_source", "_raw",
                 "_sentences", "_tokens", "folded", "layer", "text")

    def __init__(self, layer: TextLayer, text: str):
        self.layer = layer
        self.text = text
        self.folded = _text.fold(text)
        self._raw: list[tuple[int, tuple[tuple[int, int, int, bool, bool], ...]]] | None = None
        # The lazy piece scan: the automaton it runs on, the bits of the lists seen so far, and
        # the iterator where it stopped (None once the text is scanned to its end).
        self._piece_source: Any = None
        self._found = 0
        self._piece_iter: Any = None
        self._hits: dict[int, list[tuple[int, int]]] = {}
        self._by_list: dict[int, list[tuple[int, int, bool, bool]]] | None = None
        self._masked: str | None = None
        self._sentences: list[str] | None = None
        self._tokens: list[str] | None = None
        self._numbers: list[str] | None = None

    # --- the exact scan ----------------------------------------------------------
    def _scan(self) -> None:
        automaton = self.layer.automaton
        self._raw = list(automaton.iter(self.folded)) if len(automaton) else []

    def may_hit(self, words: tuple[str, ...]) -> bool:
        """False only when no entry of ``words`` can match this text or any text derived from it
        by replacing spans with whitespace and cutting it up (see the module docstring)."""
        return self.may_hit_list(self.layer.word_list(words))

    def may_hit_list(self, wl: _WordList) -> bool:
        """:meth:`may_hit` for a list already compiled by this text's layer."""
        if wl.always:
            return True
        if not wl.entries:
            return False
        return self.may_hit_mask(wl.bit)

    def may_hit_mask(self, mask: int) -> bool:
        """Whether one of the lists in ``mask`` (:meth:`TextLayer.lists_mask`) may hit: ``any(may_hit)``."""
        if mask == ALWAYS:
            return True
        if not mask:
            return False
        automaton = self.layer.pieces
        if self._piece_source is not automaton:  # first use, or the layer gained a list since
            self._piece_source = automaton
            self._found = 0
            self._piece_iter = automaton.iter(self.folded) if len(automaton) else None
        found = self._found
        if found & mask:
            return True
        scan = self._piece_iter
        if scan is None:
            return False
        for _end, lists in scan:
            found |= lists
            if lists & mask:
                self._found = found
                return True  # the rest of the text is scanned only if another list asks
        self._found = found
        self._piece_iter = None
        return False

    def hits(self, words: tuple[str, ...]) -> list[tuple[int, int]]:
        """``(start, end)`` of each match of ``lexicon.compile_words(words).finditer(self.text)``."""
        wl = self.layer.word_list(words)
        found = self._hits.get(wl.index)
        if found is None:
            found = self._hits[wl.index] = self._exact(wl)
        return found

    def _exact(self, wl: _WordList) -> list[tuple[int, int]]:
        if wl.pattern is None:
            return []
        text = self.text
        if not wl.exact_ok or len(self.folded) != len(text):
            return [m.span() for m in wl.pattern.finditer(text)]
        if self._by_list is None:
            self._by_list = self._distribute()
        # The longest valid bounded and free match at each start position.
        bounded: dict[int, int] = {}
        free: dict[int, int] = {}
        for start, stop, start_b, end_b in self._by_list.get(wl.index, ()):
            if end_b and not _boundary(text, stop):
                continue
            if start_b:
                if not _boundary(text, start):
                    continue
                if bounded.get(start, -1) < stop:
                    bounded[start] = stop
            elif free.get(start, -1) < stop:
                free[start] = stop
        out: list[tuple[int, int]] = []
        pos = 0
        for start in sorted(bounded.keys() | free.keys()):
            if start < pos:
                continue
            # The pattern is ``\b(bounded trie)|(free trie)``: a bounded entry wins at its position.
            stop = bounded[start] if start in bounded else free[start]
            out.append((start, stop))
            pos = stop
        return out

    def _distribute(self) -> dict[int, list[tuple[int, int, bool, bool]]]:
        """The scan's entry occurrences by word list (one pass for every list asked about)."""
        if self._raw is None:
            self._scan()
        by_list: dict[int, list[tuple[int, int, bool, bool]]] = {}
        for end, items in self._raw:  # type: ignore[union-attr]
            stop = end + 1
            for kind, index, n, start_b, end_b in items:
                if kind == _EXACT:
                    by_list.setdefault(index, []).append((stop - n, stop, start_b, end_b))
        return by_list

    # --- the other facts -----------------------------------------------------------
    @property
    def masked(self) -> str:
        """The text with fenced and inline code and quoted spans blanked (same offsets)."""
        if self._masked is None:
            self._masked = _text.mask(_QUOTED, _text.mask_code(self.text))
        return self._masked

    @property
    def sentences(self) -> list[str]:
        if self._sentences is None:
            self._sentences = _text.sentences(self.text)
        return self._sentences

    @property
    def tokens(self) -> list[str]:
        """Latin words (lower-cased) and CJK runs, in order of appearance."""
        if self._tokens is None:
            normalized = _text.normalize(self.text)
            found = [(m.start(), m.group(0)) for m in _LATIN_WORD.finditer(normalized)]
            found += [(m.start(), m.group(0)) for m in _CJK_RUN.finditer(normalized)]
            self._tokens = [token for _, token in sorted(found)]
        return self._tokens

    @property
    def numbers(self) -> list[str]:
        if self._numbers is None:
            self._numbers = _NUMBER.findall(self.text)
        return self._numbers
