"""I -- identity and provenance: do scene and message ids name real things?

Every id of an answer is checked against the batch context:

* ``scene_id`` must be a scene-pool id, verbatim (I001);
* ``message_ids`` and ``source_message_ids`` must name NEW messages of the
  batch (I002 unknown, I003 background), sources must sit inside their
  scene (I004) and in one session (I005);
* an id that is a real id only after folding (``sc0003\\u200b``, ``ｍ41``)
  is a lookalike (I010) and gets only that code -- one fault, one violation;
* lists hold each id once (I007), a message belongs to one scene (I006), and
  a project claim needs evidence among the memory's own sources (I008, I009).

Message ids are unique only within one ``sessionKey``: a message is
``(sessionKey, id)``. An id "names a new message" when some session has a
new message with that id; whether one memory's sources agree on a session is
I005's question.

The id-list rules that cover both a scene's ``message_ids`` and its
memories' lists (I002, I003, I007, I010) are scene rules that walk the
scene's well-formed memories: paths stay in document order and each list is
seen once. Element paths are computed on ``ctx.original`` -- what the LLM
emitted -- because an earlier fix (I007's de-duplication) may have shifted
the working list. Those four share one walk per scene
(:func:`scene_id_lists`): in a valid answer it finds nothing, and each rule
returns ``()`` without creating a generator.
"""

from __future__ import annotations

import difflib
import unicodedata
from bisect import bisect_left
from itertools import chain, repeat
from operator import contains, itemgetter
from typing import Any, Iterable, Iterator, NamedTuple, Sequence

from memvet import pointer as jp
from memvet.needs import Needs
from memvet.rule import Finding, Rule, RuleOptions
from memvet.rules import _text
from memvet.rules._coverage import unread_script
from memvet.rules._origin import fold

# --- id classification ----------------------------------------------------------

# Characters a model (or a copy-paste) slips into an id without anyone seeing
# them: zero-width space/joiners, word joiner, BOM, bidi marks and
# embeddings/isolates, soft hyphen.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\ufeff\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u00ad"
)
_DELETE_INVISIBLE = dict.fromkeys(map(ord, INVISIBLE))

NEW, BACKGROUND, LOOKALIKE, UNKNOWN = "new", "background", "lookalike", "unknown"


def fold_id(text: str) -> str:
    """The comparison key of an id: invisibles removed, NFKC width folding, casefolded, no whitespace."""
    text = unicodedata.normalize("NFKC", text.translate(_DELETE_INVISIBLE)).casefold()
    return "".join(text.split())


def _folded_index(ctx: Any) -> dict[str, dict[str, str]]:
    """Folded key -> real id, for pool ids and for message ids (new ones win over background)."""
    def compute() -> dict[str, dict[str, str]]:
        batch = ctx.batch
        messages: dict[str, str] = {}
        for mid in batch.new_by_id:
            messages.setdefault(fold_id(mid), mid)
        for mid in sorted(batch.background_ids):
            messages.setdefault(fold_id(mid), mid)
        pool: dict[str, str] = {}
        for sid in batch.pool:
            pool.setdefault(fold_id(sid), sid)
        return {"messages": messages, "pool": pool}
    # Built lazily: a batch whose ids are all verbatim never pays for it.
    return ctx.memo("identity.folded-ids", compute)


def classify_message_id(mid: str, ctx: Any) -> tuple[str, str | None]:
    """``(NEW | BACKGROUND | LOOKALIKE | UNKNOWN, real id of a lookalike)``.

    A verbatim new-message id is NEW even when a background message of
    another session carries the same id; only a folded match is a lookalike.
    """
    batch = ctx.batch
    if mid in batch.new_by_id:
        return NEW, None
    if mid in batch.background_ids:
        return BACKGROUND, None
    key = fold_id(mid)
    real = _folded_index(ctx)["messages"].get(key) if key else None  # all-invisible is no id at all
    return (LOOKALIKE, real) if real is not None else (UNKNOWN, None)


def pool_lookalike(sid: str, ctx: Any) -> str | None:
    """The pool id ``sid`` imitates (None when ``sid`` is verbatim or unrelated)."""
    if sid in ctx.batch.pool:
        return None
    key = fold_id(sid)
    return _folded_index(ctx)["pool"].get(key) if key else None


def lookalike_detail(fake: str, real: str) -> str:
    """What separates a lookalike from the real id, in words."""
    parts = []
    hidden = list(dict.fromkeys(c for c in fake if c in INVISIBLE))
    if hidden:
        parts.append("invisible " + ", ".join(f"U+{ord(c):04X}" for c in hidden))
    visible = fake.translate(_DELETE_INVISIBLE)
    folded = unicodedata.normalize("NFKC", visible)
    if folded != visible:
        parts.append("full-width or compatibility characters")
    if any(c.isspace() for c in folded) and not any(c.isspace() for c in real):
        parts.append("whitespace")
    if "".join(folded.split()) != "".join(unicodedata.normalize("NFKC", real).split()):
        parts.append("letter case")
    return ", ".join(parts) or "folding"


