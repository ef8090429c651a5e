"""Test helpers for the extractor: the loopback server (from the package) and small builders.

The server itself lives in ``memvet.extractor.loopback`` so that ``memvet
demo`` can use it from an installed package; this module re-exports it and
adds what the tests share: a short-timeout client, sample batches, and a
store double used only where the test is about the session runner's
bookkeeping rather than about SQLite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memvet.extractor.client import AsyncChatClient, ChatClient, EndpointSettings
from memvet.extractor.loopback import LoopbackServer, Reply, request_text

__all__ = ["LoopbackServer", "Reply", "request_text", "settings_for", "client_for", "async_client_for",
           "CONTEXT", "GOOD_ANSWER", "SHARED", "TRANSCRIPTS", "LOOP_CONFIG", "MemoryStore", "dumps"]

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
TRANSCRIPTS = SHARED / "corpus" / "transcripts"

#: The loop tests are about asking, repairing and merging: they run the shape
#: and identity families only, so that value rules tuned elsewhere cannot move them.
LOOP_CONFIG = {"select": ["S", "I"]}


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def settings_for(server: LoopbackServer, **changes: Any) -> EndpointSettings:
    values: dict[str, Any] = {"model": "test-model", "base_url": server.url, "api_key": "test",
                              "timeout": 2.0, "retries": 2, "backoff": 0.01, "max_backoff": 0.05}
    values.update(changes)
    return EndpointSettings(**values)


def client_for(server: LoopbackServer, **changes: Any) -> ChatClient:
    return ChatClient(settings_for(server, **changes))


def async_client_for(server: LoopbackServer, **changes: Any) -> AsyncChatClient:
    return AsyncChatClient(settings_for(server, **changes))


CONTEXT: dict[str, Any] = {
    "messages": [
        {"id": "m41", "sessionKey": "s-7f2", "role": "user",
         "content": "登录接口偶尔超时。我查了一下，是 Redis 连接池默认只有 8 个连接，高峰期排队。以后接入 Redis 的服务，"
                    "连接池大小都必须按压测峰值配置，不要用默认值。",
         "timestamp": 1795831200000, "recordedAt": 1795831500000},
        {"id": "m42", "sessionKey": "s-7f2", "role": "assistant",
         "content": "已把 auth-service 的 Redis 连接池调到 64，登录接口不再超时。", "timestamp": None,
         "recordedAt": 1795831500000},
        {"id": "m43", "sessionKey": "s-7f2", "role": "tool",
         "content": "$ git log -1 --oneline\n8f3a2c1 auth-service: raise redis pool to 64",
         "timestamp": 12345, "recordedAt": 1795831500000},
    ],
    "background": [
        {"id": "m38", "sessionKey": "s-7f2", "role": "user", "content": "今天先看登录超时的问题。",
         "timestamp": 1795830000000},
    ],
    "scenePool": [{"id": "sc0003", "label": "auth-service｜登录接口性能"},
                  {"id": "sc0011", "label": "auth-service｜部署流水线"}],
    "knownProjects": ["auth-service"],
}

FACT = {"content": "auth-service 登录超时的根因是 Redis 连接池默认只有 8 个连接，高峰期请求排队；连接池已调到 64。",
        "type": "work_fact", "priority": 90, "source_message_ids": ["m41", "m42"], "metadata": {}}
GOOD_ANSWER = [{"scene_id": "sc0003", "message_ids": ["m41", "m42", "m43"], "memories": [FACT]}]


@dataclass
class _Commit:
    committed: bool
    records: int
    scene_ids: dict[str, str] = field(default_factory=dict)


class MemoryStore:
    """A store double with the memvet.store API (cursor per stream, scene pool, idempotent batches)."""

    def __init__(self, cursors: dict[str, int] | None = None):
        self.cursors = dict(cursors or {})
        self.pool: list[dict[str, str]] = []
        self.records: list[dict[str, Any]] = []
        self.batches: list[str] = []
        self.commits: list[tuple[str, int, str | None]] = []

    def get_cursor(self, stream: str) -> int:
        return self.cursors.get(stream, 0)

    def scene_pool(self) -> list[dict[str, str]]:
        return list(self.pool)

    def commit(self, report: Any, *, stream: str, cursor: int, batch_id: str | None = None) -> _Commit:
        if not report.ok:  # like memvet.store: a rejected report is asked again, never stored
            raise AssertionError("commit() was given a rejected report")
        self.commits.append((stream, cursor, batch_id))
        if batch_id in self.batches or self.cursors.get(stream, 0) >= cursor:
            return _Commit(False, 0)
        self.batches.append(batch_id)
        names: dict[str, str] = {}
        for record in report.records:
            name = record.get("new_scene_name")
            if name and name not in names:
                names[name] = f"sc{900 + len(self.pool)}"
                self.pool.append({"id": names[name], "label": name})
        self.records.extend(report.records)
        self.cursors[stream] = cursor
        return _Commit(True, len(report.records), names)

    def recall(self, **kwargs: Any) -> list[dict[str, Any]]:
        return list(self.records)

    def close(self) -> None:
        pass
