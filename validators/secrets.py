"""One batch-wide set of secrets, redacted in every channel of a report.

A privacy rule that finds a credential or a piece of personal data anywhere
in the batch -- the answer (every string: content, metadata keys and values
at any depth, ids, scene names and reasons, fields the contract does not
know) or the context (message texts, ids, session keys, pool labels,
existing memories) -- registers it here. The engine then replaces every
exact occurrence of every registered value in every violation message, fix
op (values and keys at any depth), record and the output: a value is
screened first (its JSON text searched for each secret), a string searched
for each secret as a substring, and only a string holding several is
rewritten by a regex alternation of those, longest first, so a secret that
contains another is replaced whole. Formatters show offending
values from the original answer through :func:`describe` (kind and length,
never the value).

The walks are iterative: a value nested thousands deep never makes them
raise RecursionError.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

import ahocorasick

_KIND = re.compile(r"\[REDACTED:([^\]]+)\]")
#: ``ctx.scratch`` key of the batch-wide secrets: ``{rule code: SecretSet}`` (set by the engine).
BATCH_SECRETS = "memvet.batch-secrets"


class SecretSet:
    """``{secret: placeholder}``; each text is first searched for each secret as a plain substring.

    Most texts hold none of a batch's few secrets: they cost one substring
    search per secret and come back as the same object. Past
    :data:`AUTOMATON_FROM` secrets, one Aho-Corasick pass over the text
    finds them instead (a substring search per secret per text made a
    large answer with many secrets quadratic); the results are the same. A text that holds
    exactly one secret is replaced with ``str.replace`` (what the alternation
    would do when only one of its words occurs); only a text that holds
    several is rewritten by a compiled alternation of the secrets it holds,
    longest first, so a secret that contains another is replaced whole.
    """

    __slots__ = ("placeholders", "_words", "_escaped", "_size", "_patterns", "_finder", "_escaped_finder")

    def __init__(self, placeholders: dict[str, str] | None = None):
        self.placeholders: dict[str, str] = dict(placeholders or {})
        self._words: tuple[str, ...] = ()
        self._escaped: tuple[str, ...] = ()
        self._size = -1
        self._patterns: dict[tuple[str, ...], re.Pattern[str]] = {}
        self._finder: Any = None  # an automaton over _words (payload: rank), from AUTOMATON_FROM secrets on
        self._escaped_finder: Any = None

    def add(self, secret: str, placeholder: str) -> None:
        if secret and secret not in self.placeholders:
            self.placeholders[secret] = placeholder

    def update(self, mapping: dict[str, str]) -> None:
        for secret, placeholder in mapping.items():
            self.add(secret, placeholder)

    def __bool__(self) -> bool:
        return bool(self.placeholders)

    def __len__(self) -> int:
        return len(self.placeholders)

    def _refresh(self) -> tuple[str, ...]:
        # Sorted again only when secrets were added since the last use.
        if self._size != len(self.placeholders):
            self._words = tuple(sorted((s for s in self.placeholders if s), key=len, reverse=True))
            self._escaped = tuple(dict.fromkeys(map(_escaped, self._words)))
            self._size = len(self.placeholders)
            large = len(self._words) >= AUTOMATON_FROM
            self._finder = _automaton(self._words) if large else None
            self._escaped_finder = _automaton(self._escaped) if large else None
        return self._words

    def _present(self, text: str) -> list[str]:
        """The secrets occurring in ``text``, longest first."""
        words = self._refresh()
        if self._finder is None:
            return [s for s in words if s in text]
        return [words[rank] for rank in sorted({rank for _, rank in self._finder.iter(text)})]

    def _pattern(self, present: list[str]) -> re.Pattern[str]:
        key = tuple(present)
        pattern = self._patterns.get(key)
        if pattern is None:
            pattern = self._patterns[key] = re.compile("|".join(map(re.escape, present)))
        return pattern

    def holds(self, text: str) -> bool:
        words = self._refresh()
        if self._finder is None:
            return any(s in text for s in words)
        return next(self._finder.iter(text), None) is not None

    def scrub(self, text: str) -> str:
        if not text:
            return text
        present = self._present(text)
        if not present:
            return text
        placeholders = self.placeholders
        if len(present) == 1:
            return text.replace(present[0], placeholders[present[0]])
        return self._pattern(present).sub(lambda m: placeholders[m.group(0)], text)

    def describe(self, text: str) -> str:
        """``text`` with each secret replaced by its kind and length (``[REDACTED:github-token, 40
        characters]``): what a message says of a bad value that is a secret."""
        if not text:
            return text
        present = self._present(text)
        if not present:
            return text
        placeholders = self.placeholders

        def shown(secret: str) -> str:
            placeholder = placeholders[secret]
            return f"{placeholder[:-1]}, {len(secret)} characters]" if placeholder.endswith("]") else placeholder

        if len(present) == 1:
            return text.replace(present[0], shown(present[0]))
        return self._pattern(present).sub(lambda m: shown(m.group(0)), text)

    def found(self, text: str) -> list[str]:
        """The secrets occurring in ``text`` (leftmost-longest, each once)."""
        present = self._present(text)
        if len(present) <= 1:
            return present
        return list(dict.fromkeys(self._pattern(present).findall(text)))

    def scrub_value(self, value: Any) -> Any:
        """A copy of a JSON value with every string (and every key) scrubbed.

        A value that holds no secret (the usual case) is screened in one C
        pass over its JSON text and comes back as the same object, as
        :func:`map_strings` would give it.
        """
        if not self.placeholders:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, (dict, list)) and not self._may_hold_value(value):
            return value
        return map_strings(value, self.scrub)

    def _may_hold_value(self, value: Any) -> bool:
        """False only when no string or key of ``value`` holds a secret.

        JSON escapes character by character, so a string holding a secret
        holds its escaped form in the dump; a value the encoder refuses (too
        deep, not JSON) is walked instead.
        """
        try:
            dumped = _SCREEN_ENCODER.encode(value)
        except (RecursionError, ValueError, TypeError, OverflowError):
            return True
        self._refresh()
        if self._escaped_finder is None:
            return any(s in dumped for s in self._escaped)
        return next(self._escaped_finder.iter(dumped), None) is not None


#: From this many secrets on, a text is searched by one automaton instead of once per secret.
AUTOMATON_FROM = 8


def _automaton(words: tuple[str, ...]) -> Any:
    """An Aho-Corasick automaton of ``words``; each match's payload is the word's rank in ``words``."""
    automaton = ahocorasick.Automaton()
    for rank, word in enumerate(words):
        automaton.add_word(word, rank)
    automaton.make_automaton()
    return automaton


# Built once: a fresh encoder per dump would cost as much as a small value's dump.
_SCREEN_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False, default=repr)


def _escaped(secret: str) -> str:
    """``secret`` as it reads inside a JSON string."""
    return json.dumps(secret, ensure_ascii=False)[1:-1]


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """``value`` with ``fn`` applied to every string and object key, at any depth (no recursion).

    Containers are rebuilt only where something changed, so a clean value
    comes back as the same object.
    """
    if isinstance(value, str):
        return fn(value)
    if not isinstance(value, (dict, list)):
        return value
    # Post-order walk with an explicit stack: (container, iterator of items, rebuilt items, changed).
    root_box: list[Any] = [None]
    stack: list[list[Any]] = [[value, _items(value), [], False, root_box, 0]]
    while stack:
        frame = stack[-1]
        node, items = frame[0], frame[1]
        pushed = False
        for key, child in items:
            new_key = fn(key) if isinstance(key, str) and isinstance(node, dict) else key
            if isinstance(child, (dict, list)):
                frame[2].append([new_key, None])
                if new_key != key:
                    frame[3] = True
                stack.append([child, _items(child), [], False, frame[2][-1], 1])
                pushed = True
                break
            new_child = fn(child) if isinstance(child, str) else child
            frame[2].append([new_key, new_child])
            if new_child is not child or new_key != key:
                frame[3] = True
        if pushed:
            continue
        stack.pop()
        changed = frame[3]
        if changed:
            built: Any = ({k: v for k, v in frame[2]} if isinstance(node, dict) else [v for _, v in frame[2]])
        else:
            built = node
        target, slot = frame[4], frame[5]
        target[slot] = built
        if stack and built is not node:
            stack[-1][3] = True
    return root_box[0]


def _items(value: Any) -> Iterator[tuple[Any, Any]]:
    return iter(value.items()) if isinstance(value, dict) else iter(enumerate(value))


def iter_strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, object keys included, at any depth (no recursion)."""
    return iter(strings_of(value))


