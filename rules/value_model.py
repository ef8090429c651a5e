"""G004 -- the value model: a small learned judgment where the word gates cannot reach.

The three gates (``gates.py``) ask questions of a memory's words. What they
miss on real answers is a pattern of many weak signs at once: a ``work_fact``
whose words were written into a file in this batch, cited only from the
agent's own messages, rated low by the model that wrote it. No one sign is
enough; together they are what a reviewer recognises. G004 weighs them with
a logistic regression trained on reviewed answers to real transcripts
(``scripts/train_value_model.py``; the weights ship as ``value_model.json``).

The features are the memory's shape and its sources, never its words: type,
metadata keys, priority, length, figures and paths, the roles and acts of
the cited messages (batch facts), how much of the content the batch's
written files, its users or its tool output already say (``_sources``),
and the low-confidence findings of the rules before it. So the model does
not learn topics, and it judges Chinese and English alike.

Inference is a dot product over at most ~80 named features (pure Python,
sorted order: the same answer gives the same score everywhere).
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from importlib import resources
from itertools import islice
from typing import Any, Iterable

from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules import _sources

#: A path or a file name ("src/app.ts", "config.yaml"): how much the memory points at files.
#: Each alternative starts only where a run of its characters starts (the look-behinds), so a
#: long run without a match is scanned once, not once per position (linear on huge contents).
_PATH = re.compile(r"(?<![\w.-])[\w.-]+/[\w./-]+"
                   r"|(?<!\w)\w+\.(?:py|ts|tsx|js|jsx|md|json|ya?ml|toml|rs|go|cs|cpp|h|java|kt|rb|php|sh)\b")
#: The metadata values whose vocabulary is small enough to be a feature of their own.
_ENUM_KEYS = ("scope", "method_type", "artifact_type", "taskState")
#: The low-confidence findings G004 can see: those of the rules that run before it.
_EARLIER = ("G001", "G002", "G003")

#: How a feature reads in a message (the weightiest ones are named).
_PHRASES = {
    "written_support": "its words were written to files in this batch",
    "file_support": "its words are in files the batch shows",
    "user_support": "its words repeat its users' messages",
    "told_by_users": "it repeats what users said",
    "stated_support": "a user stated it",
    "told_support": "a message says it in so many words",
    "no_user_src": "no user message among its sources",
    "paths": "it names files or paths",
    "digits": "it is full of figures",
    "nsrc": "it cites many messages",
    "backticks": "code spans",
    "shows_edits": "its sources show edits",
    "quotes_error": "it quotes an error its sources show",
    "src_writes": "a source writes files", "src_reads": "a source reads files", "src_commit": "a source commits",
    "src_tests": "a source runs tests", "src_errors": "a source shows errors",
}
#: What a batch-facts act reads as ("act:assistant:writes" -> "a cited assistant message writes files").
_ACTS = {"writes": "writes files", "reads": "reads files", "runs": "runs commands", "reports_done": "reports work done",
         "proposes": "proposes", "accepts": "accepts", "rejects": "rejects", "asks": "asks", "states": "states a position",
         "temporary": "marks a change temporary"}


def features(memory: dict[str, Any], ctx: Any) -> dict[str, float]:
    """The memory's features (name -> value, most in [0, 1]); the training script calls this too."""
    f: dict[str, float] = {}
    content = memory.get("content")
    content = content if isinstance(content, str) else ""
    kind = memory.get("type")
    f[f"type:{kind}"] = 1.0
    metadata = memory.get("metadata")
    if isinstance(metadata, dict):
        for key, value in metadata.items():
            f[f"md:{key}"] = 1.0
            if key in _ENUM_KEYS and isinstance(value, str):
                f[f"md:{key}={value}"] = 1.0
    priority = memory.get("priority")
    if isinstance(priority, (int, float)) and not isinstance(priority, bool):
        f["prio"] = (priority - 80) / 10  # the writer's own rating, centred where most answers sit
    f["len"] = math.log1p(len(content)) / 6
    f["digits"] = 10 * sum(ch.isdigit() for ch in content) / max(1, len(content))
    f["paths"] = sum(1 for _ in islice(_PATH.finditer(content), 3)) / 3
    f["backticks"] = min(6, content.count("`")) / 6
    sources = ctx.sources(memory)
    f["nsrc"] = min(6, len(sources)) / 6
    roles = {m.role for m in sources}
    for role in roles:
        f[f"cites:{role}"] = 1.0
    if roles and "user" not in roles:
        f["no_user_src"] = 1.0
    facts = ctx.facts
    for message in sources:
        mf = facts.of(message)
        for act in mf.acts:
            f[f"act:{mf.role}:{act}"] = 1.0
        for flag, present in (("src_writes", mf.files_written), ("src_reads", mf.files_read),
                              ("src_commit", mf.commits), ("src_tests", mf.tests), ("src_errors", mf.errors)):
            if present:
                f[flag] = 1.0
    f["written_support"] = _sources.written_support(ctx, content)
    f["file_support"] = _sources.file_support(ctx, content)
    f["user_support"] = _sources.user_support(ctx, memory, content)
    f["told_by_users"] = _sources.told_by_users(ctx, memory, content)
    f["stated_support"] = _sources.stated_support(ctx, memory, content)
    f["told_support"] = _sources.told_support(ctx, memory, content)
    f["shows_edits"] = float(_sources.shows_edits(ctx, memory))
    f["quotes_error"] = float(_sources.quotes_source_error(ctx, memory, content))
    prefix = ctx.path + "/"
    for path, codes in ctx.low_findings.items():
        if path == ctx.path or path.startswith(prefix):
            for code in codes:
                if code in _EARLIER:
                    f[f"low:{code}"] = 1.0
    return {k: v for k, v in f.items() if v}


