"""The stages of one ``validate()`` call, one function each, in the order the engine runs them.

parse -> contract -> rules -> decide -> route -> write rules (then the
verdict, :mod:`memvet.verdict`). Each stage reads and writes the call's
:class:`~memvet.run_state.Run`; none knows the :class:`~memvet.engine.Engine`.
"""

from __future__ import annotations

from typing import Any

from .contract import schema_errors
from .depth import MAX_ANSWER_DEPTH, too_deep
from .findings import E001
from .parse import ParseResult, parse_output
from .paths import split
from .records import Candidates, candidate_records, check_records, route_candidates
from .rule_context import RuleContext
from .run_state import Run
from .secret_scan import collect_secrets
from .walk import run_rules_on, walk_answer

S004 = "S004"
# Parse faults after which there is no answer to check.
FATAL_PARSE = ("S001", "S003")


def parse(run: Run, output: Any) -> ParseResult:
    """Parse the raw answer, register every secret in it, run the parse-target rules (S001-S004, S010, S011)."""
    ctx = run.ctx
    run.raw = output  # for the violations' line and column (memvet.locations), resolved lazily
    parsed = parse_output(output)
    ctx.parse = parsed
    collect_secrets(run.table, ctx, output, parsed)
    run_rules_on(run, "parse", parsed, "")
    return parsed


def stopped(run: Run, parsed: ParseResult) -> bool:
    """True when the parse stage leaves nothing to check (S001/S003, or no value at all)."""
    return any(v.code in FATAL_PARSE for v in run.violations) or not parsed.ok


def contract(run: Run, value: list[Any]) -> None:
    """Keep the scenes and memories the contract (S004) faults away from the rules; start the working copy."""
    ctx = run.ctx
    schema_paths = [v.path for v in run.violations if v.code == S004]
    s004_ran = any(b.code == S004 for b in run.table.by_target["parse"]) and not any(
        v.code == E001 and v.message.startswith(f"rule {S004} ") for v in run.violations)
    if not s004_ran:
        # S004 switched off or crashed: still keep malformed parts away from
        # the rules; if even that fails, no scene is trusted (fail closed).
        try:
            schema_paths = [p for p, _ in schema_errors(value)]
        except Exception:
            schema_paths = [""]
    if schema_paths:
        # A value nested too deeply (S004, or under another schema error)
        # keeps its whole scene from the rules: scene rules walk every memory.
        deep = list(too_deep(value, MAX_ANSWER_DEPTH))
        run.too_deep = bool(deep)
        schema_paths = schema_paths + deep
    ctx.output = list(value)  # shallow: scenes are copied on first write
    mark_valid(ctx, value, schema_paths)


def rules(run: Run, value: list[Any]) -> None:
    """Scene, memory and output rules over the well-formed parts (:func:`memvet.walk.walk_answer`)."""
    walk_answer(run, value)


def decide(run: Run) -> Candidates | None:
    """Which memories may become records (None: a reject at the root keeps every one back)."""
    return candidate_records(run)


def route(run: Run, candidates: Candidates) -> None:
    """Each candidate's write request: kind, namespace, task, provenance, ttl, status."""
    route_candidates(run, candidates)


def write_rules(run: Run, candidates: Candidates) -> tuple[list[dict[str, Any]], list[str]]:
    """The W rules on every routed candidate; the records kept and their memories' pointers."""
    return check_records(run, candidates)


def mark_valid(ctx: RuleContext, value: list[Any], schema_paths: list[str]) -> None:
    """Scenes and memories the schema did not fault; only they reach the rules."""
    if not schema_paths:
        ctx.valid_scenes = list(range(len(value)))
        ctx.valid_memories = [(i, j) for i, scene in enumerate(value) for j in range(len(scene["memories"]))]
        return
    bad_scenes: set[int] = set()
    bad_memories: set[tuple[int, int]] = set()
    for p in schema_paths:
        tokens = split(p)
        if not tokens:
            bad_scenes.update(range(len(value)))
            continue
        i = int(tokens[0])
        if len(tokens) >= MAX_ANSWER_DEPTH:
            bad_scenes.add(i)  # nested too deeply: scene rules walk every memory of the scene
        elif len(tokens) >= 3 and tokens[1] == "memories" and tokens[2].isdigit():
            bad_memories.add((i, int(tokens[2])))
        else:
            bad_scenes.add(i)
    for i, scene in enumerate(value):
        if i in bad_scenes:
            continue
        ctx.valid_scenes.append(i)
        for j in range(len(scene["memories"])):
            if (i, j) not in bad_memories:
                ctx.valid_memories.append((i, j))
