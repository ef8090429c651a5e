"""Hypothesis strategies for input that breaks tools: for plugin authors and memvet's own tests.

::

    from hypothesis import given
    from memvet.testing.hostile import invalid_text, deep_json

    @given(invalid_text())
    def test_my_format_writes_it(text): ...

* :func:`invalid_text` -- strings holding lone surrogates, NUL, other control
  characters (C0, DEL, C1) mixed with ordinary text: what S011 replaces;
* :func:`deep_json` -- the JSON text of a list or object nested ``depth``
  levels (built as text: ``json.dumps`` itself cannot write 100,000 levels);
* :func:`huge_text` -- a long run of one short unit (a sentence, a bare word,
  a bracket), the shape that exposes quadratic scanners.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Characters no encoder or store takes as they are.
INVALID_CHARACTERS = ("\ud800", "\udbff", "\udc80", "\udfff", "\x00", "\x01", "\x08", "\x0b", "\x1b", "\x7f",
                      "\x85", "\x9f")
#: Characters that look suspicious but are valid and stay as they are.
VALID_LOOKALIKES = ("\t", "\n", "\r", "\ufffd", "\u200b", "é", "😀")


def invalid_text(*, min_invalid: int = 1, max_size: int = 8) -> st.SearchStrategy[str]:
    """A string with at least ``min_invalid`` invalid characters among ordinary and look-alike ones."""
    invalid = st.sampled_from(INVALID_CHARACTERS)
    other = st.one_of(st.sampled_from(VALID_LOOKALIKES), st.text(max_size=3))
    return st.tuples(st.lists(invalid, min_size=min_invalid, max_size=max(min_invalid, 3)),
                     st.lists(other, max_size=max_size), st.randoms(use_true_random=False)).map(
        lambda parts: "".join(_shuffled([*parts[0], *parts[1]], parts[2])))


def _shuffled(items: list[str], rng: object) -> list[str]:
    rng.shuffle(items)  # type: ignore[attr-defined]
    return items


def deep_json(depths: tuple[int, ...] = (33, 500, 990, 3_000, 100_000), leaf: str = '"x"') -> st.SearchStrategy[str]:
    """JSON text nested ``depth`` levels deep (lists or ``{"a": ...}`` objects)."""
    def build(args: tuple[int, str]) -> str:
        depth, kind = args
        if kind == "list":
            return "[" * depth + leaf + "]" * depth
        return '{"a": ' * depth + leaf + "}" * depth
    return st.tuples(st.sampled_from(depths), st.sampled_from(("list", "object"))).map(build)


def huge_text(units: tuple[str, ...] = ("超时", "x,", "[x,", "依据：因为 because ", "a." ),
              sizes: tuple[int, ...] = (100_000, 1_000_000)) -> st.SearchStrategy[str]:
    """A long repetition of one short unit, cut to one of ``sizes`` characters."""
    return st.tuples(st.sampled_from(units), st.sampled_from(sizes)).map(
        lambda args: (args[0] * (args[1] // len(args[0]) + 1))[:args[1]])
