"""The engine: parse -> contract -> rules -> decide -> route -> write rules -> verdict.

A thin orchestrator: :meth:`Engine.validate` runs the stages of
:mod:`memvet.pipeline` in order on one :class:`~memvet.run_state.Run`.
Rules yield findings relative to their target; the stages make them
absolute, resolve actions from config, apply fixes to a copy-on-write
working copy (:mod:`memvet.working_copy`; the caller's value is never
mutated), drop, isolate crashes (E001, :mod:`memvet.findings`), build and
check the records (:mod:`memvet.records`) and give the verdict
(:mod:`memvet.verdict`).

Order inside the rules stage (:mod:`memvet.walk`), per scene in document
order: scene rules, then each memory's rules, rules in family order (P
first so that nothing later echoes a secret). Output rules run after every
scene, so they see the fixed memories and know which ones were dropped. A
fix is applied at once, so later rules see the fixed value;
``ctx.original`` keeps what the LLM said. Rules keep running on a dropped
memory (one fault, one violation each), but write rules see only kept
records.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import pipeline
from .binding import BoundRule, RuleTable, bind_rule
from .config import DEFAULT as DEFAULT_CONFIG, Config, discover_config, resolve_config
from .config_check import check_config_codes, check_plugins
from .context import load_context
from .errors import ContextError
from .registry import Registry, default_registry
from .report import Report
from .rule import Rule
from .rule_context import RuleContext
from .run_state import Run
from .secret_scan import redact_text, scrubbed_error, secret_finders
from .verdict import engine_failure, finish

__all__ = ["Engine", "RuleContext", "engine_for", "validate"]


class Engine:
    """Rules selected and configured once; ``validate()`` many times."""

    def __init__(self, config: Config | None = None, registry: Registry | None = None):
        self.config = config = config or Config()
        self.registry = registry or default_registry()
        check_config_codes(config, self.registry.rules)
        check_plugins(config, self.registry)
        self.table = table = RuleTable(config, self.registry)
        # The bound rules per target / per memory type (benchmarks and tests read them).
        self.by_target = table.by_target
        self.by_type = table.by_type
        self.suppressed = table.suppressed
        self.engine_rules = table.engine_rules
        self.text_layer = table.text_layer

    def bind(self, cls: type[Rule]) -> BoundRule:
        """``cls`` bound to this engine's config: its validated options and resolved action."""
        return bind_rule(cls, self.config)

    # --- the run -------------------------------------------------------------
    def validate(self, output: Any, context: Any, *, store: Any = None) -> Report:
        try:
            batch = load_context(context)  # a bad context is the caller's error: it raises
        except ContextError as exc:
            raise scrubbed_error(self.table, exc) from None
        run = Run(RuleContext(batch, self.config, store), self.table, self.registry)
        try:
            return self._stages(run, output)
        except Exception as exc:  # last line of defence: an answer never makes validate() raise
            return engine_failure(run, exc)

    def _stages(self, run: Run, output: Any) -> Report:
        parsed = pipeline.parse(run, output)
        if pipeline.stopped(run, parsed):
            return finish(run, None, [], [])
        value = parsed.value
        if not isinstance(value, list):
            return finish(run, value, [], [])
        pipeline.contract(run, value)
        pipeline.rules(run, value)
        candidates = pipeline.decide(run)
        if candidates is None:
            return finish(run, value, [], [])
        pipeline.route(run, candidates)
        records, paths = pipeline.write_rules(run, candidates)
        return finish(run, value, records, paths)

    def redact_text(self, text: str) -> str:
        """``text`` with what the privacy rules find in it replaced by placeholders (free text
        that reaches the store outside an answer: a hand-written memory, a reason)."""
        return redact_text(self.table, text)

    def secret_finders(self) -> list[tuple[str, Any]]:
        """``(code, find_secrets)`` of every enabled rule that registers batch secrets (P001, P002,
        a plugin's): what this engine redacts in an answer, for callers that scrub other data."""
        return secret_finders(self.table)


@cache
def _default_engine() -> Engine:
    return Engine(Config())


_engines: dict[int, Engine] = {}


def engine_for(config: Any) -> Engine:
    """An Engine for ``config`` (None: discovered from the working directory, like the CLI;
    a Config, dict or path), reused per Config object."""
    cfg = discover_config() if config is None else resolve_config(config)
    if cfg is DEFAULT_CONFIG:
        return _default_engine()
    key = id(cfg)
    eng = _engines.get(key)
    if eng is None or eng.config is not cfg:
        eng = Engine(cfg)
        if len(_engines) > 32:
            _engines.clear()
        _engines[key] = eng
    return eng


def validate(output: Any, context: Any, *, config: Any = None, store: Any = None) -> Report:
    """Check one LLM extraction answer against its batch context.

    ``output``: raw text, bytes or an already parsed value -- never raises
    for it. ``context``: a dict, :class:`~memvet.context.BatchContext`, JSON
    text or a path -- raises :class:`~memvet.ContextError` when malformed.
    ``config``: None -- the ``memvet.toml`` or ``[tool.memvet]`` found upward
    from the working directory, exactly as ``memvet check`` finds it (the
    defaults when there is none); a :class:`~memvet.Config`; a dict shaped
    like ``[tool.memvet]`` (``{}``: the defaults, whatever the directory); or
    a path -- raises :class:`~memvet.ConfigError` (also for a plugin that
    failed to load, unless ``allow_broken_plugins = true``).
    ``store``: an attached memory store, for the conflict check (W007).
    """
    return engine_for(config).validate(output, context, store=store)
