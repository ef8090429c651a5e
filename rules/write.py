"""W -- write layer: is each routed write request safe to commit? (seed 004)

The target of every rule here is a ROUTED RECORD (see :mod:`memvet.routing`):
the kept memory with its scene fields, ``sessionKey`` and the write-layer
fields ``kind``, ``namespace``, ``task_id``, ``scope``, ``source``,
``confirmed_by``, ``ttl`` and ``status``. Finding paths are relative to the
memory (``""`` or ``"/content"``); fix ops are relative to the record and
the report shows them under ``/records/<k>/``.

Three questions, one per kind of damage seed 004 describes:

- is the request well formed? (W001 kind, W002 task id, W004 namespace)
- does a short-lived or unadopted statement try to become long-term memory?
  (W003 no source, W005 temporary change, W006 inferred preference,
  W008 proposal written as a decision)
- does it contradict what is already stored? (W007)

Reroutes (W005, W006) never drop the memory: it is still worth keeping for
the current task, it just must not outlive it.

Every rule runs on every record and almost every record is fine, so
``check()`` answers that case with ``()`` after its cheapest test (the kind,
a key). W005 and W008 ask their word lists of the text layer: one
Aho-Corasick scan per content, shared by both (:func:`content_facts`), gives
W008's settled and open wording and tells W005 whether a temporary marker
occurs; W005 reads a source message's sentences only when the same scan of
that message (once per batch) found one.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from typing import Any, Iterable, Iterator

from pydantic import Field

from memvet.batchfacts import is_rule_step  # 必须先不…: a step of a rule, read the same in messages
from memvet.placement import task_fields
from memvet.rules import _text
from memvet.rules._hant import both_scripts
from memvet.rules._scripts import CJK_CHARS, WORD_LETTERS
from memvet.vocabulary import KINDS, LONG_TERM_KINDS
from memvet.needs import Needs, TextLayer
from memvet.rule import Finding, Rule, RuleOptions

from . import lexicon

# --------------------------------------------------------------------------
# Text helpers shared by W005, W007, W008. Everything is compiled once and
# linear in the text: bounded character classes, no nested quantifiers.
# --------------------------------------------------------------------------

# Quoted or code spans MENTION words instead of using them ("any 'for now'
# hack gets a TODO"): they are blanked before markers are looked for. A
# single quote opens only after a non-word character, so "we'll" is not one.
_QUOTED = re.compile(
    r"`[^`\n]{0,200}`|(?<!\w)'[^'\n]{1,60}'(?!\w)|\"[^\"\n]{1,60}\""
    r"|“[^”\n]{0,60}”|‘[^’\n]{0,60}’|「[^」\n]{0,60}」|『[^』\n]{0,60}』")
# Sentence ends; Chinese commas do NOT end a sentence (a temporary change
# and its revert are usually two clauses of one sentence).
_SENTENCE = re.compile(r"[。！？!?；;\n]+|(?<=[A-Za-z0-9)\]])\.(?:\s+|$)")
_TOKEN = re.compile(f"[{CJK_CHARS}]+|[{WORD_LETTERS}][{WORD_LETTERS}0-9_]*|\\d+(?:\\.\\d+)?")
_STOP = frozenset("""a an the to of in on at for and or but is are was were be been it its this that these
those with we i you he she they by as from not no do does did just now only so our your their has have
had will would can could should may might into onto than then there here what which who when how""".split())


def unquote(text: str) -> str:
    return _QUOTED.sub(" ", text) if ("'" in text or '"' in text or "`" in text or "“" in text
                                        or "‘" in text or "「" in text or "『" in text) else text


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def tokens(text: str) -> dict[str, int]:
    """Salient tokens with weights: CJK bigrams 1, words 1, numbers 2 (values identify a change)."""
    out: dict[str, int] = {}
    for m in _TOKEN.finditer(text):
        t = m.group(0)
        c = t[0]
        if c.isdigit():
            out[t] = 2
        elif c.isascii():
            t = t.lower()
            if t in _STOP or len(t) < 2:
                continue
            if len(t) > 3 and t.endswith("s"):
                t = t[:-1]
            out[t] = 1
        elif len(t) == 1:
            out[t] = 1
        else:
            for k in range(len(t) - 1):
                out[t[k:k + 2]] = 1
    return out


def overlap(a: dict[str, int], b: dict[str, int]) -> int:
    if len(a) > len(b):
        a, b = b, a
    return sum(w for t, w in a.items() if t in b)


def _negated(text: str, start: int, negations: re.Pattern[str] | None) -> bool:
    """Is the marker at ``start`` negated just before it ("尚未决定", "not yet decided")?"""
    return bool(negations and negations.search(text[max(0, start - 12):start]))


# Temporary changes: the until/revert clause of English needs a pattern, the
# rest are word lists a team can extend in config.
_UNTIL_FIXED = re.compile(
    r"\buntil\b[^.;!?\n]{0,60}?\b(?:is|are|gets?|has been|have been|'s)\s+"
    r"(?:fixed|merged|released|shipped|resolved|ready|done|wired up|live|stable|back)\b", re.IGNORECASE)


class TemporaryOptions(RuleOptions):
    #: Words that make a change temporary. "临时" only in verb forms: "临时目录",
    #: "临时文件", "临时脚本" are things, not temporary changes.
    temporary: list[str] = [
        "暂时", "暂且", "临时改", "临时把", "临时关", "临时开", "临时调", "临时加", "临时去掉", "临时跳过",
        "临时禁用", "临时启用", "临时切", "临时换", "临时放开", "临时提高", "临时降低", "临时设", "临时绕过",
        "临时方案", "权宜之计", "应急处理", "先这样", "先这么", "先凑合", "先不", "暂不",
        "今天先", "今晚先", "这两天先", "这几天先", "这周先", "这两周先", "本周先", "这阵子先", "眼下先", "目前先",
        # A revert is temporary only when it is planned (明天回滚, 再改回, "switch it back later"):
        # "undo that, put it back" now is the user turning a change down, and what comes back stays.
        "再回滚", "明天回滚", "之后回滚", "稍后回滚", "回头回滚", "再改回", "再调回", "再切回", "再换回", "再开回", "再关回",
        "之后改回", "之后换回", "回头改回", "明天改回", "明天换回", "再恢复成",
        "完改回", "完换回", "完切回", "完调回", "就改回", "就换回", "就切回", "就调回",
        "后改回", "后换回", "后切回", "后调回",  # not 后恢复: "改用 587 后恢复" is a recovery
        "再恢复", "完再补", "再补上", "之后再补", "回头再补", "回头再改",
        "for now", "for the time being", "for the moment", "temporarily", "temporary fix", "temporary workaround",
        "temporary change", "temporary hack", "temporary override", "temporary bump", "as a stopgap", "as a workaround",
        "until the release", "until the next release", "until further notice", "revert it tomorrow",
        "revert tomorrow", "roll back tomorrow", "roll it back later", "switch back later", "switch it back later",
        "change it back later", "change back later", "set it back later", "turn it back later", "put it back later",
        "back afterwards", "back after the", "then switch back", "then switch it back", "then change it back",
        "then put it back", "then revert", "just for the demo", "for this sprint", "for today",
        # a change held until an event: 演示完再说, 发完再打开, "until Monday", "for the demo"
        "完再说", "完再打开", "完再开", "完再改", "之后再说", "上线后再", "演示完再", "发完再", "先关掉", "先停掉",
        "for the demo", "until monday", "until tomorrow", "until the demo", "until next week",
        # a request declined for this time, not for good ("这次先不写测试", "not now"); not 现在不需要,
        # which as often says "no longer needed" (我现在不需要 unocss 这些类型: a lasting removal)
        "现在先不", "这次不用", "这次不需要", "这次先不", "本次不需要",
        "not now", "not right now", "not at the moment",
    ]
    #: Words that make a sentence a lasting rule even though it mentions
    #: something temporary ("以后凡是暂时跳过的测试，一律…", "house rule: …").
    lasting: list[str] = [
        "凡是", "一律", "以后凡", "以后都", "以后统一", "今后", "从今以后", "从现在起", "从现在开始", "定个规矩",
        "规矩", "规定", "约定", "规范", "每次", "每当", "一旦", "如果", "长期", "主张", "习惯",
        "排障时", "排查时", "调试时", "debugging",
        "house rule", "from now on", "going forward", "as a rule", "whenever", "every time", "rule of thumb",
        "convention",
    ]
    #: Whose source messages can make a change temporary (W005). Tool output is
    #: never one ("temporarily unavailable" is about itself).
    marking_roles: list[str] = ["user", "assistant"]
    #: Without a user among the sources: the share of the memory's words (weighted, see
    #: ``tokens``) that the closest temporary sentence of an assistant source must hold. Below it
    #: the memory is built on something else its sources say (a root cause the tool output shows)
    #: and only mentions the stopgap the assistant took. (A user's 先不写单测 decides whatever the
    #: memory's words.)
    min_source_share: float = Field(0.2, ge=0.0, le=1.0)


# A temporary marker right after one of these names the alternative that was NOT chosen
# ("rather than temporarily disabling image generation", 而不是暂时关掉).
_NOT_CHOSEN = re.compile(both_scripts(r"(?:\b(?:rather than|instead of)|而不是|而非)\s*$"), re.IGNORECASE)

# ... or it is what a proposal the memory reports as declined would have done ("the user did not take
# the agent's recommendation to temporarily disable linting", 用户没有采纳暂时关掉检查的建议): the lasting
# fact is that it was turned down. Bounded: the refusal stands at most 80 characters before the marker,
# in the same clause.
_DECLINED = re.compile(both_scripts(r"(?:\b(?:did not|didn't|does not|doesn't|never|refused to|chose not to)\s+"
                       r"(?:take|accept|adopt|follow|want|agree to)\b|\b(?:rejected|declined|turned down|vetoed)\b)"
                       r"[^.;:!?\n]{0,80}$|(?:没有?采纳|未采纳|不采纳|拒绝了?|否决了?|没有?接受|不同意)[^。；：！？\n]{0,40}$"),
                       re.IGNORECASE)

#: Characters that make a word with a following 先 (原先 "formerly", 首先 "first", 优先 "priority", 事先
#: "beforehand"): a temporary word that starts with that 先 (先不, 先这样) is then no temporary word.
_XIAN_COMPOUNDS = frozenset("原首优事预早率领争抢祖起当")

#: ``_UNTIL_FIXED`` needs this word: a literal for the text layer beside the ``temporary`` list.
_UNTIL = ("until",)

#: The word lists of W005 and W008 in one text layer, so that both rules read ONE scan of
#: each content (cached per call in ``ctx.scratch``). Lists are keyed by their words, so
#: rules with the same options share them.
_LAYER = TextLayer()
_FACTS = "memvet.rules.write.facts"


def content_facts(ctx: Any, text: str) -> Any:
    """The write layer's :class:`~memvet.rules._textlayer.TextFacts` of ``text``, once per call."""
    scratch = getattr(ctx, "scratch", None)
    if scratch is None:
        return _LAYER.facts(text)
    cache = scratch.get(_FACTS)
    if cache is None:
        cache = scratch[_FACTS] = {}
    found = cache.get(text)
    if found is None:
        found = cache[text] = _LAYER.facts(text)
    return found


