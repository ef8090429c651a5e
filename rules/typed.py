"""T -- typed fields: task state, metadata vocabulary and enums, priority, times.

The JSON Schema keeps these fields loose on purpose (CONTRACT.md section 2,
"one fault, one violation"): ``taskState`` on any type, any metadata key,
any string in an enum-like key or a time. Each fault is this family's to
report, and most of them have a safe fix: the offending key is removed, or a
retired field is moved to where it belongs.

Speed: every rule here runs on every memory, and almost every memory is
fine. So ``check()`` answers the common case with ``()`` after the cheapest
test (a key's presence, the type) before any generator exists; the rare
faulty memory goes to a generator (``_findings``) or a one-element list.
Rules that concern one type declare ``types`` and are never called on
another.

Times. A time is accepted when ``datetime.fromisoformat`` (Python 3.11)
accepts it -- which already includes a trailing ``Z`` -- with three
narrowings: ASCII only, the date/time separator is ``T``, ``t`` or a space
(3.11 takes any character there, so ``2026-12-04中18:00`` would pass), and a
lower-case ``z`` suffix is read as ``Z``. Date-only values
(``2026-12-04``) and week dates (``2026-W49-5``) are ISO 8601 and accepted;
reduced precision (``2026-12``), ordinal dates and ``12/04/2026`` are not.

Activity times are compared with the source messages' event times
(``timestamp``, epoch ms, validated by :attr:`Message.event_ms`) at the
granularity the time is written in: ``2026-11-28`` covers that whole day,
``2026-11-28T02:05Z`` that minute. A time without a UTC offset could be in
any time zone, so its interval is widened by 14 hours on each side.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Iterator, NamedTuple

from memvet import pointer as jp
from memvet.rule import Finding, Rule, RuleOptions

TASK_STATES = ("open", "done", "dropped")
LEGACY_STATUS_TO_STATE = {"done": "done", "dropped": "dropped"}

# CONTRACT.md section 2: the metadata vocabulary of each type.
VOCABULARY: dict[str, tuple[str, ...]] = {
    "work_fact": ("work_object", "status", "activity_start_time", "activity_end_time"),
    "work_task": ("deadline", "owner"),
    "work_method": ("scope", "method_type"),
    "work_artifact": ("artifact_type", "artifact_ref"),
}
ANY_TYPE_KEYS = ("project", "projectEvidence")
OWNER_OF_KEY = {key: kind for kind, keys in VOCABULARY.items() for key in keys}

ENUMS: dict[str, tuple[str, ...]] = {
    "scope": ("self", "global", "unknown"),
    "method_type": ("sop", "principle", "constraint", "anti_pattern", "heuristic", "evaluation_criterion",
                    "reasoning_pattern"),
    "artifact_type": ("doc", "pr", "issue", "commit", "repo", "branch", "design", "report", "prompt", "dataset"),
}

_SCOPES, _METHOD_TYPES, _ARTIFACT_TYPES = ENUMS["scope"], ENUMS["method_type"], ENUMS["artifact_type"]
assert ENUMS.keys() == {"scope", "method_type", "artifact_type"}  # MetadataEnum.check tests these three

ACTIVITY_TIMES = ("activity_start_time", "activity_end_time")
TIME_KEYS = ("deadline", *ACTIVITY_TIMES)

# --- times -----------------------------------------------------------------------

_NAIVE_SLACK_MS = 14 * 3_600_000  # a time without an offset may be in any zone (UTC-12..UTC+14)
_UNIT_MS = {"day": 86_400_000, "hour": 3_600_000, "minute": 60_000, "second": 1_000}
_DATE_PART = re.compile(r"[0-9W-]*")      # the date: digits, week marker, hyphens
_CLOCK_END = re.compile(r"[+\-Zz.,]")     # a UTC offset or a fraction ends the clock digits
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_ONE_MS = timedelta(milliseconds=1)


class WrittenTime(NamedTuple):
    """A parsed ISO 8601 time: the instant it starts at and the unit it is written in.

    A named tuple: it is built for every time of every memory, and a tuple is
    built faster than a frozen dataclass.
    """

    start_ms: int     # as UTC; a naive time is read as UTC
    unit: str         # day | hour | minute | second
    aware: bool       # carries a UTC offset

    @property
    def has_time_of_day(self) -> bool:
        return self.unit != "day"

    def interval(self, tolerance_ms: int = 0) -> tuple[int, int]:
        """``[lo, hi)`` in epoch ms covering what the text can mean."""
        unit = _UNIT_MS[self.unit]
        start = self.start_ms - self.start_ms % unit if self.unit == "second" else self.start_ms  # drop fractions
        slack = tolerance_ms + (0 if self.aware else _NAIVE_SLACK_MS)
        return start - slack, start + unit + slack


def parse_time(text: str) -> WrittenTime | None:
    """``text`` as a :class:`WrittenTime`, or None when it is not accepted ISO 8601 (see module doc).

    Not cached across calls (a benchmark that re-validates the same answers
    would be flattered); rules share one parse per call through
    :func:`parsed_time`.
    """
    read = _read_time(text)
    if read is None:
        return None
    value, text, cut = read
    aware = value.tzinfo is not None
    # Integer arithmetic: no float rounding at the millisecond. A naive time is
    # read as UTC: measured from the naive epoch (datetime.replace is slow).
    start_ms = (value - (_EPOCH if aware else _NAIVE_EPOCH)) // _ONE_MS
    return WrittenTime(start_ms, _unit(text[cut + 1:]) if cut < len(text) else "day", aware)


def is_iso_time(text: str) -> bool:
    """Would :func:`parse_time` accept ``text``? (T006 needs only this, not the instant.)"""
    return _read_time(text) is not None


def _read_time(text: str) -> tuple[datetime, str, int] | None:
    """``(datetime, text with a z suffix as Z, end of the date part)``, or None when not accepted."""
    if not text or not text.isascii():
        return None
    if text[-1] == "z":
        text = text[:-1] + "Z"
    cut = _DATE_PART.match(text).end()  # type: ignore[union-attr]  # always matches (maybe empty)
    if cut < len(text) and text[cut] not in "Tt ":
        return None
    try:
        return datetime.fromisoformat(text), text, cut
    except ValueError:
        return None


_UNPARSED = object()


def parsed_time(value: Any, ctx: Any) -> WrittenTime | None:
    """:func:`parse_time` of a metadata value (None for a non-string), parsed once per validate() call."""
    if not isinstance(value, str):
        return None
    key = ("typed.time", value)
    scratch = ctx.scratch
    written = scratch.get(key, _UNPARSED)
    if written is _UNPARSED:
        written = scratch[key] = parse_time(value)
    return written  # type: ignore[return-value]


def _unit(clock: str) -> str:
    """The finest unit written in the time-of-day part (``18``, ``18:05``, ``180530.5+08:00``)."""
    end = _CLOCK_END.search(clock)
    if end:
        clock = clock[:end.start()]
    digits = len(clock) - clock.count(":")
    return "hour" if digits == 2 else "minute" if digits == 4 else "second"


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def recorded_at_instead_of_timestamp(written: WrittenTime, sources: list[Any]) -> Any | None:
    """The source whose ``recordedAt`` the time copies (to the second), unless it is also an event time."""
    if written.unit == "day":
        return None
    # Plain loops over the one or two sources: cheaper than any()/next() over generators.
    second = written.start_ms // 1000
    for m in sources:
        event_ms = m.event_ms
        if event_ms is not None and event_ms // 1000 == second:
            return None
    for m in sources:
        recorded_ms = m.recorded_ms
        if recorded_ms is not None and recorded_ms // 1000 == second:
            return m
    return None


def _is_time_text(value: Any) -> bool:
    """Is ``value`` a string :func:`parse_time` accepts? (T006's question.)"""
    return isinstance(value, str) and is_iso_time(value)


def _event_times(sources: list[Any]) -> list[int]:
    """The valid event times (epoch ms) of ``sources``, in order."""
    return [ms for ms in [m.event_ms for m in sources] if ms is not None]


def _key_path(key: str) -> str:
    return jp.join("metadata", key)


# --- rules -----------------------------------------------------------------------

class TaskStateOnNonTask(Rule):
    """``taskState`` on a memory that is not a ``work_task``.

    What it does:
        Removes ``taskState`` from a ``work_fact``, ``work_method`` or
        ``work_artifact``. Fix: safe -- only tasks have a state.

    Why is this bad?
        Readers filter open tasks by ``taskState``; a fact carrying
        ``"open"`` would show up as a pending task forever.

    Example:
        user: 登录接口的超时已经改成 30 秒并上线了
        ```json
        {"content": "登录接口超时为 30 秒，已上线。", "type": "work_fact", "taskState": "done", "priority": 80}
        ```

    Use instead:
        user: 登录接口的超时已经改成 30 秒并上线了
        ```json
        {"content": "登录接口超时为 30 秒，已上线。", "type": "work_fact", "priority": 80}
        ```
    """

    code = "T001"
    name = "taskstate-on-non-task"
    target = "memory"
    action = "fix"

    types = frozenset({"work_fact", "work_method", "work_artifact"})

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        if "taskState" not in memory or memory["type"] == "work_task":
            return ()
        return [Finding(f"taskState belongs to work_task only; removed from this {memory['type']}",
                        path="/taskState", fix=[{"op": "remove", "path": "/taskState"}])]


class LegacyStatus(Rule):
    """``metadata.status`` on a ``work_task``.

    What it does:
        ``metadata.status`` is the retired way to write a task's state.
        ``done`` and ``dropped`` (any case) move to the top-level
        ``taskState`` -- unless ``taskState`` is already set, which wins --
        and every other value (``todo``, ``doing``, ``blocked``,
        ``deferred``, ``decided``...) is removed: an open task needs no
        state. Fix: safe.

    Why is this bad?
        Nothing reads ``metadata.status``: a task marked done there stays
        open for every reader, and the free values pile up.

    Example:
        user: L1 向量化接入已经做完了
        ```json
        {"content": "memory-system 的 L1 向量化接入已完成。", "type": "work_task", "priority": 80,
         "metadata": {"status": "done"}}
        ```
        user: Next: the flaky login test still needs a fix.
        ```json
        {"content": "The flaky login test needs a fix.", "type": "work_task", "priority": 80,
         "metadata": {"status": "todo"}}
        ```

    Use instead:
        user: L1 向量化接入已经做完了
        ```json
        {"content": "memory-system 的 L1 向量化接入已完成。", "type": "work_task", "taskState": "done", "priority": 80}
        ```
        user: Next: the flaky login test still needs a fix.
        ```json
        {"content": "The flaky login test needs a fix.", "type": "work_task", "priority": 80}
        ```
    """

    code = "T002"
    name = "legacy-status"
    target = "memory"
    action = "fix"

    types = frozenset({"work_task"})

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not isinstance(meta, dict) or "status" not in meta or memory["type"] != "work_task":
            return ()
        return self._findings(memory, meta)

    @staticmethod
    def _findings(memory: dict[str, Any], meta: dict[str, Any]) -> Iterator[Finding]:
        status = meta["status"]
        state = LEGACY_STATUS_TO_STATE.get(status.strip().lower()) if isinstance(status, str) else None
        remove = {"op": "remove", "path": "/metadata/status"}
        if state is None:
            yield Finding(f"metadata.status is retired and {status!r} is not a task state; removed "
                          "(an open task needs no state)", path="/metadata/status", fix=[remove])
        elif "taskState" in memory:
            yield Finding(f"metadata.status is retired; removed (taskState {memory['taskState']!r} is already set)",
                          path="/metadata/status", fix=[remove])
        else:
            yield Finding(f"metadata.status is retired; {status!r} moved to taskState", path="/metadata/status",
                          fix=[{"op": "add", "path": "/taskState", "value": state}, remove])


class MetadataKeyForeign(Rule):
    """A metadata key outside its type's vocabulary.

    What it does:
        Warns at each metadata key that the answer format does not list for the
        memory's type: a key of another type (``deadline`` on a
        ``work_fact``) or of none (``confidence``). ``project`` and
        ``projectEvidence`` are legal on every type; ``status`` on a
        ``work_task`` is T002's. Option ``allow``: extra keys a pipeline
        accepts on every type.

    Why is this bad?
        Readers look keys up by type; a foreign key is never read, and
        often shows that the type itself is wrong (a "fact" with a
        deadline is a task).

    Example:
        user: 周五前要把 L1 向量化接入做完
        ```json
        {"content": "memory-system 需在周五前完成 L1 向量化接入。", "type": "work_fact", "priority": 85,
         "metadata": {"deadline": "2026-12-04"}}
        ```

    Use instead:
        user: 周五前要把 L1 向量化接入做完
        ```json
        {"content": "memory-system 需在周五前完成 L1 向量化接入。", "type": "work_task", "priority": 85,
         "metadata": {"deadline": "2026-12-04"}}
        ```
    """

    code = "T003"
    name = "metadata-key-foreign"
    target = "memory"
    action = "warn"

    class Options(RuleOptions):
        allow: list[str] = []

    def __init__(self, options: RuleOptions | None = None):
        super().__init__(options)
        extra = frozenset(self.options.allow) | frozenset(ANY_TYPE_KEYS)
        # Every key a memory of the type may carry (a work_task's status is T002's).
        self._allowed = {kind: frozenset(keys) | extra | (frozenset({"status"}) if kind == "work_task" else frozenset())
                         for kind, keys in VOCABULARY.items()}
        self._allowed_elsewhere = extra

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or not isinstance(meta, dict) or \
                meta.keys() <= self._allowed.get(memory["type"], self._allowed_elsewhere):
            return ()
        return self._findings(memory, meta)

    def _findings(self, memory: dict[str, Any], meta: dict[str, Any]) -> Iterator[Finding]:
        kind = memory["type"]
        own = VOCABULARY.get(kind, ())
        for key in meta:
            if key in own or key in ANY_TYPE_KEYS or key in self.options.allow:
                continue
            if key == "status" and kind == "work_task":
                continue  # T002 moves or removes it
            owner = OWNER_OF_KEY.get(key)
            where = f"belongs to {owner}" if owner else "belongs to no memory type"
            yield Finding(f"metadata key {key!r} {where}, not {kind} (allowed: {', '.join(own + ANY_TYPE_KEYS)})",
                          path=_key_path(key))


class MetadataEnum(Rule):
    """``scope``, ``method_type`` or ``artifact_type`` outside its list.

    What it does:
        A value that differs from a listed one only in case or surrounding
        spaces is replaced by the listed spelling; any other value is
        removed -- including the retired scope values: ``scope`` is only
        ``self | global | unknown`` now, and a project is named by
        ``metadata.project`` with ``projectEvidence``. Fix: safe (the keys
        are optional).

    Why is this bad?
        Readers filter on these values; an unknown one silently drops the
        memory out of every filter.

    Example:
        user: 提交信息必须使用 conventional 格式
        ```json
        {"content": "提交信息必须使用 conventional 格式。", "type": "work_method", "priority": 85,
         "metadata": {"scope": "project", "method_type": "convention"}}
        ```

    Use instead:
        user: 提交信息必须使用 conventional 格式
        ```json
        {"content": "提交信息必须使用 conventional 格式。", "type": "work_method", "priority": 85,
         "metadata": {"scope": "global", "method_type": "constraint"}}
        ```
    """

    code = "T004"
    name = "metadata-enum"
    target = "memory"
    action = "fix"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or not isinstance(meta, dict):
            return ()
        # Unrolled over ENUMS (no loop, no tuple unpacking): this runs on every memory.
        if ("scope" in meta and meta["scope"] not in _SCOPES) or \
                ("method_type" in meta and meta["method_type"] not in _METHOD_TYPES) or \
                ("artifact_type" in meta and meta["artifact_type"] not in _ARTIFACT_TYPES):
            return self._findings(meta)
        return ()

    @staticmethod
    def _findings(meta: dict[str, Any]) -> Iterator[Finding]:
        for key, allowed in ENUMS.items():
            if key not in meta or meta[key] in allowed:
                continue
            value = meta[key]
            path = _key_path(key)
            canonical = value.strip().lower() if isinstance(value, str) else None
            if canonical in allowed:
                yield Finding(f"metadata.{key} {value!r} is spelled {canonical!r}; normalised", path=path,
                              fix=[{"op": "replace", "path": path, "value": canonical}])
                continue
            hint = " (retired scope values are gone: name a project with metadata.project and " \
                   "projectEvidence)" if key == "scope" else ""
            yield Finding(f"metadata.{key} {value!r} is not one of {' | '.join(allowed)}; removed{hint}",
                          path=path, fix=[{"op": "remove", "path": path}])


class LowPriority(Rule):
    """``priority`` below the threshold.

    What it does:
        Drops a memory whose ``priority`` is under ``min_priority`` (config,
        70 by default).

    Why is this bad?
        The extraction prompt says anything under 70 must not be emitted:
        downstream budgets are hard (top-3 recall, scene limits), and a
        low-value memory pushes out a better one every turn.

    Example:
        user: 顺手把 README 里的错别字改了
        ```json
        {"content": "README 的错别字已修正。", "type": "work_fact", "priority": 40}
        ```

    Use instead:
        user: 接入 Redis 的服务必须按压测峰值配置连接池
        ```json
        {"content": "接入 Redis 的服务按压测峰值配置连接池大小。", "type": "work_fact", "priority": 85}
        ```
    """

    code = "T005"
    name = "low-priority"
    target = "memory"
    action = "drop"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        threshold = ctx.config.min_priority
        priority = memory["priority"]
        if priority >= threshold:
            return ()
        shown = int(priority) if priority == int(priority) else priority
        return [Finding(f"priority {shown} is below {threshold}; memories under {threshold} must not be kept",
                        path="/priority")]


class BadTime(Rule):
    """``deadline`` / ``activity_start_time`` / ``activity_end_time`` that is not ISO 8601.

    What it does:
        Removes a time that is not ISO 8601, e.g. ``下周五``,
        ``12/04/2026``, ``2026-12`` or ``next Friday``. Accepted is what
        Python 3.11's ``datetime.fromisoformat`` reads (dates, week dates,
        times with or without seconds, fractions and offsets, a trailing
        ``Z``), narrowed to ASCII text whose date/time separator is ``T``,
        ``t`` or a space; a trailing ``z`` counts as ``Z``.
        Fix: safe -- the times are optional, and a guess is worse than none.

    Why is this bad?
        Readers sort and filter by these times; a relative or local-format
        date cannot be resolved later, when "next Friday" means another day.

    Example:
        user: L1 向量化接入下周五前要做完
        ```json
        {"content": "memory-system 需在下周五前完成 L1 向量化接入。", "type": "work_task", "priority": 85,
         "metadata": {"deadline": "下周五"}}
        ```
        user: Ship the billing retry fix by December 4.
        ```json
        {"content": "The billing retry fix must ship by 2026-12-04.", "type": "work_task", "priority": 85,
         "metadata": {"deadline": "12/04/2026"}}
        ```

    Use instead:
        user: L1 向量化接入 12 月 4 日前要做完
        ```json
        {"content": "memory-system 需在 2026-12-04 前完成 L1 向量化接入。", "type": "work_task", "priority": 85,
         "metadata": {"deadline": "2026-12-04T18:00:00+08:00"}}
        ```
        user: Ship the billing retry fix by December 4.
        ```json
        {"content": "The billing retry fix must ship by 2026-12-04.", "type": "work_task", "priority": 85,
         "metadata": {"deadline": "2026-12-04"}}
        ```
    """

    code = "T006"
    name = "bad-time"
    target = "memory"
    action = "fix"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or not isinstance(meta, dict):
            return ()
        # The common case -- no time, or every time ISO 8601 -- ends here without
        # a generator. Activity times go through parsed_time, so T008 and T009
        # reuse this parse; a deadline only needs the yes/no.
        if "deadline" in meta and not _is_time_text(meta["deadline"]):
            return self._findings(meta)
        if "activity_start_time" in meta and parsed_time(meta["activity_start_time"], ctx) is None:
            return self._findings(meta)
        if "activity_end_time" in meta and parsed_time(meta["activity_end_time"], ctx) is None:
            return self._findings(meta)
        return ()

    @staticmethod
    def _findings(meta: dict[str, Any]) -> Iterator[Finding]:
        for key in TIME_KEYS:
            if key in meta:
                value = meta[key]
                if not _is_time_text(value):
                    path = _key_path(key)
                    yield Finding(f"metadata.{key} {value!r} is not an ISO 8601 time; removed", path=path,
                                  fix=[{"op": "remove", "path": path}])


class GuessedTime(Rule):
    """An activity time although no source message has a valid timestamp.

    What it does:
        Removes ``activity_start_time`` / ``activity_end_time`` when none of
        the memory's source messages carries a valid event ``timestamp``
        (null, missing or implausible, e.g. epoch seconds). Fix: safe.

    Why is this bad?
        With no event time the model can only have guessed the time -- from
        the archive time, "yesterday" or the current date -- and a wrong
        time is worse than none.

    Example:
        user [timestamp=null]: The nightly backup job was moved off the primary.
        ```json
        {"content": "The nightly backup job no longer runs on the primary database.", "type": "work_fact",
         "priority": 80, "metadata": {"activity_start_time": "2026-11-28T02:00:00Z"}}
        ```

    Use instead:
        user [timestamp=null]: The nightly backup job was moved off the primary.
        ```json
        {"content": "The nightly backup job no longer runs on the primary database.", "type": "work_fact",
         "priority": 80}
        ```
        user: The nightly backup job was moved off the primary.
        ```json
        {"content": "The nightly backup job no longer runs on the primary database.", "type": "work_fact",
         "priority": 80, "metadata": {"activity_start_time": "2026-11-28T02:00:00Z"}}
        ```
    """

    code = "T007"
    name = "guessed-time"
    target = "memory"
    action = "fix"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        # Spelled out in T006-T009: they run on every memory, and most have no activity time.
        if not meta or not isinstance(meta, dict) or \
                ("activity_start_time" not in meta and "activity_end_time" not in meta):
            return ()
        for m in ctx.sources(memory):
            if m.event_ms is not None:
                return ()  # a real event time: the activity time need not be a guess
        return self._findings(meta)

    @staticmethod
    def _findings(meta: dict[str, Any]) -> Iterator[Finding]:
        for key in ACTIVITY_TIMES:
            if key in meta:
                path = _key_path(key)
                yield Finding(f"metadata.{key} {meta[key]!r} but no source message has a valid timestamp; "
                              "an activity time must not be guessed, removed", path=path,
                              fix=[{"op": "remove", "path": path}])


class TimeOutsideSources(Rule):
    """An activity time outside the span of its sources' timestamps.

    What it does:
        Warns when ``activity_start_time`` / ``activity_end_time`` does not
        overlap the span from the earliest to the latest valid event
        ``timestamp`` of the memory's source messages. The time is compared
        at the granularity it is written in (a date covers its day), a time
        without a UTC offset gets 14 hours either side, and option
        ``tolerance_minutes`` (default 0) widens the span. Times T006, T007
        or T009 handle are left to them.

    Why is this bad?
        An activity time is derived from the messages' event times; one
        outside their span was probably computed wrongly (a time-zone slip,
        a relative date resolved against the wrong day). It may also be a
        time the user stated ("we started last Monday"), hence a warning.

    Example:
        user: 昨天已经把 auth-service 的 Redis 连接池调到 64
        ```json
        {"content": "auth-service 的 Redis 连接池已调到 64。", "type": "work_fact", "priority": 80,
         "metadata": {"activity_start_time": "2026-10-01"}}
        ```

    Use instead:
        user: 昨天已经把 auth-service 的 Redis 连接池调到 64
        ```json
        {"content": "auth-service 的 Redis 连接池已调到 64。", "type": "work_fact", "priority": 80,
         "metadata": {"activity_start_time": "2026-11-28"}}
        ```
    """

    code = "T008"
    name = "time-outside-sources"
    target = "memory"
    action = "warn"

    class Options(RuleOptions):
        tolerance_minutes: int = 0

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or not isinstance(meta, dict) or \
                ("activity_start_time" not in meta and "activity_end_time" not in meta):
            return ()
        sources = ctx.sources(memory)
        times = _event_times(sources)
        if not times:
            return ()  # T007's
        return self._findings(meta, sources, times, ctx)

    def _findings(self, meta: dict[str, Any], sources: list[Any], times: list[int], ctx: Any) -> list[Finding]:
        """The findings as a list: usually empty, and an empty list costs less than a generator."""
        findings = []
        lo, hi = min(times), max(times)
        tolerance = self.options.tolerance_minutes * 60_000
        for key in ACTIVITY_TIMES:
            value = meta.get(key)
            written = parsed_time(value, ctx)
            if written is None or recorded_at_instead_of_timestamp(written, sources):
                continue  # T006's / T009's
            start, end = written.interval(tolerance)
            if start <= hi and end > lo:
                continue
            span = _iso(lo) if lo == hi else f"{_iso(lo)} .. {_iso(hi)}"
            findings.append(Finding(f"metadata.{key} {value!r} lies outside the source messages' event times ({span})",
                                    path=_key_path(key)))
        return findings


class RecordedAtAsTime(Rule):
    """An activity time copied from ``recordedAt`` instead of ``timestamp``.

    What it does:
        Removes ``activity_start_time`` / ``activity_end_time`` when it
        equals, to the second, a source message's ``recordedAt`` and no
        source's ``timestamp``. A time without a UTC offset is read as UTC;
        a date-only time is never compared. Fix: safe.

    Why is this bad?
        ``recordedAt`` is when the message was archived -- minutes, hours or
        days after the work happened. It must never stand in for the event
        time.

    Example:
        user: auth-service 的 Redis 连接池已经调到 64
        ```json
        {"content": "auth-service 的 Redis 连接池已调到 64。", "type": "work_fact", "priority": 80,
         "metadata": {"activity_start_time": "2026-11-28T02:05:00Z"}}
        ```

    Use instead:
        user: auth-service 的 Redis 连接池已经调到 64
        ```json
        {"content": "auth-service 的 Redis 连接池已调到 64。", "type": "work_fact", "priority": 80,
         "metadata": {"activity_start_time": "2026-11-28T02:00:00Z"}}
        ```
    """

    code = "T009"
    name = "recorded-at-as-time"
    target = "memory"
    action = "fix"

    def check(self, memory: dict[str, Any], ctx: Any) -> Iterable[Finding]:
        meta = memory.get("metadata")
        if not meta or not isinstance(meta, dict) or \
                ("activity_start_time" not in meta and "activity_end_time" not in meta):
            return ()
        return self._findings(memory, meta, ctx)

    @staticmethod
    def _findings(memory: dict[str, Any], meta: dict[str, Any], ctx: Any) -> list[Finding]:
        """The findings as a list: usually empty, and an empty list costs less than a generator."""
        findings = []
        sources = ctx.sources(memory)
        for key in ACTIVITY_TIMES:
            value = meta.get(key)
            written = parsed_time(value, ctx)
            if written is None:
                continue
            copied = recorded_at_instead_of_timestamp(written, sources)
            if copied is not None:
                path = _key_path(key)
                findings.append(Finding(
                    f"metadata.{key} {value!r} is the archive time (recordedAt) of message {copied.id!r}, "
                    f"not its event time ({_iso(copied.event_ms) if copied.event_ms else 'unknown'}); removed",
                    path=path, fix=[{"op": "remove", "path": path}]))
        return findings
