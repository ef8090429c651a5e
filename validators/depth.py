"""How deep a JSON value nests, found without recursion.

Answers and contexts come from an LLM or a pipeline: a value nested
thousands of levels deep must become a violation (or a context error) at
its pointer, never a ``RecursionError`` in a rule, a formatter or the store.
Everything here walks with an explicit stack.
"""

from __future__ import annotations

from typing import Any, Iterator

from . import pointer as jp

#: Containers deep, counted from the root of the answer. The contract itself
#: nests 6 levels (answer, scene, memories, memory, metadata, an id list); the
#: bound leaves room for a foreign metadata value (T003) with some structure,
#: and stays far below what the JSON encoder and the rules can walk.
MAX_ANSWER_DEPTH = 32
#: Containers deep, counted from the root of a context (extra fields a pipeline
#: carries on messages are kept unchecked, so only their depth is bounded).
MAX_CONTEXT_DEPTH = 32


def too_deep(value: Any, limit: int, base: tuple[str | int, ...] = ()) -> Iterator[str]:
    """The pointer of each container that sits more than ``limit`` containers deep.

    ``value`` itself is at depth ``len(base) + 1`` when it is a container, so
    ``base`` is the path of ``value`` in its document. Below a container
    that is reported, nothing more is looked at (one pointer per deep branch).
    """
    if not isinstance(value, (dict, list)):
        return
    # Each entry: (container, its path, its depth). Paths are tuples shared
    # by reference down the branch; only reported ones become strings.
    stack: list[tuple[Any, tuple[str | int, ...], int]] = [(value, base, len(base) + 1)]
    while stack:
        node, path, depth = stack.pop()
        if depth > limit:
            yield jp.from_path(path)
            continue
        items = node.items() if isinstance(node, dict) else enumerate(node)
        children = [(child, (*path, key), depth + 1) for key, child in items if isinstance(child, (dict, list))]
        stack.extend(reversed(children))  # document order


def max_depth_exceeded(value: Any, limit: int) -> bool:
    return next(too_deep(value, limit), None) is not None


PRUNED = "<nested too deeply>"


def pruned(value: Any, limit: int, depth: int = 1) -> Any:
    """A copy of ``value`` with every container deeper than ``limit`` replaced by :data:`PRUNED`.

    Recursive, but never deeper than ``limit`` calls: what lies below is not copied.
    """
    if not isinstance(value, (dict, list)):
        return value
    if depth > limit:
        return PRUNED
    if isinstance(value, dict):
        return {k: pruned(v, limit, depth + 1) for k, v in value.items()}
    return [pruned(v, limit, depth + 1) for v in value]