class Temporal:
    """Finds temporary-change sentences; compiled once per options object.

    Whether a text holds a marker at all is asked of the text layer: its
    exact hits of the ``temporary`` entries and of "until" (``_UNTIL_FIXED``
    needs it). A marker of a sentence is such a hit in the whole text, since
    sentences end at characters that are not word characters (the word
    boundaries of a hit stay where they are).
    """

    def __init__(self, options: TemporaryOptions):
        self.temporary = lexicon.compile_words(options.temporary)
        self.lasting = lexicon.compile_words(options.lasting)
        self._words = tuple(options.temporary)
        _LAYER.word_list(self._words)
        _LAYER.word_list(_UNTIL)

    def may_hold(self, clean: str, ctx: Any = None) -> bool:
        """False only when no sentence of ``clean`` (an unquoted text) holds a temporary marker."""
        facts = content_facts(ctx, clean)
        return bool(facts.hits(self._words) or facts.hits(_UNTIL))

    def is_temporary(self, sentence: str) -> str | None:
        """The temporary marker of a sentence that is not a lasting rule, else None."""
        hit = self._marker(sentence)
        marker = hit.group(0) if hit else None
        if marker is None:
            until = _UNTIL_FIXED.search(sentence)
            marker = until.group(0) if until else None
        if marker is None:
            return None
        if self.lasting and self.lasting.search(sentence):
            return None
        if hit is not None and _NOT_CHOSEN.search(sentence, 0, hit.start()):
            return None  # "improve the message rather than temporarily disabling it": the road not taken
        if hit is not None and _DECLINED.search(sentence, max(0, hit.start() - 120), hit.start()):
            return None  # "did not take the recommendation to temporarily disable it": turned down
        if hit is not None and is_rule_step(sentence, marker, hit.start()):
            return None  # "必须先不动代码": the order of a rule's steps
        return marker

    def _marker(self, sentence: str) -> re.Match[str] | None:
        """The first temporary word of ``sentence`` that is no part of a word with 先 (原先不感知:
        "did not use to", 首先不要: "first of all, do not" hold 先不 without meaning "not for now")."""
        if not self.temporary:
            return None
        for hit in self.temporary.finditer(sentence):
            start = hit.start()
            if not (hit.group(0).startswith("先") and start and sentence[start - 1] in _XIAN_COMPOUNDS):
                return hit
        return None

    def scan(self, text: str) -> list[tuple[str | None, dict[str, int]]]:
        """``(marker or None, tokens)`` per sentence of ``text``; [] when nothing in it is temporary.

        Asked only of texts the text layer let through (:meth:`may_hold`).
        """
        clean = unquote(text)
        if not ((self.temporary and self.temporary.search(clean)) or _UNTIL_FIXED.search(clean)):
            return []
        return [(self.is_temporary(s), tokens(s)) for s in sentences(clean)]


# --------------------------------------------------------------------------
# The rules
# --------------------------------------------------------------------------


class KindUnknown(Rule):
    """A write whose kind is not one of the three memory kinds.

    What it does:
        Fails when routing gave a record a ``kind`` other than
        ``project_fact``, ``task_state`` or ``code_preference`` (a type the
        ``[tool.memvet.routing] kinds`` map does not know, or maps to
        something else).

    Why is this bad?
        Each kind has its own namespace,
        write timing and lifetime. A write of no known kind has none of
        them, and retrieval by kind would never find it -- or find it
        everywhere.

    Example:
        config: {"routing": {"kinds": {"work_fact": "note"}}}
        user: 订单服务的 API 前缀统一用 /v2，不再用 /v1
        ```json
        {"content": "订单服务的 API 前缀统一用 /v2。", "type": "work_fact", "priority": 85}
        ```

    Use instead:
        user: 订单服务的 API 前缀统一用 /v2，不再用 /v1
        ```json
        {"content": "订单服务的 API 前缀统一用 /v2。", "type": "work_fact", "priority": 85}
        ```
    """

    code = "W001"
    name = "kind-unknown"
    target = "record"
    action = "reject"

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        kind = record.get("kind")
        if kind in KINDS:
            return ()
        return [Finding(f"type {record.get('type')!r} routes to kind {kind!r}, which is none of "
                        f"{', '.join(KINDS)}; fix [tool.memvet.routing] kinds", path="/type")]


