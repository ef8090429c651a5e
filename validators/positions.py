"""Where each JSON Pointer of an answer sits in the raw text: line and column.

A report names a fault by its JSON Pointer; an editor, SARIF viewer or
GitHub annotation needs a line and a column. :func:`scan` walks the JSON
part of the raw answer once, token by token, and maps every pointer to the
offset where it starts: an object member at its key, an array element at
its first character. It tracks structure the way the parser's lenient
repair does (trailing commas, raw control characters inside strings, bare
words where a value belongs), so the positions also hold for answers that
only parsed after a repair, and for answers wrapped in a fence or prose.

The scan runs only when a report's locations are asked for (most answers
have no violation, and most callers never format one), and it is linear:
one regular expression steps over whole tokens, with no backtracking.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right

from . import pointer as jp

# One token: a string (possibly never closed), one structural character, or
# a run of anything else (numbers, true/false/null, bare words). Strings use
# the unrolled-loop form, which cannot backtrack.
_DEEP = [None]  # the frame of every container below MAX_DEPTH (shared: it never changes)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{},:]|[^\s\[\]{},:"]+', re.S)


#: Values nested deeper than this are located at their deepest recorded parent:
#: an answer is ~5 levels deep, and the pointers of a 50,000-deep "[[[[" alone
#: would add up to gigabytes.
MAX_DEPTH = 64


def scan(text: str, start: int = 0) -> dict[str, int]:
    """Pointer -> offset in ``text`` of every value of the JSON that begins at ``start``."""
    found: dict[str, int] = {}
    # Frames: [prefix, is_object, key_or_index, expecting_key, value_seen]
    stack: list[list] = []
    top_seen = False
    for m in _TOKEN.finditer(text, start):
        tok = m.group()
        c = tok[0]
        if not stack:
            if top_seen:
                break  # the JSON value is over; what follows is prose
            top_seen = True
            found.setdefault("", m.start())
            if c in "[{":
                stack.append(["", c == "{", 0 if c == "[" else None, True, False])
                continue
            break  # a scalar answer: nothing inside it to locate
        frame = stack[-1]
        if frame[0] is None:  # below MAX_DEPTH: only the nesting is followed
            if c in "[{":
                stack.append(_DEEP)
            elif c in "]}":
                stack.pop()
            continue
        if c in "]}":
            stack.pop()
            continue
        if c == ",":
            if frame[1]:
                frame[2], frame[3] = None, True
            else:
                frame[2] += 1
            frame[4] = False
            continue
        if c == ":":
            frame[3] = False
            continue
        if frame[1] and frame[3]:
            # A key: the member starts here (a later duplicate wins, as in json.loads).
            if c == '"':
                try:
                    key = json.loads(tok)
                except ValueError:
                    key = tok.strip('"')
            else:
                key = tok
            frame[2] = key
            found[frame[0] + "/" + jp.escape(key)] = m.start()
            continue
        if frame[4] or frame[2] is None:
            continue  # the rest of a bare value ("foo bar"), or a value without a key
        frame[4] = True
        here = frame[0] + "/" + jp.escape(frame[2])
        if not frame[1]:
            found.setdefault(here, m.start())
        if c in "[{":
            if len(stack) < MAX_DEPTH:
                stack.append([here, c == "{", 0 if c == "[" else None, True, False])
            else:
                stack.append(_DEEP)
    return found


class LineIndex:
    """Offsets of ``text`` to 1-based (line, column); columns count code points."""

    def __init__(self, text: str):
        self.starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = find("\n", i + 1)

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


class Positions:
    """Pointer -> (line, column) for one raw answer; a missing pointer gets its nearest present parent."""

    def __init__(self, text: str, start: int):
        self.offsets = scan(text, start)
        self.lines = LineIndex(text)
        self.start = start

    def locate(self, pointer: str) -> tuple[int, int]:
        offsets = self.offsets
        probe = pointer
        while probe and probe not in offsets:
            probe = probe[:probe.rfind("/")]  # a missing key: where its object starts
        return self.lines.line_col(offsets.get(probe, self.start))
