"""Q -- quality: memories that say the same thing twice, or paste raw output.

Q001 looks at the whole output (pairs of memories); Q002 at one memory.
"""

from __future__ import annotations

import codecs
import math
import re
from collections import Counter
from functools import reduce
from itertools import chain, count, islice, pairwise, repeat
from operator import length_hint, lshift, or_
from typing import Any, Iterable

from memvet import pointer as jp
from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules import _text, lexicon
from memvet.rules._scripts import CJK_CHARS

# --- Q001 ---------------------------------------------------------------------------

#: A run of CJK characters (each one a token) or one Latin token.
_TOKEN_RUN = re.compile(rf"[{CJK_CHARS}]+|[a-z0-9]+(?:[._-][a-z0-9]+)*")


def tokens(text: str) -> list[str]:
    """The tokens of the normalised text: each CJK character, each Latin word (with ``._-`` joins)."""
    out: list[str] = []
    for run in _TOKEN_RUN.findall(_text.normalize(text)):
        if run[0] > "z":  # a CJK run (a Latin token starts with [a-z0-9])
            out.extend(run)
        else:
            out.append(run)
    return out


def shingles(text: str) -> frozenset[str]:
    """Token bigrams ("a b") of the normalised text (a CJK character or a Latin word is one token)."""
    toks = tokens(text)
    if len(toks) < 2:
        return frozenset(toks)
    return frozenset(map(" ".join, pairwise(toks)))  # C-level; strings keep their hash for the set work


# The check computes the same shingle sets in a cheaper form (the string shingles above
# stay the reference, and the path for many memories). Each token becomes one character:
# a CJK character stands for itself, a Latin word gets a code below the CJK block, so a
# memory is a string of token codes and a bigram is two adjacent codes packed into one int
# (read straight from the UTF-16 encoding). Each distinct bigram of the call then gets one
# bit, and a memory's shingle set is an int: its size is a popcount, an intersection one
# ``&`` and a popcount. One-to-one with the string shingles, so every size, intersection
# and score is the same. Only the prefix filter of many memories (step 3 of similar_pairs)
# depends on the shingles' text (it orders them): with more memories than that bound the
# check uses the string shingles.

#: Codes for Latin words, one per token occurrence: above [a-z0-9] (``max(token, code)``
#: picks the code, ``max(cjk_run, code)`` the run) and below the first CJK character.
_LATIN_CODES = "".join(map(chr, range(ord("z") + 1, 0x3040)))  # below the first kana
assert not re.search(f"[{CJK_CHARS}]", _LATIN_CODES)
#: Most token codes of one call on the bit path: masks stay a few hundred machine words.
_MAX_CODES = 1 << 14

#: ASCII bytes as a token sees them: letters lower-cased (what normalize() does to ASCII),
#: a character that is no part of a token ([a-z0-9._-]) a space.
_ASCII_TOKEN_BYTES = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 or c in b"._-" else 32
                           for c in range(256))
#: A ``._-`` that joins no token: not between two letters or digits.
_LOOSE_SEPARATOR = re.compile(r"[._-](?:(?<![a-z0-9][._-])|(?![a-z0-9]))")


def _ascii_tokens(text: str) -> list[str]:
    """:func:`tokens` of ASCII text, by ``bytes.translate`` and ``str.split`` (a regex match per token costs ~5x)."""
    spaced = text.encode("ascii").translate(_ASCII_TOKEN_BYTES).decode("ascii")
    if "." in spaced:  # the usual loose separator, the full stop, without a regex
        spaced = spaced.replace(". ", "  ")
        if spaced[-1] == ".":
            spaced = spaced[:-1]
    if "." in spaced or "-" in spaced or "_" in spaced:
        spaced = _LOOSE_SEPARATOR.sub(" ", spaced)
    return spaced.split()


