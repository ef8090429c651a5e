"""G004 -- the value model: a small learned judgment where the word gates cannot reach.

The three gates (``gates.py``) ask questions of a memory's words. What they
miss on real answers is a pattern of weak signs together: a ``work_fact``
cited only from the agent's messages and a tool that wrote files, with no
user message among its sources, rated low by the model that wrote it. No
one sign is enough; together they are what a reviewer recognises. G004
weighs them with a logistic regression trained on reviewed answers to real
transcripts (``scripts/train_value_model.py``; the weights ship as
``value_model.json``).

The features are the memory's shape and who its sources are, never its
words: type, metadata keys and enum values, priority, length, figures,
paths and code spans, and the number, roles and kinds of its cited
messages (from the batch facts: did a source write or read files, commit,
run tests, print errors?). So the model does not learn topics, and it
judges Chinese and English alike. (Measures of how much of the content the
batch's files, users or tool output already say were tried as features:
cross-validated by session they added nothing to these, and they cost more
than the rest of the rule. To try a feature: add it to ``features()`` and
compare ``scripts/train_value_model.py --cv`` before and after.)

Inference is a dot product over a few dozen named features (pure Python,
sorted order: the same answer gives the same score everywhere).
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from importlib import resources
from typing import Any, Iterable

from pydantic import Field

from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules import _sources

#: The metadata values whose vocabulary is small enough to be a feature of their own.
_ENUM_KEYS = ("scope", "method_type", "artifact_type", "taskState")
#: Digits, for the share of figures in the content (a regex count runs in C).
_DIGIT = re.compile(r"\d")

#: How a feature reads in a message (the weightiest ones are named).
_PHRASES = {
    "no_user_src": "no user message among its sources",
    "paths": "it names files or paths",
    "digits": "it is full of figures",
    "nsrc": "it cites many messages",
    "backticks": "code spans",
    "src_writes": "a source writes files", "src_reads": "a source reads files", "src_commit": "a source commits",
    "src_tests": "a source runs tests", "src_errors": "a source shows errors",
}


def features(memory: dict[str, Any], ctx: Any) -> dict[str, float]:
    """The memory's features (name -> value, most in [0, 1]); the training script calls this too."""
    sources = ctx.sources(memory)
    return {**shape_features(memory, sources, batch_has_user(ctx)), **source_facts(sources, ctx)}


def batch_has_user(ctx: Any) -> bool:
    """Whether any new message of the batch is the user's (computed once per batch)."""
    return ctx.memo("memvet.value_model.has_user", lambda: any(m.role == "user" for m in ctx.batch.messages))


def shape_features(memory: dict[str, Any], sources: list[Any], has_user: bool = True) -> dict[str, float]:
    """What the memory itself and the roles of its sources show (no batch facts needed).

    ``has_user``: whether the batch holds a user message at all. Who a memory cites is a sign only
    when the user's words were there to cite: in a batch of agent messages alone, citing only the
    agent says nothing of the memory. Few labelled batches are like that (two, with 20 memories,
    12 of them good), so such a batch gets a feature of its own instead of the roles.
    """
    f: dict[str, float] = {}
    content = memory.get("content")
    content = content if isinstance(content, str) else ""
    f[f"type:{memory.get('type')}"] = 1.0
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
    f["digits"] = 10 * len(_DIGIT.findall(content)) / max(1, len(content))
    if "/" in content or "." in content or "\\" in content:  # none: no path, and no pass over the text
        f["paths"] = min(3, len(_sources.paths(content))) / 3  # the project's one path finder (linear)
    f["backticks"] = min(6, content.count("`")) / 6
    f["nsrc"] = min(6, len(sources)) / 6
    if not has_user:
        f["no_user_in_batch"] = 1.0  # who its sources are says nothing here (see the docstring)
        return f
    roles = {m.role for m in sources}
    for role in roles:
        f[f"cites:{role}"] = 1.0
    if roles and "user" not in roles:
        f["no_user_src"] = 1.0
    return f


#: The batch facts of a source that are features, by name.
_SOURCE_FACTS = (("src_writes", "files_written"), ("src_reads", "files_read"), ("src_commit", "commits"),
                 ("src_tests", "tests"), ("src_errors", "errors"))


def source_facts(sources: list[Any], ctx: Any) -> dict[str, float]:
    """Did a cited message write or read files, commit, run tests, print errors? (batch facts)"""
    f: dict[str, float] = {}
    facts = ctx.facts
    for message in sources:
        # Only tool messages and the assistant's file blocks carry these facts: a user message, or
        # an assistant message without a fence, is not worth computing its facts for (word lists).
        text = message.content or ""
        if message.role == "user" or (message.role == "assistant" and "```" not in text and "~~~" not in text):
            continue
        mf = facts.of(message)
        for name, field in _SOURCE_FACTS:
            if getattr(mf, field):
                f[name] = 1.0
    return f


