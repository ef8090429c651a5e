"""``--select`` / ``--ignore`` / ``--extend-select`` / ``--extend-ignore`` on top of a loaded Config.

The flags use the config's prefix logic (``ALL`` or a code prefix; the
longest matching prefix decides, a tie goes to ignore), and the command line
wins over the config file, as in ruff:

* ``--select`` starts over: the config's ``select`` *and* ``ignore`` are
  replaced by what the command line says.
* ``--extend-select`` adds to the config's selection; a config ``ignore``
  entry inside what it selects gives way (``ignore = ["Q001"]`` with
  ``--extend-select Q`` turns Q001 back on).
* ``--ignore`` / ``--extend-ignore`` add to the config's ignores; a config
  ``select`` entry inside what they ignore gives way.

Every entry must be ``ALL`` or the prefix of a loaded rule's code: a typo on
the command line is a usage error, never a selection that matches nothing.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .config import Config
from .errors import MemvetError


def split_codes(values: Iterable[str] | None) -> list[str] | None:
    """``["I,T001", "M"]`` -> ``["I", "T001", "M"]`` (ruff's comma-separated form; repeatable)."""
    if values is None:
        return None
    return [part.strip().upper() for value in values for part in value.split(",") if part.strip()]


def _prefix(entry: str) -> str:
    return "" if entry == "ALL" else entry


def _inside(entry: str, area: str) -> bool:
    """Whether every code ``entry`` matches is also matched by ``area``."""
    return _prefix(entry).startswith(_prefix(area))


def check_codes(entries: Sequence[str], known: Iterable[str], flag: str) -> None:
    known = list(known)
    for entry in entries:
        if entry != "ALL" and not any(code.startswith(entry) for code in known):
            raise MemvetError(f"{entry!r} is not a rule code or the prefix of one (see `memvet rules`)",
                              field=flag)


def apply_selection(config: Config, *, select: Sequence[str] | None = None, ignore: Sequence[str] = (),
                    extend_select: Sequence[str] = (), extend_ignore: Sequence[str] = ()) -> Config:
    """A copy of ``config`` whose ``select``/``ignore`` include the command line's, the command line winning."""
    if select is None and not ignore and not extend_select and not extend_ignore:
        return config
    on = [*(select or ()), *extend_select]
    off = [*ignore, *extend_ignore]
    base_on, base_off = ([], []) if select is not None else (list(config.select), list(config.ignore))
    base_off = [p for p in base_off if not any(_inside(p, s) for s in on)]
    base_on = [p for p in base_on if not any(_inside(p, i) for i in off)]
    return config.model_copy(update={"select": base_on + on, "ignore": base_off + off})
