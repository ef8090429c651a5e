"""Where a memory's words come from: folding obfuscations, and the untrusted text of a batch.

P003 judges an instruction by its ORIGIN, not by what the memory cites: a
directive whose command, URL or text comes from a tool message (or from
text a user only quoted) anywhere in the batch -- new or background
messages -- is injected, whichever message the model cited. I011 asks the
neighbouring question of provenance: does another message than the cited
ones say the claim?

Attackers hide directives from word lists: ``ｉｇｎｏｒｅ`` (full-width),
``ig\u200bnore`` (zero-width), ``i g n o r e`` / ``忽 略 之 前`` (spacing).
:func:`fold` undoes all three before anything is matched: NFKC,
invisible characters removed, letter-spaced words and spaced CJK joined,
white space runs collapsed (line breaks kept: injected text is judged per
line).
"""

from __future__ import annotations

import re
import unicodedata

# Characters that render as nothing (zero-width space/joiners, marks, BOM, soft hyphen...).
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad"
                                    "\u180e\u034f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
                           None)
_INVISIBLE_CHARS = "".join(map(chr, _INVISIBLE))
# One search instead of a membership test per invisible character (a generator, ~4 µs a text).
_ANY_INVISIBLE = re.compile(f"[{re.escape(_INVISIBLE_CHARS)}]")
# Two or more single letters or digits, one space apart: "i g n o r e", "t o".
_SPACED_LETTERS = re.compile(r"(?<![^\W_])(?:[^\W_][ \t]){1,200}[^\W_](?![^\W_])")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_SPACED_CJK = re.compile(f"(?<=[{_CJK}])[ \\t]{{1,3}}(?=[{_CJK}])")
_BLANKS = re.compile(r"[ \t\u00a0\u3000]{2,}|[\t\u00a0\u3000]")


def fold(text: str) -> str:
    """``text`` with full-width forms, invisible characters and spacing tricks undone (case kept)."""
    if not text.isascii():
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
        if _ANY_INVISIBLE.search(text) is not None:
            text = text.translate(_INVISIBLE)
        if " " in text or "\t" in text:
            text = _SPACED_CJK.sub("", text)
    # After NFKC no no-break or ideographic space is left (both fold to " "), so a text
    # without a space or a tab has nothing to join or collapse.
    if " " in text or "\t" in text:
        text = _SPACED_LETTERS.sub(_joined, text)
        text = _BLANKS.sub(" ", text)
    return text


_SPACE_OR_TAB = re.compile(r"[ \t]")


def _joined(m: re.Match[str]) -> str:
    return _SPACE_OR_TAB.sub("", m.group(0))


# --- what makes a line of untrusted text an injection attempt ------------------------

#: Downloads run by a shell: ``curl … | sh``, ``wget … | sudo bash``, ``bash <(curl …)``,
#: ``sh -c "$(curl …)"``, PowerShell ``iex (iwr …)``.
RUN_REMOTE = re.compile(
    r"\|\s{0,3}(?:sudo\s{1,3}(?:-\S{1,20}\s{1,3}){0,3})?(?:ba|z|da|k|fi)?sh\b"
    r"|\b(?:ba|z|da)?sh\s{1,3}<\(\s{0,3}(?:curl|wget)\b"
    r"|\$\(\s{0,3}(?:curl|wget)\b"
    r"|(?i:\b(?:iex|invoke-expression)\b[^\n]{0,120}\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b)")
_DESTINATION = re.compile(r"https?://|[\w.+-]@[\w-]{1,63}\.")


class _Matcher:  # what a word-list matcher offers here (memvet.rules._wordmatch.WordMatcher)
    def search(self, text: str) -> object: ...


def sends_secrets(line: str, send_words: _Matcher, secret_words: _Matcher) -> bool:
    """A line that tells someone to send secrets (or the code) to a URL or an address."""
    return (_DESTINATION.search(line) is not None and send_words.search(line) is not None
            and secret_words.search(line) is not None)


def runs_remote(line: str) -> bool:
    """A line that runs a download in a shell."""
    shell_like = "|" in line or "<(" in line or "$(" in line or "iex" in line.lower() or "invoke" in line.lower()
    return shell_like and RUN_REMOTE.search(line) is not None


def weakens_safeguards(line: str, disable_words: _Matcher, safeguard_words: _Matcher) -> bool:
    """A line that tells to switch a safeguard off: ``--no-verify``, 关闭 pre-commit 检查, skip code review."""
    return "--no-verify" in line or (disable_words.search(line) is not None
                                     and safeguard_words.search(line) is not None)


def dangerous(line: str, send_words: _Matcher, secret_words: _Matcher,
              disable_words: _Matcher | None = None, safeguard_words: _Matcher | None = None) -> bool:
    """A line that runs a download, ships secrets away or switches a safeguard off -- an
    injection whoever it addresses (the last only when both word lists are given)."""
    return (runs_remote(line) or sends_secrets(line, send_words, secret_words)
            or (disable_words is not None and safeguard_words is not None
                and weakens_safeguards(line, disable_words, safeguard_words)))