def closest_pool_id(sid: str, pool: dict[str, str]) -> str:
    """The pool id ``sid`` most resembles, by id or by label (a model may copy the label)."""
    best, best_score = next(iter(pool), ""), 0.0
    matcher = difflib.SequenceMatcher(b=sid, autojunk=False)
    for pid, label in pool.items():
        for candidate in (pid, label):
            if not candidate:
                continue
            matcher.set_seq1(candidate)
            # The cheap upper bounds first, as difflib.get_close_matches does.
            if matcher.real_quick_ratio() > best_score and matcher.quick_ratio() > best_score:
                score = matcher.ratio()
                if score > best_score:  # ties keep pool order
                    best, best_score = pid, score
    return best


# --- walking a scene's lists --------------------------------------------------------

def scene_memory_indexes(ctx: Any) -> Iterator[int]:
    """Indexes of the current scene's well-formed memories (the others never reach rules)."""
    valid, i = ctx.valid_memories, ctx.scene_index
    k = bisect_left(valid, (i, -1))
    while k < len(valid) and valid[k][0] == i:
        yield valid[k][1]
        k += 1


def message_id_lists(ctx: Any, *, evidence: bool = False) -> Iterator[tuple[str, list[str]]]:
    """``(relative pointer, list)`` for the scene's ``message_ids`` and each memory's
    ``source_message_ids`` (and ``metadata.projectEvidence`` when asked), as emitted."""
    scene = ctx.original
    yield "/message_ids", scene["message_ids"]
    memories = scene["memories"]
    for j in scene_memory_indexes(ctx):
        memory = memories[j]
        yield f"/memories/{j}/source_message_ids", memory["source_message_ids"]
        if evidence:
            meta = memory.get("metadata")
            if isinstance(meta, dict) and isinstance(meta.get("projectEvidence"), list):
                yield f"/memories/{j}/metadata/projectEvidence", meta["projectEvidence"]


_EVIDENCE = "/metadata/projectEvidence"


class SceneIdLists(NamedTuple):
    """The id lists of one scene (as emitted) that need a closer look: ``(pointer, list, is_evidence)``."""

    #: Lists holding an id that names no new message (unknown, background or a lookalike).
    odd: list[tuple[str, list[str], bool]]
    #: Lists holding an id twice.
    repeated: list[tuple[str, list[str], bool]]


def scene_id_lists(ctx: Any) -> SceneIdLists:
    """:func:`message_id_lists` (with evidence) of the current scene, sorted out once per validate() call.

    I002, I003, I007 and I010 each walk every list of the scene; in a valid
    answer every id is verbatim and every list duplicate-free, so the walk
    is done once here, with one set per list, and the rules look only at the
    lists it kept (usually none). Pointers are built only for those.
    """
    scene = ctx.original
    key = ("identity.scene-id-lists", ctx.scene_index)
    hit = ctx.scratch.get(key)
    if hit is not None and hit[0] is scene:
        return hit[1]
    new_ids = ctx.batch.new_by_id.keys()
    memories = scene["memories"]
    indexes = _memory_indexes_of(ctx, ctx.scene_index)
    if _lists_all_fine(scene, memories, indexes, new_ids):
        found = _NOTHING_ODD
        ctx.scratch[key] = (scene, found)
        return found
    odd: list[tuple[str, list[str], bool]] = []
    repeated: list[tuple[str, list[str], bool]] = []

    def sort_out(ids: list[str], j: int | None, field: str) -> None:
        entry = (field if j is None else f"/memories/{j}{field}", ids, field == _EVIDENCE)
        if not all(map(new_ids.__contains__, ids)):
            odd.append(entry)
        if len(set(ids)) != len(ids):
            repeated.append(entry)

    # A list is fine when every id names a new message and none comes twice:
    # one set per list, compared with the index at C speed.
    ids = scene["message_ids"]
    unique = set(ids)
    if len(unique) != len(ids) or not new_ids >= unique:
        sort_out(ids, None, "/message_ids")
    for j in indexes:
        memory = memories[j]
        ids = memory["source_message_ids"]
        unique = set(ids)
        if len(unique) != len(ids) or not new_ids >= unique:
            sort_out(ids, j, "/source_message_ids")
        meta = memory.get("metadata")
        if meta and isinstance(meta, dict) and "projectEvidence" in meta:
            ids = meta["projectEvidence"]
            if isinstance(ids, list):
                unique = set(ids)
                if len(unique) != len(ids) or not new_ids >= unique:
                    sort_out(ids, j, _EVIDENCE)
    found = SceneIdLists(odd, repeated)
    ctx.scratch[key] = (scene, found)
    return found


#: What :func:`scene_id_lists` finds in a valid scene. Shared and never mutated (the rules only read it).
_NOTHING_ODD = SceneIdLists([], [])

