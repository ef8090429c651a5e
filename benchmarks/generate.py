"""Deterministic generator of realistic batches and LLM answers, at chosen sizes.

One *answer* is what a pipeline hands to ``validate()``: a batch context
(new messages of one session, a few background messages, a scene pool,
known projects) and the raw text the extraction LLM returned (an array of
scenes with their memories). About 70 % of the answers are Chinese, 30 %
English, like the dev corpus.

Clean memories are built to pass every rule: each cites the user message
that says it (and the tool output that shows it, for facts), names its
object, uses a normative word when it is a method, carries the metadata its
type allows and a priority of at least 70. A *faulty* memory gets one fault
from :data:`FAULTS` (rotating), each aimed at a rule of the catalogue:
invented or background ids, low priority, ``taskState`` on a fact, bad
times, secrets, context-dependent wording, zero-information methods,
change-log facts... ``fault_rate=1.0`` makes every memory break some rule;
faulty answers also reuse one invented scene id and one half-width bar.

The same ``seed`` gives the same bytes (``random.Random`` only, no clock, no
hash randomisation). All sentences are written for this benchmark.

    python -m benchmarks.generate --answers 1000 --memories 20 --fault-rate 0.2 --out answers.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

BASE_MS = 1_795_831_200_000  # 2026-11-28T02:00:00Z
ZH_SHARE = 0.7

# --- vocabulary (ours) ------------------------------------------------------------

PROJECTS = ["payment-hub", "memory-system", "search-core", "billing-api", "ops-console", "data-pipe"]

ZH = {
    "regions": ["", "华东", "华北", "海外", "灰度", "核心", "边缘", "备用", "内部", "新版"],
    "modules": ["支付服务", "登录网关", "订单同步任务", "搜索索引构建", "日志采集器", "配置中心",
                "消息队列消费者", "报表导出模块", "权限校验中间件", "缓存预热脚本", "对账服务",
                "用户画像接口", "灰度发布平台", "监控告警规则", "数据归档作业", "文件上传服务"],
    "facts": [("请求超时", "30 秒"), ("重试策略", "指数退避，最多 5 次"), ("分页大小", "每页 200 条"),
              ("时间字段", "UTC 毫秒时间戳"), ("生产日志级别", "WARN"), ("幂等键", "订单号加渠道号"),
              ("连接池上限", "64 个连接"), ("批量写入大小", "每批 500 行"), ("熔断阈值", "错误率 20%"),
              ("序列化格式", "protobuf"), ("接口前缀", "/v2"), ("主键类型", "雪花 ID")],
    "reasons": ["下游在高峰期响应很慢", "否则会重复扣款", "旧客户端只认这个格式", "数据库主从延迟明显",
                "监控面板按这个口径统计", "审计要求可追溯", "压测时更小的值会超时", "跨时区报表需要统一口径"],
    "checks": ["契约测试", "回归用例", "压测脚本", "灰度对比", "数据校验脚本", "接口快照测试"],
    "assistant": "好的，我按这些约定调整，并把相关测试一起补上。",
    "tool": "$ pytest -q tests/{slug}\n{n} passed in {sec}s",
    "reason_new": "场景池里没有{topic}相关的情境，新建一个。",
    "topics": ["写入层隔离", "接口超时约定", "发布流程", "数据口径", "告警配置", "缓存策略", "重试约定", "权限模型"],
}

EN = {
    "regions": ["", "EU ", "US ", "canary ", "core ", "edge ", "backup ", "internal ", "legacy ", "v2 "],
    "modules": ["payment service", "login gateway", "order sync job", "search indexer", "log collector",
                "config service", "queue consumer", "report exporter", "auth middleware", "cache warmer",
                "reconciliation service", "profile API", "rollout platform", "alert rules", "archive job",
                "upload service"],
    "facts": [("request timeout", "30 seconds"), ("retry policy", "exponential backoff, at most 5 tries"),
              ("page size", "200 rows per page"), ("time fields", "UTC epoch milliseconds"),
              ("production log level", "WARN"), ("idempotency key", "order id plus channel id"),
              ("connection pool limit", "64 connections"), ("batch insert size", "500 rows per batch"),
              ("circuit breaker threshold", "a 20% error rate"), ("wire format", "protobuf"),
              ("URL prefix", "/v2"), ("primary key type", "snowflake ids")],
    "reasons": ["the downstream service is slow at peak hours", "otherwise customers get charged twice",
                "old clients only understand that format", "replica lag on the database is noticeable",
                "the dashboards aggregate on that basis", "audits must be able to trace every change",
                "smaller values time out under load", "cross-timezone reports need one convention"],
    "checks": ["the contract tests", "the regression suite", "the load test script", "a canary comparison",
               "the data validation script", "the API snapshot tests"],
    "assistant": "Understood, I will follow these conventions and add the matching tests.",
    "tool": "$ pytest -q tests/{slug}\n{n} passed in {sec}s",
    "reason_new": "No scene in the pool covers {topic}, so this is a new one.",
    "topics": ["write-layer isolation", "API timeouts", "release process", "metric definitions",
               "alert configuration", "caching policy", "retry conventions", "permission model"],
}


# --- clean memories ------------------------------------------------------------------

@dataclass
class _Subject:
    module: str
    thing: str
    value: str
    reason: str
    check: str


def _subject(rng: random.Random, words: dict[str, Any]) -> _Subject:
    thing, value = rng.choice(words["facts"])
    return _Subject(rng.choice(words["regions"]) + rng.choice(words["modules"]), thing, value,
                    rng.choice(words["reasons"]), rng.choice(words["checks"]))


def _clean(kind: str, s: _Subject, lang: str, rng: random.Random) -> tuple[dict[str, Any], str]:
    """A clean memory of ``kind`` about ``s`` and the user sentence that backs it."""
    if lang == "zh":
        said, content = {
            "work_fact": (f"{s.module}的{s.thing}统一用{s.value}，因为{s.reason}。",
                          f"{s.module}的{s.thing}统一为{s.value}，原因是{s.reason}。"),
            "work_method": (f"以后修改{s.module}的{s.thing}之前必须先跑{s.check}，因为{s.reason}。",
                            f"修改{s.module}的{s.thing}前必须先跑{s.check}，因为{s.reason}。"),
            "work_task": (f"{s.module}的{s.thing}还缺{s.check}，需要补上。",
                          f"为{s.module}的{s.thing}补上{s.check}。"),
            "work_artifact": (f"{s.module}的{s.thing}设计说明放在文档里，里面解释了为什么选{s.value}：{s.reason}。",
                              f"{s.module}的{s.thing}设计文档解释了选择{s.value}的理由：{s.reason}。"),
        }[kind]
    else:
        said, content = {
            "work_fact": (f"The {s.module} must use {s.value} for its {s.thing}, because {s.reason}.",
                          f"The {s.module} uses {s.value} for its {s.thing}, because {s.reason}."),
            "work_method": (f"From now on, always run {s.check} before changing the {s.thing} of the {s.module}, "
                            f"because {s.reason}.",
                            f"Always run {s.check} before changing the {s.thing} of the {s.module}, "
                            f"because {s.reason}."),
            "work_task": (f"The {s.thing} of the {s.module} still lacks {s.check}; please add them.",
                          f"Add {s.check} for the {thing_of(s)}."),
            "work_artifact": (f"The design doc of the {s.module} explains why its {s.thing} is {s.value}: "
                              f"{s.reason}.",
                              f"The {s.module} design doc explains why its {s.thing} is {s.value}: {s.reason}."),
        }[kind]
    memory: dict[str, Any] = {"content": content, "type": kind}
    if kind == "work_task":
        memory["taskState"] = "open"
    memory["priority"] = rng.choice((70, 75, 80, 85, 90))
    meta: dict[str, Any] = {}
    if kind == "work_fact":
        meta["work_object"] = s.module
    elif kind == "work_task":
        meta["deadline"] = f"2026-12-{rng.randint(1, 28):02d}T18:00:00+08:00"
    elif kind == "work_method":
        meta.update(scope="global", method_type=rng.choice(("constraint", "sop", "principle")))
    else:
        slug = "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
        meta.update(artifact_type="doc", artifact_ref=f"docs/design/{slug}.md")
    if meta:
        memory["metadata"] = meta
    return memory, said


def thing_of(s: _Subject) -> str:
    return f"{s.thing} of the {s.module}"


# --- faults: each makes the memory break one rule of the catalogue ---------------------

@dataclass
class _Scene:
    """What a fault may need to know about the scene and the batch."""

    user_ids: list[str]
    tool_id: str
    assistant_id: str
    other_scene_id: str | None
    background_id: str
    project: str
    lang: str


def _secret(rng: random.Random) -> str:
    alnum = string.ascii_letters + string.digits
    return "ghp_" + "".join(rng.choice(alnum) for _ in range(36))


def _f_unknown_source(m, sc, s, rng):          # I002
    m["source_message_ids"] = [*m["source_message_ids"], f"m{rng.randint(900, 999)}"]


def _f_background_source(m, sc, s, rng):       # I003
    m["source_message_ids"] = [sc.background_id]


def _f_outside_scene(m, sc, s, rng):           # I004 (I002 when the answer has one scene)
    m["source_message_ids"] = [sc.other_scene_id or "m999"]


def _f_duplicate_source(m, sc, s, rng):        # I007
    m["source_message_ids"] = [m["source_message_ids"][0]] * 2


def _f_project_without_evidence(m, sc, s, rng):  # I008
    m.setdefault("metadata", {})["project"] = sc.project


def _f_taskstate_on_fact(m, sc, s, rng):       # T001
    m["type"] = "work_fact"
    m["taskState"] = "done"
    m["metadata"] = {"work_object": s.module}


def _f_legacy_status(m, sc, s, rng):           # T002
    m["type"] = "work_task"
    m.pop("taskState", None)
    m["metadata"] = {"status": "done"}


def _f_metadata_enum(m, sc, s, rng):           # T004
    m["type"] = "work_method"
    m["content"] = _clean("work_method", s, sc.lang, rng)[0]["content"]
    m["metadata"] = {"scope": "project", "method_type": "best_practice"}
    m.pop("taskState", None)


def _f_low_priority(m, sc, s, rng):            # T005
    m["priority"] = rng.randint(20, 65)


def _f_bad_time(m, sc, s, rng):                # T006
    m["type"] = "work_task"
    m["taskState"] = "open"
    m["metadata"] = {"deadline": "下周五下班前" if sc.lang == "zh" else "next Friday EOD"}


def _f_context_dependent(m, sc, s, rng):       # L002
    m["content"] = (f"这个接口的{s.thing}按上面说的改成{s.value}。" if sc.lang == "zh"
                    else f"As discussed above, this file sets the {s.thing} to {s.value}.")


def _f_wrong_language(m, sc, s, rng):          # L001: a whole sentence in the other language
    other = _subject(rng, EN if sc.lang == "zh" else ZH)
    m["content"] = _clean("work_fact", other, "en" if sc.lang == "zh" else "zh", rng)[0]["content"]


def _f_change_log(m, sc, s, rng):              # G001
    m["type"] = "work_fact"
    m.pop("taskState", None)
    m["metadata"] = {"work_object": s.module}
    m["content"] = (f"{s.module}的{s.thing}由旧值改为{s.value}，新增了 retry_helper 工具。" if sc.lang == "zh"
                    else f"Changed the {s.thing} of the {s.module} from the old value to {s.value} "
                         f"and added a retry_helper tool in commit 3f9c2e1.")


def _f_snapshot(m, sc, s, rng):                # G002
    m["type"] = "work_fact"
    m.pop("taskState", None)
    m["metadata"] = {"work_object": s.module}
    n = rng.randint(10, 95)
    m["content"] = (f"目前{s.module}迁移进度 {n}%，今天跑了 3 次都通过。" if sc.lang == "zh"
                    else f"The {s.module} migration is currently {n}% done; today's 3 runs all passed.")


def _f_provenance(m, sc, s, rng):              # G003
    m["content"] = (f"{s.module}的{s.thing}配置见 config/{rng.randint(1, 9)}.yaml。" if sc.lang == "zh"
                    else f"See docs/{s.module.replace(' ', '-')}.md for details on the {s.thing}.")


def _f_zero_information(m, sc, s, rng):        # M004
    m["type"] = "work_method"
    m.pop("taskState", None)
    m["metadata"] = {"scope": "global", "method_type": "principle"}
    m["content"] = ("遇到问题要仔细分析，综合考虑各方面因素，注意细节。" if sc.lang == "zh"
                    else "Be careful, consider all factors and pay attention to details.")


def _f_narrated_method(m, sc, s, rng):         # M003
    m["type"] = "work_method"
    m.pop("taskState", None)
    m["metadata"] = {"scope": "global", "method_type": "sop"}
    m["content"] = (f"本次我们已经把{s.module}的{s.thing}改为{s.value}。" if sc.lang == "zh"
                    else f"This time we changed the {s.thing} of the {s.module} to {s.value}.")


def _f_secret(m, sc, s, rng):                  # P001
    m["content"] = (f"{s.module}调用 GitHub API 用的 token 是 {_secret(rng)}。" if sc.lang == "zh"
                    else f"The {s.module} calls the GitHub API with the token {_secret(rng)}.")


def _f_personal_data(m, sc, s, rng):           # P002
    phone = "13" + "".join(rng.choice(string.digits) for _ in range(9))
    mail = f"wei.zhang{rng.randint(1, 99)}@acme-robotics.cn"
    m["content"] = (f"{s.module}出问题时联系值班工程师，手机 {phone}，邮箱 {mail}。" if sc.lang == "zh" else
                    f"When the {s.module} breaks, call the on-call engineer at {phone} or mail {mail}.")


def _f_raw_dump(m, sc, s, rng):                # Q002
    trace = "\n".join(f'  File "/srv/app/{s.module[:4]}/handler_{k}.py", line {rng.randint(10, 400)}, in run'
                      for k in range(8))
    head = "报错堆栈：" if sc.lang == "zh" else "Stack trace:"
    m["content"] = f"{head}\n```\nTraceback (most recent call last):\n{trace}\nTimeoutError: read timed out\n```"


def _f_temporary(m, sc, s, rng):               # W005
    m["type"] = "work_fact"
    m.pop("taskState", None)
    m["metadata"] = {"work_object": s.module}
    m["content"] = (f"先把{s.module}的{s.thing}改成{s.value}，明天再回滚。" if sc.lang == "zh"
                    else f"For now the {s.module} uses {s.value} for its {s.thing}, until the release.")


def _f_assistant_only_method(m, sc, s, rng):   # W006 / M005
    m["type"] = "work_method"
    m.pop("taskState", None)
    m["metadata"] = {"scope": "global", "method_type": "constraint"}
    m["content"] = _clean("work_method", s, sc.lang, rng)[0]["content"]
    m["source_message_ids"] = [sc.assistant_id]


Fault = Callable[[dict[str, Any], _Scene, _Subject, random.Random], None]

#: fault name -> (the code it aims at, how to apply it)
FAULTS: dict[str, tuple[str, Fault]] = {
    "unknown-source": ("I002", _f_unknown_source),
    "background-source": ("I003", _f_background_source),
    "source-outside-scene": ("I004", _f_outside_scene),
    "duplicate-source": ("I007", _f_duplicate_source),
    "project-without-evidence": ("I008", _f_project_without_evidence),
    "taskstate-on-fact": ("T001", _f_taskstate_on_fact),
    "legacy-status": ("T002", _f_legacy_status),
    "metadata-enum": ("T004", _f_metadata_enum),
    "low-priority": ("T005", _f_low_priority),
    "bad-time": ("T006", _f_bad_time),
    "context-dependent": ("L002", _f_context_dependent),
    "wrong-language": ("L001", _f_wrong_language),
    "change-log": ("G001", _f_change_log),
    "snapshot": ("G002", _f_snapshot),
    "provenance": ("G003", _f_provenance),
    "zero-information": ("M004", _f_zero_information),
    "narrated-method": ("M003", _f_narrated_method),
    "secret": ("P001", _f_secret),
    "personal-data": ("P002", _f_personal_data),
    "raw-dump": ("Q002", _f_raw_dump),
    "temporary": ("W005", _f_temporary),
    "assistant-only-method": ("W006", _f_assistant_only_method),
}
FAULT_NAMES = tuple(FAULTS)

KINDS = ("work_fact", "work_fact", "work_method", "work_task", "work_fact", "work_artifact", "work_method")


# --- answers ----------------------------------------------------------------------

@dataclass
class Answer:
    """One batch context and the raw answer the LLM gave for it."""

    context: dict[str, Any]
    raw: str
    memories: int
    lang: str
    #: ``(pointer of the memory, fault name)`` for every faulty memory.
    faults: list[tuple[str, str]] = field(default_factory=list)

    def jsonl(self) -> str:
        """One line of a ``memvet check`` JSONL file."""
        return json.dumps({"context": self.context, "output": self.raw}, ensure_ascii=False)


def _split(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (k < extra) for k in range(parts)]


def make_answer(seed: int, *, scenes: int = 3, memories: int = 20, fault_rate: float = 0.0,
                lang: str | None = None, messages_per_scene: int = 4,
                fault_names: tuple[str, ...] = FAULT_NAMES) -> Answer:
    """One answer, fully determined by its arguments.

    ``fault_rate``: the share of memories that carry a fault (1.0: all of
    them, and the answer also has one invented scene id and one half-width
    bar). ``lang``: ``"zh"`` or ``"en"``; by default 70 % Chinese.
    ``fault_names``: the faults to rotate through (default: all of them).
    """
    # fault_rate is left out of the seed: the same seed gives the same clean
    # memories, and a fault is the only difference.
    rng = random.Random(f"memvet-bench:{seed}:{scenes}:{memories}:{lang}")
    lang = lang or ("zh" if rng.random() < ZH_SHARE else "en")
    words = ZH if lang == "zh" else EN
    scenes = max(1, min(scenes, memories)) if memories else max(1, scenes)
    session = f"s-{seed:06d}-{rng.randrange(16 ** 4):04x}"
    project = rng.choice(PROJECTS)
    ts = BASE_MS + rng.randrange(0, 86_400_000, 60_000)
    message_no = 0

    def message(role: str, content: str) -> dict[str, Any]:
        nonlocal message_no, ts
        message_no += 1
        ts += 60_000
        return {"id": f"m{message_no}", "sessionKey": session, "role": role, "content": content,
                "timestamp": ts, "recordedAt": ts + 300_000}

    background = [message("user", f"{project} 的代码在 monorepo 里。" if lang == "zh"
                          else f"The {project} code lives in the monorepo."),
                  message("assistant", words["assistant"])]
    pool_size = max(4, scenes)
    pool = [{"id": f"sc{k:04d}", "label": f"{project}｜{words['topics'][k % len(words['topics'])]}"
             + ("" if k < len(words["topics"]) else f" {k}")} for k in range(1, pool_size + 1)]

    messages: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    faults: list[tuple[str, str]] = []
    faulty_answer = fault_rate >= 1.0
    fault_cursor = rng.randrange(len(fault_names))
    counts = _split(memories, scenes)
    scene_messages: list[list[str]] = []
    for i, count in enumerate(counts):
        # user states, assistant agrees, a tool shows it, user adds more (contents filled below)
        slug = f"test_{rng.choice(('api', 'sync', 'retry', 'cache', 'auth'))}.py"
        block = [message("user", ""), message("assistant", words["assistant"]),
                 message("tool", words["tool"].format(slug=slug, n=rng.randint(5, 80), sec=rng.randint(1, 9))),
                 message("user", "")]
        for extra in range(messages_per_scene - 4):
            block.append(message("user" if extra % 2 else "assistant", words["assistant"]))
        messages.extend(block)
        ids = [m["id"] for m in block]
        scene_messages.append(ids)
        user_msgs = [block[0], block[3]]
        sc = _Scene(user_ids=[m["id"] for m in user_msgs], tool_id=block[2]["id"], assistant_id=block[1]["id"],
                    other_scene_id=scene_messages[i - 1][0] if i else None, background_id=background[0]["id"],
                    project=project, lang=lang)
        mems = []
        said: dict[str, list[str]] = {m["id"]: [] for m in user_msgs}
        for j in range(count):
            kind = KINDS[(j + i) % len(KINDS)]
            s = _subject(rng, words)
            memory, sentence = _clean(kind, s, lang, rng)
            speaker = user_msgs[j % 2]
            said[speaker["id"]].append(sentence)
            sources = [speaker["id"]] + ([sc.tool_id] if kind in ("work_fact", "work_artifact") else [])
            memory["source_message_ids"] = sources
            if kind == "work_fact" and rng.random() < 0.3:
                memory["metadata"]["activity_start_time"] = _iso(speaker["timestamp"])
            if faulty_answer or (fault_rate > 0 and rng.random() < fault_rate):
                name = fault_names[fault_cursor % len(fault_names)]
                fault_cursor += 1
                FAULTS[name][1](memory, sc, s, rng)
                faults.append((f"/{i}/memories/{j}", name))
            mems.append(_ordered(memory))
        for m in user_msgs:
            m["content"] = ("" if lang == "zh" else " ").join(said[m["id"]]) or (
                "继续。" if lang == "zh" else "Go on.")
        scene: dict[str, Any] = {}
        if i % 3 == 2 or i >= len(pool):
            topic = words["topics"][(i + 3) % len(words["topics"])] + ("" if i < len(pool) else f" {i}")
            bar = "|" if faulty_answer and i == 2 else "｜"
            scene["new_scene_name"] = f"{project}{bar}{topic}"
            scene["new_scene_reason"] = words["reason_new"].format(topic=topic)
        else:
            scene["scene_id"] = pool[i]["id"] if not (faulty_answer and i == 0) else "sc9999"
        scene["message_ids"] = ids
        scene["memories"] = mems
        out.append(scene)

    context = {"messages": messages, "background": background, "scenePool": pool, "knownProjects": [project]}
    pretty = rng.random() < 0.25  # some models indent their JSON
    raw = json.dumps(out, ensure_ascii=False, indent=2 if pretty else None)
    return Answer(context=context, raw=raw, memories=memories, lang=lang, faults=faults)


def _iso(ms: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat().replace("+00:00", "Z")


_MEMORY_KEYS = ("content", "type", "taskState", "priority", "source_message_ids", "metadata")


def _ordered(memory: dict[str, Any]) -> dict[str, Any]:
    """Keys in the order the prompt lists them (as an LLM would emit them)."""
    return {k: memory[k] for k in _MEMORY_KEYS if k in memory}


def make_answers(count: int, *, seed: int = 0, **kwargs: Any) -> list[Answer]:
    return [make_answer(seed * 1_000_003 + k, **kwargs) for k in range(count)]


def iter_jsonl(count: int, *, seed: int = 0, **kwargs: Any) -> Iterator[str]:
    """``count`` JSONL lines (with their newline), generated lazily."""
    for k in range(count):
        yield make_answer(seed * 1_000_003 + k, **kwargs).jsonl() + "\n"


def write_jsonl(path: str, count: int, *, seed: int = 0, **kwargs: Any) -> int:
    """Write ``count`` answers as JSONL; returns the number of memories written."""
    total = 0
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(count):
            answer = make_answer(seed * 1_000_003 + k, **kwargs)
            fh.write(answer.jsonl() + "\n")
            total += answer.memories
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--answers", type=int, default=100)
    p.add_argument("--scenes", type=int, default=3)
    p.add_argument("--memories", type=int, default=20, help="memories per answer")
    p.add_argument("--fault-rate", type=float, default=0.2, help="share of faulty memories (1.0: all)")
    p.add_argument("--lang", choices=("zh", "en"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="-", help="JSONL file (default: stdout)")
    args = p.parse_args(argv)
    kwargs = dict(scenes=args.scenes, memories=args.memories, fault_rate=args.fault_rate, lang=args.lang)
    if args.out == "-":
        for line in iter_jsonl(args.answers, seed=args.seed, **kwargs):
            sys.stdout.write(line)
    else:
        write_jsonl(args.out, args.answers, seed=args.seed, **kwargs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
