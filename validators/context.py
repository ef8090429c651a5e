"""The batch context: what the extractor was shown (docs/formats.md).

:func:`load_context` accepts a dict, a :class:`BatchContext`, a JSON string
or a path, validates it once and builds the indices every rule needs, so a
rule never scans the message list itself. A malformed context raises
:class:`~memvet.errors.ContextError` naming the file and field.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import textcheck
from .depth import MAX_CONTEXT_DEPTH, too_deep
from .errors import ContextError

Role = Literal["user", "assistant", "tool", "system"]
NonEmpty = Annotated[str, Field(min_length=1)]
Status = Literal["active", "pending", "conflict", "invalid", "archived"]

# Event times outside this window are treated as unknown: epoch seconds sent
# as milliseconds, zero placeholders and far-future typos are all "invalid".
_MIN_MS = 946_684_800_000   # 2000-01-01T00:00:00Z
_MAX_MS = 4_102_444_800_000  # 2100-01-01T00:00:00Z


def valid_epoch_ms(value: Any) -> int | None:
    """``value`` as epoch milliseconds when it is a plausible event time, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    value = int(value)
    return value if _MIN_MS <= value < _MAX_MS else None


def iso_from_ms(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Message(BaseModel):
    """One L0 message. Extra fields a pipeline carries are kept, not checked."""

    model_config = ConfigDict(extra="allow", frozen=True)

    # Non-empty checked inside pydantic-core (a Python validator ran twice per message).
    id: NonEmpty
    sessionKey: NonEmpty
    role: Role
    content: str
    timestamp: Any = None
    recordedAt: Any = None

    @cached_property
    def event_ms(self) -> int | None:
        """Valid event time in epoch ms, or None when unknown."""
        return valid_epoch_ms(self.timestamp)

    @cached_property
    def recorded_ms(self) -> int | None:
        return valid_epoch_ms(self.recordedAt)

    @property
    def key(self) -> tuple[str, str]:
        return (self.sessionKey, self.id)


class PoolEntry(_Model):
    id: str
    label: str


class ExistingMemory(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    id: str
    kind: str
    content: str
    scope: str | None = None
    namespace: str | None = None
    status: Status = "active"


class BatchContext(_Model):
    messages: list[Message]
    background: list[Message] = []
    scenePool: list[PoolEntry] = []
    knownProjects: list[str] = []
    existing: list[ExistingMemory] = []

    @field_validator("scenePool", mode="before")
    @classmethod
    def _pool_text(cls, v: Any) -> Any:
        return parse_pool_text(v) if isinstance(v, str) else v


_EMPTY_POOL = {"", "(无)", "（无）", "(none)", "none", "无", "(empty)"}


def parse_pool_text(text: str) -> list[dict[str, str]]:
    """The prompt's text form of the pool: one ``id | label`` per line."""
    if text.strip().lower() in _EMPTY_POOL:
        return []
    entries = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.lower() in _EMPTY_POOL:
            continue
        cut = min((i for i in (line.find("|"), line.find("｜")) if i >= 0), default=-1)
        sid, label = (line, "") if cut < 0 else (line[:cut], line[cut + 1:])
        entries.append({"id": sid.strip(), "label": label.strip()})
    return entries


@dataclass
class Batch:
    """A validated context plus the indices rules use.

    Message ids are unique only within one ``sessionKey``; every index keeps
    that: ``new_by_id`` maps an id to the new messages (one per session)
    that carry it.
    """

    model: BatchContext
    source: str | None = None
    new_by_id: dict[str, list[Message]] = field(default_factory=dict)
    background_ids: set[str] = field(default_factory=set)
    pool: dict[str, str] = field(default_factory=dict)
    #: Batch-level values rules compute once (RuleContext.memo).
    memo: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        messages, background = self.model.messages, self.model.background
        keys = [(m.sessionKey, m.id) for m in messages]
        keys += [(m.sessionKey, m.id) for m in background]
        if len(set(keys)) != len(keys):  # rare: find the first repeat to name it
            self._raise_duplicate(keys, len(messages))
        new_by_id = self.new_by_id
        for m in messages:
            found = new_by_id.get(m.id)
            if found is None:
                new_by_id[m.id] = [m]
            else:
                found.append(m)
        self.background_ids = {m.id for m in background}
        pool = self.pool
        for entry in self.model.scenePool:
            pool[entry.id] = entry.label
        if len(pool) != len(self.model.scenePool):
            self._raise_duplicate_scene()

    def _raise_duplicate(self, keys: list[tuple[str, str]], new_count: int) -> None:
        seen: set[tuple[str, str]] = set()
        for k, key in enumerate(keys):
            if key in seen:
                where, i = ("messages", k) if k < new_count else ("background", k - new_count)
                raise ContextError(
                    f"message id {key[1]!r} appears twice in session {key[0]!r} "
                    "(ids must be unique within a sessionKey)",
                    file=self.source, field=f"/{where}/{i}/id")
            seen.add(key)

    def _raise_duplicate_scene(self) -> None:
        seen: set[str] = set()
        for i, entry in enumerate(self.model.scenePool):
            if entry.id in seen:
                raise ContextError(f"scene id {entry.id!r} is listed twice",
                                   file=self.source, field=f"/scenePool/{i}/id")
            seen.add(entry.id)

    @property
    def messages(self) -> list[Message]:
        return self.model.messages

    @property
    def background(self) -> list[Message]:
        return self.model.background

    @property
    def known_projects(self) -> list[str]:
        return self.model.knownProjects

    @property
    def existing(self) -> list[ExistingMemory]:
        return self.model.existing

    @cached_property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(m.sessionKey for m in self.model.messages))

    def resolve(self, ids: list[str]) -> tuple[list[Message], str | None]:
        """Resolve a memory's source ids to new messages of ONE session.

        Returns the messages found and the session chosen: the first session
        (in message order) that holds every known id. When no single session
        holds them all, the session is None (the sources cross sessions).
        """
        candidates: list[str] | None = None
        for mid in ids:
            found = self.new_by_id.get(mid)
            if not found:
                continue
            keys = [m.sessionKey for m in found]
            candidates = keys if candidates is None else [k for k in candidates if k in keys]
        if not candidates:
            # Unknown ids only, or sessions disagree: take each id's first session.
            out = [self.new_by_id[mid][0] for mid in ids if mid in self.new_by_id]
            sessions = {m.sessionKey for m in out}
            return out, (out[0].sessionKey if len(sessions) == 1 else None)
        session = candidates[0]
        out = [m for mid in ids for m in self.new_by_id.get(mid, ()) if m.sessionKey == session]
        return out, session


def _field_of(error: dict[str, Any]) -> str:
    return "".join(f"/{p}" for p in error["loc"])


def load_context(context: Any, *, source: str | None = None) -> Batch:
    """Validate ``context`` (dict, model, Batch, JSON text, bytes or path) into a :class:`Batch`."""
    if isinstance(context, Batch):
        return context
    if isinstance(context, BatchContext):
        return Batch(context, source=source)
    if isinstance(context, (str, os.PathLike)) and not (isinstance(context, str) and context.lstrip().startswith("{")):
        path = Path(context)
        source = source or str(path)
        try:
            context = path.read_bytes()
        except OSError as exc:
            raise ContextError(f"cannot read context: {exc.strerror or exc}", file=source) from None
    if isinstance(context, (bytes, bytearray, str)):
        try:
            context = json.loads(context)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ContextError(f"context is not valid JSON: {exc}", file=source) from None
        except RecursionError:
            raise ContextError("context is nested too deeply to be read as JSON", file=source) from None
    if not isinstance(context, dict):
        raise ContextError(f"context must be a JSON object, got {type(context).__name__}", file=source)
    bad = textcheck.first_surrogate(context)
    if bad is not None:  # no formatter, message or store could write it
        raise ContextError("text is not valid Unicode (a lone surrogate or a byte that is not UTF-8)",
                           file=source, field=bad or "/")
    try:
        model = BatchContext.model_validate(context)
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (allowed: messages, background, scenePool, knownProjects, existing)"
        raise ContextError(msg, file=source, field=_field_of(err) or "/") from None
    _check_extra_depth(model, source)
    return Batch(model, source=source)


def _check_extra_depth(model: BatchContext, source: str | None) -> None:
    """Extra fields of messages and existing memories are kept unchecked, so
    only their depth is bounded: nothing later may recurse into them and fail."""
    for section in ("messages", "background", "existing"):
        for index, item in enumerate(getattr(model, section)):
            for key, value in (item.model_extra or {}).items():
                if isinstance(value, (dict, list)):
                    deep = next(too_deep(value, MAX_CONTEXT_DEPTH, (section, index, key)), None)
                    if deep is not None:
                        raise ContextError(f"nested more than {MAX_CONTEXT_DEPTH} levels deep",
                                           file=source, field=deep)