_source_ids_of = itemgetter("source_message_ids")


def _lists_all_fine(scene: dict[str, Any], memories: list[Any], indexes: Sequence[int], new_ids: Any) -> bool:
    """Does every list of the scene name new messages only, each once -- with no evidence list at all?

    The common case, decided without Python work per id or per memory (map,
    chain and set run in C); a False sends :func:`scene_id_lists` to the
    exact per-list walk. ``ctx.original`` is schema-valid: memories are dicts,
    id lists are lists of strings, metadata is a dict.
    """
    kept = memories if len(indexes) == len(memories) else [memories[j] for j in indexes]
    lists = list(map(_source_ids_of, kept))
    lists.append(scene["message_ids"])
    if not new_ids >= set(chain.from_iterable(lists)):
        return False
    if list(map(len, map(set, lists))) != list(map(len, lists)):
        return False
    # Evidence lists are rare: any memory citing one takes the per-list walk.
    metas = filter(None, map(dict.get, kept, repeat("metadata")))
    return not any(map(contains, metas, repeat("projectEvidence")))


def _memory_indexes_of(ctx: Any, scene_index: int) -> Sequence[int]:
    """:func:`scene_memory_indexes` as a sequence: two binary searches in ``valid_memories``.

    No pass over the memories: when every memory of the scene is well formed
    (the common case) it is a range.
    """
    valid = ctx.valid_memories
    lo = bisect_left(valid, (scene_index, -1))
    hi = bisect_left(valid, (scene_index + 1, -1), lo)
    count = hi - lo
    if count and valid[hi - 1][1] == count - 1:
        return range(count)  # indexes are sorted and distinct: 0..count-1 exactly
    return [j for _, j in valid[lo:hi]]


def _ids_of_kind(ctx: Any, kind: str) -> Iterator[tuple[str, str]]:
    is_new = ctx.batch.new_by_id.__contains__
    for base, ids, evidence in scene_id_lists(ctx).odd:
        if evidence:
            continue  # I002/I003 look at message_ids and source_message_ids only
        for k, mid in enumerate(ids):
            if not is_new(mid) and classify_message_id(mid, ctx)[0] == kind:
                yield f"{base}/{k}", mid


def _project_claim_removal(meta: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"op": "remove", "path": f"/metadata/{key}"} for key in ("project", "projectEvidence") if key in meta]


# --- rules ----------------------------------------------------------------------------

class SceneIdNotInPool(Rule):
    """``scene_id`` is not copied verbatim from the scene pool.

    What it does:
        Fails when a reuse scene's ``scene_id`` is not a pool id, and names
        the pool id it most resembles (by id or by label) -- or, when the
        pool is empty, says that only new scenes are allowed. An id that is
        a pool id after folding width, case or invisible characters is
        I010's, not this rule's.

    Why is this bad?
        The pipeline files the memories under that id. An invented id
        (``sc0007``) creates a scene nobody asked for, or silently merges the
        memories into an unrelated scene that later gets that id; an
        extractor must never make ids up.

    Example:
        pool: sc0003 | auth-service｜登录接口性能
        user: 登录接口的 Redis 连接池必须按压测峰值配置
        ```json
        {"scene_id": "sc0007",
         "memories": [{"content": "auth-service 登录接口的 Redis 连接池按压测峰值配置。", "type": "work_fact", "priority": 85}]}
        ```
        user: The release branch is cut every Tuesday at 10:00 UTC.
        ```json
        {"scene_id": "sc0001",
         "memories": [{"content": "The release branch is cut every Tuesday at 10:00 UTC.", "type": "work_fact", "priority": 80}]}
        ```

    Use instead:
        pool: sc0003 | auth-service｜登录接口性能
        user: 登录接口的 Redis 连接池必须按压测峰值配置
        ```json
        {"scene_id": "sc0003",
         "memories": [{"content": "auth-service 登录接口的 Redis 连接池按压测峰值配置。", "type": "work_fact", "priority": 85}]}
        ```
        user: The release branch is cut every Tuesday at 10:00 UTC.
        ```json
        {"new_scene_name": "release-tools｜release branches", "new_scene_reason": "The scene pool is empty.",
         "memories": [{"content": "The release branch is cut every Tuesday at 10:00 UTC.", "type": "work_fact", "priority": 80}]}
        ```
    """

    code = "I001"
    name = "scene-id-not-in-pool"
    target = "scene"
    action = "reject"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        sid = scene.get("scene_id")
        if sid is None or sid in ctx.batch.pool or pool_lookalike(sid, ctx):
            return ()
        return self._findings(sid, ctx)

    @staticmethod
    def _findings(sid: str, ctx: Any) -> Iterator[Finding]:
        pool = ctx.batch.pool
        if not pool:
            yield Finding(f"scene_id {sid!r} is not in the scene pool: the pool is empty, so only new scenes "
                          "are allowed (give new_scene_name and new_scene_reason instead)", path="/scene_id")
            return
        # A model that copied the pool label into scene_name has told us which scene it meant.
        named = ctx.original.get("scene_name")
        best = next((pid for pid, label in pool.items() if label and label == named), None) or \
            ctx.memo(f"identity.closest-pool-id:{sid}", lambda: closest_pool_id(sid, pool))
        yield Finding(f"scene_id {sid!r} is not in the scene pool (did you mean {best!r}?)", path="/scene_id")


