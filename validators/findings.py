"""A finding becomes a violation: absolute pointer, resolved action, its fix applied, reject/drop marked.

Also where a crashing rule becomes E001 (crash isolation: the run goes on).
"""

from __future__ import annotations

from memvet.rules._coverage import unread_language

from . import pointer as jp
from .binding import BoundRule
from .paths import absolute
from .report import Violation
from .rule import Finding
from .run_state import Run, mark_dropped
from .working_copy import apply_fix

# Codes the engine itself emits (their classes live in memvet.rules.engine_faults).
E001, E002 = "E001", "E002"

# Why a finding whose action is ``fix`` carries no RFC 6902 patch (parse-stage
# rules say it in their own message: they change the raw text, not the JSON).
NO_PATCH_HELD = " (no patch: a reject holds this memory back, so there is no record to patch)"
NO_PATCH_NONE = " (no patch: the rule has no automatic fix for this; nothing was changed)"


def record_crash(run: Run, bound: BoundRule, path: str, exc: Exception) -> None:
    """E001 at ``path`` for ``bound``'s exception; reject (fail closed) unless config says otherwise."""
    e = run.table.engine_rules.get(E001)
    default = "reject" if run.table.config.fail_closed else "warn"
    action = e.action if e and e.configured else default
    run.violations.append(Violation(
        E001, e.name if e else "rule-crashed", action, path,
        f"rule {bound.code} ({bound.name}) crashed: {type(exc).__name__}: {exc}",
        bound.origin, None))
    if action == "reject":
        run.rejected.add(path)
    elif action == "drop":
        mark_dropped(run, path, E001)


def handle_finding(run: Run, bound: BoundRule, target: str, base: str, finding: Finding,
                   current: object = None) -> None:
    """Record ``finding`` of ``bound`` on the target at ``base`` (``current``: the target itself),
    applying its fix when the action is fix."""
    ctx = run.ctx
    action = bound.action if bound.configured else (finding.action or bound.action)
    path = base + finding.path
    confidence = finding.confidence or bound.confidence
    message = finding.message
    if not bound.configured and ctx.config.low_confidence == "warn":
        unread = None
        if bound.reads_prose and action != "warn" and isinstance(current, dict):
            unread = unread_language(current.get("content"))
        if unread is not None:
            # A word list cannot judge a language it does not hold: say so, change nothing (not even a fix).
            confidence = "low"
            message += (f" (low confidence: the memory is written in {unread}, which this rule's word lists "
                        "do not read)")
        if confidence == "low" and (action in ("reject", "drop") or unread is not None):
            # A judgment that can be wrong never costs a re-ask or a memory by default.
            action = "warn"
            ctx.low_findings.setdefault(path, []).append(bound.code)
    fix = None
    if action == "fix" and finding.fix is not None:
        # Record fixes patch the report's records, not the output; a record
        # held back by a reject has no place in ``records`` to patch.
        if target != "record":
            fix = [absolute(op, base) for op in finding.fix]
        elif ctx.record_index is not None:
            fix = [absolute(op, jp.join("records", ctx.record_index)) for op in finding.fix]
        if finding.fix:
            try:
                apply_fix(run, target, base, finding.fix)
            except Exception as exc:
                record_crash(run, bound, path, exc)
                return
    if action == "fix" and fix is None and target != "parse":  # a fix says why it carries no patch
        message += NO_PATCH_HELD if finding.fix else NO_PATCH_NONE
    run.violations.append(Violation(bound.code, bound.name, action, path, message, bound.origin, fix,
                                    confidence))
    if action == "reject":
        run.rejected.add(base if target == "record" else path)
    elif action == "drop":
        mark_dropped(run, base if target == "record" else path, bound.code)
