"""Fixes applied to a copy-on-write working output: the caller's value is never mutated.

A scene is copied shallowly on its first write, a memory whole on its
first fix, the whole output once for a parse/output-level fix; records are
JSON copies already and are patched directly.
"""

from __future__ import annotations

from typing import Any

from . import pointer as jp
from .paths import split
from .run_state import Run, mark_dropped


def apply_fix(run: Run, target: str, base: str, ops: list[dict[str, Any]]) -> None:
    """Apply ``ops`` (relative to the current ``target`` at ``base``) to the working copy."""
    ctx = run.ctx
    if target == "record":
        jp.apply(ctx.record, ops)
        return
    if target in ("parse", "output"):
        # Whole-output fixes: copy everything once, then patch absolute paths.
        if "all" not in run.copied:
            ctx.output[:] = clone(ctx.output)
            run.copied.add("all")
            run.copied.update(("scene", i) for i in range(len(ctx.output)))
        jp.apply(ctx.output, ops)
        return
    i = ctx.scene_index
    if ("scene", i) not in run.copied:
        scene = ctx.output[i]
        ctx.output[i] = {**scene, "memories": list(scene["memories"])}
        run.copied.add(("scene", i))
    scene = ctx.output[i]
    if target == "memory":
        j = ctx.memory_index
        if ("memory", i, j) not in run.copied:
            scene["memories"][j] = clone(scene["memories"][j])
            run.copied.add(("memory", i, j))
        obj = scene["memories"][j]
    else:
        obj = scene
    for op in ops:
        if op["op"] == "remove" and op["path"] == "":
            if target == "scene":
                run.removed_scenes.add(i)
            else:
                mark_dropped(run, base, "")
            continue
        tokens = split(op["path"])
        if target == "scene" and tokens[:1] == ["memories"] and len(tokens) > 1 and tokens[1].isdigit():
            j = int(tokens[1])
            if ("memory", i, j) not in run.copied:
                scene["memories"][j] = clone(scene["memories"][j])
                run.copied.add(("memory", i, j))
        elif (target == "scene" and len(tokens) > 1 and tokens[0] in obj
              and (id(obj), tokens[0]) not in run.copied):
            # A memory is cloned whole on its first fix; a scene only shallowly.
            obj[tokens[0]] = clone(obj[tokens[0]])
            run.copied.add((id(obj), tokens[0]))
        if not patch_in_place(obj, op, tokens):
            jp.apply(obj, [op])


def patch_in_place(obj: Any, op: dict[str, Any], tokens: list[str]) -> bool:
    """Apply the common fix ops (add/replace/remove of an existing dict key, under dicts only)
    directly; False when ``jp.apply`` must do it (lists, missing keys, move/copy/test: its errors
    are what E001 reports)."""
    kind = op["op"]
    if kind not in ("add", "replace", "remove") or not tokens:
        return False
    node = obj
    for token in tokens[:-1]:
        if node.__class__ is not dict or token not in node:
            return False
        node = node[token]
    key = tokens[-1]
    if node.__class__ is not dict:
        return False
    if kind == "add":
        node[key] = op["value"]
    elif key not in node:
        return False
    elif kind == "remove":
        del node[key]
    else:
        node[key] = op["value"]
    return True


def clone(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars): several times faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: clone(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) if isinstance(v, (dict, list)) else v for v in value]
    return value