@cache
def weights() -> dict[str, Any]:
    """The shipped model (``value_model.json``): intercept, weights, provenance."""
    text = resources.files("memvet.rules").joinpath("value_model.json").read_text(encoding="utf-8")
    return json.loads(text)


def score(f: dict[str, float], model: dict[str, Any] | None = None) -> tuple[float, list[tuple[float, str]]]:
    """P(a reviewer would not keep it) and each feature's contribution, largest first."""
    model = model or weights()
    w = model["weights"]
    parts = sorted(((w[k] * f[k], k) for k in sorted(f) if k in w), key=lambda part: -part[0])
    z = model["intercept"] + math.fsum(p for p, _ in parts)
    return 1 / (1 + math.exp(-z)), parts


def _phrase(name: str, value: float) -> str:
    """A feature in words, for the finding's message."""
    if name == "prio":
        return "its writer gave it a low priority" if value < 0 else "its writer gave it a high priority"
    if name == "len":
        return "it is short"
    if name in _PHRASES:
        return _PHRASES[name]
    kind, _, rest = name.partition(":")
    if kind == "act":
        role, _, act = rest.partition(":")
        return f"a cited {role} message {_ACTS.get(act, act)}"
    return {"type": f"a {rest}", "cites": f"it cites {rest} messages", "md": f"metadata {rest}",
            "low": f"{rest} was unsure of it"}.get(kind, name)


class ValueModel(Rule):
    """A memory whose shape and sources resemble those reviewers would not keep.

    What it does:
        Scores each memory the gates kept with a logistic regression over its
        shape and sources (type, metadata, priority, figures and paths; the
        roles and acts of its cited messages; how much of it the batch's
        written files, users or tool output already say). At ``drop_at`` or
        above it drops the memory; from ``warn_at`` it gives a low-confidence
        finding (a warning, and a question for the optional LLM judge). The
        message names the signs that weighed most. Trained on reviewed
        answers to real transcripts; cross-validated by session, the
        default ``drop_at`` catches about one junk memory in sixteen more
        than the gates alone for one good memory in ninety
        (``scripts/train_value_model.py --cv``).

    Why is this bad?
        The extraction contract keeps only what a later session cannot
        get back: a fact the agent wrote into a file a minute ago, cited
        only from its own report and rated low by its own writer, is a
        restatement the code already holds, even when no single word gives
        it away.

    Example:
        assistant: I'll add the retry helper. ```python path=src/net/retry.py
        def retry(fn, attempts=3, backoff=0.5): ...```
        tool: Wrote src/net/retry.py
        ```json
        {"content": "src/net/retry.py defines retry(fn, attempts=3, backoff=0.5).", "type": "work_fact", "priority": 60, "source_message_ids": ["m2", "m3"]}
        ```
        assistant: 我来加上配置读取。```python path=app/settings.py
        TIMEOUT = 30```
        tool: 已写入 app/settings.py
        ```json
        {"content": "app/settings.py 中定义了 TIMEOUT = 30。", "type": "work_fact", "priority": 65, "source_message_ids": ["m2", "m3"]}
        ```

    Use instead:
        user: Retries must back off, the payment gateway bans clients that retry at once.
        ```json
        {"content": "Calls to the payment gateway must retry with backoff: it bans clients that retry immediately.", "type": "work_method", "priority": 85, "source_message_ids": ["m1"]}
        ```
        user: 超时必须和网关保持一致，网关 30 秒就断开，我们设长了会白等。
        ```json
        {"content": "服务调用网关的超时必须不超过网关的 30 秒断开时间，否则请求会白等到网关断开。", "type": "work_method", "priority": 85, "source_message_ids": ["m1"]}
        ```
    """

    code = "G004"
    name = "value-model"
    target = "memory"
    action = "drop"

    class Options(RuleOptions):
        #: At or above this score the memory is dropped (a high-confidence finding).
        drop_at: float = 0.9
        #: From this score up to ``drop_at``: a low-confidence finding (warns; the judge is asked).
        warn_at: float = 0.7
        #: How many of the weightiest signs the message names.
        reasons: int = 3

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if not isinstance(memory.get("content"), str) or ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return ()  # a memory a gate already dropped is settled
        f = features(memory, ctx)
        p, parts = score(f)
        o = self.options
        if p < o.warn_at:
            return ()
        signs = "; ".join(_phrase(name, f[name]) for part, name in parts[: o.reasons] if part > 0)
        return [Finding(f"the value model rates this memory {p:.2f} as one a reviewer would not keep "
                        f"(weighed most: {signs}); keep only what a later session cannot get back",
                        path="/content", confidence="high" if p >= o.drop_at else "low")]
