"""RFC 6901 JSON Pointers and the small subset of RFC 6902 memvet emits."""

from __future__ import annotations

from typing import Any, Iterable


def escape(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join(*tokens: str | int) -> str:
    """``join(0, "memories", 2)`` -> ``"/0/memories/2"``."""
    return "".join("/" + escape(t) for t in tokens)


def from_path(path: Iterable[str | int]) -> str:
    return join(*path)


def split(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


_MISSING = object()


def resolve(doc: Any, pointer: str, default: Any = _MISSING) -> Any:
    """The value at ``pointer`` in ``doc``; ``default`` (or KeyError) when absent."""
    node = doc
    for token in split(pointer):
        try:
            if isinstance(node, list):
                node = node[int(token)]
            elif isinstance(node, dict):
                node = node[token]
            else:
                raise KeyError(token)
        except (KeyError, IndexError, ValueError):
            if default is _MISSING:
                raise KeyError(pointer) from None
            return default
    return node


def _parent(doc: Any, pointer: str) -> tuple[Any, str]:
    tokens = split(pointer)
    if not tokens:
        raise ValueError("cannot patch the document root in place")
    node = doc
    for token in tokens[:-1]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node, tokens[-1]


def apply(doc: Any, ops: Iterable[dict[str, Any]]) -> Any:
    """Apply RFC 6902 ``add``/``remove``/``replace``/``move``/``copy``/``test`` in place.

    Returns ``doc`` (or the new root when an op replaces the root).
    """
    for op in ops:
        kind, path = op["op"], op["path"]
        if path == "" and kind in ("add", "replace"):
            doc = op["value"]
            continue
        if kind == "test":
            if resolve(doc, path) != op["value"]:
                raise ValueError(f"test failed at {path}")
            continue
        if kind in ("move", "copy"):
            value = resolve(doc, op["from"])
            if kind == "move":
                apply(doc, [{"op": "remove", "path": op["from"]}])
            doc = apply(doc, [{"op": "add", "path": path, "value": value}])
            continue
        parent, key = _parent(doc, path)
        if isinstance(parent, list):
            if kind == "add":
                parent.insert(len(parent) if key == "-" else int(key), op["value"])
            elif kind == "remove":
                del parent[int(key)]
            else:
                parent[int(key)] = op["value"]
        else:
            if kind == "remove":
                del parent[key]
            elif kind == "replace" and key not in parent:
                raise KeyError(path)
            else:
                parent[key] = op["value"]
    return doc
