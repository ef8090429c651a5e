"""What a rule sees besides its target: :class:`RuleContext`, one per ``validate()`` call.

The rule API's half that carries state: the batch, the config, the working
output and where the walk is. The engine stages set its fields; rules read
them and call its helpers.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from . import batchfacts
from .config import Config
from .context import Batch, Message
from .parse import ParseResult
from .paths import memory_path


class RuleContext:
    """What a rule sees besides its target. One per ``validate()`` call.

    ``batch``: the context with its indices; ``config``; ``output``: the
    working output (fixes applied so far); ``scene`` / ``scene_index`` and
    ``memory_index`` for the current target; ``original``: the current
    target as the LLM emitted it; ``path``: the current target's pointer.
    ``secrets``: text a privacy rule redacted, mapped to its placeholder;
    the engine scrubs it from every message of the report.
    """

    __slots__ = ("batch", "config", "output", "scene", "scene_index", "memory_index",
                 "original", "path", "secrets", "store", "dropped", "parse",
                 "valid_scenes", "valid_memories", "_sources", "record", "record_index", "scratch",
                 "low_findings")

    def __init__(self, batch: Batch, config: Config, store: Any = None):
        self.batch = batch
        self.config = config
        self.store = store
        self.output: list[Any] = []
        self.scene: dict[str, Any] | None = None
        self.scene_index: int | None = None
        self.memory_index: int | None = None
        self.original: Any = None
        self.path = ""
        self.secrets: dict[str, str] = {}
        self.dropped: dict[str, list[str]] = {}
        self.parse: ParseResult | None = None
        self.valid_scenes: list[int] = []
        self.valid_memories: list[tuple[int, int]] = []
        self._sources: dict[int, tuple[Any, list[Message], str | None]] = {}
        self.record: dict[str, Any] | None = None
        self.record_index = 0
        #: Per-call cache rules may share (e.g. one text analysis per memory,
        #: keyed by the content string). Dies with the call: no cross-call caching.
        self.scratch: dict[Any, Any] = {}
        #: Pointer -> codes of the low-confidence findings lowered to ``warn`` there
        #: (what the optional LLM judge is asked about).
        self.low_findings: dict[str, list[str]] = {}

    # --- helpers rules share -------------------------------------------------
    def sources(self, memory: dict[str, Any]) -> list[Message]:
        """The new messages a memory cites, resolved within one session."""
        return self.resolve_sources(memory)[0]

    def resolve_sources(self, memory: dict[str, Any]) -> tuple[list[Message], str | None]:
        ids = memory.get("source_message_ids") or []
        hit = self._sources.get(id(ids))
        if hit is None or hit[0] is not ids:
            messages, session = self.batch.resolve([i for i in ids if isinstance(i, str)])
            hit = self._sources[id(ids)] = (ids, messages, session)
        return hit[1], hit[2]

    @property
    def facts(self) -> batchfacts.BatchFacts:
        """What each message of the batch does (:mod:`memvet.batchfacts`), computed once per batch."""
        memo, options = self.batch.memo, self.config.facts
        found = memo.get("memvet.batchfacts")
        if found is None or found[0] is not options:  # a batch may meet several configs
            found = memo["memvet.batchfacts"] = (options, batchfacts.compute(self.batch, options))
        return found[1]

    def is_low(self, path: str) -> bool:
        """A low-confidence finding was lowered to a warning at ``path`` or under it."""
        prefix = path + "/"
        return any(p == path or p.startswith(prefix) for p in self.low_findings)

    def is_dropped(self, scene_index: int, memory_index: int) -> bool:
        return memory_path(scene_index, memory_index) in self.dropped

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """Cache a batch-level value (dominant language, lexicon index...) on the batch."""
        memo = self.batch.memo
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    def memories(self) -> Iterable[tuple[int, int, dict[str, Any]]]:
        """Every well-formed memory of the working output: ``(scene, index, memory)``."""
        for i, j in self.valid_memories:
            yield i, j, self.output[i]["memories"][j]