class MessageIdUnknown(Rule):
    """A message id that names no message of the batch.

    What it does:
        Checks every id of a scene's ``message_ids`` and of its memories'
        ``source_message_ids``, and fails at each id that is neither a new
        nor a background message of the batch (background ids are I003's,
        lookalikes I010's).

    Why is this bad?
        Provenance is how a memory is audited and routed (who confirmed it,
        which tool produced it); an invented id makes the memory
        unverifiable.

    Example:
        user: Deploys must run the database migrations before switching traffic.
        ```json
        {"new_scene_name": "deploy｜release order", "new_scene_reason": "The scene pool is empty.",
         "message_ids": ["m1", "m7"],
         "memories": [{"content": "Deploys run the database migrations before switching traffic.",
                       "type": "work_fact", "priority": 85, "source_message_ids": ["m7"]}]}
        ```

    Use instead:
        user: Deploys must run the database migrations before switching traffic.
        ```json
        {"new_scene_name": "deploy｜release order", "new_scene_reason": "The scene pool is empty.",
         "message_ids": ["m1"],
         "memories": [{"content": "Deploys run the database migrations before switching traffic.",
                       "type": "work_fact", "priority": 85, "source_message_ids": ["m1"]}]}
        ```
    """

    code = "I002"
    name = "message-id-unknown"
    target = "scene"
    action = "reject"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if not scene_id_lists(ctx).odd:
            return ()
        return (Finding(f"message id {mid!r} names no message of this batch; cite the ids of its new messages",
                        path=path) for path, mid in _ids_of_kind(ctx, UNKNOWN))


class MessageIdBackground(Rule):
    """An id that names a background message.

    What it does:
        Fails at each id of ``message_ids`` or ``source_message_ids`` that
        names a background message and no new message of the batch.

    Why is this bad?
        Background messages were shown for context only and were (or will
        be) extracted in their own batch; citing them re-extracts old
        content and breaks the rule that provenance is this batch's new
        messages.

    Example:
        background user: 今天先看登录超时的问题。
        user: 接入 Redis 的服务必须按压测峰值配置连接池
        ```json
        {"content": "接入 Redis 的服务按压测峰值配置连接池大小。", "type": "work_fact", "priority": 85,
         "source_message_ids": ["m1", "m2"]}
        ```

    Use instead:
        background user: 今天先看登录超时的问题。
        user: 接入 Redis 的服务必须按压测峰值配置连接池
        ```json
        {"content": "接入 Redis 的服务按压测峰值配置连接池大小。", "type": "work_fact", "priority": 85,
         "source_message_ids": ["m2"]}
        ```
    """

    code = "I003"
    name = "message-id-background"
    target = "scene"
    action = "reject"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if not scene_id_lists(ctx).odd:
            return ()
        return (Finding(f"message id {mid!r} names a background message; provenance must be this batch's "
                        "new messages", path=path) for path, mid in _ids_of_kind(ctx, BACKGROUND))


class SourceOutsideScene(Rule):
    """A source id that is not among its scene's ``message_ids``.

    What it does:
        Fails at each ``source_message_ids`` entry that names a new message
        but is missing from the scene's ``message_ids`` (unknown, background
        and lookalike ids are reported by I002, I003 and I010 instead).

    Why is this bad?
        ``message_ids`` is the scene's range; a memory drawn from outside it
        belongs to another scene, or the range is wrong -- either way the
        segmentation cannot be trusted.

    Example:
        user: CI 缓存的 key 必须包含 lockfile 的哈希
        user: 另外发布分支每周二切
        ```json
        {"new_scene_name": "ci｜构建缓存", "new_scene_reason": "池为空，新建情境。", "message_ids": ["m1"],
         "memories": [{"content": "CI 缓存 key 包含 lockfile 哈希。", "type": "work_fact", "priority": 80,
                       "source_message_ids": ["m1", "m2"]}]}
        ```

    Use instead:
        user: CI 缓存的 key 必须包含 lockfile 的哈希
        user: 另外发布分支每周二切
        ```json
        {"new_scene_name": "ci｜构建缓存", "new_scene_reason": "池为空，新建情境。", "message_ids": ["m1"],
         "memories": [{"content": "CI 缓存 key 包含 lockfile 哈希。", "type": "work_fact", "priority": 80,
                       "source_message_ids": ["m1"]}]}
        ```
    """

    code = "I004"
    name = "source-outside-scene"
    target = "memory"
    action = "reject"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        in_scene = ctx.scene["message_ids"]
        sources = ctx.original["source_message_ids"]
        if len(sources) > 4:  # a scan of the scene's list per source is quadratic when both are long
            in_scene = set(in_scene)
        # A plain loop: one or two sources, cheaper than all(map(...)).
        for mid in sources:
            if mid not in in_scene:
                return self._findings(ctx, in_scene)
        return ()  # the common case: every source is in the scene's range

    @staticmethod
    def _findings(ctx: Any, in_scene: list[str] | set[str]) -> Iterator[Finding]:
        new_by_id = ctx.batch.new_by_id
        for k, mid in enumerate(ctx.original["source_message_ids"]):
            if mid in new_by_id and mid not in in_scene:
                if any(fold_id(x) == fold_id(mid) for x in in_scene):
                    continue  # the scene lists a lookalike of it: one fault, I010's
                yield Finding(f"source id {mid!r} is not among the scene's message_ids; add it to the scene's "
                              "range or cite a message of this scene", path=f"/source_message_ids/{k}")


