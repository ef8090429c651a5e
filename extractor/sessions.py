"""``memvet run``: L0 session files to committed memories, batch by batch, resumably.

Input: JSONL, one message per line in the context message shape of
CONTRACT.md (``id``, ``sessionKey``, ``role``, ``content``, ``timestamp``,
``recordedAt``). Messages are grouped by ``sessionKey`` and put in time
order. Many messages carry no event time (assistant turns usually), so a
message without a valid ``timestamp`` sorts with the last timed message
before it in the file: the file's order is kept wherever time says nothing.

Each session is cut into windows: ``window`` new messages, with up to
``background`` earlier messages shown as background. The scene pool of a
batch is the store's: scenes created by earlier batches join it once their
batch is committed, so the next batch can reuse them.

Exactly once: the store keeps a cursor per session (the number of that
session's messages already consumed) and commits the records and the new
cursor in one transaction. A run starts each session at its cursor, so a
rerun resumes where the last one stopped and never commits a batch twice.
A batch still rejected after its repairs stops its session (the cursor
stays, the batch is asked again next run) unless ``on_reject="skip"``,
which commits the batch as empty -- nothing from a rejected answer is ever
stored -- so the cursor moves on; the summary counts it as skipped.

Sessions run concurrently (``concurrency``) on one event loop; the store
and the validator run on the loop's thread, so a SQLite store is only ever
touched from one thread.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO

from pydantic import ValidationError

from memvet.context import Message
from memvet.errors import ContextError, MemvetError
from memvet.jsonl import iter_objects
from memvet.report import Report

from .client import AsyncChatClient, EndpointSettings
from .extract import extract_async

ON_REJECT = ("stop", "skip")


# --- reading and ordering ------------------------------------------------------------

def read_messages(path: str | Path) -> dict[str, list[Message]]:
    """Messages of a JSONL file grouped by sessionKey (sessions in order of first appearance)."""
    path = Path(path)
    sessions: dict[str, list[Message]] = {}
    seen: set[tuple[str, str]] = set()
    for where, item in iter_objects(str(path), what="one message object"):
        try:
            message = Message.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ContextError(err["msg"], file=where, field="/" + "/".join(map(str, err["loc"]))) from None
        if message.key in seen:
            raise ContextError(f"message id {message.id!r} appears twice in session {message.sessionKey!r}",
                               file=where, field="/id")
        seen.add(message.key)
        sessions.setdefault(message.sessionKey, []).append(message)
    return {key: time_order(messages) for key, messages in sessions.items()}


def time_order(messages: list[Message]) -> list[Message]:
    """Stable sort by event time; an untimed message keeps its place after the last timed one."""
    keyed = []
    last = -1
    for position, message in enumerate(messages):
        if message.event_ms is not None:
            last = message.event_ms
        keyed.append(((last, position), message))
    keyed.sort(key=lambda pair: pair[0])
    return [m for _, m in keyed]


@dataclass(frozen=True)
class Window:
    session: str
    start: int          # cursor before the batch
    new: list[Message]
    background: list[Message]

    @property
    def end(self) -> int:
        return self.start + len(self.new)

    @property
    def batch_id(self) -> str:
        return f"{self.session}@{self.start}-{self.end}"


def windows(session: str, messages: list[Message], cursor: int, *, window: int,
            background: int) -> Iterator[Window]:
    """The batches left from ``cursor`` on: ``window`` new messages each, with background before them."""
    start = max(0, cursor)
    while start < len(messages):
        new = messages[start:start + window]
        yield Window(session, start, new, messages[max(0, start - background):start])
        start += len(new)


def batch_count(total: int, cursor: int, window: int) -> int:
    return max(0, -(-(total - cursor) // window))


def window_context(w: Window, pool: list[dict[str, str]], known_projects: list[str]) -> dict[str, Any]:
    def dump(m: Message) -> dict[str, Any]:
        return m.model_dump()
    return {"messages": [dump(m) for m in w.new], "background": [dump(m) for m in w.background],
            "scenePool": [{"id": str(p["id"]), "label": str(p.get("label", ""))} for p in pool],
            "knownProjects": list(known_projects)}


# --- outcome and summary --------------------------------------------------------------

@dataclass
class SessionOutcome:
    session: str
    messages: int
    cursor: int
    batches: int = 0          # batches this run had to do
    committed: int = 0
    skipped: int = 0          # rejected batches committed empty (on_reject="skip")
    records: int = 0
    repairs: int = 0
    tokens: int = 0
    status: str = "done"      # done | up-to-date | stopped | error
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("session", "messages", "cursor", "batches", "committed", "skipped",
                                               "records", "repairs", "tokens", "status", "detail")}


@dataclass
class RunSummary:
    outcomes: list[SessionOutcome] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        statuses = {o.status for o in self.outcomes}
        if "error" in statuses:
            return 2
        return 1 if "stopped" in statuses else 0

    def to_dict(self) -> dict[str, Any]:
        return {"sessions": [o.to_dict() for o in self.outcomes],
                "totals": {k: sum(getattr(o, k) for o in self.outcomes)
                           for k in ("batches", "committed", "skipped", "records", "repairs", "tokens")}}

    def table(self) -> str:
        head = ("session", "msgs", "cursor", "batches", "committed", "skipped", "records", "repairs", "tokens",
                "status")
        rows = [(o.session, o.messages, o.cursor, o.batches, o.committed, o.skipped, o.records, o.repairs, o.tokens,
                 o.status + (f": {o.detail}" if o.detail else "")) for o in self.outcomes]
        t = self.to_dict()["totals"]
        rows.append(("total", sum(o.messages for o in self.outcomes), "", t["batches"], t["committed"],
                     t["skipped"], t["records"], t["repairs"], t["tokens"], ""))
        cells = [[str(c) for c in row] for row in (head, *rows)]
        widths = [max(len(r[i]) for r in cells) for i in range(len(head) - 1)]
        lines = []
        for k, row in enumerate(cells):
            numeric = [c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
            lines.append("  ".join([*numeric, row[-1]]).rstrip())
            if k == 0 or k == len(cells) - 2:
                lines.append("  ".join("-" * w for w in widths) + "  ------")
        return "\n".join(lines)


class Progress:
    """A one-line progress bar on a terminal; silent when the stream is not a TTY."""

    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool | None = None, width: int = 28):
        self.total, self.done, self.tokens = total, 0, 0
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.width = width

    def advance(self, tokens: int = 0, label: str = "") -> None:
        self.done += 1
        self.tokens += tokens
        self.draw(label)

    def draw(self, label: str = "") -> None:
        if not self.enabled:
            return
        filled = self.width * self.done // self.total if self.total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} batches · {self.tokens} tokens {label[:40]:<40}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


# --- the run ---------------------------------------------------------------------------

Event = dict[str, Any]


async def run_sessions(sessions: dict[str, list[Message]], *, settings: EndpointSettings, store: Any,
                       engine: Any = None, template: Any = None, window: int = 10, background: int = 4,
                       concurrency: int = 4, known_projects: list[str] | None = None, on_reject: str = "stop",
                       max_repairs: int = 2, token_budget: int = 60_000,
                       on_event: Callable[[Event], None] | None = None,
                       client: AsyncChatClient | None = None) -> RunSummary:
    """Extract, validate and commit every pending batch of every session."""
    if on_reject not in ON_REJECT:
        raise MemvetError(f"on_reject must be one of {', '.join(ON_REJECT)}", field="--on-reject")
    emit = on_event or (lambda event: None)
    own_client = client is None
    client = client or AsyncChatClient(settings)
    known = list(known_projects or [])
    outcomes = []
    for key, messages in sessions.items():
        cursor = int(store.get_cursor(key) or 0)
        outcome = SessionOutcome(key, len(messages), cursor, batch_count(len(messages), cursor, window))
        if outcome.batches == 0:
            outcome.status = "up-to-date"
        outcomes.append(outcome)
    emit({"kind": "plan", "batches": sum(o.batches for o in outcomes), "sessions": len(outcomes)})
    gate = asyncio.Semaphore(concurrency)
    options = {"engine": engine, "template": template, "max_repairs": max_repairs, "token_budget": token_budget}

    async def one(outcome: SessionOutcome) -> None:
        async with gate:
            for w in windows(outcome.session, sessions[outcome.session], outcome.cursor,
                             window=window, background=background):
                context = window_context(w, store.scene_pool(), known)
                try:
                    result = await extract_async(context, client, store=store, **options)
                except MemvetError as exc:  # the endpoint failed, or a window is not a valid context
                    outcome.status, outcome.detail = "error", str(exc)
                    emit({"kind": "error", "session": outcome.session, "window": w, "error": str(exc)})
                    return
                outcome.repairs += result.repairs
                outcome.tokens += result.usage.total_tokens
                report = result.report
                if not result.ok:
                    if on_reject == "stop":
                        outcome.status = "stopped"
                        outcome.detail = f"batch {w.batch_id} rejected ({result.stop})"
                        emit({"kind": "batch", "session": outcome.session, "window": w, "result": result,
                              "commit": None})
                        return
                    report = Report(ok=True)  # skip: consume the batch, store nothing from it
                try:
                    commit = store.commit(report, stream=w.session, cursor=w.end, batch_id=w.batch_id)
                except MemvetError as exc:
                    outcome.status, outcome.detail = "error", str(exc)
                    emit({"kind": "error", "session": outcome.session, "window": w, "error": str(exc)})
                    return
                if getattr(commit, "committed", True):
                    outcome.committed += report is result.report
                    outcome.skipped += report is not result.report
                    outcome.records += int(getattr(commit, "records", len(report.records)))
                outcome.cursor = int(store.get_cursor(outcome.session) or w.end)
                emit({"kind": "batch", "session": outcome.session, "window": w, "result": result, "commit": commit})

    try:
        await asyncio.gather(*(one(o) for o in outcomes if o.batches))
    finally:
        if own_client:
            await client.close()
    return RunSummary(outcomes)


def run(path: str | Path, **options: Any) -> RunSummary:
    """Synchronous entry point: read ``path`` and :func:`run_sessions` on a fresh event loop."""
    return asyncio.run(run_sessions(read_messages(path), **options))
