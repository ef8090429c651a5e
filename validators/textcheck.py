"""Text that is not valid Unicode, or not printable as such (S011).

A lone surrogate (``"\\ud800"`` in JSON), NUL, other control characters
(C0 but tab, newline and carriage return; DEL; C1) and bytes that are not
UTF-8 all survive ``json.loads`` and then break whoever writes the text:
``print`` to a UTF-8 terminal, SQLite, a SARIF file, a GitHub annotation.
The parse stage replaces each with U+FFFD, in keys and values at any depth,
and records where, so that S011 reports it and nothing later fails.

The walk is iterative (an answer may nest deeply) and copy-on-write for a
value the caller owns: only the containers on the way to a bad string are copied.
"""

from __future__ import annotations

import json
import re
from typing import Any

from . import pointer as jp

REPLACEMENT = "\ufffd"
INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
SURROGATE = re.compile("[\ud800-\udfff]")
# What may decode to an invalid character: the character itself, or its JSON
# escape (a false alarm, e.g. a valid surrogate pair, only costs a walk).
_SUSPECT_ESCAPE = re.compile(r"\\u(?:00[01890]|007[fF]|[dD][89a-fA-F])")


def may_hold_invalid(text: str) -> bool:
    """False only when the JSON ``text`` cannot decode to an invalid character."""
    # Two searches beat one alternation by ~40 %; most answers hold no "\u" at all.
    return INVALID.search(text) is not None or ("\\u" in text and _SUSPECT_ESCAPE.search(text) is not None)


def describe(text: str, *, from_bytes: bool = False) -> str:
    """What is wrong with ``text``, by kind and code point (never the text: it may hold a secret)."""
    kinds: dict[str, int] = {}
    for m in INVALID.finditer(text):
        cp = ord(m.group())
        if 0xD800 <= cp <= 0xDFFF:
            kind = (f"a byte that is not UTF-8 (0x{cp - 0xDC00:02x})" if from_bytes and 0xDC80 <= cp <= 0xDCFF
                    else f"a lone surrogate (U+{cp:04X})")
        elif cp == 0:
            kind = "NUL (U+0000)"
        else:
            kind = f"a control character (U+{cp:04X})"
        kinds[kind] = kinds.get(kind, 0) + 1
    parts = [kind if n == 1 else f"{kind} x{n}" for kind, n in kinds.items()]
    return ", ".join(parts)


def clean(text: str) -> str:
    return INVALID.sub(REPLACEMENT, text)


def clean_pointer(pointer: str) -> str:
    """A pointer whose keys held invalid text names the keys as they are after the fix."""
    return clean(pointer) if INVALID.search(pointer) else pointer


def _tokens(link: Any) -> list[str | int]:
    out: list[str | int] = []
    while link is not None:
        link, token = link
        out.append(token)
    out.reverse()
    return out


def find_invalid(value: Any, pattern: re.Pattern[str] = INVALID) -> list[tuple[list[str | int], bool, str]]:
    """``(path, is_key, text)`` for every string (key or value) holding invalid text.

    For a key, ``path`` is the path of its object plus the key itself.
    """
    found: list[tuple[list[str | int], bool, str]] = []
    if isinstance(value, str):
        return [([], False, value)] if pattern.search(value) else []
    stack: list[tuple[Any, Any]] = [(value, None)]
    while stack:
        node, link = stack.pop()
        if isinstance(node, dict):
            items = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        for key, child in items:
            if isinstance(key, str) and pattern.search(key):
                found.append((_tokens(link) + [key], True, key))
            if isinstance(child, str):
                if pattern.search(child):
                    found.append((_tokens((link, key)), False, child))
            elif isinstance(child, (dict, list)):
                stack.append((child, (link, key)))
    return found


def replace_invalid(value: Any, *, owned: bool, from_bytes: bool = False) -> tuple[Any, list[tuple[str, str]]]:
    """``(fixed value, [(pointer, description), ...])`` with every invalid character replaced.

    ``owned``: the value was built by memvet (parsed here) and may be fixed
    in place; otherwise the containers on the way are copied first.
    """
    found = find_invalid(value)
    if not found:
        return value, []
    if isinstance(value, str):
        return clean(value), [("", describe(value, from_bytes=from_bytes))]
    report = sorted(((jp.from_path([clean(t) if isinstance(t, str) else t for t in path]),
                      describe(text, from_bytes=from_bytes) + (" in the key" if is_key else ""))
                     for path, is_key, text in found),
                    key=lambda r: _order(r[0]))
    root = value if owned else _shallow(value)
    copied = {id(root)}
    # Deepest first, and a value before the rename of its own key: a rename
    # changes the paths of everything below that key.
    for path, is_key, text in sorted(found, key=lambda f: (len(f[0]) - (0.5 if f[1] else 0)), reverse=True):
        container_path = path[:-1]
        node = root
        for token in container_path:
            child = node[token]
            if not owned and id(child) not in copied:
                child = _shallow(child)
                node[token] = child
                copied.add(id(child))
            node = child
        last = path[-1]
        if is_key:
            new = clean(text)
            while new in node:
                new += REPLACEMENT  # never merge two keys: nothing is lost
            items = [(new if k == text else k, v) for k, v in node.items()]
            node.clear()
            node.update(items)
        else:
            node[last] = clean(node[last])
    return root, report


def _shallow(node: Any) -> Any:
    return dict(node) if isinstance(node, dict) else list(node)


def _order(pointer: str) -> tuple[Any, ...]:
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in jp.split(pointer))


def first_surrogate(value: Any) -> str | None:
    """The pointer of the first string (key or value) holding a lone surrogate, if any."""
    try:
        # The usual case, in C: the JSON text of the value keeps every string as it is
        # (ensure_ascii=False escapes only quotes, backslashes and C0 controls), and
        # UTF-8 encodes every code point but a lone surrogate: no error, no surrogate
        # in any key or value. Otherwise the walk below names the first.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass  # a surrogate somewhere: the walk below names the first
    except (TypeError, ValueError, RecursionError):
        pass  # not JSON-shaped (or circular, or very deep): the walk below decides
    for path, _, _text in find_invalid(value, SURROGATE):
        return jp.from_path([clean(t) if isinstance(t, str) else t for t in path])
    return None