class TaskWithoutId(Rule):
    """A task-state write without a task id.

    What it does:
        Fails when a ``task_state`` record has no ``task_id``: its scene is
        unclassified (neither ``scene_id`` nor ``new_scene_name``).

    Why is this bad?
        Task state lives only under its task (``task-{task_id}``) and is
        archived when the task closes. Without an id it cannot be closed, so
        it would never expire.

    Example:
        user: 登录页的 e2e 用例明天之前要补齐
        ```json
        {"memories": [{"content": "登录页 e2e 用例需在明天前补齐。", "type": "work_task", "priority": 80}]}
        ```

    Use instead:
        user: 登录页的 e2e 用例明天之前要补齐
        ```json
        {"new_scene_name": "demo｜登录页 e2e", "new_scene_reason": "池中没有登录页测试的议题。",
         "memories": [{"content": "登录页 e2e 用例需在明天前补齐。", "type": "work_task", "priority": 80}]}
        ```
    """

    code = "W002"
    name = "task-without-id"
    target = "record"
    action = "reject"

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if record.get("kind") != "task_state" or record.get("task_id"):
            return ()
        return [Finding("a task_state write needs a task_id, but its scene has neither scene_id nor "
                        "new_scene_name; put the memory in a scene")]


class LongTermWithoutSource(Rule):
    """A long-term memory that nobody confirmed and nothing backs.

    What it does:
        A ``project_fact`` (or a ``code_preference`` when W006 is off) whose
        sources hold no tool output, no artifact or commit reference
        (``source``) and no user message (``confirmed_by``): only the
        assistant said it. It is written with ``status: pending``, out of
        recall until a person confirms it (``memvet store review``).
        Safe fix.

    Why is this bad?
        An agent answering "yes, this project uses PostgreSQL" is not a
        confirmed fact. Long-term memory is read by every later session;
        an unverified claim there spreads.

    Example:
        assistant: 看了下报错，MySQL 5.7 不支持给 JSON 列设默认值，8.0.13 起才支持。
        ```json
        {"content": "MySQL 5.7 不支持 JSON 列的默认值，8.0.13 起才支持。", "type": "work_fact", "priority": 80}
        ```
        assistant: The billing service retries webhooks five times with exponential backoff.
        ```json
        {"content": "The billing service retries webhooks five times with exponential backoff.",
         "type": "work_fact", "priority": 80}
        ```

    Use instead:
        assistant: 看了下报错，MySQL 5.7 不支持给 JSON 列设默认值，8.0.13 起才支持。
        tool: ERROR 1101 (42000): BLOB, TEXT, GEOMETRY or JSON column 'meta' can't have a default value
        ```json
        {"content": "MySQL 5.7 不支持 JSON 列的默认值，8.0.13 起才支持。", "type": "work_fact", "priority": 80}
        ```
        assistant: The billing service retries webhooks five times with exponential backoff.
        user: Right, five retries, that's the setting.
        ```json
        {"content": "The billing service retries webhooks five times with exponential backoff.",
         "type": "work_fact", "priority": 80}
        ```

    Fix: safe
    """

    code = "W003"
    name = "long-term-without-source"
    target = "record"
    action = "fix"

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        kind = record.get("kind")
        if kind not in LONG_TERM_KINDS or record.get("source") or record.get("confirmed_by"):
            return ()
        # An unconfirmed preference is W006's case (it goes to task state);
        # one fault, one violation.
        if kind == "code_preference" and ctx.config.enabled("W006"):
            return ()
        if record.get("status") == "pending":
            return ()
        return [Finding(f"{kind} with neither source (tool output, artifact, commit) nor confirmed_by (a user "
                        "message): only the assistant said it; written as pending until a person confirms it",
                        fix=[{"op": "replace", "path": "/status", "value": "pending"}])]


@lru_cache(maxsize=64)
def _long_term_namespaces(templates: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    globs = {"proj-*-facts", "proj-*-prefs"}
    for kind, template in templates:
        if kind in LONG_TERM_KINDS:
            globs.add(template.replace("{repo}", "*").replace("{task_id}", "*"))
    return re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in sorted(globs)))


class TaskInLongTermNamespace(Rule):
    """Task state aimed at a long-term namespace.

    What it does:
        Fails when a ``task_state`` record's namespace is a long-term one:
        ``proj-*-facts``, ``proj-*-prefs``, or whatever the configured
        project_fact / code_preference templates render.

    Why is this bad?
        Task state must carry a task id
        and must never land in ``proj-{repo}-facts``. In the long-term
        partition it outlives its task and later sessions read it as a rule.

    Example:
        config: {"routing": {"namespaces": {"task_state": "proj-{repo}-facts"}}}
        user: 先把登录接口的返回改成 202，明天再回滚
        ```json
        {"content": "登录接口返回码临时改为 202，计划次日回滚。", "type": "work_task", "priority": 80}
        ```

    Use instead:
        user: 先把登录接口的返回改成 202，明天再回滚
        ```json
        {"content": "登录接口返回码临时改为 202，计划次日回滚。", "type": "work_task", "priority": 80}
        ```
    """

    code = "W004"
    name = "task-in-long-term-namespace"
    target = "record"
    action = "reject"

    _compiled_for: tuple[Any, re.Pattern[str]] | None = None  # (routing config, its pattern)

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        namespace = record.get("namespace")
        if record.get("kind") != "task_state" or not isinstance(namespace, str):
            return ()
        if not self._long_term(ctx.config.routing).match(namespace):
            return ()
        return [Finding(f"task_state aimed at the long-term namespace {namespace!r}; task state belongs "
                        "under task-{task_id} (fix [tool.memvet.routing] namespaces)")]

    def _long_term(self, routing: Any) -> re.Pattern[str]:
        """The long-term namespace pattern of a routing config (kept for the config this rule last saw)."""
        compiled = self._compiled_for
        if compiled is None or compiled[0] is not routing:
            compiled = self._compiled_for = (
                routing, _long_term_namespaces(tuple(sorted(routing.namespaces.items()))))
        return compiled[1]


def _reroute(record: dict[str, Any], ctx: Any, why: str) -> Finding:
    """A fix that turns a long-term write into task state of its scene."""
    fields = task_fields(record, ctx)
    if not fields["task_id"]:
        return Finding(f"{why}, and its scene has no id to hold it as task state; put it in a scene",
                       action="reject")
    ops = [{"op": "replace" if k in record else "add", "path": f"/{k}", "value": v} for k, v in fields.items()]
    if record.get("status") == "pending":
        # Pending was about long-term memory (W003); task state needs no confirmation.
        ops.append({"op": "replace", "path": "/status", "value": "active"})
    return Finding(f"{why}: rerouted to task_state under {fields['namespace']!r}", fix=ops)


def _part_only(why: str) -> Finding:
    """W005's finding when the temporary part is one detail of a memory of several sentences (a
    later sentence says "for now", or a source does while the memory tells more than that): the
    reroute would put the lasting rest into task state too, so it only warns (low confidence)."""
    return Finding(f"{why}; only part of it may be temporary: record that part as task state and keep the "
                   "rest as it is", action="warn", confidence="low")


