"""Where stored memories come from: readers for ``memvet audit``.

Three sources, each read lazily (one record in memory at a time):

- a TencentDB-Agent-Memory data directory: L1 ``records/YYYY-MM-DD.jsonl``
  (append-only; the newest ``version`` of an ``id`` wins) and the L0 archive
  ``conversations/YYYY-MM-DD.jsonl`` the records cite;
- memvet's own store (a SQLite path or a store URL, through ``open_store``);
- a plain JSONL file of records (``content``, ``type``, optional
  ``source_message_ids``, ``sessionKey``, ``metadata``).

Every reader yields :class:`StoredRecord`. The archive is indexed by message
id only (file and byte offset per message, never the text), so memory grows
with the number of ids, not with the size of the archive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from memvet.errors import ContextError, MemvetError
from memvet.jsonl import decode_object, iter_lines


@dataclass(slots=True)
class StoredRecord:
    """One stored memory as the audit sees it."""

    id: str
    where: str                 # "file:line" (or "store:ID") for findings and SARIF
    record: dict[str, Any]     # exactly as stored (written back by --clean-out)
    session_key: str | None


def _date_files(folder: Path) -> list[Path]:
    # YYYY-MM-DD.jsonl sorts chronologically by name.
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file())


def is_tencentdb_dir(path: Path) -> bool:
    return path.is_dir() and ((path / "records").is_dir() or (path / "conversations").is_dir())


# --- the L0 archive ----------------------------------------------------------------

def iso_to_ms(value: Any) -> Any:
    """``recordedAt`` ISO text -> epoch ms (memvet's context field); other values unchanged."""
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            return value
    return value


class Archive:
    """The L0 conversations of a TencentDB directory, indexed by ``(sessionKey, id)``.

    ``message(id, session)`` re-reads one message from disk by its offset;
    ``sessions_of(id)`` names up to :attr:`SESSIONS_KEPT` sessions holding
    that id (ids are unique per session only), enough to say where a
    misattributed source really lives. Both are O(1) per look-up.
    """

    SESSIONS_KEPT = 4

    def __init__(self, folder: Path):
        self.folder = folder
        self.files = _date_files(folder)
        self._index: dict[tuple[str, str], tuple[int, int]] = {}
        self._sessions: dict[str, list[str]] = {}
        self._handles: dict[int, Any] = {}
        self.messages = 0
        for f, path in enumerate(self.files):
            offset = 0
            with open(path, "rb") as stream:
                for n, line in enumerate(stream, 1):
                    start, offset = offset, offset + len(line)
                    if not line.strip():
                        continue
                    item = decode_object(str(path), n, line, what="a message object")
                    mid, session = item.get("id"), item.get("sessionKey")
                    if not isinstance(mid, str) or not isinstance(session, str) or not mid or not session:
                        raise ContextError('an archived message needs non-empty string "id" and "sessionKey"',
                                           file=f"{path}:{n}")
                    if (session, mid) not in self._index:  # the first copy of a message wins
                        self._index[(session, mid)] = (f, start)
                        sessions = self._sessions.setdefault(mid, [])
                        if len(sessions) < self.SESSIONS_KEPT:
                            sessions.append(session)
                    self.messages += 1

    def sessions_of(self, mid: str) -> list[str]:
        """Sessions that hold ``mid`` (at most SESSIONS_KEPT: a full list means "maybe more")."""
        return list(self._sessions.get(mid, ()))

    def message(self, mid: str, session: str) -> dict[str, Any] | None:
        where = self._index.get((session, mid))
        if where is None:
            return None
        f, offset = where
        stream = self._handles.get(f)
        if stream is None:
            stream = self._handles[f] = open(self.files[f], "rb")
        stream.seek(offset)
        return json.loads(stream.readline())

    def close(self) -> None:
        for stream in self._handles.values():
            stream.close()
        self._handles.clear()

    def iter_files(self) -> Iterator[tuple[Path, Iterator[tuple[int, bytes, int]]]]:
        for path in self.files:
            yield path, iter_lines(str(path))


def context_message(item: dict[str, Any]) -> dict[str, Any]:
    """An archived message in the shape of CONTRACT section 1 (recordedAt in epoch ms)."""
    role = item.get("role")
    return {"id": item["id"], "sessionKey": item["sessionKey"],
            "role": role if role in ("user", "assistant", "tool", "system") else "system",
            "content": item.get("content") if isinstance(item.get("content"), str) else "",
            "timestamp": item.get("timestamp"), "recordedAt": iso_to_ms(item.get("recordedAt"))}


# --- L1 records --------------------------------------------------------------------

def _version(item: dict[str, Any]) -> float:
    v = item.get("version")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def iter_tencentdb_records(folder: Path) -> Iterator[StoredRecord]:
    """The newest version of every record id, in the order of its newest line.

    Two passes: the first keeps ``id -> (version, file, line)`` only, the
    second yields the winning lines (append-only history collapsed).
    """
    records = folder / "records"
    files = _date_files(records) if records.is_dir() else []
    newest: dict[str, tuple[float, int, int]] = {}
    for f, path in enumerate(files):
        for n, line, _ in iter_lines(str(path)):
            item = decode_object(str(path), n, line, what="a record object")
            rid = item.get("id")
            if not isinstance(rid, str) or not rid:
                raise ContextError('a record needs a non-empty string "id"', file=f"{path}:{n}")
            v = _version(item)
            old = newest.get(rid)
            if old is None or v >= old[0]:  # the same version again: the later line wins
                newest[rid] = (v, f, n)
    for f, path in enumerate(files):
        for n, line, _ in iter_lines(str(path)):
            item = json.loads(line)
            rid = item["id"]
            if newest[rid][1:] == (f, n):
                sk = item.get("sessionKey")
                yield StoredRecord(rid, f"{path}:{n}", item, sk if isinstance(sk, str) and sk else None)


def iter_jsonl_records(path: Path) -> Iterator[StoredRecord]:
    for n, line, _ in iter_lines(str(path)):
        item = decode_object(str(path), n, line, what="a record object")
        rid = item.get("id")
        sk = item.get("sessionKey")
        yield StoredRecord(rid if isinstance(rid, str) and rid else f"line-{n}", f"{path}:{n}", item,
                           sk if isinstance(sk, str) and sk else None)


#: The memory type of a hand-written store memory (``memvet store add`` stores a kind, no type).
TYPE_OF_KIND = {"project_fact": "work_fact", "code_preference": "work_method", "task_state": "work_task"}


def iter_store_records(store: Any, where: str) -> Iterator[StoredRecord]:
    """Every memory of a memvet store (any status), through the backend's ``find``."""
    for m in store.backend.find():
        typ = m.get("type") or TYPE_OF_KIND.get(m["kind"])
        record = {"id": m["id"], "content": m["content"], "type": typ, "kind": m["kind"],
                  "status": m["status"], "namespace": m.get("namespace"), "scope": m.get("scope"),
                  "task_id": m.get("task_id"), "source": m.get("source") or [],
                  "confirmed_by": m.get("confirmed_by") or [], "sessionKey": m.get("session_key")}
        yield StoredRecord(m["id"], f"{where}#{m['id']}", record, m.get("session_key"))


def source_kind(source: str) -> str:
    """``tencentdb`` (a directory), ``jsonl`` (a .jsonl file) or ``store`` (anything else)."""
    path = Path(source)
    if path.is_dir():
        if not is_tencentdb_dir(path):
            raise MemvetError("a directory to audit must hold records/ and/or conversations/ "
                              "(a TencentDB-Agent-Memory data directory)", file=source)
        return "tencentdb"
    if source.endswith(".jsonl"):
        if not path.is_file():
            raise MemvetError("no such file", file=source)
        return "jsonl"
    if "://" not in source and not path.is_file():
        raise MemvetError("no such file or directory", file=source)
    return "store"
