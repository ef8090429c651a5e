"""E -- the engine's own findings.

These codes are emitted by the engine, not by a ``check()``: the classes
exist so that ``memvet rules`` lists them, ``memvet rule E001`` documents
them, and config can change their action.
"""

from __future__ import annotations

from typing import Any, Iterator

from memvet.rule import Finding, Rule


class _EngineRule(Rule):
    engine_only = True
    target = "output"

    def check(self, target: Any, ctx: Any) -> Iterator[Finding]:
        return iter(())  # emitted by the engine stages (memvet.findings, memvet.verdict), never by a check


class RuleCrashed(_EngineRule):
    """A rule raised an exception; the run went on without it.

    What it does:
        When a rule's ``check()`` raises, the engine records E001 at the
        target the rule was looking at, names the rule and the exception,
        and carries on with every other rule.

    Why is this bad?
        A crashed rule checked nothing. Failing closed (``reject``) means an
        answer is never committed on the strength of a check that did not
        run. Set ``fail_closed = false`` (or ``actions = {E001 = "warn"}``)
        to trade that safety for availability.

    Example:
        A plugin rule that indexes ``memory["metadata"]["owner"]`` on a
        memory without metadata raises ``KeyError``.

    Use instead:
        Fix the rule; rules should read optional fields with ``.get()``.
    """

    code = "E001"
    name = "rule-crashed"
    action = "reject"


class UnusedSuppression(_EngineRule):
    """An ``ignore`` entry in config matched nothing in this run.

    What it does:
        With ``--show-unused-ignores`` (or ``show_unused_ignores = true``)
        the engine also runs the ignored rules, silently, and reports each
        ``ignore`` prefix that none of them would have fired on.

    Why is this bad?
        Stale suppressions hide future regressions of the rule they name.

    Example:
        ``ignore = ["Q001"]`` in a project whose outputs never contain
        near-duplicates any more.

    Use instead:
        Remove the entry.
    """

    code = "E002"
    name = "unused-suppression"
    action = "warn"
