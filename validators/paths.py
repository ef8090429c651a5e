"""JSON Pointer helpers on the engine's hot path (a leaf over :mod:`memvet.pointer`)."""

from __future__ import annotations

from typing import Any

from . import pointer as jp


def memory_path(scene_index: int, memory_index: int) -> str:
    """``jp.join(i, "memories", j)`` for int indices (nothing to escape), on the hot path."""
    return f"/{scene_index}/memories/{memory_index}"


def split(pointer: str) -> list[str]:
    """``jp.split`` with a fast path: a pointer without ``~`` has nothing to unescape."""
    if "~" in pointer or not pointer.startswith("/"):
        return jp.split(pointer)
    return pointer[1:].split("/")


def absolute(op: dict[str, Any], base: str) -> dict[str, Any]:
    """A fix op relative to a target, made absolute under ``base``."""
    out = {**op, "path": base + op["path"]}
    if "from" in op:
        out["from"] = base + op["from"]
    return out


def order(pointer: str) -> tuple[Any, ...]:
    """Sort key of a pointer: array indices numerically, before member names."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in split(pointer))
