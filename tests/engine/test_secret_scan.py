"""The batch-wide secret set stays cheap without changing what it finds or writes.

:class:`memvet.secrets.SecretSet` searches each secret as a substring and
uses ``str.replace`` when a text holds one secret; ``scrub_value`` screens a
value's JSON text before walking it; :func:`memvet.secrets.collect` skips a
finder whose screen rules the batch out and gives P001 only the strings its
screen lets through. Each shortcut is checked here against the plain
definition it replaces: one regex alternation of every secret, longest
first, over every string; every string of the batch joined and scanned.
"""

from __future__ import annotations

import json
import random
import re
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memvet.engine import _default_engine
from memvet.secrets import AUTOMATON_FROM, SecretSet, collect, map_strings, placeholder

# --- SecretSet against the alternation it stands for ---------------------------

_ALPHABET = "ab\"\\\n/~é"


def _alternation(secrets: dict[str, str]) -> re.Pattern[str] | None:
    words = sorted((s for s in secrets if s), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, words))) if words else None


def _reference_scrub(secrets: dict[str, str], text: str) -> str:
    pattern = _alternation(secrets)
    return pattern.sub(lambda m: secrets[m.group(0)], text) if pattern and text else text


def _reference_found(secrets: dict[str, str], text: str) -> list[str]:
    pattern = _alternation(secrets)
    return list(dict.fromkeys(pattern.findall(text))) if pattern else []


secret_texts = st.text(alphabet=_ALPHABET, min_size=1, max_size=4)
texts = st.text(alphabet=_ALPHABET, max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(secret_texts, st.sampled_from(["[REDACTED:api-key]", "[REDACTED:email]", "***"]),
                       max_size=4), texts)
def test_scrub_describe_found_holds_match_the_alternation(secrets: dict[str, str], text: str) -> None:
    # Short secrets over a tiny alphabet: they overlap, nest and repeat in the text.
    s = SecretSet(secrets)
    assert s.scrub(text) == _reference_scrub(secrets, text)
    assert s.found(text) == _reference_found(secrets, text)
    assert s.holds(text) == bool(_reference_found(secrets, text))
    shown = {k: (f"{v[:-1]}, {len(k)} characters]" if v.endswith("]") else v) for k, v in secrets.items()}
    assert s.describe(text) == _reference_scrub(shown, text)


def test_a_secret_added_later_is_searched_too() -> None:
    s = SecretSet({"abc": "[REDACTED:a]"})
    assert s.scrub("abcd") == "[REDACTED:a]d"
    s.add("abcd", "[REDACTED:b]")
    assert s.scrub("abcd abc") == "[REDACTED:b] [REDACTED:a]"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(secret_texts, st.sampled_from(["[REDACTED:api-key]", "***"]), min_size=AUTOMATON_FROM,
                       max_size=AUTOMATON_FROM + 6), texts, json_values)
def test_many_secrets_are_found_by_the_automaton_as_by_the_alternation(secrets: dict[str, str], text: str,
                                                                       value: Any) -> None:
    # From AUTOMATON_FROM secrets on, one Aho-Corasick pass replaces the search per secret.
    s = SecretSet(secrets)
    assert s.scrub(text) == _reference_scrub(secrets, text)
    assert s.found(text) == _reference_found(secrets, text)
    assert s.holds(text) == bool(_reference_found(secrets, text))
    assert s._finder is not None
    walked = map_strings(value, lambda t: _reference_scrub(secrets, t))
    assert s.scrub_value(value) == walked


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(secret_texts, st.just("[REDACTED:x]"), min_size=1, max_size=3), json_values)
def test_scrub_value_is_the_walk_and_keeps_a_clean_value(secrets: dict[str, str], value: Any) -> None:
    s = SecretSet(secrets)
    walked = map_strings(value, lambda text: _reference_scrub(secrets, text))
    scrubbed = s.scrub_value(value)
    assert scrubbed == walked
    if walked is value:  # nothing to redact: the very object comes back, nothing copied
        assert scrubbed is value


def test_scrub_value_finds_a_secret_that_json_escapes() -> None:
    # Quotes, backslashes and line breaks read differently in the JSON text the screen searches.
    secret = 'p"w\\d\n9'
    value = {"k": [{"deep " + secret: "x"}, "and " + secret]}
    assert SecretSet({secret: "[REDACTED:password]"}).scrub_value(value) == \
        {"k": [{"deep [REDACTED:password]": "x"}, "and [REDACTED:password]"]}


