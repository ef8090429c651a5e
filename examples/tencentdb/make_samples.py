"""Write the two sample TencentDB-Agent-Memory data directories used by the docs and tests.

``clean/``: records a careful pipeline would keep (``memvet audit`` passes it).
``planted/``: the same plus what issue 14 lists -- a secret, sources from
another session, a source that resolves nowhere, an exact duplicate, a
change log, a progress snapshot and temporary state stored as a fact.

The layout follows the field list of the format (L0 ``conversations/`` one
message a line, L1 ``records/`` append-only with versions); the data is
made up for memvet. Run ``python examples/tencentdb/make_samples.py`` to
regenerate.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).parent
DAY = "2026-11-30"
T0 = int(datetime(2026, 11, 30, 2, 0, tzinfo=timezone.utc).timestamp() * 1000)


def msg(session: str, n: int, role: str, content: str, minute: int) -> dict:
    ts = T0 + minute * 60_000
    recorded = datetime.fromtimestamp((ts + 30_000) / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")
    return {"sessionKey": session, "sessionId": f"{session}-run1", "recordedAt": recorded, "id": f"m{n}",
            "role": role, "content": content, "timestamp": ts}


def rec(rid: str, session: str, content: str, type_: str, sources: list[str], *, priority: int = 85,
        scene: str = "billing-api｜登录与网关", metadata: dict | None = None, version: int = 1,
        minute: int = 0, task: str | None = None) -> dict:
    at = datetime.fromtimestamp((T0 + minute * 60_000) / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")
    r = {"id": rid, "content": content, "type": type_, "priority": priority, "scene_name": scene,
         "source_message_ids": sources, "metadata": metadata or {}, "timestamps": [at], "createdAt": at,
         "updatedAt": at, "version": version, "sessionKey": session, "sessionId": f"{session}-run1"}
    if task:
        r["taskId"] = task
    return r


CONVERSATIONS = [
    msg("s-a1", 1, "user", "登录服务的默认超时定为 10 秒，这是和网关团队约定的值，不要随意修改。", 0),
    msg("s-a1", 2, "assistant", "好的，我会把登录服务默认超时保持在 10 秒。", 1),
    msg("s-a1", 3, "user", "以后做数据库迁移，必须先在 staging 上执行 dry-run 再上生产，之前直接上线锁过表。", 2),
    msg("s-a1", 4, "assistant", "明白，数据库迁移上线前先在 staging 执行 dry-run。", 3),
    msg("s-b2", 1, "user", "Billing-api logs must never contain full card numbers; mask all but the last four digits, "
                           "because the PCI audit flagged it.", 5),
    msg("s-b2", 2, "assistant", "Understood: card numbers in billing-api logs are masked to the last four digits.", 6),
    msg("s-b2", 7, "user", "The invoice export runs as a nightly job at 02:00 UTC and writes CSV files to the "
                           "exports bucket.", 7),
]

PLANTED_CONVERSATIONS = [
    msg("s-a1", 5, "user", "CI 部署用的 GitHub token 是 ghp_16C7e42F292c6912E7710c838347Ae178B4a，先记下来。", 10),
    msg("s-a1", 6, "user", "联调期间先暂时关闭支付回调的签名校验，联调结束后再恢复。", 11),
    msg("s-a1", 8, "tool", "commit 3e1f0aa: 登录接口返回码由 200 改为 202", 12),
    msg("s-a1", 9, "assistant", "目前迁移进度 60%，今天跑了 3 次都通过。", 13),
]

CLEAN_RECORDS = [
    # r-1 was first stored with the wrong value and corrected: the newest version wins.
    rec("r-1", "s-a1", "登录服务默认超时为 9 秒。", "work_fact", ["m1"], version=1, minute=1,
        metadata={"work_object": "登录服务"}),
    rec("r-2", "s-a1", "数据库迁移上线生产前必须先在 staging 执行 dry-run，因为直接上线曾导致锁表。", "work_method",
        ["m3"], minute=3, metadata={"scope": "global", "method_type": "constraint"}),
    rec("r-1", "s-a1", "登录服务的默认超时为 10 秒，是与网关团队约定的值，不要随意修改。", "work_fact", ["m1"],
        version=2, minute=4, metadata={"work_object": "登录服务"}),
    rec("r-3", "s-b2", "Billing-api logs must never contain full card numbers: mask all but the last four digits, "
                       "as the PCI audit requires.", "work_method", ["m1"], scene="billing-api｜logging",
        minute=6, metadata={"scope": "global", "method_type": "constraint"}),
    rec("r-4", "s-b2", "The billing-api invoice export runs as a nightly job at 02:00 UTC and writes CSV files to "
                       "the exports bucket.", "work_fact", ["m7"], scene="billing-api｜invoice export", minute=7),
]

PLANTED_RECORDS = [
    rec("p-secret", "s-a1", "CI 部署使用的 GitHub token 为 ghp_16C7e42F292c6912E7710c838347Ae178B4a。", "work_fact",
        ["m5"], minute=10),
    rec("p-temp", "s-a1", "联调期间暂时关闭支付回调的签名校验，联调结束后恢复。", "work_fact", ["m6"], minute=11,
        metadata={"work_object": "支付回调"}),
    rec("p-changelog", "s-a1", "登录接口返回码由 200 改为 202，commit 3e1f0aa 完成。", "work_fact", ["m8"], minute=12),
    rec("p-snapshot", "s-a1", "目前迁移进度 60%，今天跑了 3 次都通过。", "work_fact", ["m9"], minute=13),
    # m7 is a message of session s-b2 only: provenance taken from another session.
    rec("p-other-session", "s-a1", "The billing-api invoice export writes CSV files to the exports bucket every "
                                    "night at 02:00 UTC.", "work_fact", ["m7"], minute=14),
    rec("p-nowhere", "s-a1", "登录服务的重试次数上限为 3 次。", "work_fact", ["m42"], minute=15),
    # the same memory as r-1 stored again under another id
    rec("p-duplicate", "s-a1", "登录服务的默认超时为 10 秒，是与网关团队约定的值，不要随意修改。", "work_fact", ["m1"],
        minute=16, metadata={"work_object": "登录服务"}),
]


def write(folder: Path, conversations: list[dict], records: list[dict]) -> None:
    for sub, rows in (("conversations", conversations), ("records", records)):
        (folder / sub).mkdir(parents=True, exist_ok=True)
        with open(folder / sub / f"{DAY}.jsonl", "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    write(HERE / "clean", CONVERSATIONS, CLEAN_RECORDS)
    write(HERE / "planted", CONVERSATIONS + PLANTED_CONVERSATIONS, CLEAN_RECORDS + PLANTED_RECORDS)