@cache
def weights() -> dict[str, Any]:
    """The shipped model (``value_model.json``): intercept, weights, provenance."""
    text = resources.files("memvet.rules").joinpath("value_model.json").read_text(encoding="utf-8")
    return json.loads(text)


def score(f: dict[str, float], model: dict[str, Any] | None = None) -> float:
    """P(a reviewer would not keep it): the logistic of the weighted sum. ``fsum`` rounds the sum
    exactly, whatever the order of the features, so the score is the same on every platform."""
    model = model or weights()
    w = model["weights"]
    return _logistic(model["intercept"] + math.fsum([w[k] * v for k, v in f.items() if k in w]))


def _logistic(z: float) -> float:
    return 1 / (1 + math.exp(-z))


@cache
def _source_ceiling() -> float:
    """The most the source facts can add to the shipped model's weighted sum (their positive weights)."""
    w = weights()["weights"]
    return math.fsum(max(0.0, w.get(name, 0.0)) for name, _ in _SOURCE_FACTS)


@cache
def _logit(p: float) -> float:
    """The weighted sum at which the score is ``p`` (a threshold on the sum needs no exp())."""
    if p <= 0.0 or p >= 1.0:
        return -math.inf if p <= 0.0 else math.inf
    return math.log(p / (1 - p))


def contributions(f: dict[str, float], model: dict[str, Any] | None = None) -> list[tuple[float, str]]:
    """Each feature's share of the sum, largest first (ties by name): what the message names."""
    w = (model or weights())["weights"]
    return sorted(((w[k] * v, k) for k, v in f.items() if k in w), key=lambda part: (-part[0], part[1]))


def _phrase(name: str, value: float) -> str:
    """A feature in words, for the finding's message."""
    if name == "prio":
        return "its writer gave it a low priority" if value < 0 else "its writer gave it a high priority"
    if name == "len":
        return "its length"
    if name in _PHRASES:
        return _PHRASES[name]
    kind, _, rest = name.partition(":")
    return {"type": f"a {rest}", "cites": f"it cites {rest} messages", "md": f"metadata {rest}"}.get(kind, name)


class ValueModel(Rule):
    """A memory whose shape and sources resemble those reviewers would not keep.

    What it does:
        Scores each memory the gates kept with a logistic regression over its
        shape and sources (type, metadata, priority, length, figures and
        paths; the number and roles of its cited messages, and whether they
        wrote or read files, committed, ran tests or printed errors). At ``drop_at`` or
        above it drops the memory; from ``warn_at`` it gives a low-confidence
        finding (a warning, and a question for the optional LLM judge). The
        message names the signs that weighed most. Trained on 7,537 reviewed
        memories of real answers to 176 real sessions; cross-validated by
        session (``scripts/train_value_model.py --cv``), the defaults take
        the junk memories caught from 1,398 to 1,749 of 3,218 and leave 2,952
        instead of 2,983 of 3,476 good memories untouched (dropping at 0.9,
        as before session 26: 1,574 and 2,975). In a batch that holds no user
        message at all, the roles of the sources are left out: citing only
        the agent is a sign only where the user's words were there to cite.

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
        #: At or above this score the memory is dropped (a high-confidence finding). Cross-validated by session
        #: (session 28, 176 sessions), the memories scored from 0.85 to 0.9 are 175 junk and 23 good ones; below
        #: 0.85 each further good memory lost buys fewer than five junk ones (measured at 142 sessions).
        drop_at: float = Field(0.85, ge=0.0, le=1.0)
        #: From this score up to ``drop_at``: a low-confidence finding (warns; the judge is asked).
        warn_at: float = Field(0.8, ge=0.0, le=1.0)
        #: How many of the weightiest signs the message names.
        reasons: int = Field(3, ge=0)

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if not isinstance(memory.get("content"), str) or ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            return ()  # a memory a gate already dropped is settled
        o = self.options
        model = weights()
        w, least = model["weights"], _logit(o.warn_at) - model["intercept"]
        sources = ctx.sources(memory)
        f = shape_features(memory, sources, batch_has_user(ctx))
        terms = [w[k] * v for k, v in f.items() if k in w]
        z = math.fsum(terms)
        # The batch facts cost more than the rest: ask for them only when the source facts, at their
        # most, could lift the score to warn_at (the result is the one of the full features).
        if z + _source_ceiling() < least:
            return ()
        found = source_facts(sources, ctx)
        if found:
            f.update(found)
            # Each source fact is 1.0; fsum is exact, so this is score(f)'s sum whatever the order.
            z = math.fsum(terms + [w[k] for k in found if k in w])
        if z < least:
            return ()
        p = _logistic(model["intercept"] + z)
        signs = "; ".join(_phrase(name, f[name]) for part, name in contributions(f)[: o.reasons] if part > 0)
        return [Finding(f"the value model rates this memory {p:.2f} as one a reviewer would not keep "
                        f"(weighed most: {signs}); keep only what a later session cannot get back",
                        path="/content", confidence="high" if p >= o.drop_at else "low")]
