"""Secrets in the fields of a stored record that the engine never rewrites.

The engine redacts what it validates (content, metadata) and scrubs its own
report, but an audited record has more: its ``id``, ``scene_name``,
``taskId``, ``source_message_ids``, ``sessionKey``..., and the archive's
messages have ids and session keys. They reach the audit's output (the
record id, the audit's own messages) and ``--clean-out`` verbatim unless
they are scanned too. :class:`Scrubber` scans every string of a value
(object keys included) with the detectors the engine redacts answers with (P001,
P002 and any plugin rule that finds secrets, when enabled) and replaces every exact occurrence of what it finds.
"""

from __future__ import annotations

from typing import Any, Callable

from memvet.engine import Engine
from memvet.secrets import SecretSet, collect, iter_strings, placeholder

class Scrubber:
    def __init__(self, engine: Engine):
        # The engine's own finders: every enabled rule that registers batch secrets
        # (P001, P002, a plugin's), exactly what it redacts in an answer.
        self._finders: list[tuple[str, Callable[[str], list[tuple[str, str]]]]] = engine.secret_finders()

    def secrets(self, *values: Any) -> SecretSet:
        """Everything P001/P002 would redact in any string of ``values`` (keys included)."""
        found = SecretSet()
        if not self._finders:
            return found
        strings = [s for value in values for s in iter_strings(value)]
        for secret_set in collect(self._finders, strings, placeholder).values():
            found.update(secret_set.placeholders)
        return found


_scrubbers: dict[int, tuple[Any, Scrubber]] = {}


def scrubber_for(config: Any) -> Scrubber:
    """One :class:`Scrubber` per config object (the config is kept alive with it)."""
    entry = _scrubbers.get(id(config))
    if entry is None or entry[0] is not config:
        entry = _scrubbers[id(config)] = (config, Scrubber(Engine(config)))
    return entry[1]
