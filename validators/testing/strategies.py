"""Hypothesis strategies: valid batches with matching answers, and their malformed twins.

For plugin authors and memvet's own property tests::

    from hypothesis import given
    from memvet.testing.strategies import valid_pairs, mutated_pairs

    @given(valid_pairs())
    def test_my_rule_accepts_valid_answers(pair):
        context, output = pair
        ...

    @given(mutated_pairs("lookalike_id"))
    def test_lookalikes(m):
        report = memvet.validate(m.output, m.context)
        assert {(v.code, v.path) for v in report.violations if v.action == "reject"} >= set(m.expected)

What the generated batches contain (docs/formats.md), on purpose:

* Chinese or English conversations (one dominant language per batch);
* one to three sessions whose message ids OVERLAP -- ``m4`` may name a
  message in two sessions, as real pipelines number per session -- while
  the first session's first id and the last session's last id belong to
  that session alone (so a cross-session citation can always be built);
* background messages (ids ``m1 .. mB``, never reused by new messages);
* a scene pool (list or the prompt's ``id | label`` text form; possibly
  empty) with ids ``sc0001 ..``;
* timestamps that are valid epoch milliseconds, ``null``, or invalid (epoch
  seconds, zero, a date string, a fraction, a boolean).

A valid answer reuses pool scenes, opens new ones or leaves a scene
unclassified; every id is verbatim, every source is a new message inside
its scene and all sources of a memory resolve to one session; metadata
keys and values fit the memory's type; activity times come from the
sources' event times. Such an answer must not trip any S, I or T reject.

A :class:`Mutation` breaks exactly one thing and says which violations
(code, JSON Pointer) memvet must report for it -- see :data:`MUTATIONS`.
The expected pointers follow the rules' documentation (docs/rules/).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("memvet.testing.strategies needs Hypothesis: pip install 'memvet[testing]'") from exc

from memvet import pointer as jp
from memvet.context import iso_from_ms, load_context, valid_epoch_ms

BASE_MS = 1_795_831_200_000  # 2026-11-28T02:00:00Z, inside the plausible event-time window
ROLES = ("user", "assistant", "tool", "system")
TYPES = ("work_fact", "work_task", "work_method", "work_artifact")
TASK_STATES = ("open", "done", "dropped")
SCOPES = ("self", "global", "unknown")
METHOD_TYPES = ("sop", "principle", "constraint", "anti_pattern", "heuristic", "evaluation_criterion",
                "reasoning_pattern")
ARTIFACT_TYPES = ("doc", "pr", "issue", "commit", "repo", "branch", "design", "report", "prompt", "dataset")
METADATA_KEYS = ("work_object", "status", "activity_start_time", "activity_end_time", "deadline", "owner",
                 "scope", "method_type", "artifact_type", "artifact_ref", "project", "projectEvidence")

PROJECTS = ("billing-api", "memory-system", "auth-service", "pi-agent")

# Phrase banks written for these strategies: a subject and a statement about
# it, so that generated memories read like self-contained work facts.
_TEXT = {
    "zh": {
        "subjects": ("订单服务", "登录接口", "构建流水线", "支付回调", "日志采集", "缓存层", "部署脚本", "灰度发布"),
        "facts": ("的超时上限定为 30 秒", "只接受 HTTPS 回调地址", "失败后最多重试 3 次", "按租户分库存储数据",
                  "上线前需要两人评审", "的配置统一放在环境变量里", "依赖的 Redis 连接池按压测峰值配置"),
        "chat": ("先看一下这个报错", "我把日志贴在下面了", "这里的重试逻辑有问题", "帮我确认一下超时配置",
                 "测试已经全部通过", "回滚方案也准备好了"),
        "topics": ("写入层隔离", "登录接口性能", "部署流程", "回调签名", "缓存失效策略"),
        "reason": "场景池中没有覆盖这个议题的情境。",
        "end": "。",
    },
    "en": {
        "subjects": ("The billing API", "The login endpoint", "The CI pipeline", "The payment webhook",
                     "The log shipper", "The cache layer", "The deploy script", "The canary rollout"),
        "facts": (" times out after 30 seconds", " only accepts HTTPS callback URLs", " retries at most three times",
                  " stores data in one database per tenant", " needs two reviewers before a release",
                  " reads its settings from environment variables", " sizes its Redis pool from load-test peaks"),
        "chat": ("Let's look at this error first", "I pasted the log below", "The retry logic looks wrong here",
                 "Please double-check the timeout setting", "All tests pass now", "The rollback plan is ready"),
        "topics": ("write-layer isolation", "login latency", "deploy pipeline", "webhook signing",
                   "cache invalidation"),
        "reason": "No scene in the pool covers this topic.",
        "end": ".",
    },
}

#: Event times a pipeline really sends that mean "unknown" (docs/formats.md).
INVALID_TIMESTAMPS = (None, 0, 1_795_831_200, "2026-11-28", 1.7958312e12 + 0.5, True, -1)


# --- contexts ---------------------------------------------------------------------

def _sentence(draw: Any, lang: str) -> str:
    bank = _TEXT[lang]
    return draw(st.sampled_from(bank["subjects"])) + draw(st.sampled_from(bank["facts"])) + bank["end"]


def _message_text(draw: Any, lang: str, role: str) -> str:
    bank = _TEXT[lang]
    if role == "tool":
        return draw(st.sampled_from(("$ pytest -q\n12 passed in 0.84s", "$ git log -1 --oneline\n8f3a2c1 fix retry",
                                     "HTTP 504 after 30.0s")))
    if draw(st.booleans()):
        return _sentence(draw, lang)
    return draw(st.sampled_from(bank["chat"])) + bank["end"]


def _timestamp(draw: Any, k: int) -> Any:
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(INVALID_TIMESTAMPS))
    return BASE_MS + 60_000 * k


def _message(draw: Any, mid: str, session: str, lang: str, k: int, role: str | None = None) -> dict[str, Any]:
    role = role or draw(st.sampled_from(ROLES))
    msg: dict[str, Any] = {"id": mid, "sessionKey": session, "role": role,
                           "content": _message_text(draw, lang, role), "timestamp": _timestamp(draw, k)}
    if draw(st.booleans()):
        msg["recordedAt"] = BASE_MS + 60_000 * k + 300_000  # archive time, later than the event
    return msg


@st.composite
def batch_contexts(draw: Any, *, min_sessions: int = 1, max_sessions: int = 3, min_background: int = 0,
                   min_pool: int = 0, language: str | None = None) -> dict[str, Any]:
    """A valid batch context (docs/formats.md) as a dict."""
    lang = language or draw(st.sampled_from(("zh", "en")))
    n_sessions = draw(st.integers(min_sessions, max(min_sessions, max_sessions)))
    sessions = draw(st.lists(st.from_regex(r"s-[0-9a-f]{3,6}", fullmatch=True), min_size=n_sessions,
                             max_size=n_sessions, unique=True))
    n_background = draw(st.integers(min_background, max(min_background, 3)))
    clock = 0
    background = []
    for b in range(1, n_background + 1):
        background.append(_message(draw, f"m{b}", draw(st.sampled_from(sessions)), lang, clock))
        clock += 1
    # New ids per session: a range [start, end) of numbers after the background.
    # Starts and ends strictly increase, so ranges may overlap (ids repeat across
    # sessions) but the first session's first id and the last session's last id
    # are unique to their session.
    messages = []
    start, end = n_background + 1, n_background + 1
    for k, session in enumerate(sessions):
        if k == 0:
            end = start + draw(st.integers(1, 5))
        else:
            start = start + draw(st.integers(1, end - start))
            end = end + draw(st.integers(1, 4))
        roles = [draw(st.sampled_from(ROLES)) for _ in range(start, end)]
        roles[0] = "user"  # every session has someone to confirm things
        for number, role in zip(range(start, end), roles):
            messages.append(_message(draw, f"m{number}", session, lang, clock, role))
            clock += 1
    n_pool = draw(st.integers(min_pool, max(min_pool, 3)))
    bank = _TEXT[lang]
    pool = [{"id": f"sc{n:04d}", "label": f"{draw(st.sampled_from(PROJECTS))}｜{draw(st.sampled_from(bank['topics']))}"}
            for n in sorted(draw(st.sets(st.integers(1, 99), min_size=n_pool, max_size=n_pool)))]
    context: dict[str, Any] = {"messages": messages}
    if background or draw(st.booleans()):
        context["background"] = background
    if draw(st.integers(0, 3)) == 0:
        # The prompt's text form of the pool: one "id | label" per line.
        context["scenePool"] = "\n".join(f"{e['id']} | {e['label']}" for e in pool) or draw(
            st.sampled_from(("", "(无)", "(none)")))
    else:
        context["scenePool"] = pool
    context["knownProjects"] = draw(st.lists(st.sampled_from(PROJECTS), max_size=2, unique=True))
    return context


# --- facts about a context, for building answers and mutations ---------------------

@dataclass
class Facts:
    """What answers are built from: ids per session, background ids, pool ids, the language."""

    context: dict[str, Any]
    sessions: dict[str, list[str]] = field(default_factory=dict)   # sessionKey -> new ids in order
    background: list[str] = field(default_factory=list)
    pool: list[str] = field(default_factory=list)
    language: str = "zh"
    batch: Any = None  # the loaded memvet.context.Batch (resolves sources like the engine)

    @classmethod
    def of(cls, context: dict[str, Any]) -> Facts:
        batch = load_context(context)
        facts = cls(context, background=sorted(batch.background_ids), pool=list(batch.pool), batch=batch)
        for m in batch.messages:
            facts.sessions.setdefault(m.sessionKey, []).append(m.id)
        texts = "".join(m.content for m in batch.messages)
        facts.language = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in texts) else "en"
        return facts

    def all_new_ids(self) -> set[str]:
        return {mid for ids in self.sessions.values() for mid in ids}


def _subsequence(draw: Any, items: list[str], *, min_size: int = 1) -> list[str]:
    """A non-empty ordered subset of ``items`` without repeats."""
    chosen = draw(st.lists(st.sampled_from(items), min_size=min_size, max_size=len(items), unique=True))
    return [x for x in items if x in chosen]


def _metadata(draw: Any, facts: Facts, mtype: str, sources: list[str]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    lang = facts.language
    if mtype == "work_fact":
        if draw(st.booleans()):
            meta["work_object"] = draw(st.sampled_from(_TEXT[lang]["subjects"]))
        messages, _ = facts.batch.resolve(sources)
        times = sorted(t for t in (valid_epoch_ms(m.timestamp) for m in messages) if t is not None)
        if times and draw(st.booleans()):
            # An activity time taken from the sources' event time (never recordedAt).
            meta["activity_start_time"] = iso_from_ms(times[0])
            if len(times) > 1 and draw(st.booleans()):
                meta["activity_end_time"] = iso_from_ms(times[-1])
    elif mtype == "work_task":
        if draw(st.booleans()):
            meta["deadline"] = draw(st.sampled_from(("2026-12-04T18:00:00+08:00", "2027-01-15", "2026-12-31T23:59:00Z")))
        if draw(st.booleans()):
            meta["owner"] = draw(st.sampled_from(("alice", "bob", "张伟")))
    elif mtype == "work_method":
        if draw(st.booleans()):
            meta["scope"] = draw(st.sampled_from(SCOPES))
        if draw(st.booleans()):
            meta["method_type"] = draw(st.sampled_from(METHOD_TYPES))
    else:
        if draw(st.booleans()):
            meta["artifact_type"] = draw(st.sampled_from(ARTIFACT_TYPES))
        if draw(st.booleans()):
            meta["artifact_ref"] = draw(st.sampled_from(("docs/retry.md", "PR #128", "8f3a2c1")))
    if draw(st.integers(0, 3)) == 0:
        meta["project"] = draw(st.sampled_from(PROJECTS))
        meta["projectEvidence"] = _subsequence(draw, sources)
    return meta


def _memory_sentence(draw: Any, facts: Facts) -> str:
    """A sentence whose fact no background message states: provenance the memory cannot
    honour (I011: an uncited message says it) is a mutation, not a valid answer."""
    bank = _TEXT[facts.language]
    said = " ".join(m.content for m in facts.batch.background)
    facts_free = [f for f in bank["facts"] if f not in said] or list(bank["facts"])
    return draw(st.sampled_from(bank["subjects"])) + draw(st.sampled_from(facts_free)) + bank["end"]


def _memory(draw: Any, facts: Facts, message_ids: list[str]) -> dict[str, Any]:
    mtype = draw(st.sampled_from(TYPES))
    sources = _subsequence(draw, message_ids)
    memory: dict[str, Any] = {"content": _memory_sentence(draw, facts), "type": mtype}
    if mtype == "work_task":
        memory["taskState"] = draw(st.sampled_from(TASK_STATES))
    memory["priority"] = draw(st.integers(70, 100))
    memory["source_message_ids"] = sources
    if draw(st.booleans()):
        memory["metadata"] = _metadata(draw, facts, mtype, sources)
    return memory


def _new_scene_fields(draw: Any, facts: Facts) -> dict[str, str]:
    bank = _TEXT[facts.language]
    return {"new_scene_name": f"{draw(st.sampled_from(PROJECTS))}｜{draw(st.sampled_from(bank['topics']))}",
            "new_scene_reason": bank["reason"]}


def _scene(draw: Any, facts: Facts) -> dict[str, Any]:
    session = draw(st.sampled_from(sorted(facts.sessions)))
    message_ids = _subsequence(draw, facts.sessions[session])
    forms = ["new", "unclassified"] + (["reuse", "reuse"] if facts.pool else [])
    form = draw(st.sampled_from(forms))
    scene: dict[str, Any] = {}
    if form == "reuse":
        scene["scene_id"] = draw(st.sampled_from(facts.pool))
    elif form == "new":
        scene.update(_new_scene_fields(draw, facts))
    scene["message_ids"] = message_ids
    scene["memories"] = [_memory(draw, facts, message_ids) for _ in range(draw(st.integers(1, 3)))]
    return scene


@st.composite
def outputs_for(draw: Any, context: dict[str, Any], *, min_scenes: int = 0, max_scenes: int = 3) -> list[Any]:
    """A valid extraction answer (docs/formats.md) for ``context``."""
    facts = Facts.of(context)
    return [_scene(draw, facts) for _ in range(draw(st.integers(min_scenes, max(min_scenes, max_scenes))))]


@st.composite
def valid_pairs(draw: Any, *, min_scenes: int = 0, max_scenes: int = 3, **context_options: Any
                ) -> tuple[dict[str, Any], list[Any]]:
    """``(context, output)``: a batch and an answer that honours the contract and every id rule."""
    context = draw(batch_contexts(**context_options))
    return context, draw(outputs_for(context, min_scenes=min_scenes, max_scenes=max_scenes))


# --- mutations ---------------------------------------------------------------------

@dataclass
class Mutation:
    """A valid pair broken in one way, and the violations memvet must report for it."""

    kind: str
    context: dict[str, Any]
    output: list[Any]
    expected: list[tuple[str, str]]  # (code, JSON Pointer into output)


def _pick_scene(draw: Any, output: list[Any], accept: Callable[[dict[str, Any]], bool] = lambda s: True) -> int:
    candidates = [i for i, s in enumerate(output) if accept(s)]
    return draw(st.sampled_from(candidates))


def _make_reuse(scene: dict[str, Any], scene_id: str) -> None:
    """Turn ``scene`` into a reuse scene with ``scene_id`` (key first, like a model writes it)."""
    rest = {k: v for k, v in scene.items() if k not in ("scene_id", "scene_name", "new_scene_name", "new_scene_reason")}
    scene.clear()
    scene.update({"scene_id": scene_id, **rest})


def _append(lst: list[str], value: str) -> int:
    lst.append(value)
    return len(lst) - 1


def _lookalike(draw: Any, real: str) -> str:
    """A string that folds to ``real`` (invisible characters, width, case, whitespace) but is not it."""
    how = draw(st.sampled_from(("zero-width", "fullwidth", "upper", "space")))
    if how == "zero-width":
        cut = draw(st.integers(0, len(real)))
        return real[:cut] + draw(st.sampled_from("\u200b\u200c\u200d\u2060\ufeff")) + real[cut:]
    if how == "fullwidth":
        k = draw(st.integers(0, len(real) - 1))
        return real[:k] + chr(ord(real[k]) + 0xFEE0) + real[k + 1:]  # ASCII -> full-width form
    if how == "upper":
        return real.upper()
    return draw(st.sampled_from((f" {real}", f"{real} ", f"{real}\u3000")))


def _invented_scene_id(draw, facts, out):
    i = _pick_scene(draw, out)
    invented = f"sc{draw(st.integers(5000, 9999)):04d}"  # pool ids stay below sc0100: no lookalike
    _make_reuse(out[i], invented)
    return facts.context, [("I001", jp.join(i, "scene_id"))]


def _scene_id_with_empty_pool(draw, facts, out):
    context = copy.deepcopy(facts.context)
    context["scenePool"] = draw(st.sampled_from(([], "", "(无)", "(none)")))
    for scene in out:  # every other scene stops reusing: the pool is gone
        if "scene_id" in scene:
            del scene["scene_id"]
            scene.update(_new_scene_fields(draw, facts))
    i = _pick_scene(draw, out)
    _make_reuse(out[i], draw(st.sampled_from(facts.pool or ["sc0001"])))
    return context, [("I001", jp.join(i, "scene_id"))]


def _into_scene_and_maybe_source(draw, out, value, code):
    """Append ``value`` to a scene's message_ids, and maybe to one memory's sources too."""
    i = _pick_scene(draw, out)
    scene = out[i]
    expected = [(code, jp.join(i, "message_ids", _append(scene["message_ids"], value)))]
    if draw(st.booleans()):
        j = draw(st.integers(0, len(scene["memories"]) - 1))
        k = _append(scene["memories"][j]["source_message_ids"], value)
        expected.append((code, jp.join(i, "memories", j, "source_message_ids", k)))
    return expected


def _unknown_message_id(draw, facts, out):
    unknown = draw(st.sampled_from((f"m{draw(st.integers(500, 999))}", f"msg-{draw(st.integers(1, 99))}", "m0")))
    return facts.context, _into_scene_and_maybe_source(draw, out, unknown, "I002")


def _background_message_id(draw, facts, out):
    return facts.context, _into_scene_and_maybe_source(draw, out, draw(st.sampled_from(facts.background)), "I003")


def _source_outside_scene(draw, facts, out):
    i = _pick_scene(draw, out)
    scene = out[i]
    j = draw(st.integers(0, len(scene["memories"]) - 1))
    gone = draw(st.sampled_from(scene["memories"][j]["source_message_ids"]))
    scene["message_ids"] = [mid for mid in scene["message_ids"] if mid != gone]
    expected = [("I004", jp.join(i, "memories", jj, "source_message_ids", k))
                for jj, memory in enumerate(scene["memories"])
                for k, mid in enumerate(memory["source_message_ids"]) if mid == gone]
    return facts.context, expected


def _cross_session_sources(draw, facts, out):
    keys = list(facts.sessions)
    first_only, last_only = facts.sessions[keys[0]][0], facts.sessions[keys[-1]][-1]
    i = _pick_scene(draw, out)
    scene = out[i]
    j = draw(st.integers(0, len(scene["memories"]) - 1))
    sources = scene["memories"][j]["source_message_ids"]
    for mid in (first_only, last_only):  # no session holds both: the sources cannot agree on one
        if mid not in sources:
            sources.append(mid)
        if mid not in scene["message_ids"]:
            scene["message_ids"].append(mid)
    return facts.context, [("I005", jp.join(i, "memories", j, "source_message_ids"))]


def _lookalike_id(draw, facts, out):
    if facts.pool and draw(st.booleans()):
        i = _pick_scene(draw, out)
        _make_reuse(out[i], _lookalike(draw, draw(st.sampled_from(facts.pool))))
        return facts.context, [("I010", jp.join(i, "scene_id"))]
    i = _pick_scene(draw, out)
    scene = out[i]
    real = draw(st.sampled_from(scene["message_ids"]))
    fake = _lookalike(draw, real)
    expected = []
    # Replace it everywhere in the scene, so that nothing but the lookalike is wrong.
    scene["message_ids"] = [fake if mid == real else mid for mid in scene["message_ids"]]
    expected += [("I010", jp.join(i, "message_ids", k)) for k, mid in enumerate(scene["message_ids"]) if mid == fake]
    for j, memory in enumerate(scene["memories"]):
        memory["source_message_ids"] = [fake if mid == real else mid for mid in memory["source_message_ids"]]
        expected += [("I010", jp.join(i, "memories", j, "source_message_ids", k))
                     for k, mid in enumerate(memory["source_message_ids"]) if mid == fake]
    return facts.context, expected


def _mixed_scene_forms(draw, facts, out):
    i = _pick_scene(draw, out)
    scene = out[i]
    if "scene_id" not in scene:
        _make_reuse(scene, draw(st.sampled_from(facts.pool)))
    extra = draw(st.sampled_from((("new_scene_name",), ("new_scene_reason",), ("new_scene_name", "new_scene_reason"))))
    fields = _new_scene_fields(draw, facts)
    for key in extra:
        scene[key] = fields[key]
    return facts.context, [("S006", jp.join(i, key)) for key in extra]


def _half_new_scene(draw, facts, out):
    i = _pick_scene(draw, out)
    scene = out[i]
    keep = draw(st.sampled_from(("new_scene_name", "new_scene_reason")))
    missing = "new_scene_reason" if keep == "new_scene_name" else "new_scene_name"
    value = _new_scene_fields(draw, facts)[keep]
    rest = {k: v for k, v in scene.items() if k not in ("scene_id", "scene_name", "new_scene_name", "new_scene_reason")}
    scene.clear()
    scene.update({keep: value, **rest})
    return facts.context, [("S007", jp.join(i, missing))]


#: kind -> (what the base pair needs, the mutation). Expected codes and pointers per docs/rules/.
MUTATIONS: dict[str, tuple[dict[str, int], Callable[..., Any]]] = {
    "invented_scene_id": ({"min_pool": 1}, _invented_scene_id),            # I001 at /N/scene_id
    "scene_id_with_empty_pool": ({}, _scene_id_with_empty_pool),            # I001 at /N/scene_id
    "unknown_message_id": ({}, _unknown_message_id),                        # I002 at the element
    "background_message_id": ({"min_background": 1}, _background_message_id),  # I003 at the element
    "source_outside_scene": ({}, _source_outside_scene),                    # I004 at each source element
    "cross_session_sources": ({"min_sessions": 2}, _cross_session_sources),  # I005 at .../source_message_ids
    "lookalike_id": ({}, _lookalike_id),                                    # I010, and no I001/I002
    "mixed_scene_forms": ({"min_pool": 1}, _mixed_scene_forms),             # S006 at each new-form key
    "half_new_scene": ({}, _half_new_scene),                                # S007 at the missing key
}


@st.composite
def mutated_pairs(draw: Any, kind: str | None = None) -> Mutation:
    """A :class:`Mutation` of ``kind`` (one of :data:`MUTATIONS`; any when None)."""
    kind = kind or draw(st.sampled_from(sorted(MUTATIONS)))
    needs, mutate = MUTATIONS[kind]
    context, output = draw(valid_pairs(min_scenes=1, **needs))
    facts = Facts.of(context)
    output = copy.deepcopy(output)
    context, expected = mutate(draw, facts, output)
    return Mutation(kind, context, output, expected)


# --- documents near the contract, and arbitrary JSON ----------------------------------

def json_values(max_leaves: int = 20) -> st.SearchStrategy[Any]:
    """Any JSON value (no NaN or infinities, which JSON does not have)."""
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                          max_size=4),
                        max_leaves=max_leaves)


def _either(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a well-typed value, sometimes a wrong-typed one."""
    wrong = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-1e3, 1e3, allow_nan=False) | st.text(max_size=3) \
        | st.lists(st.integers(), max_size=2) | st.just({})
    return st.one_of(good, good, good, wrong)