class TemporaryAsConvention(Rule):
    """A temporary change recorded as a lasting fact or preference.

    What it does:
        Looks for temporary-change markers -- 先把…改成…明天再回滚, 暂时关掉,
        临时调到, 测完再改回, "for now", "until the release", "until … is fixed",
        "then switch it back" (a planned revert; "undo that, put it back" now
        is the user turning a change down, and what comes back stays) --
        in the content and in the user/assistant sentences the memory comes
        from (the sentence it shares most words with decides). A
        ``project_fact`` or ``code_preference`` built on such a sentence is
        rerouted to ``task_state`` of its scene. Quoted words and lasting
        rules that merely mention temporary things ("以后凡是暂时跳过的测试…",
        "临时目录", "temporary files") do not count, nor does 先 as part of a
        word (原先不感知 "did not use to", 首先不要 "first, do not"), nor a temporary step
        the memory names as the road not taken ("rather than temporarily
        disabling it", 而不是暂时关掉) or as a proposal that was turned down
        ("did not take the recommendation to temporarily disable linting",
        没有采纳暂时关掉检查的建议). When a user message is
        among the sources, only user messages decide -- one the batch facts
        say marks something temporary (演示完再说, "for the demo") reroutes
        whatever the memory's own words; an assistant's "let me temporarily
        comment this out" about its own next step does not. Without a user
        among the sources, the assistant's temporary sentence must hold
        ``min_source_share`` of the memory: a root cause the tool output
        shows, with the assistant's stopgap as one clause, is not built on
        the stopgap. When the temporary sentence is not the memory's first
        one (a later sentence says "for now" of one detail), or a source
        says it while the memory tells more in several sentences, a reroute
        would carry the lasting rest into task state as well: the finding
        then only warns (low confidence). Safe fix.

    Why is this bad?
        The classic write-layer failure: "raise the timeout to 30 s until
        tomorrow's rollback" stored as a project fact, and next week's
        session answers "the default timeout is 30 s".

    Example:
        user: 先把网关超时改成 30 秒，明天再回滚
        assistant: 已改为 30 秒。
        ```json
        {"content": "网关默认超时为 30 秒。", "type": "work_fact", "priority": 80}
        ```
        user: For now, skip the e2e job on PRs until the runner pool is fixed.
        ```json
        {"content": "The e2e job does not run on pull requests.", "type": "work_fact", "priority": 80}
        ```
        user: 演示完再说，先把登录验证码关掉
        assistant: 好的，已关闭登录验证码。
        ```json
        {"content": "登录页不启用验证码。", "type": "work_fact", "priority": 80}
        ```

    Use instead:
        user: 先把网关超时改成 30 秒，明天再回滚
        assistant: 已改为 30 秒。
        ```json
        {"content": "网关超时临时改为 30 秒，计划明天回滚。", "type": "work_task", "priority": 80}
        ```
        user: House rule: any workaround we add 'for now' gets a TODO with its issue number.
        ```json
        {"content": "Every stopgap workaround must carry a TODO that names its tracking issue.",
         "type": "work_method", "priority": 85}
        ```
        user: Every new test failed. When that happens, run a single test first, then widen the run.
        assistant: Let me temporarily comment out the error check and run a single test first.
        ```json
        {"content": "When a batch of new tests all fail, first run a single test, then widen the run.",
         "type": "work_method", "priority": 85}
        ```

    Fix: safe
    """

    code = "W005"
    name = "temporary-as-convention"
    target = "record"
    action = "fix"
    Options = TemporaryOptions

    def __init__(self, options: TemporaryOptions | None = None):
        super().__init__(options)
        self.temporal = Temporal(self.options)
        self._marked_key = ("W005:marked", id(self))

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if record.get("kind") not in LONG_TERM_KINDS:
            return ()
        content = record.get("content") or ""
        marker, first = self._temporary_content(content, ctx)
        if marker:
            why = f"the content describes a temporary change ({marker!r}) as a lasting {record['kind']}"
            return [_reroute(record, ctx, why) if first else _part_only(why)]
        marker = self._temporary_source(record, content, ctx)
        if marker:
            why = f"its source calls the change temporary ({marker!r}) but it is recorded as a lasting {record['kind']}"
            return [_part_only(why) if len(sentences(unquote(content))) > 1 else _reroute(record, ctx, why)]
        return ()

    def _temporary_content(self, content: str, ctx: Any) -> tuple[str | None, bool]:
        """The marker of the content's first temporary sentence (or None), and whether that sentence
        opens the content (what the memory is about) rather than qualifying one of its details."""
        clean = unquote(content)
        if not self.temporal.may_hold(clean, ctx):
            return None, False
        for n, sentence in enumerate(sentences(clean)):
            marker = self.temporal.is_temporary(sentence)
            if marker:
                return marker, n == 0
        return None, False

    def _temporary_source(self, record: dict[str, Any], content: str, ctx: Any) -> str | None:
        marked = self._marked_messages(ctx)
        if not marked:
            return None  # the common case: no message of the batch says anything temporary
        sources = ctx.sources(record)
        # When a user is among the sources, the user's words decide (the batch facts'
        # "marks temporary"): an assistant's "let me temporarily comment this out" is
        # about its own next step, not about the approach the user stated.
        users = [m for m in sources if m.role == "user"]
        if users:
            sources = users
        scanned = []
        for m in sources:
            if id(m) in marked:  # any other message's scan is empty (and tool output is never scanned)
                key = ("W005", id(self), m.sessionKey, m.id)
                scanned.extend(ctx.memo(key, lambda m=m: self.temporal.scan(m.content)))
        if not any(marker for marker, _ in scanned):
            return None
        mine = tokens(content)
        best_temporary, best_other, found = -1, 0, None
        for marker, toks in scanned:
            score = overlap(mine, toks)
            if marker and score > best_temporary:
                best_temporary, found = score, marker
            elif not marker:
                best_other = max(best_other, score)
        if not users and best_temporary < self.options.min_source_share * sum(mine.values()):
            return None  # the assistant's stopgap, mentioned beside what the memory is about
        # Ties go to the temporary sentence: the worst outcome of a reroute
        # is a fact kept for one task instead of forever.
        return found if best_temporary >= best_other else None

    def _marked_messages(self, ctx: Any) -> frozenset[int]:
        """The messages of the batch in which the text layer says a temporary marker may occur, by
        ``id()``; once per batch (which keeps its messages, so their ids, alive).

        Only ``marking_roles`` count: tool output says "temporarily unavailable" about itself.
        """
        memo = ctx.batch.memo
        found = memo.get(self._marked_key)
        if found is None or found[0] is not self:  # a batch may outlive this rule (and its id)
            roles, may_hold = self.options.marking_roles, self.temporal.may_hold
            marked = frozenset(id(m) for m in ctx.batch.messages if m.role in roles and may_hold(unquote(m.content)))
            found = memo[self._marked_key] = (self, marked)
        return found[1]


class PreferenceNotAdopted(Rule):
    """A code preference that only the assistant holds.

    What it does:
        A ``code_preference`` (a ``work_method``) backed only by assistant
        messages -- no user adopted it (``confirmed_by``) and no tool output,
        artifact or commit verified it (``source``): the agent inferred or
        chose it -- is rerouted to ``task_state`` of its scene. Safe fix.

    Why is this bad?
        A preference is written only once it is explicitly adopted
        (a review passed, a convention updated, an owner said so). An
        agent's own resolution ("I'll always …") that lands in
        ``proj-{repo}-prefs`` steers every later session without anyone
        having agreed.

    Example:
        assistant: 改完 .proto 之后要先跑 buf generate 再编译，不然 stub 和定义对不上。
        ```json
        {"content": "修改 .proto 文件后应先运行 buf generate 再编译。", "type": "work_method", "priority": 80}
        ```
        assistant: Going forward I'll prefer composition over inheritance for React components.
        ```json
        {"content": "Prefer composition over inheritance for React components.", "type": "work_method",
         "priority": 80}
        ```

    Use instead:
        assistant: 改完 .proto 之后要先跑 buf generate 再编译，不然 stub 和定义对不上。
        user: 对，以后都这么做。
        ```json
        {"content": "修改 .proto 文件后应先运行 buf generate 再编译。", "type": "work_method", "priority": 80}
        ```
        user: Prefer composition over inheritance for React components; the deep chains are unreadable.
        ```json
        {"content": "Prefer composition over inheritance for React components.", "type": "work_method",
         "priority": 80}
        ```

    Fix: safe
    """

    code = "W006"
    name = "preference-not-adopted"
    target = "record"
    action = "fix"

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if record.get("kind") != "code_preference" or record.get("confirmed_by") or record.get("source"):
            return ()
        return [_reroute(record, ctx, "a code preference backed only by assistant messages "
                                      "(inferred by the agent, never adopted by a person)")]


