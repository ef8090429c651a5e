"""The records: which memories are kept (decide), their write requests (route), the W rules on them.

A memory becomes a candidate record when it is well formed, not dropped and
its scene not removed; a candidate under a reject is routed and
write-checked too (one report names every fault) but never kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .context import Message
from .paths import memory_path, split
from .routing import route_all
from .run_state import Run
from .walk import run_rules_on
from .working_copy import clone

# Scene fields a record carries, in the report's key order.
SCENE_FIELDS = ("scene_id", "new_scene_name", "new_scene_reason")


@dataclass
class Candidates:
    """Write requests of one call, in memory order, with their source messages."""

    routed: list[tuple[dict[str, Any], list[Message]]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    held: list[bool] = field(default_factory=list)  # under a reject: checked, never kept


def candidate_records(run: Run) -> Candidates | None:
    """The records the kept memories would become (None: the whole answer is rejected)."""
    ctx = run.ctx
    rejected = run.rejected
    if "" in rejected:
        return None
    rejected_scenes, rejected_memories = rejected_parts(rejected)
    dropped, removed, output, resolve = ctx.dropped, run.removed_scenes, ctx.output, ctx.resolve_sources
    cached_sources = ctx._sources
    prefixes: dict[int, dict[str, Any]] = {}  # the scene fields every record of a scene starts with
    out = Candidates()
    routed, paths, held_flags = out.routed, out.paths, out.held
    for i, j in ctx.valid_memories:
        mem_path = memory_path(i, j)
        if mem_path in dropped or i in removed:
            continue
        # A rejected memory is routed and write-checked too, so one report
        # names every fault, but it never becomes a record.
        held = False
        if rejected_scenes or rejected_memories:
            si = str(i)
            held = si in rejected_scenes or (si, str(j)) in rejected_memories
        scene = output[i]
        prefix = prefixes.get(i)
        if prefix is None:
            prefix = prefixes[i] = {k: scene[k] for k in SCENE_FIELDS if k in scene}
        memory = scene["memories"][j]
        record = {**prefix, **memory}
        for k, v in memory.items():  # a JSON copy: record fixes must not reach the output
            if isinstance(v, (dict, list)):
                record[k] = clone(v)
        messages, session = resolve(memory)
        ids = record.get("source_message_ids")
        if isinstance(ids, list):  # same ids, same answer: spare W rules a second lookup
            cached_sources[id(ids)] = (ids, messages, session)
        record["sessionKey"] = session
        routed.append((record, messages))
        paths.append(mem_path)
        held_flags.append(held)
    return out


def route_candidates(run: Run, candidates: Candidates) -> None:
    """Kind, namespace, task, provenance, ttl and status of every candidate (``routing.route_all``)."""
    route_all(candidates.routed, run.ctx)


def check_records(run: Run, candidates: Candidates) -> tuple[list[dict[str, Any]], list[str]]:
    """The record (W) rules on every candidate; the records kept and their memories' pointers."""
    ctx = run.ctx
    kept_records, kept_paths = [], []
    violations = run.violations
    for (record, _), path, held in zip(candidates.routed, candidates.paths, candidates.held):
        ctx.record = record
        # None: no record will exist to patch, so write fixes are reported without ops.
        ctx.record_index = None if held else len(kept_records)
        before = len(violations)
        run_rules_on(run, "record", record, path)
        ctx.record = None
        if held:
            continue
        if len(violations) > before:
            faults = {v.action for v in violations[before:]}
            if "reject" in faults or "drop" in faults:
                continue
        kept_records.append(record)
        kept_paths.append(path)
    return kept_records, kept_paths


def rejected_parts(rejected: set[str]) -> tuple[set[str], set[tuple[str, str]]]:
    """Split rejected pointers into scene tokens (the scene itself or any non-memory part
    of it) and ``(scene, memory)`` tokens (a memory or anything inside it)."""
    scenes: set[str] = set()
    memories: set[tuple[str, str]] = set()
    for pointer in rejected:
        if not pointer.startswith("/"):
            continue
        tokens = split(pointer)
        if len(tokens) >= 3 and tokens[1] == "memories":
            memories.add((tokens[0], tokens[2]))
        else:
            scenes.add(tokens[0])
    return scenes, memories