class SourceCrossSession(Rule):
    """One memory's sources come from several sessions.

    What it does:
        Resolves the memory's source ids within sessions (ids are unique
        only per ``sessionKey``) and fails when no single session holds them
        all. Reported once, at ``source_message_ids``, naming the sessions.

    Why is this bad?
        A memory stitched from two conversations attributes one session's
        confirmation to the other's claim; its ``sessionKey`` -- and so its
        audit trail -- is undefined.

    Example:
        user: The staging database is reset every night at 02:00.
        user [session=s-other]: Staging resets happen on weekends only.
        ```json
        {"content": "The staging database is reset every night at 02:00.", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m1", "m2"]}
        ```

    Use instead:
        user: The staging database is reset every night at 02:00.
        user [session=s-other]: Staging resets happen on weekends only.
        ```json
        {"new_scene_name": "staging｜database resets", "new_scene_reason": "The scene pool is empty.",
         "message_ids": ["m1"],
         "memories": [{"content": "The staging database is reset every night at 02:00.", "type": "work_fact",
                       "priority": 80, "source_message_ids": ["m1"]}]}
        ```
    """

    code = "I005"
    name = "source-cross-session"
    target = "memory"
    action = "reject"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        messages, session = ctx.resolve_sources(memory)
        if session is not None or not messages:
            return ()
        by_session: dict[str, list[str]] = {}
        for m in messages:
            by_session.setdefault(m.sessionKey, []).append(m.id)
        if len(by_session) < 2:
            return ()
        spans = "; ".join(f"{key!r}: {', '.join(ids)}" for key, ids in by_session.items())
        return [Finding(f"the sources span {len(by_session)} sessions ({spans}); one memory's sources must come "
                        "from one session", path="/source_message_ids")]


class MessageInSeveralScenes(Rule):
    """One message is listed under two scenes.

    What it does:
        Warns at the later occurrence when a new message (the same
        ``(sessionKey, id)``) appears in the ``message_ids`` of two scenes.
        Scenes without memories are skipped (S005 removes them).

    Why is this bad?
        Segmentation gives each message one work scene; a message in two
        scenes usually means two topics were not told apart, or a scene's
        range was copied from the whole batch.

    Example:
        user: 登录接口超时是 Redis 连接池太小导致的
        user: 部署流水线要先跑迁移
        ```json
        [{"new_scene_name": "auth｜登录接口性能", "new_scene_reason": "池为空，新建情境。", "message_ids": ["m1", "m2"],
          "memories": [{"content": "登录接口超时的根因是 Redis 连接池太小。", "type": "work_fact", "priority": 85,
                        "source_message_ids": ["m1"]}]},
         {"new_scene_name": "auth｜部署流水线", "new_scene_reason": "与登录性能无关的另一议题。", "message_ids": ["m1", "m2"],
          "memories": [{"content": "部署流水线先跑数据库迁移。", "type": "work_fact", "priority": 80,
                        "source_message_ids": ["m2"]}]}]
        ```

    Use instead:
        user: 登录接口超时是 Redis 连接池太小导致的
        user: 部署流水线要先跑迁移
        ```json
        [{"new_scene_name": "auth｜登录接口性能", "new_scene_reason": "池为空，新建情境。", "message_ids": ["m1"],
          "memories": [{"content": "登录接口超时的根因是 Redis 连接池太小。", "type": "work_fact", "priority": 85,
                        "source_message_ids": ["m1"]}]},
         {"new_scene_name": "auth｜部署流水线", "new_scene_reason": "与登录性能无关的另一议题。", "message_ids": ["m2"],
          "memories": [{"content": "部署流水线先跑数据库迁移。", "type": "work_fact", "priority": 80,
                        "source_message_ids": ["m2"]}]}]
        ```
    """

    code = "I006"
    name = "message-in-several-scenes"
    target = "output"
    action = "warn"

    def check(self, output: list[Any], ctx: Any) -> Iterable[Finding]:
        # Two scenes can share a message only by listing the same id: when no
        # id string recurs across scenes, nothing is walked (set work in C).
        original = ctx.original
        listed: set[str] = set()
        for i in ctx.valid_scenes:
            scene = original[i]
            if scene["memories"]:
                ids = scene["message_ids"]
                if not listed.isdisjoint(ids):
                    return self._findings(ctx)
                listed.update(ids)
        return ()

    @staticmethod
    def _findings(ctx: Any) -> Iterator[Finding]:
        batch = ctx.batch
        new_by_id = batch.new_by_id
        original = ctx.original
        first_scene: dict[int, int] = {}
        for i in ctx.valid_scenes:
            scene = original[i]
            if not scene["memories"]:
                continue
            ids = scene["message_ids"]
            session = None
            for k, mid in enumerate(ids):
                found = new_by_id.get(mid)
                if not found:
                    continue  # unknown, background or lookalike: I002, I003, I010
                if len(found) == 1:
                    message = found[0]
                else:
                    if session is None:
                        # An id several sessions share: read it in the scene's own session.
                        session = batch.resolve(ids)[1] or ""
                    message = _message_of(found, session)
                # The message itself is the key: (sessionKey, id) is unique among new messages.
                seen = first_scene.setdefault(id(message), i)
                if seen != i:
                    yield Finding(f"message {mid!r} is already listed under scene /{seen}; a message belongs to "
                                  "one scene", path=jp.join(i, "message_ids", k))


