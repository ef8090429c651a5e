"""How much of a memory its batch already holds, by the ROLE of the text that holds it.

The value gates judge a memory against its batch (issue 11): a memory that
repeats what a tool message showed or what the assistant wrote into a file
restates the repository (G003); one that narrates edits the batch shows is a
change log (G001); but what a USER said is the user's own position, which
seed 000 keeps even when the assistant then wrote it into a file.

Evidence sets are built once per batch from :attr:`RuleContext.facts`
(``ctx.memo``); a memory costs one term analysis of its content.
"""

from __future__ import annotations

from typing import Any

from memvet.rules import _text

Evidence = tuple[frozenset[str], frozenset[str]]
_NONE: Evidence = (frozenset(), frozenset())


def written_evidence(ctx: Any) -> Evidence:
    """Terms and characters of everything tool messages showed or the assistant wrote into files."""
    def compute() -> Evidence:
        text = ctx.facts.written_text
        return _text.terms_and_chars(text) if text else _NONE
    return ctx.memo("memvet.sources:written", compute)


def user_evidence(ctx: Any, session: str | None) -> Evidence:
    """Terms and characters of what the users of ``session`` (every session when None) said."""
    def compute() -> Evidence:
        text = "\n".join(m.content for m in ctx.batch.messages
                         if m.role == "user" and (session is None or m.sessionKey == session))
        return _text.terms_and_chars(text) if text else _NONE
    return ctx.memo(("memvet.sources:user", session), compute)


def written_support(ctx: Any, content: str) -> float:
    """Share of the content (0..1) that the batch's tool output and file writes already hold."""
    evidence = written_evidence(ctx)
    if not evidence[0]:
        return 0.0
    return _text.support(content, *evidence) or 0.0


def user_support(ctx: Any, memory: dict[str, Any], content: str) -> float:
    """Share of the content (0..1) that a user of the memory's session said in this batch."""
    session = ctx.resolve_sources(memory)[1]
    evidence = user_evidence(ctx, session)
    if not evidence[0]:
        return 0.0
    return _text.support(content, *evidence) or 0.0


def shows_edits(ctx: Any, memory: dict[str, Any]) -> bool:
    """A source of the memory writes, edits or commits (tool) or reports work done / writes files (assistant)."""
    facts = ctx.facts
    for m in ctx.sources(memory):
        f = facts.of(m)
        if f.role == "tool" and ("writes" in f.acts or f.commits):
            return True
        if f.role == "assistant" and ("writes" in f.acts or "reports_done" in f.acts):
            return True
    return False


def only_agent_sources(ctx: Any, memory: dict[str, Any]) -> bool:
    """Every source of the memory is an assistant or tool message (no person said it)."""
    sources = ctx.sources(memory)
    return bool(sources) and all(m.role in ("assistant", "tool") for m in sources)
