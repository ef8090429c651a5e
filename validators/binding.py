"""Rules selected and configured once: each class bound to its options and action.

:func:`bind_rule` turns a rule class and a config into a :class:`BoundRule`
(options validated, the action resolved); :class:`RuleTable` holds the
bound rules of one config per target, per memory type, switched off (for
``show_unused_ignores``) and the engine's own (E).
"""

from __future__ import annotations

from functools import cache

from pydantic import ValidationError

from .config import Config
from .config_check import did_you_mean, table_prefix
from .errors import ConfigError
from .needs import declared_layer
from .options import expand_extends
from .registry import Registry
from .rule import Rule, RuleOptions
from .vocabulary import MEMORY_TYPES, TYPED_TARGETS, Action


class BoundRule:
    """A rule instance with its resolved action and identity, ready to run.

    ``check`` is the rule's bound ``check`` method, looked up once: the engine
    calls it ~700 times per typical answer. Assigning ``rule`` (as the
    benchmark's timing wrapper does) refreshes it.
    """

    __slots__ = ("_rule", "check", "code", "name", "action", "configured", "origin", "types", "pos", "confidence",
                 "needs", "reads_prose")

    def __init__(self, rule: Rule, code: str, name: str, action: Action, configured: bool, origin: str,
                 types: frozenset[str] | None = None, pos: int = 0):
        self.rule = rule
        self.code = code
        self.name = name
        self.action = action
        self.configured = configured  # the action comes from config (beats a finding's own)
        self.origin = origin
        #: The memory types the rule applies to (``Rule.types``); None: every type.
        self.types = types
        #: Position in its target's list (where to resume when a fix changes a record's type).
        self.pos = pos
        #: The rule's own confidence (``Rule.confidence``; a finding may say otherwise).
        self.confidence = getattr(rule, "confidence", "high")
        #: ``Rule.reads_prose``: its findings on a memory in an unread language are only warnings.
        self.reads_prose = bool(getattr(rule, "reads_prose", False))

    @property
    def rule(self) -> Rule:
        return self._rule

    @rule.setter
    def rule(self, rule: Rule) -> None:
        self._rule = rule
        self.check = rule.check
        #: The rule's declaration (memvet.needs.Needs): when check() can find anything at all.
        self.needs = getattr(rule, "needs", None)

    def __repr__(self) -> str:
        return f"BoundRule({self.code}, action={self.action!r})"


def bind_rule(cls: type[Rule], config: Config) -> BoundRule:
    """``cls`` with its options from ``config`` (a ConfigError names the field) and its action."""
    raw = expand_extends(cls.Options, config.rules.get(cls.code, {}), file=config.source,
                         field=f"{table_prefix(config.source)}rules.{cls.code}")
    try:
        options = _default_options(cls.Options) if not raw else cls.Options.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown option" + did_you_mean(loc, cls.Options.model_fields, codes=False) + (
                f" (options: {', '.join(cls.Options.model_fields)})" if cls.Options.model_fields else " (none)")
        raise ConfigError(msg, file=config.source,
                          field=f"{table_prefix(config.source)}rules.{cls.code}" + (f".{loc}" if loc else "")) from None
    configured = cls.code in config.actions
    action = config.actions.get(cls.code, cls.action)
    types = getattr(cls, "types", None)
    return BoundRule(cls(options), cls.code, cls.name, action, configured, cls.origin(),
                     None if types is None else frozenset(types))


@cache
def _default_options(options: type[RuleOptions]) -> RuleOptions:
    """A rule's options when the config sets none, validated once per process: options are frozen,
    and pydantic deep-copies every list default (the word lists) on each validation."""
    return options.model_validate({})


class RuleTable:
    """The bound rules of one config, in execution order (registry family order)."""

    def __init__(self, config: Config, registry: Registry):
        self.config = config
        self.by_target: dict[str, list[BoundRule]] = {"parse": [], "output": [], "scene": [], "memory": [], "record": []}
        self.suppressed: dict[str, list[BoundRule]] = {k: [] for k in self.by_target}
        self.engine_rules: dict[str, BoundRule] = {}
        for cls in registry.ordered():
            bound = bind_rule(cls, config)
            if getattr(cls, "engine_only", False):
                self.engine_rules[cls.code] = bound
            elif config.enabled(cls.code):
                self.by_target[cls.target].append(bound)
            elif config.show_unused_ignores:
                self.suppressed[cls.target].append(bound)
        # Memory and record rules that declare ``types`` are dispatched from a
        # per-type list, so a method-only rule is never called on a fact.
        self.by_type: dict[str, dict[str | None, list[BoundRule]]] = {}
        for target in TYPED_TARGETS:
            bounds = self.by_target[target]
            for pos, bound in enumerate(bounds):
                bound.pos = pos
            self.by_type[target] = {kind: [b for b in bounds if b.types is None or kind in b.types]
                                    for kind in (*MEMORY_TYPES, None)}
        # Every word list the enabled rules' declarations name, in one automaton.
        self.text_layer = declared_layer([b.rule for bounds in self.by_target.values() for b in bounds])
