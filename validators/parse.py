"""Stage 1, parse: raw LLM text to a JSON value, never raising.

What an LLM answer looks like in practice, and what this stage does:

* bare JSON                                      -> parsed as is
* JSON in a markdown fence or amid prose          -> unwrapped (S002)
* trailing commas, raw control characters inside
  strings, bare words where a value belongs       -> repaired, each repair
                                                     reported (S010) at its pointer
* nothing recoverable, or cut off mid-array       -> S001
* valid JSON that is not an array                -> S003

The repair is one linear pass over the text with a small state machine (no
backtracking regex), which also tracks the JSON Pointer of each repair.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from . import pointer as jp
from . import textcheck

_NUMBER_START = set("-0123456789")
_STRUCTURAL = set(",:[]{}\"")
_WS = set(" \t\r\n")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
#: Deeper than this, the repairer gives up (S001): Python's JSON decoder could
#: not read the repaired text anyway, and a bound keeps every pointer short.
MAX_REPAIR_DEPTH = 512


def _reject_constant(name: str) -> Any:
    # Python's json accepts NaN/Infinity; JSON does not.
    raise ValueError(f"{name} is not JSON")


# One decoder for every call: ``json.loads(..., parse_constant=...)`` builds a new one each time.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except RecursionError:  # "[[[[..." thousands deep: an answer, not a reason to crash
        raise ValueError("the JSON is nested too deeply") from None


@dataclass
class Repair:
    kind: str  # "trailing-comma" | "control-character" | "bare-word"
    path: str
    detail: str


@dataclass
class ParseResult:
    value: Any = None
    ok: bool = False
    unwrapped: str | None = None          # "fence" | "prose" when S002 applies
    repairs: list[Repair] = field(default_factory=list)
    error: str | None = None              # S001 message when not ok
    #: Work done, in characters and pointer tokens visited (scanner steps plus
    #: characters handed to the JSON decoder): tests show linearity with it.
    steps: int = 0
    #: ``(pointer, what)`` for each string whose invalid text was replaced (S011).
    invalid_text: list[tuple[str, str]] = field(default_factory=list)


def _valid_scalar(token: str) -> bool:
    if token in ("true", "false", "null"):
        return True
    if token[0] in _NUMBER_START:
        try:
            return isinstance(loads(token), (int, float))
        except ValueError:
            return False
    return False


class _Repairer:
    """One pass over ``text`` that fixes the three lenient cases and tracks pointers."""

    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.repairs: list[Repair] = []
        # Frames: ["a", index] for arrays, ["o", key, expecting_key] for objects.
        self.stack: list[list[Any]] = []
        # The pointer of each open container, built once when it opens: a
        # pointer is then one concatenation, not a walk over the whole stack
        # (which made one repair per nesting level quadratic).
        self.prefixes: list[str] = []
        self.unclosed_string = False
        self.too_deep = False
        self.steps = 0

    def pointer(self) -> str:
        self.steps += 1
        if not self.stack:
            return ""
        token = self.stack[-1][1]
        return self.prefixes[-1] if token is None else self.prefixes[-1] + "/" + jp.escape(token)

    def container_pointer(self) -> str:
        """Pointer of the innermost open array or object (where a trailing comma sits)."""
        self.steps += 1
        return self.prefixes[-1] if self.stack else ""

    def _open(self, frame: list[Any]) -> bool:
        if len(self.stack) >= MAX_REPAIR_DEPTH:
            self.too_deep = True
            return False
        self.prefixes.append(self.pointer())
        self.stack.append(frame)
        return True

    def _in_key_position(self) -> bool:
        return bool(self.stack) and self.stack[-1][0] == "o" and self.stack[-1][2]

    def run(self) -> str:
        text, n, i = self.text, len(self.text), 0
        out = self.out
        while i < n:
            self.steps += 1
            c = text[i]
            if c == '"':
                i = self._string(i)
                continue
            if c in _WS:
                out.append(c)
                i += 1
                continue
            if c == "[":
                if not self._open(["a", 0]):
                    break
                out.append(c)
            elif c == "{":
                if not self._open(["o", None, True]):
                    break
                out.append(c)
            elif c in "]}":
                if self.stack:
                    self.stack.pop()
                    self.prefixes.pop()
                out.append(c)
            elif c == ":":
                if self.stack and self.stack[-1][0] == "o":
                    self.stack[-1][2] = False
                out.append(c)
            elif c == ",":
                j = i + 1
                while j < n and text[j] in _WS:
                    j += 1
                self.steps += j - i
                if j < n and text[j] in "]}":
                    self.repairs.append(Repair("trailing-comma", self.container_pointer(), "removed a trailing comma"))
                    i += 1
                    continue
                if self.stack:
                    top = self.stack[-1]
                    if top[0] == "a":
                        top[1] += 1
                    else:
                        top[1], top[2] = None, True
                out.append(c)
            else:
                i = self._bare(i)
                continue
            i += 1
        return "".join(out)

    def _string(self, start: int) -> int:
        text, n = self.text, len(self.text)
        i = start + 1
        piece = ['"']
        fixed = False
        while i < n:
            c = text[i]
            if c == "\\" and i + 1 < n:
                piece.append(text[i:i + 2])
                i += 2
                continue
            if c == '"':
                piece.append(c)
                i += 1
                break
            if c < " ":
                piece.append(_ESCAPES.get(c, f"\\u{ord(c):04x}"))
                fixed = True
            else:
                piece.append(c)
            i += 1
        else:
            self.unclosed_string = True
        self.steps += i - start
        literal = "".join(piece)
        if self._in_key_position():
            try:
                self.stack[-1][1] = loads(literal)
            except ValueError:
                self.stack[-1][1] = literal.strip('"')
        elif fixed:
            self.repairs.append(Repair("control-character", self.pointer(),
                                       "escaped a raw control character inside a string"))
        self.out.append(literal)
        return i

    def _bare(self, start: int) -> int:
        text, n = self.text, len(self.text)
        i = start
        while i < n and text[i] not in ',]}\n:{["':
            i += 1
        self.steps += i - start
        token = text[start:i].rstrip()
        if token and not _valid_scalar(token) and not self._in_key_position():
            self.repairs.append(Repair("bare-word", self.pointer(), f"quoted the bare word {token!r}"))
            self.out.append(json.dumps(token, ensure_ascii=False))
            self.out.append(text[start + len(token):i])
        else:
            self.out.append(text[start:i] if i > start else text[start])
            if i == start:
                i += 1
        return i


def _find_fenced(text: str) -> str | None:
    start = text.find("```")
    while start >= 0:
        body_start = text.find("\n", start)
        if body_start < 0:
            return None
        end = text.find("```", body_start)
        body = text[body_start + 1:end if end >= 0 else len(text)]
        if body.lstrip()[:1] in ("[", "{"):
            return body
        if end < 0:
            return None
        start = text.find("```", end + 3)
    return None


def _find_prose_array(text: str) -> str | None:
    """The span from the first ``[`` that opens an array of objects (or ``[]``) to the last ``]``."""
    i = text.find("[")
    while i >= 0:
        j = i + 1
        while j < len(text) and text[j] in _WS:
            j += 1
        if j < len(text) and text[j] in "{]":
            end = text.rfind("]")
            return text[i:end + 1] if end > i else text[i:]
        i = text.find("[", i + 1)
    return None


def parse_output(raw: Any) -> ParseResult:
    """Turn whatever the LLM returned into a JSON value; report how."""
    work = [0]
    from_bytes = isinstance(raw, (bytes, bytearray))
    if from_bytes:
        # A byte that is not UTF-8 becomes a lone surrogate, found and reported as S011 at its pointer.
        raw = bytes(raw).decode("utf-8", errors="surrogateescape")
    result = _parse_output(raw, work)
    result.steps = work[0]
    if result.ok:
        _replace_invalid_text(result, raw, from_bytes)
    return result


def _replace_invalid_text(result: ParseResult, raw: Any, from_bytes: bool) -> None:
    """S011: lone surrogates, NUL, control characters and non-UTF-8 bytes become U+FFFD."""
    owned = isinstance(raw, str)  # parsed here: fixed in place; else the caller's value, copied on write
    if owned and not textcheck.may_hold_invalid(raw):
        return  # the common case: one C-speed scan of the raw text proves it clean
    result.value, result.invalid_text = textcheck.replace_invalid(result.value, owned=owned, from_bytes=from_bytes)
    if result.invalid_text:
        for repair in result.repairs:
            repair.path = textcheck.clean_pointer(repair.path)


def _counted(decode: Any, text: str, work: list[int]) -> Any:
    work[0] += len(text)  # one decoder pass over the text
    return decode(text)


def _parse_output(raw: Any, work: list[int]) -> ParseResult:
    if not isinstance(raw, str):
        return ParseResult(value=raw, ok=True)
    text = raw.strip().lstrip("\ufeff")
    if not text:
        return ParseResult(error="the output is empty")
    try:
        return ParseResult(value=_counted(loads, text, work), ok=True)
    except ValueError:
        pass
    candidate, unwrapped = text, None
    if text[0] in "[{":
        end = text.rfind("]" if text[0] == "[" else "}")
        if 0 < end < len(text) - 1:  # prose after the JSON
            candidate, unwrapped = text[:end + 1], "prose"
            try:
                return ParseResult(value=_counted(loads, candidate, work), ok=True, unwrapped=unwrapped)
            except ValueError:
                pass
    else:
        fenced = _find_fenced(text)
        if fenced is not None:
            candidate, unwrapped = fenced.strip(), "fence"
        else:
            prose = _find_prose_array(text)
            if prose is None:
                return ParseResult(error="no JSON array found in the output")
            candidate, unwrapped = prose.strip(), "prose"
        try:
            return ParseResult(value=_counted(loads, candidate, work), ok=True, unwrapped=unwrapped)
        except ValueError:
            pass
    repairer = _Repairer(candidate)
    repaired = repairer.run()
    work[0] += repairer.steps
    if repairer.too_deep:
        return ParseResult(unwrapped=unwrapped,
                           error=f"the JSON is nested more than {MAX_REPAIR_DEPTH} levels deep")
    if repairer.unclosed_string or repairer.stack:
        return ParseResult(unwrapped=unwrapped,
                           error="the output is cut off: an array, object or string is never closed")
    try:
        value = _counted(loads, repaired, work)
    except ValueError as exc:
        return ParseResult(unwrapped=unwrapped, error=f"not valid JSON even after lenient repair: {exc}")
    if not repairer.repairs and unwrapped is None:
        return ParseResult(error="not valid JSON")
    return ParseResult(value=value, ok=True, unwrapped=unwrapped, repairs=repairer.repairs)
