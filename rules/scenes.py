"""L007 -- scene reuse judged against the batch: do the messages show the pool label's work object?

Kept apart from ``language.py`` (the other L rules) because it is a judgment
against the batch's messages, like the value gates, not a check of the
scene's own words.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules import _text

#: ASCII word pieces: "llava_test" -> llava, test; "GT" -> gt (acronyms are work objects too).
_PIECES = re.compile(r"[a-z0-9]+")

class SceneReuseUnsupported(Rule):
    """A reused scene whose messages show nothing of its pool label's work object.

    What it does:
        For a scene that reuses a pool entry (``scene_id``), compares the
        label's work object (the side after the bar) and project with the
        text of the scene's messages: when not one content term (a file, an
        interface, an error, a task word, the project name; CJK bigrams or
        word stems) of the label occurs in them, the reuse has no evidence
        that can be pointed at. A warning of low confidence: a paraphrase
        can fit without sharing a word.

    Why is this bad?
        The extraction contract reuses a scene only with evidence and prefers a new scene to
        a forced fit: memories filed under an unrelated scene are recalled
        with the wrong work and missing from the right one.

    Example:
        pool: sc0003 | shop-api｜支付回调幂等
        user: 帮我把首页 banner 的轮播间隔改成 5 秒
        ```json
        {"scene_id": "sc0003", "memories": [{"content": "首页 banner 轮播间隔由产品定为 5 秒。", "type": "work_fact", "priority": 75}]}
        ```
        pool: sc0004 | billing｜invoice PDF export
        user: The login page flickers on Safari when the font loads.
        ```json
        {"scene_id": "sc0004", "memories": [{"content": "Safari shows a flash of unstyled text on the login page while the web font loads.", "type": "work_fact", "priority": 75}]}
        ```

    Use instead:
        pool: sc0003 | shop-api｜支付回调幂等
        user: 支付回调重复到达时还是入账了两次，幂等键要换成订单号
        ```json
        {"scene_id": "sc0003", "memories": [{"content": "支付回调的幂等键改用订单号，因为同一订单的重复回调交易号不同。", "type": "work_fact", "priority": 85}]}
        ```
        pool: sc0004 | billing｜invoice PDF export
        user: The invoice PDF export cuts off the last line item on page breaks.
        ```json
        {"scene_id": "sc0004", "memories": [{"content": "Invoice PDF export drops the last line item at a page break because the row height is measured before wrapping.", "type": "work_fact", "priority": 85}]}
        ```
    """

    code = "L007"
    name = "scene-reuse-unsupported"
    target = "scene"
    action = "warn"
    confidence = "low"

    class Options(RuleOptions):
        #: Label words that say nothing of the work object ("misc", "其他"): ignored.
        vague_words: list[str] = ["misc", "other", "general", "various", "stuff", "其他", "杂项", "通用", "综合"]

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        sid = scene.get("scene_id")
        if not isinstance(sid, str) or sid not in ctx.batch.pool:
            return
        label = ctx.batch.pool[sid]
        wanted = self._label_terms(label)
        if wanted is None:
            return  # nothing to look for: an empty or vague label
        ids = scene.get("message_ids")
        messages = ctx.batch.resolve([i for i in ids if isinstance(i, str)])[0] if isinstance(ids, list) else []
        if not messages:
            messages = ctx.batch.messages  # no usable ids: the whole batch is the scene's evidence
        # Substring tests in the scene's lower-cased text: a term (CJK bigram, word stem)
        # or ASCII piece of the label found anywhere in it is evidence enough for a warning rule.
        text = ctx.memo(("L007",) + tuple(m.key for m in messages),
                        lambda: "\n".join(m.content for m in messages).lower())
        if any(t in text for t in wanted[0]) or any(p in text for p in wanted[1]):
            return
        yield Finding(f"scene {sid!r} ({label!r}) is reused, but its messages show nothing of that label's work "
                      "object or project; reuse a scene only with evidence, or open a new scene",
                      path="/scene_id")

    def _label_terms(self, label: str) -> tuple[frozenset[str], frozenset[str]] | None:
        """The label's content terms and ASCII word pieces (vague words left out); None when it has none."""
        cache = self.__dict__.setdefault("_labels", {})
        if label not in cache:
            vague = " ".join(self.options.vague_words)
            terms = _text.terms(label) - _text.terms(vague)
            pieces = frozenset(p for p in _PIECES.findall(_text.normalize(label)) if len(p) >= 2 and not p.isdigit())
            pieces -= frozenset(_PIECES.findall(vague.lower()))
            cache[label] = (terms, pieces) if terms or pieces else None
        return cache[label]
