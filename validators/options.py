"""``extend_<option>``: add words to a rule's built-in word list instead of replacing it.

Every word list a rule has (an option typed ``list[str]``) may be set in
config, which replaces the built-in list, or extended::

    [tool.memvet.rules.M004]
    extend_zero_information = ["拍脑袋决定"]    # the built-in phrases, plus this one

Both may be given: the list is replaced first, then extended. Duplicates
are dropped, the order kept (built-in words first).
"""

from __future__ import annotations

from typing import Any, get_args, get_origin

from pydantic import BaseModel

from .config_check import did_you_mean
from .errors import ConfigError

EXTEND = "extend_"


def word_lists(options: type[BaseModel]) -> list[str]:
    """The options of ``options`` that are word lists (``list[str]`` or ``tuple[str, ...]``)."""
    found = []
    for name, field in options.model_fields.items():
        hint = field.annotation
        if get_origin(hint) in (list, tuple) and get_args(hint)[:1] == (str,):
            found.append(name)
    return found


def expand_extends(options: type[BaseModel], raw: dict[str, Any], *, file: str | None, field: str) -> dict[str, Any]:
    """``raw`` with each ``extend_<list>`` merged into ``<list>``; a ConfigError for one that extends nothing."""
    if not any(isinstance(k, str) and k.startswith(EXTEND) for k in raw):
        return raw
    lists = word_lists(options)
    out = {k: v for k, v in raw.items() if not (isinstance(k, str) and k.startswith(EXTEND))}
    for key, extra in raw.items():
        if not (isinstance(key, str) and key.startswith(EXTEND)):
            continue
        base = key[len(EXTEND):]
        if base not in lists:
            hint = did_you_mean(key, [EXTEND + n for n in lists], codes=False)
            raise ConfigError(f"unknown option{hint}" + (f" (word lists: {', '.join(lists)})" if lists else
                                                         " (this rule has no word list to extend)"),
                              file=file, field=f"{field}.{key}")
        if not isinstance(extra, list) or not all(isinstance(w, str) for w in extra):
            raise ConfigError("must be a list of strings", file=file, field=f"{field}.{key}")
        current = out[base] if base in out else options.model_fields[base].get_default(call_default_factory=True)
        if not isinstance(current, (list, tuple)):
            continue  # a bad replacement: the options model reports it at its own field
        merged = list(current)
        merged.extend(w for w in dict.fromkeys(extra) if w not in set(current))
        out[base] = merged
    return out
