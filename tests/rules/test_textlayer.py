"""The text layer's word-list hits are exactly the lexicon matcher's (one scan for every list)."""

from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from memvet.registry import default_registry
from memvet.rules import _hant, lexicon
from memvet.rules._textlayer import TextLayer, word_lists_of


def _default_lists() -> list[tuple[str, ...]]:
    lists = []
    for cls in default_registry().ordered():
        lists.extend(word_lists_of(cls()).values())
    return [words for words in lists if words]


LISTS = _default_lists()
LAYER = TextLayer()
for _words in LISTS:
    LAYER.word_list(_words)
ENTRIES = sorted({w for words in LISTS for w in words})

#: Characters that test boundaries and case folding: word and non-word ASCII,
#: CJK (simplified and traditional: 应/應 fold alike, 发 has two traditional forms), and the letters
#: whose case folding differs between str.lower and re.IGNORECASE.
TRICKY = list("aAbBzZ09_ -.,;:!?\n\t`'\"()/") + list("İıſKẞßΣσςéÉ中文测试，。：（）“”→・ａＢ１應该該决決发發髮后後")


def _traditional(entry: str, pick: int) -> str:
    """``entry`` written with the ``pick``-th character of each character's fold group (a traditional form)."""
    return "".join(_hant.same_as(ch)[pick % len(_hant.same_as(ch))] for ch in entry)


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 8))):
        choice = draw(st.integers(0, 3))
        if choice == 0:
            entry = draw(st.sampled_from(ENTRIES))
            mode = draw(st.integers(0, 3))
            entry = (entry.upper() if mode == 1 else entry.title() if mode == 2
                     else _traditional(entry, draw(st.integers(0, 2))) if mode == 3 else entry)
            parts.append(entry)
        elif choice == 1:
            parts.append(draw(st.text(st.sampled_from(TRICKY), max_size=4)))
        elif choice == 2:
            entry = draw(st.sampled_from(ENTRIES))
            cut = draw(st.integers(0, len(entry)))
            parts.append(entry[:cut])
        else:
            parts.append(draw(st.text(max_size=3)))
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(text=texts(), which=st.integers(0, 10_000))
def test_hits_are_the_lexicon_matches(text: str, which: int) -> None:
    words = LISTS[which % len(LISTS)]
    facts = LAYER.facts(text)
    pattern = lexicon.compile_words(words)
    assert facts.hits(words) == [m.span() for m in pattern.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(text=texts())
def test_every_default_list_in_one_scan(text: str) -> None:
    facts = LAYER.facts(text)
    for words in LISTS:
        pattern = lexicon.compile_words(words)
        assert facts.hits(words) == [m.span() for m in pattern.finditer(text)], words


@settings(max_examples=300, deadline=None)
@given(text=texts(), seed=st.integers(0, 2**32))
def test_may_hit_holds_for_derived_texts(text: str, seed: int) -> None:
    """Blanking spans (masking) and cutting into pieces (sentences) never finds what may_hit rules out."""
    rng = random.Random(seed)
    derived = list(text)
    for _ in range(rng.randint(0, 3)):
        if not derived:
            break
        start = rng.randrange(len(derived))
        end = rng.randint(start, len(derived))
        derived[start:end] = [" "] * rng.randint(1, max(1, end - start))
    derived_text = "".join(derived)
    cut = rng.randint(0, len(derived_text))
    facts = LAYER.facts(text)
    for words in LISTS:
        pattern = lexicon.compile_words(words)
        if not facts.may_hit(words):
            for piece in (derived_text, derived_text[:cut], derived_text[cut:]):
                assert pattern.search(piece) is None, (words, piece)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.text(st.sampled_from(TRICKY), min_size=1, max_size=5), min_size=1, max_size=6),
       text=st.text(st.sampled_from(TRICKY), max_size=40))
def test_arbitrary_lists(words: list[str], text: str) -> None:
    layer = TextLayer()
    words_t = tuple(words)
    pattern = lexicon.compile_words(words_t)
    expected = [m.span() for m in pattern.finditer(text)] if pattern else []
    assert layer.facts(text).hits(words_t) == expected
    if not layer.facts(text).may_hit(words_t):
        assert expected == []


def test_extend_option_reaches_the_automaton() -> None:
    from memvet.config import config_from_dict
    from memvet.engine import Engine

    engine = Engine(config_from_dict({"rules": {"M004": {"extend_zero_information": ["zzq platitude"]}}}))
    rule = next(b.rule for b in engine.by_target["memory"] if b.code == "M004")
    words = engine.text_layer.option_words(rule, "zero_information")
    assert "zzq platitude" in words and "be careful" in words
    assert engine.text_layer.facts("Always be a ZZQ platitude.").hits(words) == [(12, 25)]