def _message_of(found: list[Any], preferred: str | None) -> Any:
    """The message of ``preferred``'s session among those sharing one id (else the first)."""
    for m in found:
        if m.sessionKey == preferred:
            return m
    return found[0]


class DuplicateId(Rule):
    """The same id twice in one list.

    What it does:
        Looks at a scene's ``message_ids`` and its memories'
        ``source_message_ids`` and ``metadata.projectEvidence``, reports the
        first repeated element of each list, and replaces the whole list by
        its de-duplicated form (first occurrences, order kept).
        Fix: safe.

    Why is this bad?
        Duplicates inflate provenance counts and make later comparisons of
        lists (subset checks, audits) noisy.

    Example:
        user: 提交信息统一使用 conventional 格式
        ```json
        {"content": "提交信息使用 conventional 格式。", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m1", "m1"]}
        ```

    Use instead:
        user: 提交信息统一使用 conventional 格式
        ```json
        {"content": "提交信息使用 conventional 格式。", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m1"]}
        ```
    """

    code = "I007"
    name = "duplicate-id"
    target = "scene"
    action = "fix"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        repeated = scene_id_lists(ctx).repeated
        return self._findings(scene, repeated) if repeated else ()

    @staticmethod
    def _findings(scene: dict[str, Any], repeated: list[tuple[str, list[str], bool]]) -> Iterator[Finding]:
        for base, ids, _ in repeated:
            seen: set[str] = set()
            first_repeat, repeated = -1, []
            for k, mid in enumerate(ids):
                if mid in seen:
                    if first_repeat < 0:
                        first_repeat = k
                    if mid not in repeated:
                        repeated.append(mid)
                seen.add(mid)
            working = jp.resolve(scene, base, ids)
            unique = list(dict.fromkeys(working))
            field = base.rsplit("/", 1)[-1]
            yield Finding(f"{field} lists {', '.join(map(repr, repeated))} more than once; de-duplicated",
                          path=f"{base}/{first_repeat}",
                          fix=[{"op": "replace", "path": base, "value": unique}])


class ProjectWithoutEvidence(Rule):
    """``metadata.project`` without ``projectEvidence``.

    What it does:
        Removes the project claim (``project``, and an empty
        ``projectEvidence`` if present). Fix: safe -- the memory stays, it is
        just not tied to a project.

    Why is this bad?
        A project name the model guessed (from the working directory, from
        ``knownProjects``) files the memory under the wrong project; the
        contract requires the message ids that name it.

    Example:
        user: 提交信息统一使用 conventional 格式
        ```json
        {"content": "提交信息使用 conventional 格式。", "type": "work_fact", "priority": 80,
         "metadata": {"project": "pi-agent"}}
        ```

    Use instead:
        user: pi-agent 的提交信息统一使用 conventional 格式
        ```json
        {"content": "pi-agent 的提交信息使用 conventional 格式。", "type": "work_fact", "priority": 80,
         "metadata": {"project": "pi-agent", "projectEvidence": ["m1"]}}
        ```
    """

    code = "I008"
    name = "project-without-evidence"
    target = "memory"
    action = "fix"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or "project" not in meta or meta.get("projectEvidence"):
            return ()
        return [Finding(f"metadata.project {meta['project']!r} comes without projectEvidence; the project claim "
                        "is removed (cite the source message that names the project)",
                        path="/metadata/project", fix=_project_claim_removal(meta))]