#: Values that sit on a type or range boundary of the contract.
EDGE_VALUES = (None, True, False, 0, -1, 70, 70.0, 100, 100.0, 100.5, 101, 1e300, "", "x", "work_fact", "open",
               [], [""], ["m1"], [1], {}, {"x": None})


def _slots(doc: Any) -> list[tuple[Any, Any]]:
    """Every ``(container, key-or-index)`` of a document, to corrupt one of them."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.extend((node, k) for k in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            out.extend((node, i) for i in range(len(node)))
            stack.extend(node)
    return out


@st.composite
def corrupted_outputs(draw: Any, max_faults: int = 2) -> list[Any]:
    """A valid answer with zero to ``max_faults`` small faults: an edge value, a deleted or an extra key."""
    _, output = draw(valid_pairs(min_scenes=1, max_scenes=2))
    doc = copy.deepcopy(output)
    for _ in range(draw(st.integers(0, max_faults))):
        slots = _slots(doc)
        if not slots:
            break
        container, key = draw(st.sampled_from(slots))
        how = draw(st.sampled_from(("value", "value", "delete", "extra")))
        if how == "value":
            container[key] = copy.deepcopy(draw(st.sampled_from(EDGE_VALUES)))
        elif how == "delete":
            del container[key]
        elif isinstance(container, dict):
            container[draw(st.sampled_from(("confidence", "scene_name", "taskState", "metadata", "notes")))] = \
                copy.deepcopy(draw(st.sampled_from(EDGE_VALUES)))
    return doc


def contract_like_outputs() -> st.SearchStrategy[Any]:
    """Documents close to the contract: valid ones, ones with one or two small faults, fuzz.

    For checking that two validators (jsonschema and the pydantic models)
    agree: about a third are valid, most of the rest invalid in one small way.
    """
    return st.one_of(corrupted_outputs(), corrupted_outputs(), _fuzzy_outputs())


def _fuzzy_outputs() -> st.SearchStrategy[Any]:
    """Right keys with wrong types, nulls and extra keys everywhere; and arbitrary JSON."""
    ids = st.lists(_either(st.text(max_size=3)), max_size=3)
    metadata = st.dictionaries(st.sampled_from(METADATA_KEYS + ("extra",)),
                               _either(st.text(max_size=4) | st.lists(st.text(max_size=2), max_size=2)), max_size=4)
    priority = st.integers(-2, 102) | st.sampled_from((70.0, 70.5, 100.0, 1e300, -0.0)) | st.booleans()
    memory = st.fixed_dictionaries(
        {"content": _either(st.text(max_size=3)), "type": _either(st.sampled_from(TYPES + ("note",))),
         "priority": priority, "source_message_ids": _either(ids)},
        optional={"taskState": _either(st.sampled_from(TASK_STATES + ("closed",))), "metadata": _either(metadata),
                  "confidence": st.floats(0, 1)})
    # Memories that lack some required keys (the schema reports each at its own pointer).
    partial_memory = st.fixed_dictionaries(
        {}, optional={"content": st.text(max_size=3), "type": st.sampled_from(TYPES), "priority": st.integers(0, 100),
                      "source_message_ids": ids})
    scene = st.fixed_dictionaries(
        {"message_ids": _either(ids), "memories": _either(st.lists(_either(memory | partial_memory), max_size=3))},
        optional={"scene_id": _either(st.text(max_size=3)), "new_scene_name": _either(st.text(max_size=3)),
                  "new_scene_reason": _either(st.text(max_size=3)), "scene_name": _either(st.text(max_size=3)),
                  "extra": st.integers()})
    return st.one_of(st.lists(_either(scene), max_size=3), json_values(8))