def _bigram_masks(texts: list[str]) -> list[int] | None:
    """:func:`shingles` of each text as a bit mask (see above); None when the codes run out."""
    codes: dict[str, str] = {}  # Latin token -> its code, CJK run -> itself
    supply = iter(_LATIN_CODES)
    bit_of: dict[int, int] = {}  # packed bigram -> its bit
    fresh_bits = map(lshift, repeat(1), count())
    encode = codecs.utf_16_le_encode  # no surrogates: 2 bytes a code
    masks = []
    total = 0
    for text in texts:
        if not text.isascii():
            text = _text.normalize(text)
        if text.isascii():
            coded = "".join(map(codes.setdefault, _ascii_tokens(text), supply))
        else:  # CJK runs and Latin tokens; a run's characters are its tokens
            runs = _TOKEN_RUN.findall(text)
            coded = "".join(map(codes.setdefault, runs, map(max, runs, supply)))
        n = len(coded)
        total += n
        if total > _MAX_CODES:
            return None
        if n < 2:
            bigrams: Iterable[int] = map(ord, coded)  # < 2**16; a packed bigram is not
        else:
            raw = memoryview(encode(coded)[0])
            bigrams = chain(raw[: n // 2 * 4].cast("I"),  # codes 0-1, 2-3, ...
                            raw[2: 2 + (n - 1) // 2 * 4].cast("I"))  # codes 1-2, 3-4, ...
        masks.append(reduce(or_, map(bit_of.setdefault, bigrams, fresh_bits), 0))
    if not length_hint(supply):
        return None  # a text may have been cut short
    return masks


def _similar_masks(masks: list[int], threshold: float) -> dict[int, tuple[int, float]]:
    """:func:`similar_pairs` (steps 1 and 2) on shingle sets as bit masks: the same pairs and scores."""
    if len(masks) < 2:
        return {}
    seen_any = shared = 0
    for mask in masks:
        shared |= seen_any & mask
        seen_any |= mask
    if not shared:
        return {}
    sizes = [mask.bit_count() for mask in masks]
    eligible = [k for k, mask in enumerate(masks)
                if sizes[k] and (mask & shared).bit_count() >= math.ceil(threshold * sizes[k])]
    best: dict[int, tuple[int, float]] = {}
    for x in range(1, len(eligible)):  # as _compare_all
        k = eligible[x]
        s = masks[k]
        n = sizes[k]
        found = None
        for other in reversed(eligible[:x]):
            m = sizes[other]
            if (n < threshold * m) if n <= m else (m < threshold * n):
                continue
            inter = (s & masks[other]).bit_count()
            score = inter / (n + m - inter)
            if score >= threshold and (found is None or score > found[1]):
                found = (other, score)
        if found is not None:
            best[k] = found
    return best


def similar_pairs(sets: list[frozenset[str]], threshold: float, counter: dict[str, int] | None = None,
                  max_candidates: int = 64, *, all_pairs_up_to: int | None = None) -> dict[int, tuple[int, float]]:
    """For each set, its most similar EARLIER set with Jaccard >= ``threshold``.

    The answer of the plain all-pairs scan -- the highest score, on a tie the
    most recent earlier set -- with linear work, in three steps:

    1. *Eligibility* (exact): a pair reaching ``t`` shares at least
       ``ceil(t * |s|)`` shingles of each set, so a set with fewer shingles
       that occur in any other set is in no pair. Most outputs stop here or
       keep a few sets.
    2. *Few eligible sets* (up to ``max_candidates + 1``): each is compared
       with every earlier eligible set, most recent first (the size filter
       first: ``|s| >= t * |o|``).
    3. *Many eligible sets*: an exact copy is found by a dict lookup (score
       1.0, the most recent copy). Otherwise prefix filtering gives the
       candidates: with every set sorted rarest shingle first, two sets
       reaching ``t`` share a shingle among the first ``|s| - ceil(t*|s|) + 1``
       of each. They are taken rarest shingle first, then most recent first,
       and at most ``max_candidates`` per set: the bound that keeps
       template-like outputs (hundreds of memories that share most of their
       wording) linear. While it does not bind, the answer is exact. Before
       the exact intersection a 256-bit signature (one bit per shared
       shingle, by its rank modulo 256) rules a candidate out: the bits set
       in one signature only, plus the shingles no other set has, are a
       lower bound of the symmetric difference, which a pair reaching ``t``
       keeps under ``(1-t)/(1+t) * (|s|+|o|)``.

    ``counter["compared"]`` (when given) counts the exact intersections made;
    ``all_pairs_up_to`` moves the bound of step 2 (tests).
    """
    if len(sets) < 2:
        return {}
    seen_any: set[str] = set()
    shared: set[str] = set()
    for s in sets:
        shared.update(s.intersection(seen_any))
        seen_any.update(s)
    if not shared:
        return {}
    parts = {}  # eligible set -> its shingles that some other set has
    for k, s in enumerate(sets):
        own = s.intersection(shared)
        if s and len(own) >= math.ceil(threshold * len(s)):
            parts[k] = own
    if len(parts) < 2:
        return {}
    cap = max(max_candidates, 1)
    if len(parts) <= (cap + 1 if all_pairs_up_to is None else all_pairs_up_to):
        return _compare_all(sets, list(parts), threshold, counter)
    return _compare_candidates(sets, parts, threshold, cap, counter)


def _score(s: frozenset[str], o: frozenset[str], counter: dict[str, int] | None) -> float:
    if counter is not None:
        counter["compared"] = counter.get("compared", 0) + 1
    inter = len(s & o)
    return inter / (len(s) + len(o) - inter)


def _compare_all(sets: list[frozenset[str]], eligible: list[int], threshold: float,
                 counter: dict[str, int] | None) -> dict[int, tuple[int, float]]:
    best: dict[int, tuple[int, float]] = {}
    for x in range(1, len(eligible)):
        k = eligible[x]
        s = sets[k]
        n = len(s)
        found = None
        for other in reversed(eligible[:x]):  # most recent first: it keeps a tie
            o = sets[other]
            m = len(o)
            if (n < threshold * m) if n <= m else (m < threshold * n):
                continue  # the size filter: Jaccard cannot reach t
            score = _score(s, o, counter)
            if score >= threshold and (found is None or score > found[1]):
                found = (other, score)
        if found is not None:
            best[k] = found
    return best


def _compare_candidates(sets: list[frozenset[str]], parts: dict[int, frozenset[str]], threshold: float,
                        cap: int, counter: dict[str, int] | None) -> dict[int, tuple[int, float]]:
    frequency = Counter(chain.from_iterable(parts.values()))
    order = sorted(frequency)  # by shingle, then (stable) by frequency: the (frequency, shingle) order
    order.sort(key=frequency.__getitem__)
    rank = dict(zip(order, range(len(order))))
    # From here on a shingle is its rank (an int: one string lookup per shingle, then
    # list indexing and int sorting). A 256-bit signature of each set's shared
    # shingles (bit = rank mod 256): the bits set in one of two signatures only, plus
    # the shingles no other set has, are a lower bound of the symmetric difference.
    bit = [1 << (r & 255) for r in range(len(order))]
    slack = (1 - threshold) / (1 + threshold)
    index: dict[int, list[int]] = {}
    last_copy: dict[frozenset[str], int] = {}
    # Per set (by index; list indexing is the cheapest lookup in the filters below).
    signatures = [0] * len(sets)
    sizes = [0] * len(sets)
    scaled = [0.0] * len(sets)
    # The signature bound rearranged: popcount + (unshared - slack*size of the other)
    # <= slack*n - unique + 1e-9, one subtraction less per candidate (the margin covers
    # the rounding of the other order).
    loose = [0.0] * len(sets)
    none = repeat(None)
    best: dict[int, tuple[int, float]] = {}
    for k, own in parts.items():
        s = sets[k]
        n = len(s)
        unique = n - len(own)
        sizes[k] = n
        scaled[k] = threshold * n
        loose[k] = unique - slack * n
        ranks = sorted(map(rank.__getitem__, own))
        signatures[k] = sig = reduce(or_, map(bit.__getitem__, ranks), 0)
        # Shingles no other set has come first in the order and never make a candidate.
        prefix = ranks[: len(own) - math.ceil(threshold * n) + 1]
        copy = last_copy.get(s)
        last_copy[s] = k
        if copy is not None:
            best[k] = (copy, 1.0)  # nothing scores higher; the most recent copy keeps the tie
        else:
            # The first ``cap`` distinct candidates: rarest shingle first, then the
            # most recent set that has it.
            candidates: dict[int, None] = {}
            for g in prefix:
                postings = index.get(g)
                if postings is not None:
                    # Only the most recent ``cap`` sets of a posting list can be among the
                    # first ``cap`` new candidates (at most len(candidates) of them are
                    # repeats): the same candidates, and no quadratic walk over long lists.
                    candidates.update(zip(reversed(postings[-cap:]), none))
                    if len(candidates) >= cap:
                        break
            # The size filter (Jaccard cannot reach t), then the signature bound (more
            # differences than t allows), as one comprehension: dozens of candidates
            # per set on template-like outputs, few survive.
            tn = threshold * n
            room = slack * n - unique + 1e-9
            survivors = [other for other in (islice(candidates, cap) if len(candidates) > cap else candidates)
                         if scaled[other] <= n and tn <= sizes[other]
                         and (sig ^ signatures[other]).bit_count() + loose[other] <= room]
            found = None
            for other in survivors:
                score = _score(s, sets[other], counter)
                if score >= threshold and (found is None or score > found[1]
                                           or (score == found[1] and other > found[0])):
                    found = (other, score)  # the highest score; a tie goes to the most recent
            if found is not None:
                best[k] = found
        for g in prefix:
            postings = index.get(g)
            if postings is None:
                index[g] = [k]
            else:
                postings.append(k)
    return best


class NearDuplicate(Rule):
    """Two memories of one output that say the same thing.

    What it does:
        Compares every kept memory with the earlier ones through token
        bigrams (a Chinese character or an English word is a token) and
        flags a pair whose Jaccard similarity reaches ``threshold``. It
        points at the later memory and names the most similar earlier one
        (on a tie, the most recent). Large outputs are not compared pair by
        pair: a memory with too few bigrams that any other memory has is in
        no pair, and many candidates go through a prefix filter (only
        memories that share a rare bigram) and a cheap exact bound. Below
        ``max_candidates`` the answer is the one of an all-pairs scan; above
        it, on template-like outputs, only the most promising candidates
        are compared, which keeps the work linear.

        Paraphrases with little shared wording are beyond it; an LLM judge
        can catch those later.

    Why is this bad?
        Merge, don't fragment. Two copies of one conclusion take
        two of the few recall slots and drift apart when one is updated.

    Example:
        user: CI 用 uv sync --frozen 安装，改了依赖必须跑 uv lock 并提交 uv.lock
        ```json
        [{"new_scene_name": "demo｜依赖管理", "new_scene_reason": "池为空，新建情境。", "memories": [
          {"content": "修改依赖后必须运行 uv lock 并提交更新后的 uv.lock，CI 用 uv sync --frozen 安装。", "type": "work_method", "priority": 85},
          {"content": "修改依赖后必须运行 uv lock 并提交更新后的 uv.lock，因为 CI 用 uv sync --frozen 安装。", "type": "work_method", "priority": 80}]}]
        ```
        user: Refresh tokens stay in httpOnly cookies; never in localStorage.
        ```json
        [{"new_scene_name": "demo｜auth", "new_scene_reason": "The pool is empty.", "memories": [
          {"content": "Refresh tokens must be stored in httpOnly cookies, never in localStorage.", "type": "work_method", "priority": 85},
          {"content": "Refresh tokens must be stored in httpOnly cookies and never in localStorage.", "type": "work_method", "priority": 80}]}]
        ```

    Use instead:
        user: CI 用 uv sync --frozen 安装，改了依赖必须跑 uv lock 并提交 uv.lock
        ```json
        [{"new_scene_name": "demo｜依赖管理", "new_scene_reason": "池为空，新建情境。", "memories": [
          {"content": "修改依赖后必须运行 uv lock 并提交更新后的 uv.lock，因为 CI 用 uv sync --frozen 安装。", "type": "work_method", "priority": 85},
          {"content": "CI 的依赖安装步骤使用 uv sync --frozen，只认 uv.lock。", "type": "work_fact", "priority": 80}]}]
        ```
        user: Refresh tokens stay in httpOnly cookies; access tokens live in memory.
        ```json
        [{"new_scene_name": "demo｜auth", "new_scene_reason": "The pool is empty.", "memories": [
          {"content": "Refresh tokens must be stored in httpOnly cookies, never in localStorage.", "type": "work_method", "priority": 85},
          {"content": "Access tokens are kept in memory only and are lost on page reload.", "type": "work_fact", "priority": 80}]}]
        ```
    """

    code = "Q001"
    name = "near-duplicate"
    target = "output"
    action = "warn"

    class Options(RuleOptions):
        #: Jaccard similarity of token bigrams (0..1) from which two memories are duplicates.
        threshold: float = 0.7
        #: Memories with fewer bigrams than this are too short to judge.
        min_shingles: int = 4
        #: Most earlier memories one memory is compared with, the most recent first (the same
        #: scene first): bounds the work on template-like outputs; below it the search is exact.
        max_candidates: int = 64

    def check(self, output: Any, ctx: Any) -> Iterable[Finding]:
        texts: list[tuple[int, int, str]] = []
        dropped = ctx.dropped
        for i, j, memory in ctx.memories():
            content = memory.get("content") if isinstance(memory, dict) else None
            if isinstance(content, str) and not (dropped and ctx.is_dropped(i, j)):
                texts.append((i, j, content))
        if len(texts) < 2:
            return ()
        min_shingles = self.options.min_shingles
        threshold = min(max(self.options.threshold, 0.01), 1.0)
        max_candidates = max(self.options.max_candidates, 1)
        masks = _bigram_masks([text for _, _, text in texts]) if len(texts) <= max_candidates + 1 else None
        if masks is not None:
            where = [texts[k] for k, mask in enumerate(masks) if mask.bit_count() >= min_shingles]
            pairs = _similar_masks([mask for mask in masks if mask.bit_count() >= min_shingles], threshold)
        else:
            where, sets = [], []
            for memory in texts:
                s = shingles(memory[2])
                if len(s) >= min_shingles:
                    where.append(memory)
                    sets.append(s)
            pairs = similar_pairs(sets, threshold, max_candidates=max_candidates)
        findings = []
        for k, (other, score) in sorted(pairs.items()):
            i, j, _ = where[k]
            oi, oj, earlier = where[other]
            findings.append(Finding(
                f"says the same as {jp.join(oi, 'memories', oj)} ({_preview(earlier)!r}; similarity "
                f"{score:.2f}); merge them into one memory",
                path=jp.join(i, "memories", j)))
        return findings


def _preview(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- Q002 ---------------------------------------------------------------------------

# Lines that are raw output rather than prose: stack frames, log records,
# shell prompts, "Key:   value" dumps, HTTP headers.
_RAW_LINE = re.compile(
    r"""^\s*(?:
        at\s+(?:async\s+)?[\w.$<>\[\]/-]{1,200}(?:\s+\(|:\d)   # JS/Java stack frame
      | File\s+"[^"\n]{1,300}",\s+line\s+\d+          # Python stack frame
      | Traceback\s+\(most\s+recent\s+call\s+last\)
      | \[?\d{4}-\d{2}-\d{2}[\sT]\d{1,2}:\d{2}         # time-stamped log record
      | \[\d{1,2}:\d{2}(?::\d{2})?\]                  # [10:14:03]
      | \[[\w:./-]{1,30}\]\s                          # [pw:api] / [INFO] prefixes
      | \$\s+\S                                       # shell prompt
      | >>>\s                                         # REPL prompt
      | [\w.]*(?:Error|Exception|Warning):\s          # exception lines
      | [A-Z][\w-]{1,40}:\s{2,}\S                     # kubectl-style "Key:   value"
      | [A-Z][A-Za-z0-9-]{1,40}:\s\S[^\n]{0,300}$     # HTTP header "Name: value"
      | (?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+/\S*\s+HTTP/
    )""",
    re.VERBOSE | re.MULTILINE)


def raw_share(content: str, log_markers: re.Pattern[str] | None = None) -> float:
    """Share (0..1) of the content's visible characters that are fenced code or raw output lines."""
    total = _text.visible_len(content)
    if total == 0:
        return 0.0
    raw = 0
    spans = _text.fenced_spans(content)
    last = 0
    outside = []
    for start, end in spans:
        raw += _text.visible_len(content[start:end])
        outside.append(content[last:start])
        last = end
    outside.append(content[last:])
    for part in outside:
        raw_lines = [line for line in part.splitlines() if _is_raw_line(line, log_markers)]
        if len(raw_lines) >= 3:
            raw += sum(_text.visible_len(line) for line in raw_lines)
    return raw / total


def _is_raw_line(line: str, markers: re.Pattern[str] | None) -> bool:
    if _RAW_LINE.match(line):
        return True
    return markers is not None and markers.match(line.lstrip()) is not None


class RawDump(Rule):
    """Content that is mostly a code block, a stack trace or a log excerpt.

    What it does:
        Measures the share of the content's visible characters that sit in
        fenced code blocks or in raw-output lines (stack frames, time-stamped
        log records, shell prompts, ``Key:   value`` dumps, HTTP headers). At
        ``max_raw_share`` or more -- with at least ``min_lines`` raw lines --
        the memory is dropped.

    Why is this bad?
        The log is retrievable by grep; a memory is for the conclusion. A
        pasted trace spends the whole recall budget on noise and often
        carries tokens and hostnames.

    Example:
        user: report worker 一启动就报错
        ```json
        {"content": "worker 启动失败，完整堆栈：\\n```\\nTraceback (most recent call last):\\n  File \\"/app/worker.py\\", line 12, in run\\n    conn.execute(q)\\n  File \\"/app/db.py\\", line 40, in execute\\n    raise OperationalError(msg)\\nsqlalchemy.exc.OperationalError: decryption failed or bad record mac\\n```",
         "type": "work_fact", "priority": 80}
        ```
        user: Vite won't start on the old runner.
        ```json
        {"content": "Vite fails on Node 16. Log:\\nTypeError: crypto.getRandomValues is not a function\\n    at resolveConfig (file:///app/node_modules/vite/dist/node/chunks/dep.js:66741:16)\\n    at async createServer (file:///app/node_modules/vite/dist/node/chunks/dep.js:66200:12)\\n    at async CAC.<anonymous> (file:///app/node_modules/vite/dist/node/cli.js:764:24)",
         "type": "work_fact", "priority": 80}
        ```

    Use instead:
        user: report worker 一启动就报错
        ```json
        {"content": "Celery prefork worker 复用父进程建好的 SQLAlchemy 连接会导致 SSL decryption failed，需在 worker_process_init 中调用 engine.dispose()。",
         "type": "work_fact", "priority": 80}
        ```
        user: Vite won't start on the old runner.
        ```json
        {"content": "Vite 5 needs Node 18+ (it uses the global crypto object); on Node 16 it fails at startup with 'crypto.getRandomValues is not a function'.",
         "type": "work_fact", "priority": 80}
        ```
    """

    code = "Q002"
    name = "raw-dump"
    target = "memory"
    action = "drop"

    class Options(RuleOptions):
        #: Share (0..1) of raw characters from which content counts as a dump.
        max_raw_share: float = 0.5
        #: Fewest lines of raw output that make a dump.
        min_lines: int = 3
        #: Line starts that mark a log line besides the built-in shapes.
        log_markers: list[str] = ["ERROR", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "FATAL", "CRITICAL",
                                  "npm ERR!", "Caused by:", "panic:", "goroutine", "E   ", "FAILED", "PASSED",
                                  "error[E", "warning:", "错误：", "警告："]

    def __init__(self, options: Any = None):
        super().__init__(options)
        self._markers = lexicon.compile_words(self.options.log_markers)

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        content = memory.get("content")
        if not isinstance(content, str) or content.count("\n") + 1 < self.options.min_lines:
            return ()
        share = raw_share(content, self._markers)
        if share >= self.options.max_raw_share:
            return [Finding(f"{share:.0%} of the content is pasted code, trace or log output; keep the conclusion "
                            "in one or two sentences (the raw text is retrievable by grep)", path="/content")]
        return ()
