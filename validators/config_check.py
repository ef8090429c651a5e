"""Config entries checked against the loaded rules: a typo is an error, never a check switched off.

``select = ["I00l"]`` or ``["i001"]`` used to select no rule at all and let
every answer pass; ``ignore = ["X999"]`` was accepted. Every code or prefix
in ``select``, ``ignore``, ``actions`` and ``rules`` must name at least one
loaded rule, and the error says what was probably meant.
"""

from __future__ import annotations

import difflib
from typing import Any, Iterable

from .errors import ConfigError, PluginError
from .report import Violation

# Characters a typo swaps for a digit in a code ("I00l", "IOO1").
_DIGIT_LOOKALIKES = str.maketrans({"l": "1", "I": "1", "i": "1", "O": "0", "o": "0"})


def table_prefix(source: str | None) -> str:
    """How a field is named in ``source``: ``tool.memvet.`` in pyproject.toml, nothing in memvet.toml."""
    return "" if source and source.replace("\\", "/").rsplit("/", 1)[-1] == "memvet.toml" else "tool.memvet."


def did_you_mean(word: str, candidates: Iterable[str], *, codes: bool = True) -> str:
    """`` (did you mean 'I001'?)`` or ``""``. ``codes``: the candidates are rule codes (case and
    look-alike digits are folded); else names, compared as they are."""
    pool = sorted(set(candidates))
    if not codes:
        close = difflib.get_close_matches(word, pool, n=2, cutoff=0.6)
        return " (did you mean " + " or ".join(repr(g) for g in close) + "?)" if close else ""
    guesses: list[str] = []
    upper = word.upper()
    if upper in pool:
        guesses.append(upper)
    if len(word) > 1:
        fixed = word[0].upper() + word[1:].translate(_DIGIT_LOOKALIKES) if word[0].isalpha() else word
        m = len(fixed) - len(fixed.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))  # keep the letters of the family
        fixed = fixed[:m].upper() + fixed[m:].translate(_DIGIT_LOOKALIKES)
        if fixed in pool:
            guesses.append(fixed)
    if not guesses:  # a case or look-alike fold is the answer; else the closest codes
        guesses.extend(difflib.get_close_matches(upper, pool, n=2, cutoff=0.6))
    unique = list(dict.fromkeys(g for g in guesses if g != word))[:2]
    if not unique:
        return ""
    return " (did you mean " + " or ".join(repr(g) for g in unique) + "?)"


def _prefixes(codes: Iterable[str]) -> set[str]:
    """Every prefix a select/ignore entry may use: each code and each of its leading parts."""
    out = {"ALL"}
    for code in codes:
        out.update(code[:i] for i in range(1, len(code) + 1))
    return out


def check_config_codes(config: Any, codes: Iterable[str]) -> None:
    """Raise :class:`ConfigError` for the first entry of ``config`` that names no loaded rule."""
    known = sorted(set(codes))
    prefixes = _prefixes(known)
    families = sorted({p for p in prefixes if p.isalpha()} | set(known) | {"ALL"})
    src, base = config.source, table_prefix(config.source)
    for section in ("select", "ignore"):
        for i, entry in enumerate(getattr(config, section)):
            if entry not in prefixes:
                raise ConfigError(f"no loaded rule has a code starting with {entry!r}{did_you_mean(entry, families)}",
                                  file=src, field=f"{base}{section}[{i}]")
    for section in ("actions", "rules"):
        for code in getattr(config, section):
            if code not in known:
                raise ConfigError(f"no loaded rule has the code {code!r}{did_you_mean(code, known)}",
                                  file=src, field=f"{base}{section}.{code}")


def check_plugins(config: Any, registry: Any) -> None:
    """A plugin that failed to load, or a rule or format refused, stops the run
    unless ``allow_broken_plugins = true``: its checks would be silently off."""
    if registry.problems and not config.allow_broken_plugins:
        raise PluginError("; ".join(registry.problems) + " -- fix or uninstall the plugin, or set "
                          "allow_broken_plugins = true to run without it",
                          file=config.source, field=f"{table_prefix(config.source)}allow_broken_plugins")


def broken_plugin_violations(registry: Any, name: str) -> list[Violation]:
    """With ``allow_broken_plugins = true``: one E001 warning per problem, in every report."""
    return [Violation("E001", name, "warn", "", f"{problem}; its rules did not run (allow_broken_plugins = true)",
                      "memvet.engine", None) for problem in registry.problems]