def strings_of(value: Any) -> list[str]:
    """:func:`iter_strings` as a list, built in one loop (the batch scan walks every answer)."""
    out: list[str] = []
    emit, emit_all = out.append, out.extend
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        cls = node.__class__
        # Exact JSON types first (what a parsed answer holds), subclasses after.
        if cls is str:
            emit(node)
        elif cls is dict or (cls is not list and isinstance(node, dict)):
            # The keys in order, then the values onto the stack: what emitting each key and
            # pushing its value in turn would do.
            emit_all([k for k in node if isinstance(k, str)])
            extend(node.values())
        elif cls is list or isinstance(node, tuple) or isinstance(node, list):
            extend(node)
        elif isinstance(node, str):
            emit(node)
    return out


def is_placeholder_only(scrubbed: str) -> bool:
    """The scrubbed text is nothing but placeholders (and white space): the value was all secret."""
    return not _KIND.sub("", scrubbed).strip()


def describe(original: Any, scrubbed: str) -> str:
    """A string value that held a secret, described by kind and length (``<github-token, 40 characters>``)."""
    kinds = list(dict.fromkeys(_KIND.findall(scrubbed)))
    what = ", ".join(kinds) or "secret"
    if isinstance(original, str):
        if is_placeholder_only(scrubbed):
            return f"<{what}, {len(original)} characters>"
        return f"<text of {len(original)} characters holding {what}>"
    return f"<value holding {what}>"