class EvidenceOutsideSources(Rule):
    """A ``projectEvidence`` id that is not one of the memory's sources.

    What it does:
        Removes the project claim (``project`` and ``projectEvidence``) when
        an evidence id is not in this memory's ``source_message_ids``; the
        finding points at the first such id. Lookalike ids are I010's.
        Fix: safe.

    Why is this bad?
        Evidence must be the memory's own provenance; pointing at the
        scene's other messages (or the whole batch) proves nothing about
        this memory's project.

    Example:
        user: pi-agent 的扩展入口在 packages/coding-agent/src/extension/index.ts
        user: 提交信息统一使用 conventional 格式
        ```json
        {"content": "提交信息使用 conventional 格式。", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m2"], "metadata": {"project": "pi-agent", "projectEvidence": ["m1"]}}
        ```

    Use instead:
        user: pi-agent 的扩展入口在 packages/coding-agent/src/extension/index.ts
        user: 提交信息统一使用 conventional 格式
        ```json
        {"content": "提交信息使用 conventional 格式。", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m2"]}
        ```
    """

    code = "I009"
    name = "evidence-outside-sources"
    target = "memory"
    action = "fix"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or not meta.get("projectEvidence"):
            return ()
        return self._findings(memory, meta, ctx)

    @staticmethod
    def _findings(memory: dict[str, Any], meta: dict[str, Any], ctx: Any) -> Iterator[Finding]:
        sources = memory["source_message_ids"]
        # Index into the list as emitted: I007 may have de-duplicated the working copy.
        emitted = (ctx.original.get("metadata") or {}).get("projectEvidence")
        evidence = emitted if isinstance(emitted, list) else meta["projectEvidence"]
        outside = [(k, mid) for k, mid in enumerate(evidence)
                   if mid not in sources and classify_message_id(mid, ctx)[0] != LOOKALIKE]
        if not outside:
            return
        listed = ", ".join(repr(mid) for _, mid in outside)
        yield Finding(f"projectEvidence {listed} is not among this memory's source_message_ids; the project "
                      "claim is removed", path=f"/metadata/projectEvidence/{outside[0][0]}",
                      fix=_project_claim_removal(meta))


