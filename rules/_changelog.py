"""Shapes of a change log or process record that G001 reads beside its word lists.

Three questions, each general (no sentence of any session):

* does the memory cite a commit that this batch shows being made (a commit
  record: "提交 18f53ef：…", "… (commit 9a6175d)")?
* is a problem word only the object of the fix ("Fixed the column mismatch
  error", 解决了该文件的同步问题)? Then it names what was changed, not a
  cause or a pitfall, and keeps nothing;
* is a change verb a present passive that describes how code works ("the
  button is added via addButton()", "entries are removed when …"), not a
  change that was made?
"""

from __future__ import annotations

import re
from typing import Any

from memvet.rules import lexicon

#: A commit hash as models cite it: 7-40 hex digits with at least one digit and one letter
#: (G001 names it in its declaration: a cited commit needs no word of its lists).
COMMIT_HASH = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![0-9A-Za-z])")


def batch_commits(ctx: Any) -> frozenset[str]:
    """Short (7-digit) forms of every commit a tool message of the batch shows, once per batch."""
    def compute() -> frozenset[str]:
        facts = ctx.facts
        return frozenset(c[:7].lower() for m in ctx.batch.messages if m.role == "tool"
                         for c in facts.of(m).commits)
    return ctx.memo("memvet.changelog:commits", compute)


def cited_commit(ctx: Any, content: str) -> str | None:
    """A commit hash of ``content`` that a tool message of this batch shows being made, or None."""
    hashes = COMMIT_HASH.findall(content)
    if not hashes:
        return None  # the common case: no hash at all, no batch scan
    made = batch_commits(ctx)
    return next((h for h in hashes if h[:7].lower() in made), None)


def fixed_object_pattern(fix_verbs: list[str], problems: list[str]) -> re.Pattern[str] | None:
    """A fix verb followed, in the same clause, by a problem word: "fixed the X error", 修复了…问题."""
    verbs, nouns = lexicon.compile_words(fix_verbs), lexicon.compile_words(problems)
    if verbs is None or nouns is None:
        return None
    return re.compile(rf"(?:{verbs.pattern})[^,;:.!?，；：。！？\n]{{0,80}}?(?:{nouns.pattern})", re.IGNORECASE)


def descriptive_pattern(before: list[str]) -> re.Pattern[str] | None:
    """Words that, right before a change verb, make it a present passive ("is added via")."""
    words = lexicon.compile_words(before)
    return re.compile(rf"(?:{words.pattern})\s+$", re.IGNORECASE) if words is not None else None


_QUOTE = re.compile(r"['\"`“”‘’「」]")


# The name of an error: an exception class (TypingError, KeyError) or a compiler or linter code
# (TS2305, CS0165, E0382, IDE0051, F821).
_ERROR_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b|\b(?:TS|CS|IDE|CA|E|F)\d{3,5}\b")


def names_error(content: str) -> bool:
    """The content names an error by its class or code ("Fixed the Numba TypingError by …", TS2305): a
    narrated fix that does is a pitfall with its fix, a symptom a later session can recognise."""
    return _ERROR_NAME.search(content) is not None


def quotes_symptom(fixed_object: re.Pattern[str] | None, content: str) -> bool:
    """The fixed problem is told by the error text it printed ("Fixed the 'str' object has no
    attribute 'strftime' error"): a symptom a later session can recognise, not a bare change."""
    if fixed_object is None:
        return False
    return any(_QUOTE.search(m.group(0)) for m in fixed_object.finditer(content))
