"""Disguised forms of the known token formats: split by white space, or base64-encoded.

A model that wraps a long line, or a user who pastes a token in two halves,
leaves ``ghp_9fKq2LmZ7xR4 tWb8NcE1uVyH3sDj6AoP0gQi``; a config dump carries
``Z2hwXzlmS3Eyb...`` (the token, base64-encoded). Both are found here with
the provider detectors of P001 (:mod:`memvet.rules.privacy`), on a joined
or decoded copy of the text, and mapped back to the span of the original
text that must be redacted.

Both scans are linear: token runs and gaps are bounded regexes, a run joins
at most ``_MAX_PIECES`` pieces, an encoded run is decoded once.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Callable

# What a token is made of (JWT dots and base64 padding included).
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_.+/=-]{1,4000}")
# Between two pieces of one token: white space, at most one line break.
_GAP = re.compile(r"[ \t]{0,3}\n?[ \t]{0,8}")
_MAX_PIECES = 6
_MIN_PIECE = 4
# A base64 (or base64url) run long enough to hold the shortest known token.
ENCODED = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{28,8000}={0,2}(?![A-Za-z0-9+/_=-])")
_URLSAFE = str.maketrans("-_", "+/")


def _looks_random(piece: str) -> bool:
    return (len(piece) >= _MIN_PIECE and any(c.isdigit() for c in piece)
            and any(c.isalpha() for c in piece))


def split_tokens(text: str, detectors: tuple[Any, ...],
                 placeholder: Callable[[str], str]) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with every token that only matches once its pieces are joined redacted.

    A continuation piece must look generated (letters and digits, at least
    four characters): a token followed by ordinary words never swallows them.
    Returns the redacted text and ``(value, kind)`` pairs: the original span
    (with its white space) and the joined token.
    """
    if " " not in text and "\n" not in text and "\t" not in text:
        return text, []
    needles, finder = _needles(detectors)
    hit = finder.search(text)
    if hit is None:  # the usual case: no provider prefix at all
        return text, []
    found: list[tuple[str, str]] = []
    pieces_out: list[str] = []
    last = pos = 0
    while hit is not None:
        # The token run holding the prefix: back to its first character, then forward.
        start = hit.start()
        floor = max(pos, start - 4000)
        while start > floor and text[start - 1] in _TOKEN_CHARS:
            start -= 1
        m = _TOKEN_RUN.match(text, start)
        pos = max(m.end(), hit.end()) if m is not None else hit.end()
        redacted = None if m is None else _join_and_match(text, m, needles)
        if redacted is not None:
            kind, start, stop, joined = redacted
            found.append((text[start:stop], kind))
            found.append((joined, kind))
            pieces_out += [text[last:start], placeholder(kind)]
            last = pos = max(pos, stop)
        hit = finder.search(text, pos)
    if not found:
        return text, []
    pieces_out.append(text[last:])
    return "".join(pieces_out), found


def _join_and_match(text: str, m: re.Match[str], needles: dict[str, Any]) -> tuple[str, int, int, str] | None:
    """``(kind, start, stop, joined token)`` when the run ``m`` and the random-looking pieces
    after it match a provider format only together; None otherwise."""
    first = m.group(0)
    candidates = [d for needle, d in needles.items() if needle in first]
    if not candidates:
        return None
    spans = [m.span()]
    end, n = m.end(), len(text)
    while len(spans) < _MAX_PIECES and end < n:
        gap = _GAP.match(text, end)
        if gap is None or gap.end() == end:
            break
        nxt = _TOKEN_RUN.match(text, gap.end())
        if nxt is None or not _looks_random(nxt.group(0)):
            break
        spans.append(nxt.span())
        end = nxt.end()
    if len(spans) == 1:
        return None
    joined = "".join(text[a:b] for a, b in spans)
    hit = _first_match(joined, candidates, len(first))
    if hit is None:
        return None
    kind, jstart, jend = hit
    return kind, _original(spans, jstart), _original(spans, jend - 1) + 1, joined[jstart:jend]


_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+/=-")
_NEEDLES: dict[int, tuple[tuple[Any, ...], dict[str, Any], re.Pattern[str]]] = {}


def _needles(detectors: tuple[Any, ...]) -> tuple[dict[str, Any], re.Pattern[str]]:
    """``{prefix: detector}`` and one pattern finding any prefix; built once per detector tuple."""
    # Keyed by identity (the detector tuples are module constants): hashing
    # dataclasses that hold compiled patterns on every call costs more than the scan.
    found = _NEEDLES.get(id(detectors))
    if found is None or found[0] is not detectors:
        needles = {n: d for d in detectors for n in d.needles}
        pattern = re.compile("|".join(map(re.escape, sorted(needles, key=len, reverse=True))))
        found = _NEEDLES[id(detectors)] = (detectors, needles, pattern)
    return found[1], found[2]


def _first_match(joined: str, detectors: list[Any], first_len: int) -> tuple[str, int, int] | None:
    """The first detector match in ``joined`` that runs past the first piece."""
    for d in detectors:
        for m in d.pattern.finditer(joined):
            value = m.group(d.group)
            if not value or (d.accept is not None and not d.accept(value, m)):
                continue
            start, end = m.span(d.group)
            if end > first_len:
                return d.kind, start, end
    return None


def _original(spans: list[tuple[int, int]], index: int) -> int:
    """The position in the original text of character ``index`` of the joined pieces."""
    for a, b in spans:
        if index < b - a:
            return a + index
        index -= b - a
    return spans[-1][1] - 1


def decode(run: str) -> str | None:
    """The text a base64 / base64url run encodes, or None (not base64, not printable UTF-8)."""
    raw = run.rstrip("=")
    if len(raw) % 4 == 1:
        return None
    try:
        data = base64.b64decode(raw.translate(_URLSAFE) + "=" * (-len(raw) % 4), validate=True)
        text = data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not text or not all(c.isprintable() or c in "\n\r\t" for c in text):
        return None
    return text


def encoded_tokens(text: str, scan: Callable[[str], tuple[str, list[tuple[str, str]]]],
                   placeholder: Callable[[str], str]) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with every base64 run whose decoded text holds a secret (``scan`` finds one) redacted."""
    found: list[tuple[str, str]] = []
    pieces: list[str] = []
    last = 0
    for m in ENCODED.finditer(text):
        decoded = decode(m.group(0))
        if decoded is None:
            continue
        _, inner = scan(decoded)
        if not inner:
            continue
        kind = inner[0][1]
        found.append((m.group(0), kind))
        found.extend(inner)
        pieces += [text[last:m.start()], placeholder(kind)]
        last = m.end()
    if not found:
        return text, []
    pieces.append(text[last:])
    return "".join(pieces), found