class IdLookalike(Rule):
    """An id that matches a real id only after folding.

    What it does:
        Checks ``scene_id`` against the pool and every id of
        ``message_ids``, ``source_message_ids`` and
        ``metadata.projectEvidence`` against the batch's messages. An id
        that is not verbatim but equals a real id once invisible characters
        (zero-width, bidi marks, BOM, soft hyphen) are removed and width
        (NFKC), case and whitespace are folded is reported here -- and only
        here, not also as unknown (I001/I002). The message names the real id.

    Why is this bad?
        It looks right to a reviewer and wrong to every lookup: the memory
        would be filed under a scene or message that does not exist. It is
        also a classic way to smuggle a look-alike reference past a check.

    Example:
        pool: sc0003 | memory-system｜L1 提取规则
        user: L1 提取 prompt 必须要求模型逐字复制 scene_id
        ```json
        {"scene_id": "sc0003\\u200b",
         "memories": [{"content": "L1 提取 prompt 要求模型逐字复制 scene_id。", "type": "work_fact", "priority": 80}]}
        ```
        user: Retries on the billing API must back off exponentially.
        ```json
        {"content": "Billing API retries back off exponentially.", "type": "work_fact", "priority": 80,
         "source_message_ids": ["ｍ1"]}
        ```

    Use instead:
        pool: sc0003 | memory-system｜L1 提取规则
        user: L1 提取 prompt 必须要求模型逐字复制 scene_id
        ```json
        {"scene_id": "sc0003",
         "memories": [{"content": "L1 提取 prompt 要求模型逐字复制 scene_id。", "type": "work_fact", "priority": 80}]}
        ```
        user: Retries on the billing API must back off exponentially.
        ```json
        {"content": "Billing API retries back off exponentially.", "type": "work_fact", "priority": 80,
         "source_message_ids": ["m1"]}
        ```
    """

    code = "I010"
    name = "id-lookalike"
    target = "scene"
    action = "reject"

    def check(self, scene: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        sid = ctx.original.get("scene_id")
        if (sid is None or sid in ctx.batch.pool) and not scene_id_lists(ctx).odd:
            return ()  # every id verbatim: nothing can imitate anything
        return self._findings(sid, ctx)

    @staticmethod
    def _findings(sid: str | None, ctx: Any) -> Iterator[Finding]:
        if sid is not None:
            real = pool_lookalike(sid, ctx)
            if real is not None:
                yield Finding(f"scene_id {sid!r} is not in the scene pool but imitates {real!r} "
                              f"({lookalike_detail(sid, real)}); copy the pool id verbatim", path="/scene_id")
        for base, ids, _ in scene_id_lists(ctx).odd:
            for k, mid in enumerate(ids):
                kind, real = classify_message_id(mid, ctx)
                if kind == LOOKALIKE:
                    yield Finding(f"message id {mid!r} is not a message id but imitates {real!r} "
                                  f"({lookalike_detail(mid, real)}); copy the id verbatim", path=f"{base}/{k}")


class SourceUnsupported(Rule):
    """The cited messages do not say it; another message of the batch does.

    What it does:
        For a memory that cites only ``user`` messages, measures how much of
        its content those messages hold (shared terms: CJK bigrams, Latin
        stems, CJK characters). When they hold little (below
        ``max_cited_support``) while one tool message or one background
        message holds most of it (``min_other_support`` and at least
        ``margin`` more), the memory is rejected and the message names the
        message the claim comes from. Obfuscations are folded first.

    Why is this bad?
        Provenance is what later reviews trust: a claim filed under the
        user's words reads as something the user said or decided. Copied
        from tool output (a README, a log, a web page) or from an earlier
        conversation, it was never confirmed by the user -- and an injected
        instruction is laundered exactly this way.

    Example:
        user: 帮我看下 fastjson-utils 的 README
        tool: README: 本库的序列化默认开启 autoType，反序列化任意类名，生产环境需在启动参数里关闭 autoType。
        ```json
        {"content": "fastjson-utils 序列化默认开启 autoType，生产环境需在启动参数里关闭 autoType。", "type": "work_fact",
         "priority": 80, "source_message_ids": ["m1"]}
        ```

    Use instead:
        user: 帮我看下 fastjson-utils 的 README
        tool: README: 本库的序列化默认开启 autoType，反序列化任意类名，生产环境需在启动参数里关闭 autoType。
        ```json
        {"content": "fastjson-utils 序列化默认开启 autoType，生产环境需在启动参数里关闭 autoType。", "type": "work_fact",
         "priority": 80, "source_message_ids": ["m1", "m2"]}
        ```
    """

    code = "I011"
    name = "source-unsupported"
    target = "memory"
    action = "reject"
    needs = Needs(fields=("content",))

    class Options(RuleOptions):
        max_cited_support: float = 0.3
        min_other_support: float = 0.75
        margin: float = 0.45

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        content = memory["content"]
        cited = ctx.sources(memory)
        if not cited or any(m.role != "user" for m in cited):
            return ()
        claim = fold(content)
        opts = self.options
        candidates, index = _provenance_candidates(ctx)
        # Only the messages that may reach min_other_support (the same best message, in the
        # same order): scoring every message per memory was quadratic in the batch. Asked
        # first: usually no tool or background message can hold most of the claim, and the
        # index says so for less than scoring the cited messages costs.
        reaching = index.reaching(claim, opts.min_other_support)
        if not reaching:
            return ()
        own = _text.support_in(claim, [_source_text(ctx, m) for m in cited])
        if own is None or own >= opts.max_cited_support:
            return ()  # the usual case: the cited messages say it
        keys = {m.key for m in cited}
        best, best_support = None, 0.0
        for k in reaching:
            m = candidates[k]
            if m.key in keys:
                continue
            score = _text.support_in(claim, [index.sources[k]]) or 0.0
            if score > best_support:
                best, best_support = m, score
        if best is None or best_support < opts.min_other_support or best_support - own < opts.margin:
            return ()
        where = "background message" if best.key in _background_keys(ctx) else f"{best.role} message"
        # Thai, Korean, Arabic ... yield no terms: the shares then rest on the few Latin words beside
        # them (a name, "agent"), and say little of what the cited messages hold.
        script = unread_script(content)
        unsure = f" (measured on its few Latin words only: its {script} is not read)" if script else ""
        return [Finding(f"the cited messages hold {own:.0%} of this memory; {where} {best.id!r} holds "
                        f"{best_support:.0%} of it{unsure}: cite the message the claim comes from, or leave the "
                        "claim out", path="/source_message_ids", confidence="low" if script else None)]


def _provenance_candidates(ctx: Any) -> tuple[list[Any], _text.SupportIndex]:
    """Tool messages of the batch and every background message (where an uncited claim comes
    from), with the index of their texts; once per batch."""
    def build() -> tuple[list[Any], _text.SupportIndex]:
        candidates = [*[m for m in ctx.batch.messages if m.role == "tool"], *ctx.batch.background]
        return candidates, _text.SupportIndex([_source_text(ctx, m) for m in candidates])
    return ctx.memo("I011.candidates", build)


def _background_keys(ctx: Any) -> frozenset[tuple[str, str]]:
    return ctx.memo("I011.background", lambda: frozenset(m.key for m in ctx.batch.background))


def _source_text(ctx: Any, message: Any) -> Any:
    """The message's folded text as ``_text.SourceText``, once per batch."""
    texts = ctx.memo("I011.texts", dict)
    found = texts.get(message.key)
    if found is None:
        found = texts[message.key] = _text.SourceText(fold(message.content))
    return found
