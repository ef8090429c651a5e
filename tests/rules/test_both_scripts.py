"""Hand-written regexes of the rules read traditional Chinese as they read simplified (rules/_hant.py)."""
from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import memvet.batchfacts
import memvet.rules
from memvet.rules._hant import both_scripts, same_as, to_simplified


@pytest.mark.parametrize("pattern, simplified, traditional", [
    (r"当[^，]{1,40}?时", "当构建失败时", "當構建失敗時"),
    (r"(?<![意常])见\s*docs", "见 docs", "見 docs"),
    (r"[在于]\s?\S+?\s?(?:里|中)", "在 x 里", "在 x 裡"),
    (r"个测试|通过", "全部通过", "全部通過"),
])
def test_rewritten_pattern_matches_both_scripts(pattern, simplified, traditional):
    assert to_simplified(traditional) == simplified
    rewritten = re.compile(both_scripts(pattern))
    assert rewritten.search(simplified) and rewritten.search(traditional)
    assert re.search(pattern, traditional) is None  # what the rewrite is for


def test_ranges_escapes_and_leading_bracket_are_kept():
    assert both_scripts(r"[㐀-鿿]") == r"[㐀-鿿]"
    assert both_scripts(r"\时") == r"\时"
    assert both_scripts(r"[]时]") == "[]时時]"
    assert both_scripts(r"[^时]") == "[^时時]"
    assert re.compile(both_scripts(r"(?<![意常])见")).search("意見") is None  # the look-behind reads 見 too


def _rule_regexes():
    modules = [memvet.batchfacts] + [importlib.import_module(f"memvet.rules.{m.name}")
                                     for m in pkgutil.iter_modules(memvet.rules.__path__)
                                     if not m.name.startswith("_hant")]  # the fold table itself
    for module in modules:
        for name, value in vars(module).items():
            # _FOLDED_* patterns search _text.fold()'s output, which is simplified already; _FOLDS is
            # fold()'s own table of the characters it replaces.
            if (isinstance(value, re.Pattern) and isinstance(value.pattern, str) and not name.startswith("_FOLDED")
                    and name != "_FOLDS"):
                yield f"{module.__name__}.{name}", value.pattern


def test_every_rule_regex_reads_both_scripts():
    """A regex a rule module compiles with a simplified character also holds its traditional ones
    (write it through ``both_scripts``); word lists get this from ``lexicon`` already."""
    missing = []
    for where, pattern in _rule_regexes():
        chars = set(pattern)
        for ch in chars:
            group = same_as(ch)
            if len(group) > 1 and not set(group) <= chars:
                missing.append(f"{where}: {ch} without {''.join(sorted(set(group) - chars))}")
                break
    assert not missing, "\n".join(missing)


def test_is_cjk_is_the_character_class():
    """``_scripts.is_cjk`` (comparisons, for loops over characters) and ``CJK_CHARS`` (the regex class) agree."""
    from memvet.rules._scripts import CJK_CHARS, is_cjk
    cls = re.compile(f"[{CJK_CHARS}]")
    assert all(is_cjk(chr(c)) == (cls.match(chr(c)) is not None) for c in range(0x10000))