def collect(finders: list[tuple[str, Callable[[str], list[tuple[str, str]]]]], strings: Any,
            placeholder: Callable[[str], str]) -> dict[str, SecretSet]:
    """``{code: SecretSet}`` of what each finder ``(code, find)`` finds in ``strings`` (each scanned once)."""
    out: dict[str, SecretSet] = {}
    # One scan over every distinct string, joined by a separator no detector reads
    # across (a NUL between line breaks: no token, address, number or key value
    # holds it), instead of one call per string: a context has thousands of them.
    distinct = [s for s in dict.fromkeys(strings) if s]
    text = _SEPARATOR.join(distinct)
    if not text:
        return out
    for code, find in finders:
        scanned = _candidates(find, distinct, text)
        if scanned is None:
            continue
        found = SecretSet()
        for value, kind in find(scanned):
            if _SEPARATOR not in value:
                found.add(value, placeholder(kind))
        if found:
            out[code] = found
    return out


def _candidates(find: Callable[[str], Any], distinct: list[str], text: str) -> str | None:
    """What ``find`` must scan of ``text`` (``distinct`` joined): ``text`` cut to the strings that
    may hold a value when the finder's rule has a ``may_hold`` screen, None when none may.

    A finder screens its text first and then runs every detector whose
    literal occurs ANYWHERE in it over ALL of it: on an answer with a few
    secrets that is every detector over every string. ``may_hold`` is a
    necessary condition of a find, so a text it rules out is skipped after
    the one pass the finder would have made anyway. A rule whose forms
    never read past a line break into the next string
    (``scans_each_string_alone``) is given only the strings ``may_hold``
    lets through, still joined in their order: that changes nothing it
    finds, nor the order of the finds.
    """
    rule = getattr(find, "__self__", None)
    may_hold = getattr(rule, "may_hold", None)
    if not callable(may_hold):
        return text
    if not may_hold(text):
        return None  # the usual case: what find would answer after this same pass
    if len(distinct) < 2 or not getattr(rule, "scans_each_string_alone", False):
        return text
    return _SEPARATOR.join(s for s in distinct if may_hold(s))


_SEPARATOR = "\n\x00\n"


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# Words a secret shares with the text it was copied from: runs of letters, digits
# and the few marks tokens, addresses and numbers are made of.
_WORD = re.compile(r"[A-Za-z0-9_+.-]{6,}")
_DIGIT = re.compile(r"\d")
_INNER_UPPER = re.compile(r".[A-Z]")


def _generated(word: str) -> bool:
    """A word that may be (part of) a generated value: a digit, or a capital inside it.

    What every detector finds without a word around it looks like this
    (tokens, keys, passwords, numbers); an address or a name copied bare
    into the answer is found there by the detectors themselves.
    """
    return _DIGIT.search(word) is not None or (_INNER_UPPER.search(word) is not None and not word.isupper())


class ContextLines:
    """A batch context's strings for the secret scan.

    ``fixed``: every string but the message texts (ids, session keys, pool
    labels, existing memories, known projects), always scanned. Of the
    message texts only the lines holding a word of the answer are scanned:
    a value found nowhere in the answer reaches no report, record or
    message (the engine copies nothing else of the context but session
    keys), and the one found is redacted wherever the answer copies it. A
    text holding a private key block is scanned whole (the block spans
    lines).
    """

    __slots__ = ("fixed", "texts", "_joined")

    def __init__(self, batch: Any):
        dumped = batch.model.model_dump()
        messages = [*dumped.pop("messages", []), *dumped.pop("background", [])]
        contents = [m.pop("content", "") for m in messages]
        self.fixed: list[str] = [*strings_of(dumped), *strings_of(messages)]
        self.texts: list[str] = []
        for text in contents:
            if isinstance(text, str) and text:
                (self.fixed if "PRIVATE KEY" in text else self.texts).append(text)
        # Every text in one string: a word found in none of them is ruled out by one search.
        # (No word holds a NUL, so it is in the joined string exactly when it is in a text.)
        self._joined = "\x00".join(self.texts)

    def relevant(self, answer_strings: list[str]) -> list[str]:
        """The fixed strings, plus every line of a message text holding a word of ``answer_strings``."""
        # One search over the strings joined by a line break (no word holds one), each word judged once.
        joined = self._joined
        words = {w for w in set(_WORD.findall("\n".join(answer_strings))) if w in joined and _generated(w)}
        out = list(self.fixed)
        if not words:
            return out
        for text in self.texts:
            hits = [w for w in words if w in text]  # substring searches in C: no per-line work for most texts
            if hits:
                out.extend(line for line in text.split("\n") if any(w in line for w in hits))
        return out