# --- W007: facts that give another value for the same subject --------------

# Values: numbers with an optional unit, versions, paths and URLs, code.
_VALUE = re.compile(
    both_scripts(r"`[^`\n]{1,80}`"
    r"|(?:https?://)?[\w.-]*/[\w./%-]+"
    r"|\bv?\d+(?:\.\d+)*(?:\s?(?:ms|s|sec|seconds?|min|minutes?|h|hours?|days?|gb|mb|kb|%|x"
    r"|毫秒|秒|分钟|小时|天|次|个|条|倍|兆|G|M|K))?(?![\w.])"), re.IGNORECASE)
# In English text a technical name (MySQL, PostgreSQL, gRPC, k8s) is a value;
# in Chinese text every Latin word is.
_NAME = re.compile(r"\b(?:[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z]*[A-Z]*[A-Za-z0-9]*|[A-Za-z]+\d[\w]*)\b")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*")


def fact_shape(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(subject tokens, value tokens)`` of a fact: values masked out, the rest is what it is about."""
    values = {re.sub(r"\s+", "", m.group(0)).lower() for m in _VALUE.finditer(text)}
    rest = _VALUE.sub(" | ", text)
    if lexicon.has_cjk(rest):
        values.update(w.lower() for w in _LATIN_WORD.findall(rest))
        rest = _LATIN_WORD.sub(" | ", rest)
    else:
        values.update(w.lower() for w in _NAME.findall(rest))
        rest = _NAME.sub(" | ", rest)
    return frozenset(tokens(rest)), frozenset(values)


class ConflictOptions(RuleOptions):
    #: How much of the shorter fact's subject the other must share (0-1).
    subject_overlap: float = 0.8
    #: Fewest shared subject tokens for two facts to be about the same thing.
    min_shared: int = 2


class FactConflict(Rule):
    """A project fact that gives another value for a subject already stored.

    What it does:
        Compares a ``project_fact`` with the ACTIVE facts of the same scope
        -- the store attached to ``validate(store=...)``, else the context's
        ``existing``. Values (numbers with units, versions, paths, code,
        technical names) are masked out; when what remains (the subject)
        matches and the values differ, the new record is marked
        ``status: conflict`` with ``conflicts_with`` naming the stored ids.
        The store then marks those too; nothing is overwritten. Safe fix.

    Why is this bad?
        When two values of one project fact meet, do not merge
        automatically; mark the conflict and let a person decide which holds
        (``memvet store review``). Silently overwriting would let a
        temporary or wrong value replace the real one.

    Example:
        existing: {"id": "f-12", "kind": "project_fact", "scope": "repo:default", "content": "API 前缀统一用 /v2", "status": "active"}
        user: API 前缀以后改用 /v3
        ```json
        {"content": "API 前缀统一用 /v3。", "type": "work_fact", "priority": 80}
        ```
        existing: {"id": "f-3", "kind": "project_fact", "content": "The default request timeout is 10 s.", "status": "active"}
        user: The default request timeout is 30 s now.
        ```json
        {"content": "The default request timeout is 30 s.", "type": "work_fact", "priority": 80}
        ```

    Use instead:
        existing: {"id": "f-12", "kind": "project_fact", "scope": "repo:default", "content": "API 前缀统一用 /v2", "status": "active"}
        user: API 前缀统一用 /v2，不再用 /v1
        ```json
        {"content": "API 前缀统一用 /v2，不再用 /v1。", "type": "work_fact", "priority": 80}
        ```
        existing: {"id": "f-3", "kind": "project_fact", "content": "The default request timeout is 10 s.", "status": "active"}
        user: The upload endpoint allows files up to 30 MB.
        ```json
        {"content": "The upload endpoint allows files up to 30 MB.", "type": "work_fact", "priority": 80}
        ```

    Fix: safe
    """

    code = "W007"
    name = "fact-conflict"
    target = "record"
    action = "fix"
    Options = ConflictOptions

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if record.get("kind") != "project_fact":
            return ()
        scope = record.get("scope")
        memo, key = ctx.batch.memo, ("W007", scope)  # ctx.memo without a closure per record
        stored = memo.get(key)
        if stored is None:
            stored = memo[key] = self._active_facts(ctx, scope)
        if not stored:
            return ()  # the common case: nothing stored to conflict with
        return self._findings(record, scope, stored)

    def _findings(self, record: dict[str, Any], scope: Any, stored: list[Any]) -> Iterator[Finding]:
        subject, values = fact_shape(record.get("content") or "")
        if not values:
            return
        hits = [(mid, content) for mid, content, (s2, v2) in stored if self._conflicts(subject, values, s2, v2)]
        if not hits:
            return
        ids = [mid for mid, _ in hits]
        shown = "; ".join(f"{mid}: {content[:60]!r}" for mid, content in hits[:3])
        ops = [{"op": "replace", "path": "/status", "value": "conflict"},
               {"op": "add", "path": "/conflicts_with", "value": ids}]
        yield Finding(f"gives another value than the active fact(s) of scope {scope!r} ({shown}); both are "
                      "kept and marked conflict for a person to decide (memvet store review)",
                      path="/content", fix=ops)

    def _conflicts(self, subject: frozenset[str], values: frozenset[str],
                   other_subject: frozenset[str], other_values: frozenset[str]) -> bool:
        if not other_values or not (values - other_values) or not (other_values - values):
            return False
        shared = len(subject & other_subject)
        smaller = min(len(subject), len(other_subject))
        return shared >= self.options.min_shared and smaller > 0 and shared / smaller >= self.options.subject_overlap

    @staticmethod
    def _active_facts(ctx: Any, scope: str | None) -> list[tuple[str, str, tuple[frozenset[str], frozenset[str]]]]:
        found: dict[str, str] = {}
        for e in ctx.batch.existing:
            if e.kind == "project_fact" and e.status == "active" and (e.scope is None or e.scope == scope):
                found[e.id] = e.content
        store = ctx.store
        if store is not None and hasattr(store, "existing"):
            for e in store.existing(scope=scope):
                if e.get("kind") == "project_fact" and e.get("status", "active") == "active":
                    found[str(e["id"])] = e["content"]
        return [(mid, content, fact_shape(content)) for mid, content in found.items()]


# --- W008: an agent proposal written as a decision -------------------------

class ProposalOptions(RuleOptions):
    #: Wording that presents something as settled (or as the user's position).
    settled: list[str] = [
        "决定", "已确定", "确定采用", "确定用", "定为", "定下", "敲定", "拍板", "统一采用", "已采用", "最终方案",
        "用户主张", "用户决定", "用户规定", "用户要求", "用户坚持", "团队约定", "项目约定",
        "decided", "decision", "adopted", "agreed", "settled on", "chose", "has chosen", "standardized on",
        "standardised on", "user insists", "user wants", "user holds", "user prefers", "the team uses",
        # Japanese (決定 and 確定 are already the list's 决定 and 确定 once folded)
        "を採用", "に決め", "で決ま", "方針とする",
    ]
    #: Wording of an assistant proposal that still needs an answer: a suggestion,
    #: options to choose from, an offer that waits for a yes.
    proposal: list[str] = [
        "建议", "倾向于", "倾向用", "可以改成", "可以改为", "可以换成", "可以考虑", "不妨", "推荐", "要不要", "是否可以",
        "我们应该", "我们可以", "应该改用", "应该换成", "你倾向", "您倾向", "选哪个", "哪种方案", "方案一", "方案二",
        "i'd suggest", "i suggest", "i recommend", "i'd recommend", "i propose", "we could", "how about",
        "i'd prefer", "i lean towards", "you might", "we might", "consider switching", "my suggestion",
        "we should", "should we", "let's switch", "let's move", "would you like", "shall i", "which do you prefer",
        "which would you prefer", "i'll go with", "i'd go with", "(recommended)", "recommended approach",
        "option 1", "option 2", "option a", "option b",
        # an offer that waits for a yes, or a fix the user is asked to try
        "好吗", "可以吗", "如果你同意", "你看可以", "要我", "需要我", "let's try", "can you try", "try these changes",
        "if you agree", "if you'd like, i can", "want me to", "do you want me", "could include", "potential additions",
        "if you want, i can", "if you want i can", "if you'd like i can", "if you want, i'll", "if you'd like, i'll",
        # Japanese: a proposal, a recommendation, a question that waits for a yes
        "提案", "おすすめ", "お勧め", "推奨", "いかがでしょうか", "どうでしょうか", "しましょうか", "どちらが",
        "よろしいでしょうか", "よろしいですか", "させてください", "してもいいですか",
    ]
    #: A settled word right after one of these is negated or deferred ("尚未决定",
    #: "由用户决定", "not yet decided", "undecided"). Latin entries may be
    #: followed by up to two words ("not yet"); "un" must touch the word.
    negations: list[str] = ["未", "没", "没有", "不", "待", "再", "来", "由用户", "由你", "让用户",
                            "not", "n't", "no", "never", "yet to", "un"]
    #: Wording by which a memory keeps a proposal open (it is then not written
    #: as settled): 待确认, "proposed by the assistant", "awaiting the user".
    open_markers: list[str] = [
        "待确认", "待用户", "待定", "尚未", "未确认", "还没确认", "未决定", "未定", "提议", "候选", "可选",
        "正在评估", "评估中", "方案之一", "agent 提出", "agent 建议", "agent 推荐", "助手建议", "助手推荐",
        "assistant 提出", "assistant 建议", "助手提出", "等用户确认", "等待用户", "还等用户",
        "proposed by", "suggested by", "recommended by", "the assistant recommends", "the assistant suggests",
        "the assistant proposes", "it recommends", "it suggests", "awaiting", "pending", "not yet", "unconfirmed",
        "to be confirmed", "under evaluation", "tbd", "candidate", "no decision", "undecided", "open question",
    ]
    #: Words by which the user's first reply to an offer turns it down ("nah, leave
    #: it", 不用了). If the memory then says no (``refusals``), it may record the
    #: refusal ("no refresh parameter, by the user's choice") rather than the offer,
    #: which words alone cannot tell apart: the finding only warns. Read in the
    #: reply's first sentence, so a later "no" about something else does not count.
    declines: list[str] = [
        "不用", "不需要", "算了", "先不", "暂不", "不必", "先别", "别加", "不加", "不要了",
        "nah", "no thanks", "no need", "not now", "not needed", "leave it", "skip it", "skip that",
        "let's not", "don't bother", "no,", "nope",
    ]
    #: Words by which a memory says that something is not done or not there.
    refusals: list[str] = ["不", "没", "无", "未", "放弃", "拒绝", "no", "not", "n't", "never", "without", "declined",
                           "rejected", "skipped", "dropped"]
    #: An offer of optional extra work ("if you want, I can also add a test script", 需要的话我可以):
    #: work nobody asked for. A work_task written from such an offer that no user took is a
    #: certain finding; from any other proposal (a plan's next steps, "would you like me to start
    #: with 1 or 2?", 要我…吗 after a missing directory) it may be the real work left: uncertain.
    optional_offers: list[str] = [
        "if you want, i can", "if you want i can", "if you'd like, i can", "if you'd like i can",
        "if you want, i'll", "if you'd like, i'll", "if needed, i can", "optionally, i can",
        "如果你需要，我可以", "如果需要，我可以", "需要的话，我可以", "需要的话我可以", "如果你愿意，我可以", "要的话我可以",
    ]
    #: Share of the memory's words (weighted, see ``tokens``) that must come from
    #: the proposal itself -- the paragraph that holds the proposal wording and
    #: the list it introduces -- for a certain finding; from the whole proposing
    #: message, for an uncertain one.
    min_share: float = 0.5
    #: Words a later user message must share with the memory to count as the
    #: user stating it (or rejecting it), rather than moving on to another topic.
    min_user_overlap: int = 2


# A reply's first sentence: up to the first full stop, question or exclamation mark, or line end.
_FIRST_SENTENCE = re.compile(r"[^.!?。！？\n]*[.!?。！？]?")


@lru_cache(maxsize=16)
def _negation_pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    parts = []
    for w in (w.strip() for w in words if w.strip()):
        if lexicon.has_cjk(w):
            parts.append(re.escape(w) + r"\s*$")
        elif w == "un":
            parts.append(r"\bun$")
        else:
            start = r"\b" if re.match(r"\w", w) else ""
            parts.append(start + re.escape(w) + r"(?:\s+\w+){0,2}\s*$")
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def _prose(text: str) -> str:
    # Fenced blocks are code the assistant shows, not its prose: a "we could" in a
    # code comment proposes nothing.
    return _text.FENCED_BLOCK.sub(" ", text) if ("```" in text or "~~~" in text) else text


# Blocks: paragraphs, and each heading line on its own (a long reply is often
# one "paragraph" of headed sections).
_BLOCKS = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*#{1,6}\s)")
_LIST_START = re.compile(r"\s*(?:[-*•+]|\d{1,2}[.)、]|[（(]?\d{1,2}[)）])\s")
_HEADING_START = re.compile(r"\s*#{1,6}\s")
_SENTENCE_END = re.compile(r"[。！？!?；;\n]|(?<=[A-Za-z0-9)\]`*])\.(?=\s)")


def proposal_region(prose: str, proposal: re.Pattern[str]) -> str:
    """The proposal of a message: each paragraph with proposal wording, and what it introduces.

    "I'd recommend option 1:" followed by bullets proposes the bullets; the
    report or diagnosis around it ("the renames failed because ...") is
    something else the assistant said, not what it proposed.
    """
    blocks = [b for b in _BLOCKS.split(prose) if b.strip()]
    out: list[str] = []
    n = 0
    while n < len(blocks):
        if not proposal.search(blocks[n]):
            n += 1
            continue
        block = blocks[n]
        first_line = block.strip().split("\n", 1)[0]
        # A heading that proposes ("### Option 1 (recommended)") proposes its section;
        # a lead-in ("I'd suggest:") the list or headed blocks right after it; in a
        # paragraph, the proposal starts with the sentence that makes it ("Vite 5 is
        # used. I'd recommend Vite 6." proposes Vite 6, not Vite 5).
        heading = _HEADING_START.match(first_line) is not None and proposal.search(first_line) is not None
        if not heading:
            hit = proposal.search(block)
            starts = [m.end() for m in _SENTENCE_END.finditer(block, 0, hit.start())] if hit else []
            block = block[starts[-1]:] if starts else block
        out.append(block)
        introduces = block.rstrip().endswith((":", "："))
        n += 1
        while n < len(blocks) and ((heading and not _HEADING_START.match(blocks[n])) or _LIST_START.match(blocks[n])
                                   or (introduces and _HEADING_START.match(blocks[n]))):
            out.append(blocks[n])
            n += 1
    return "\n".join(out)


class ProposalAsDecision(Rule):
    """An agent proposal that nobody answered, written as settled.

    What it does:
        Judges a memory against the order and roles of its batch. It fails
        when the memory states as settled what only an assistant PROPOSAL
        says (建议, 推荐, 你倾向哪个, "I'd suggest", "I recommend", "would you
        like", "option 1") and no user message accepted or stated it: none
        among its sources, and none after the proposal in the batch. The
        user's final word wins: a later 不对 / "no, keep offsets" undoes an
        earlier 好. A user who moves on to another topic, or only asks
        something, has not accepted. An answer to the user's own question
        ("should we use X?" -> "yes, X") is still a proposal until the user
        confirms it. Two findings:

        - certain (reject): the content presents a decision (决定/已确定/采用,
          "decided", "adopted", or the user's position: 用户主张, "user
          insists"); uncertain (low, warns) when the proposing message
          reports work done and ends on an offer of more, and the memory
          is written mostly from the report, or when the sources also hold
          another proposal that the user did accept ("i agree, continue"),
          which the decision may come from, or when the user's first reply
          turns the offer down (nah / 不用了) and the memory says no: it
          may record that refusal ("no refresh param, by the user's
          choice");
        - uncertain (low confidence, warns): a project fact or code
          preference whose only sources are assistant messages, written
          mostly from the words of the latest proposing one, without
          keeping it open (待确认, "proposed", "awaiting the user"). W003
          already writes such a memory as pending, so it cannot become an
          active rule; and an assistant's analysis written beside its own
          "option 1" reads the same as the proposal, so a reject would
          often re-ask a correct answer;
        - a work_task whose only sources are assistant messages, written
          from the paragraph of an offer of optional extra work that waits
          for the user ("if you want, I can also …", 需要的话我可以…, as the
          batch facts read it) that no user message took: certain (reject), unless it keeps
          itself open (待确认, "awaiting the user"); uncertain (warns) when
          the message only announces the agent's own next step ("let's
          try …"), the proposal is not an offer of optional extra work
          (a plan's next steps before "Would you like (me) to …?", 要我…吗:
          the step may be the real work left), or the record is a method
          W006 rerouted to task state.

    Why is this bad?
        An open proposal must be recorded as open ("正在评估…",
        "待确认"). Written as a decision it becomes a project rule nobody
        took.

    Example:
        user: 镜像太大了，有什么办法？
        assistant: 可以改成多阶段构建，运行阶段基于 distroless。
        ```json
        {"content": "项目决定 Docker 镜像改用多阶段构建、运行阶段基于 distroless。", "type": "work_fact",
         "priority": 80}
        ```
        assistant: Lint passed. If you want, I can add a script in test/ that checks wheel-only motion.
        ```json
        {"content": "Add a script in test/ that checks wheel-only motion.", "type": "work_task", "priority": 75}
        ```
        assistant: The dashboard polls /stats every 2 seconds. I'd suggest moving to server-sent events.
        ```json
        {"content": "Decided: the dashboard uses server-sent events instead of polling.", "type": "work_fact",
         "priority": 80}
        ```
        assistant: 我建议把 GT 生成拆成三个模块：地图提取、几何处理、GT 缓存，放在 data/map_gt/ 下。你倾向哪种？
        user: 先看看数据集里有没有 maps 目录
        ```json
        {"content": "GT 生成拆成地图提取、几何处理、GT 缓存三个模块，放在 data/map_gt/ 下。", "type": "work_fact",
         "priority": 80, "source_message_ids": ["m1"]}
        ```

    Use instead:
        user: 镜像太大了，有什么办法？
        assistant: 可以改成多阶段构建，运行阶段基于 distroless。
        ```json
        {"content": "正在评估 Docker 镜像改用多阶段构建、运行阶段基于 distroless，待用户确认。",
         "type": "work_task", "priority": 80}
        ```
        assistant: The dashboard polls /stats every 2 seconds. I'd suggest moving to server-sent events.
        user: Agreed, go with SSE.
        ```json
        {"content": "Decided: the dashboard uses server-sent events instead of polling.", "type": "work_fact",
         "priority": 80}
        ```
        user: 拿不准的参数都保持和 MapTR 相同，或者你帮我选择一下
        assistant: 建议 pc_range 直接沿用 MapTR 的默认值。
        user: 确定
        ```json
        {"content": "用户主张：拿不准的 GT 参数一律与 MapTR 保持一致。", "type": "work_method", "priority": 85,
         "metadata": {"scope": "self", "method_type": "principle"}}
        ```
    """

    code = "W008"
    name = "proposal-as-decision"
    target = "record"
    action = "reject"
    Options = ProposalOptions

    #: Both findings need a memory that says something (a blank one shares no words with a proposal).
    needs = Needs(fields=("content",))

    def __init__(self, options: ProposalOptions | None = None):
        super().__init__(options)
        self.proposal = lexicon.compile_words(self.options.proposal)
        self.negations = _negation_pattern(tuple(self.options.negations))
        self.declines = lexicon.compile_words(self.options.declines)
        #: The content's settled and open wording: exact lexicon matches from one text-layer scan.
        self._settled = tuple(self.options.settled)
        self._open = tuple(self.options.open_markers)
        self._refusals = tuple(self.options.refusals)
        self._optional = lexicon.compile_words(self.options.optional_offers)
        _LAYER.word_list(self._settled)
        _LAYER.word_list(self._open)
        _LAYER.word_list(self._refusals)

    def _settled_marker(self, content: str, facts: Any) -> str | None:
        for start, end in facts.hits(self._settled):
            if not _negated(content, start, self.negations):
                return content[start:end]
        return None

    def check(self, record: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if self.proposal is None:
            return ()
        content = unquote(record.get("content") or "")
        facts = content_facts(ctx, content)
        if facts.hits(self._open):
            return ()  # the memory keeps the question open itself ("No decision yet", 待确认)
        marker = self._settled_marker(content, facts)
        if marker is not None:
            return self._settled_findings(record, content, marker, ctx)
        if record.get("kind") in KINDS:
            return self._unanswered_findings(record, content, ctx)
        return ()

    def _proposal_of(self, m: Any, ctx: Any) -> str | None:
        """The proposal wording of an assistant message (its prose, code blocks masked), memoised per batch."""
        def find() -> str | None:
            hit = self.proposal.search(_prose(m.content)) if self.proposal else None
            return hit.group(0) if hit else None
        return ctx.memo(("W008:proposal", id(self), m.sessionKey, m.id), find)

    @staticmethod
    def _tokens_of(m: Any, ctx: Any) -> dict[str, int]:
        """The tokens of a message's prose, once per batch (every memory citing it asks again)."""
        return ctx.memo(("W008:tokens", m.sessionKey, m.id), lambda: tokens(_prose(m.content)))

    def _proposing(self, sources: list[Any], ctx: Any) -> list[tuple[Any, str, int]]:
        """The cited assistant messages that propose: each with its proposal wording and its place
        in the batch."""
        order = ctx.memo("W008:order", lambda: {m.key: n for n, m in enumerate(ctx.batch.messages)})
        return [(m, hit, order[m.key]) for m in sources
                if m.role == "assistant" and (hit := self._proposal_of(m, ctx))]

    def _offers_optional_work(self, m: Any, ctx: Any) -> bool:
        """Does ``m`` offer optional extra work (``optional_offers``: "if you want, I can …")?"""
        def find() -> bool:
            return self._optional is not None and self._optional.search(_prose(m.content)) is not None
        return ctx.memo(("W008:optional", id(self), m.sessionKey, m.id), find)

    def _region(self, m: Any, ctx: Any) -> dict[str, int]:
        """The tokens of the paragraph of ``m`` that holds its proposal, memoised per batch."""
        return ctx.memo(("W008:region", id(self), m.sessionKey, m.id),
                        lambda: tokens(proposal_region(_prose(m.content), self.proposal)))

    def _latest_proposal(self, sources: list[Any], ctx: Any) -> tuple[Any, str] | None:
        """The latest cited assistant message that proposes, with its proposal wording."""
        proposing = self._proposing(sources, ctx)
        if not proposing:
            return None
        m, hit, _ = max(proposing, key=lambda p: p[2])
        return m, hit

    def _user_took_it(self, proposer: Any, sources: list[Any], mine: dict[str, int], ctx: Any) -> bool:
        """Did the user accept or state it after ``proposer``? The user's final word wins.

        A user message the memory cites counts as support unless it rejects
        (or, as the reply right after the proposal, declines it: ``declines``),
        or only asks about something else ("what's our current number?" takes
        nothing up; "maybe just vercel?" leans the memory's way); any
        other later user message counts only when it accepts (确定 / ok /
        go ahead), or states something the memory says; a rejection that
        touches the memory (or opens the reply) undoes what came before. A
        question or a new topic changes nothing.
        """
        facts = ctx.facts
        cited = {m.key for m in sources if m.role == "user"}
        first = True
        took = False
        for f in facts.after(proposer):
            if f.role != "user":
                continue
            about_it = overlap(mine, self._tokens_of(ctx.batch.messages[f.index], ctx)) >= self.options.min_user_overlap
            only_asks = "asks" in f.acts and not f.acts & {"accepts", "states"}
            # The reply right after the proposal turns it down in W008's own words too ("nah, not needed").
            declined = first and self._declines(ctx.batch.messages[f.index].content)
            if ("rejects" in f.acts or declined) and (first or about_it or f.key in cited):
                took = False
            elif (f.key in cited and (about_it or not only_asks)) or "accepts" in f.acts \
                    or ("states" in f.acts and about_it):
                took = True
            first = False
        return took

    def _declines(self, reply: str) -> bool:
        """Does the first sentence of a user's reply turn an offer down (``declines``: 不用了, "nah")?"""
        first = _FIRST_SENTENCE.match(reply.strip().lower())
        return self.declines is not None and first is not None and self.declines.search(first.group(0)) is not None

    def _records_a_refusal(self, content: str, proposer: Any, ctx: Any) -> bool:
        """Does the memory say no, and the user's first reply after ``proposer`` turn the offer down
        in its first sentence?"""
        if self.declines is None or not content_facts(ctx, content).hits(self._refusals):
            return False
        reply = ctx.facts.user_answer_after(proposer)
        return reply is not None and self._declines(ctx.batch.messages[reply.index].content)

    def _settled_findings(self, record: dict[str, Any], content: str, marker: str, ctx: Any) -> Iterator[Finding]:
        sources = ctx.sources(record)
        mine = tokens(content)
        proposing = self._proposing(sources, ctx)
        found = self._proposal_written_from(proposing, mine, ctx)
        if found is None:
            return
        proposer, proposal, share = found
        # The batch facts: a user source BEFORE the proposal that states a position
        # (not a mere question) said it; the proposal then only carried it out.
        facts = ctx.facts
        index = facts.of(proposer).index
        if any(m.role == "user" and facts.of(m).index < index and "states" in (acts := facts.of(m).acts)
               and "asks" not in acts for m in sources):
            return
        if self._user_took_it(proposer, sources, mine, ctx):
            return
        # Another cited proposal that the user did take ("i agree, continue") may be the one the
        # decision comes from; and a message that reports work done and then offers more
        # ("已按你的需求完成修改…需要我再…吗") may be cited for the report, which the memory then
        # states rather than the offer. Words alone do not settle either: the finding only warns.
        other_taken = any(m is not proposer and self._user_took_it(m, sources, mine, ctx) for m, _, _ in proposing)
        # Little of the memory is the proposing paragraph's (under ``min_share``) and the message also
        # reports work done, or a cited user message came before the proposal: the memory may state the
        # report, or what the user asked for ("is this all nixos?" before "Would you like me to …?"),
        # not the offer. (A user message after it that does not take it up leaves the finding certain.)
        # Session 27: one such task, labelled good, was rejected; no labelled junk or probe is like it.
        written_elsewhere = share < self.options.min_share and (
            "reports_done" in facts.of(proposer).acts
            or any(m.role == "user" and facts.of(m).index < index for m in sources))
        uncertain = other_taken or self._records_a_refusal(content, proposer, ctx) or written_elsewhere
        yield Finding(f"written as settled ({marker!r}) but the sources only show an assistant proposal "
                      f"({proposal!r}) that no user message answered; record it as open "
                      "(正在评估…/待确认, 'under evaluation')", path="/content",
                      confidence="low" if uncertain else None)

    def _proposal_written_from(self, proposing: list[tuple[Any, str, int]], mine: dict[str, int],
                               ctx: Any) -> tuple[Any, str, float] | None:
        """Of the cited proposing messages (:meth:`_proposing`), the one whose proposing paragraph the
        memory shares most words with (the latest on a tie), its proposal wording, and that share of
        the memory's words."""
        weight = sum(mine.values())
        scored = [(overlap(mine, self._region(m, ctx)) / weight if weight else 0.0, place, m, hit)
                  for m, hit, place in proposing]
        if not scored:
            return None
        share, _, m, hit = max(scored, key=lambda s: (s[0], s[1]))
        return m, hit, share

    def _unanswered_findings(self, record: dict[str, Any], content: str, ctx: Any) -> Iterable[Finding]:
        sources = ctx.sources(record)
        if not sources or any(m.role != "assistant" for m in sources):
            return ()  # a user (or a tool) among the sources: not the assistant's word alone
        found = self._latest_proposal(sources, ctx)
        if found is None:
            return ()
        proposer, proposal = found
        mine = tokens(content)
        weight = sum(mine.values())
        if not weight or overlap(mine, self._tokens_of(proposer, ctx)) < self.options.min_share * weight:
            return ()  # written from something else the assistant said, not from this message
        if self._user_took_it(proposer, sources, mine, ctx):
            return ()
        from_proposal = overlap(mine, self._region(proposer, ctx)) >= self.options.min_share * weight
        if record.get("kind") not in LONG_TERM_KINDS:
            # Task state (a next step, or a preference W006 already rerouted): the assistant's offer
            # written as the work to do, from the proposing paragraph itself, with no user source and
            # no word that keeps it open. Seed 000 asks for it as pending (待确认). Certain only for a
            # work_task from an offer of optional extra work ("if you want, I can …") that the batch
            # facts read as waiting for the user: the labelled sets bore out "certain" for every offer
            # at first (session 19: nine junk tasks, no kept one), but by session 21 they held three
            # good or kept tasks among six such rejects, each a plan's next step the assistant listed
            # before "Would you like (me) to …?", which may be the real work left. Any other proposal,
            # the agent's "let's try" about its own next step, or a method W006 rerouted here (judged
            # by W006 already) gives an uncertain finding.
            certain = (record.get("type") == "work_task" and "proposes" in ctx.facts.of(proposer).acts
                       and self._offers_optional_work(proposer, ctx))
            return [Finding(f"it states as the plan what an assistant proposal ({proposal!r}) only offered, and no "
                            "user message accepted it; say that it awaits the user", path="/content",
                            confidence=None if certain else "low")] if from_proposal else ()
        if from_proposal:
            # Low as well: restating the proposing paragraph is strong evidence, but an
            # assistant-only analysis written next to its own "option 1" reads the same, and a
            # wrong reject costs a re-ask of a correct answer.
            return [Finding(f"its only sources are assistant messages, and it states as settled what an "
                            f"assistant proposal ({proposal!r}) put to the user, which no user message "
                            "accepted; record it as open (待确认, 'proposed, awaiting the user') or leave it out",
                            path="/content", confidence="low")]
        # Uncertain: written from the proposing message, but mostly from what it
        # reports next to its proposal (a diagnosis, a fact): words alone do not settle it.
        return [Finding(f"its only sources are assistant messages, and it is written from a message that "
                        f"proposes ({proposal!r}) without any user message accepting; if it states the "
                        "proposal, record it as open (待确认, 'proposed, awaiting the user')", path="/content",
                        confidence="low")]
