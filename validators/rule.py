"""What a rule is: a small class that asks one question of one target.

A rule names its ``code`` and ``name`` (stable, see ``memvet rules``), the ``target``
it looks at, its default ``action`` and a pydantic ``Options`` model for its
config. ``check(target, ctx)`` yields :class:`Finding` objects whose paths
are relative to the target; the engine makes them absolute, attaches code,
name and action, applies fixes and isolates crashes (E001).

The docstring of every rule has the sections *What it does*, *Why is this
bad?*, *Example* and *Use instead*; the examples are executed by the tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Iterator, Literal

from pydantic import BaseModel, ConfigDict

from .vocabulary import ACTIONS, MEMORY_TYPES, TARGETS, Action, Target

if TYPE_CHECKING:
    from .rule_context import RuleContext

#: How sure a finding is: a "low" finding never rejects or drops by default
#: (config ``low_confidence``); the LLM judge is asked about it.
Confidence = Literal["high", "low"]

__all__ = ["ACTIONS", "MEMORY_TYPES", "TARGETS", "Action", "Confidence", "Target", "Finding", "NoOptions", "Rule",
           "RuleOptions"]


class NoOptions(BaseModel):
    """The options of a rule that has none."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class RuleOptions(BaseModel):
    """Base for rule options: unknown keys are config errors, and so are values of
    the wrong type (TOML is typed: ``"5"`` is no number, ``"yes"`` no boolean)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


@dataclass(slots=True)
class Finding:
    """One fault found by a rule, relative to its target.

    ``path``: JSON Pointer relative to the target (``""`` is the target).
    ``fix``: RFC 6902 operations, paths relative to the target, that make
    the target acceptable; applied only when the resolved action is ``fix``.
    ``action``: overrides the rule's default for this one finding (L003 fixes
    a half-width bar but rejects a missing side).
    ``confidence``: overrides the rule's own for this one finding ("low" when
    the evidence is a judgment that can be wrong).
    """

    message: str
    path: str = ""
    fix: list[dict[str, Any]] | None = None
    action: Action | None = None
    confidence: Confidence | None = None


class Rule:
    """Base class of every rule. Subclasses set the class attributes and ``check``."""

    code: ClassVar[str]
    name: ClassVar[str]
    target: ClassVar[Target]
    action: ClassVar[Action]
    Options: ClassVar[type[BaseModel]] = NoOptions
    #: Memory and record rules: the memory types the rule applies to, e.g.
    #: ``frozenset({"work_method"})``; None: every type. The engine never calls
    #: the rule on another type. For a memory rule the type is the one the LLM
    #: emitted (``ctx.original["type"]``: a method that M001 downgrades still
    #: meets the other method rules); for a record rule, the record's type.
    types: ClassVar[frozenset[str] | None] = None
    #: How sure the rule's findings are unless a finding says otherwise.
    confidence: ClassVar[Confidence] = "high"
    #: What ``check()`` needs to find anything (:class:`memvet.needs.Needs`: fields that must be
    #: present, word lists that must hit); the engine skips the call when it cannot be met.
    #: None: always called.
    needs: ClassVar[Any] = None
    #: The rule judges a memory's prose through its word lists, by the words it holds and those
    #: it lacks. On a memory written in a language the lists do not read
    #: (:func:`memvet.rules._coverage.unread_language`), the engine lowers its findings to
    #: low-confidence warnings: a missing "because" is no evidence in a language the lists lack.
    reads_prose: ClassVar[bool] = False

    def __init__(self, options: BaseModel | None = None):
        self.options = options if options is not None else self.Options()

    def check(self, target: Any, ctx: RuleContext) -> Iterator[Finding]:  # pragma: no cover - interface
        raise NotImplementedError
        yield

    # Helpers shared by many rules -------------------------------------------------
    @classmethod
    def origin(cls) -> str:
        """The module the rule lives in (the report's ``rule`` field)."""
        return cls.__module__

    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else cls.name
