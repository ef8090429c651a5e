"""The one-pass lone-character set (found by counting work: the per-claim rescan was quadratic)
gives exactly the answers of the plain per-occurrence search."""

from __future__ import annotations

from hypothesis import given, strategies as st

from memvet.rules._text import SourceText, _has_lone_char, _lone_in

ALPHABET = st.sampled_from(list("因为依据缓存ab \n：,。") + ["\uf900", "\u3400"])


@given(texts=st.lists(st.text(ALPHABET, max_size=30), min_size=1, max_size=3), char=st.sampled_from(list("因为缓据")))
def test_lone_set_matches_the_plain_search(texts, char):
    sources = [SourceText(t) for t in texts]
    joined = "\n".join(s.text for s in sources)
    assert (char in _lone_in(sources)) == _has_lone_char(joined, char)
