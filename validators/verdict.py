"""The verdict: one :class:`~memvet.report.Report` from a run's violations, drops, records and output.

Every channel is scrubbed of the secrets the run found; the output is the
working copy without removed scenes and dropped memories.
"""

from __future__ import annotations

from typing import Any

from . import pointer as jp
from .config_check import broken_plugin_violations
from .depth import MAX_ANSWER_DEPTH, pruned
from .findings import E001, E002
from .locations import annotator
from .paths import memory_path, order
from .report import Report, Violation
from .run_state import Run
from .secrets import SecretSet


def finish(run: Run, value: Any, records: list[dict[str, Any]], paths: list[str]) -> Report:
    """The report of a run that got as far as ``value`` (None: not parsed) with ``records`` kept."""
    ctx = run.ctx
    config = run.table.config
    engine_rules = run.table.engine_rules
    if config.show_unused_ignores:
        e = engine_rules.get(E002)
        for prefix in config.ignore:
            if prefix not in run.used_ignores:
                run.violations.append(Violation(
                    E002, e.name if e else "unused-suppression", e.action if e else "warn", "",
                    f"ignore entry {prefix!r} matched nothing in this run", e.origin if e else "memvet", None))
    if run.registry.problems:  # only with allow_broken_plugins = true: say what did not run
        e = engine_rules.get(E001)
        run.violations.extend(broken_plugin_violations(run.registry, e.name if e else "rule-crashed"))
    secrets = SecretSet(ctx.secrets)
    if secrets:
        scrub_violations(run.violations, secrets)
    output = final_output(run, value)
    if run.too_deep:
        # Nested too deeply (S004 at that pointer): the report carries the
        # answer cut at the bound, so every formatter can still write it.
        output, value = pruned(output, MAX_ANSWER_DEPTH), pruned(value, MAX_ANSWER_DEPTH)
    if secrets:
        # The last line: whatever a rule left (an id, a session key, a key
        # no rule rewrote) never reaches a record, the store or the output.
        records = [secrets.scrub_value(r) for r in records]
        output = secrets.scrub_value(output)
    memories = sum(len(s.get("memories") or []) for s in value if isinstance(s, dict)
                   and isinstance(s.get("memories"), list)) if isinstance(value, list) else 0
    ok = not any(v.action == "reject" for v in run.violations)
    dropped = [{"path": p, "codes": codes} for p, codes in sorted(ctx.dropped.items(), key=lambda kv: order(kv[0]))
               if codes]
    stats = {
        "scenes": len(value) if isinstance(value, list) else 0,
        "memories": memories,
        "records": len(records),
        "dropped": len(dropped),
        "fixed": sum(1 for v in run.violations if v.action == "fix"),
        "rejected": sum(1 for v in run.violations if v.action == "reject"),
    }
    return Report(ok=ok, violations=run.violations, records=records, dropped=dropped, output=output,
                  stats=stats, original=value, record_paths=paths, secrets=dict(ctx.secrets),
                  annotator=annotator(run.raw, ctx.parse) if run.violations else None)


def engine_failure(run: Run, exc: Exception) -> Report:
    """Fail closed: everything found so far, plus one E001 reject at the root."""
    e = run.table.engine_rules.get(E001)
    # Scrubbed before it is cut, so no secret is left half-visible at the edge.
    detail = SecretSet(run.ctx.secrets).describe(str(exc)[:4000])[:200]
    run.violations.append(Violation(
        E001, e.name if e else "rule-crashed", "reject", "",
        f"the engine failed on this answer ({type(exc).__name__}: {detail}); nothing of it may be committed",
        "memvet.engine", None))
    run.violations.extend(broken_plugin_violations(run.registry, e.name if e else "rule-crashed"))
    scrub_violations(run.violations, SecretSet(run.ctx.secrets))
    stats = {"scenes": 0, "memories": 0, "records": 0, "dropped": 0,
             "fixed": sum(1 for v in run.violations if v.action == "fix"),
             "rejected": sum(1 for v in run.violations if v.action == "reject")}
    return Report(ok=False, violations=run.violations, records=[], dropped=[], output=None, stats=stats,
                  secrets=dict(run.ctx.secrets), annotator=annotator(run.raw, run.ctx.parse))


def final_output(run: Run, value: Any) -> Any:
    """The working output without removed scenes, dropped memories and scenes left empty by drops."""
    if not isinstance(value, list):
        return value
    ctx = run.ctx
    out = []
    for i, scene in enumerate(ctx.output):
        if i in run.removed_scenes:
            continue
        if i not in ctx.valid_scenes or not isinstance(scene, dict):
            out.append(scene)
            continue
        memories = [m for j, m in enumerate(scene["memories"])
                    if memory_path(i, j) not in ctx.dropped]
        if not memories and scene["memories"]:
            continue  # every memory dropped: the scene goes too
        out.append(scene if len(memories) == len(scene["memories"]) else {**scene, "memories": memories})
    return out


def scrub_violations(violations: list[Violation], secrets: SecretSet) -> None:
    """Every message, pointer and fix op (values and keys at any depth) without a secret.

    A message describes the secret by kind and length; pointers and fixes
    carry the placeholder the records and the output carry.
    """
    for v in violations:
        v.message = secrets.describe(v.message)
        v.path = scrub_pointer(v.path, secrets)
        if v.fix:
            v.fix = secrets.scrub_value(v.fix)
            for op in v.fix:
                for key in ("path", "from"):
                    if isinstance(op.get(key), str):
                        op[key] = scrub_pointer(op[key], secrets)


def scrub_pointer(pointer: str, secrets: SecretSet) -> str:
    """A JSON Pointer whose tokens hold no secret: a key with a "/" is "~1" in the pointer."""
    if not pointer.startswith("/") or ("~" not in pointer and not secrets.holds(pointer)):
        return pointer
    return jp.from_path([secrets.scrub(token) for token in jp.split(pointer)])
