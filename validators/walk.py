"""The walk over targets: which rules run on a target, in what order, and what they find.

:func:`run_rules_on` is the one place that decides whether a rule's
``check()`` is called on a target (per-type dispatch today) and hands each
finding to :func:`memvet.findings.handle_finding`. :func:`walk_answer` is
the rules stage's order: per scene in document order its scene rules, then
each memory's rules; the output rules last, so they see every fix and drop.
"""

from __future__ import annotations

from typing import Any

from .findings import handle_finding, record_crash
from .needs import declaration_met
from .paths import memory_path
from .run_state import Run

# What a rule that found nothing may return instead of an empty generator: ``()`` or ``[]``.
_EMPTY = frozenset({tuple, list})


def type_of(target: Any) -> str | None:
    kind = target.get("type") if isinstance(target, dict) else None
    return kind if isinstance(kind, str) else None


def walk_answer(run: Run, value: list[Any]) -> None:
    """Scene rules and memory rules of every well-formed scene and memory, then the output rules."""
    ctx = run.ctx
    valid_memories = set(ctx.valid_memories)
    for i in ctx.valid_scenes:
        ctx.scene_index, ctx.memory_index = i, None
        ctx.scene = ctx.output[i]
        ctx.original = value[i]
        run_rules_on(run, "scene", ctx.output[i], f"/{i}")
        originals = value[i]["memories"]
        for j in range(len(originals)):
            if (i, j) not in valid_memories:
                continue
            ctx.memory_index = j
            ctx.scene = ctx.output[i]
            ctx.original = originals[j]
            run_rules_on(run, "memory", None, memory_path(i, j))
    ctx.scene = ctx.scene_index = ctx.memory_index = None
    ctx.original = value
    run_rules_on(run, "output", ctx.output, "")


def current_target(run: Run, target: str, given: Any) -> Any:
    ctx = run.ctx
    if target == "memory":
        return ctx.output[ctx.scene_index]["memories"][ctx.memory_index]
    if target == "scene":
        return ctx.output[ctx.scene_index]
    return given


def run_rules_on(run: Run, target: str, obj: Any, base: str) -> None:
    """Every enabled rule of ``target`` that applies, on the current target at pointer ``base``."""
    ctx = run.ctx
    table = run.table
    ctx.path = base
    if target == "memory":
        current = ctx.output[ctx.scene_index]["memories"][ctx.memory_index]
        # The type as the LLM emitted it (constant for the run, so a method
        # downgraded by M001 still meets M002-M005).
        kind = ctx.original.get("type") if isinstance(ctx.original, dict) else None
        by_type = table.by_type[target]
        bounds = (by_type.get(kind) if isinstance(kind, str) else None) or by_type[None]
    elif target == "record":
        current = obj
        kind = type_of(current)  # the record's own type; a fix may change it
        by_type = table.by_type[target]
        bounds = by_type.get(kind) or by_type[None]
    else:
        current = ctx.output[ctx.scene_index] if target == "scene" else obj
        kind = None
        bounds = table.by_target[target]
    while bounds:
        restart = None
        for bound in bounds:
            if bound.needs is not None and not declaration_met(bound.rule, bound.needs, current,
                                                               table.text_layer, ctx):
                continue  # the rule's declaration says check() cannot find anything here
            # The hot loop: most calls find nothing, and a rule may then return
            # an empty tuple instead of a generator (nothing to build, no list()).
            try:
                findings = bound.check(current, ctx)
                if not findings:
                    if findings.__class__ not in _EMPTY:
                        list(findings)  # None and other non-iterables crash as before (E001)
                    continue
                findings = list(findings)
            except Exception as exc:  # isolate: a crashing rule never stops the run
                record_crash(run, bound, base, exc)
                continue
            if not findings:
                continue
            for finding in findings:
                handle_finding(run, bound, target, base, finding, current)
            # A fix may have replaced the target (copy-on-write) or changed a record's type.
            if target == "memory":
                current = ctx.output[ctx.scene_index]["memories"][ctx.memory_index]
            elif target == "scene":
                current = ctx.output[ctx.scene_index]
            elif target == "record" and type_of(current) != kind:
                kind = type_of(current)
                restart = [b for b in table.by_target[target][bound.pos + 1:] if b.types is None or kind in b.types]
                break
        bounds = restart
    if table.config.show_unused_ignores:
        probe_suppressed(run, target, obj)


def probe_suppressed(run: Run, target: str, obj: Any) -> None:
    """Run the switched-off rules of ``target`` only to learn which ignore entries matched something."""
    ctx = run.ctx
    config = run.table.config
    for bound in run.table.suppressed[target]:
        current = current_target(run, target, obj)
        if bound.needs is not None and not declaration_met(bound.rule, bound.needs, current, run.table.text_layer,
                                                           ctx):
            continue  # its declaration says check() finds nothing here, as in run_rules_on
        try:
            hit = any(True for _ in bound.rule.check(current, ctx))
        except Exception:
            hit = False
        if hit:
            run.used_ignores.update(p for p in config.ignore
                                    if bound.code.startswith("" if p == "ALL" else p))