def test_scrub_value_walks_a_value_too_deep_for_the_json_encoder() -> None:
    value: Any = "sk-secret-1"
    for _ in range(5000):
        value = [value]
    out = SecretSet({"sk-secret-1": "[REDACTED:api-key]"}).scrub_value(value)
    for _ in range(5000):
        out = out[0]
    assert out == "[REDACTED:api-key]"


# --- collect against scanning every string joined ------------------------------

_FINDERS = _default_engine().secret_finders()
_SEPARATOR = "\n\x00\n"


def _reference_collect(strings: list[str]) -> dict[str, list[tuple[str, str]]]:
    text = _SEPARATOR.join(dict.fromkeys(s for s in strings if s))
    out: dict[str, list[tuple[str, str]]] = {}
    for code, find in _FINDERS:
        found: dict[str, str] = {}
        for value, kind in (find(text) if text else []):
            if _SEPARATOR not in value:
                found.setdefault(value, placeholder(kind))
        if found:
            out[code] = list(found.items())
    return out


def _token(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size - 1)) + "7"


_CLEAN = ["content", "metadata", "m10", "sc0002", "部署流程先跑迁移再发布", "docs/design/api.md", "priority",
          "the retry budget is 3", "taskState", "2026-12-06T18:00:00Z", "owner: 张伟", "v2 report exporter"]


def _pieces(rng: random.Random) -> list[str]:
    token = "ghp_" + _token(rng, 36)
    return [token, token[:18] + " " + token[18:], token[:18], token[18:], "password = " + _token(rng, 14),
            "password", "=", _token(rng, 14), f"postgres://admin:{_token(rng, 12)}@db.internal:5432/app",
            "aws_secret_access_key=" + _token(rng, 40), "-----BEGIN RSA PRIVATE KEY-----", "MIIEow" + _token(rng, 30),
            "-----END RSA PRIVATE KEY-----", "Z2hwX2FiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6MDEyMzQ1", "13800138000",
            "手机号", "tel:", "zhang.wei@corp-mail.cn", "110101199003077578", "Bearer ", "\n", " "]


def test_collect_finds_what_scanning_every_string_joined_finds() -> None:
    rng = random.Random(20261201)
    with_finds = 0
    for _ in range(400):
        strings = [rng.choice(_CLEAN) for _ in range(rng.randrange(1, 8))]
        for _ in range(rng.randrange(0, 4)):
            piece = rng.choice(_pieces(rng))
            at = rng.randrange(len(strings) + 1)
            if rng.random() < 0.4 and at < len(strings):  # glued to a neighbour, or on its own
                strings[at] = strings[at] + rng.choice(["", " ", "\n"]) + piece
            else:
                strings.insert(at, piece)
        got = {code: list(found.placeholders.items()) for code, found in collect(_FINDERS, strings, placeholder).items()}
        assert got == _reference_collect(strings), strings
        with_finds += bool(got)
    assert with_finds > 100  # the cases above hold secrets, not just clean text


def test_p001_is_given_only_the_strings_its_screen_lets_through() -> None:
    seen: list[str] = []
    code, find = next((c, f) for c, f in _FINDERS if c == "P001")

    class Recording:
        may_hold = staticmethod(find.__self__.may_hold)
        scans_each_string_alone = True

        def find_secrets(self, text: str) -> list[tuple[str, str]]:
            seen.append(text)
            return find(text)

    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7q"
    strings = [*_CLEAN, "deploy token " + token, *(f"clean note {i}" for i in range(50))]
    found = collect([(code, Recording().find_secrets)], strings, placeholder)
    assert list(found["P001"].placeholders) == [token]
    assert seen == ["deploy token " + token]  # one scan, of the one string that may hold a secret


def test_a_finder_whose_screen_rules_the_batch_out_is_not_called() -> None:
    calls: list[str] = []

    class Clean:
        def may_hold(self, text: str) -> bool:
            return False

        def find_secrets(self, text: str) -> list[tuple[str, str]]:
            calls.append(text)
            return []

    assert collect([("P001", Clean().find_secrets)], _CLEAN, placeholder) == {}
    assert calls == []
    # A finder without a screen still scans everything, joined.
    assert collect([("P009", lambda text: calls.append(text) or [])], _CLEAN, placeholder) == {}
    assert calls == [_SEPARATOR.join(_CLEAN)]
