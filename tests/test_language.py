"""L rules beyond the case files: the language measure on real transcripts, and linearity."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.rules._langdetect import LangCounts, measure, strip_code
from memvet.rules.language import ContextDependent, SceneNameActivity, split_scene_name

SHARED = Path(__file__).resolve().parents[2] / "shared"
TRANSCRIPTS = sorted((SHARED / "corpus" / "transcripts").glob("*/batch-*.json"))
DEV = SHARED / "corpus" / "dev" / "memories.jsonl"
# The README's language column: the llava session is Chinese, the others English.
EXPECTED_LANGUAGE = {"llava-maptr-gt": "zh"}

ZH_TEXT = {"topic": "对话语言约定", "reason": "池中没有关于对话语言的议题。",
           "content": "本批对话以中文为主，记忆内容应使用中文书写，代码标识符保持原样。"}
EN_TEXT = {"topic": "conversation language", "reason": "No pool scene covers the conversation language.",
           "content": "This batch is mostly written in English, so memories are written in English too."}


def _engine(*codes: str) -> Engine:
    return Engine(config_from_dict({"select": list(codes)}))


def test_transcript_corpus_is_present():
    assert len(TRANSCRIPTS) == 21, "the transcript corpus moved; update the path"


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_l001_decides_every_transcript_batch(path: Path):
    context = json.loads(path.read_text("utf-8"))
    expected = EXPECTED_LANGUAGE.get(path.parent.name, "en")
    right, wrong = (ZH_TEXT, EN_TEXT) if expected == "zh" else (EN_TEXT, ZH_TEXT)
    project = context["knownProjects"][0]
    first = context["messages"][0]["id"]

    def scene(text: dict[str, str]) -> dict:
        return {"new_scene_name": f"{project}｜{text['topic']}", "new_scene_reason": text["reason"],
                "message_ids": [first],
                "memories": [{"content": text["content"], "type": "work_fact", "priority": 80,
                              "source_message_ids": [first]}]}

    report = _engine("L001").validate([scene(right), scene(wrong)], context)
    paths = sorted(v.path for v in report.violations if v.code == "L001")
    assert paths == ["/1/memories/0/content", "/1/new_scene_name", "/1/new_scene_reason"], (
        f"{path.parent.name} should be {expected}: {[v.message for v in report.violations]}")


def test_l001_never_fires_on_the_dev_corpus():
    """Every dev item is written in its batch's language (the README builds the scene that way)."""
    engine = _engine("L001")
    fired = []
    for line in DEV.read_text("utf-8").splitlines():
        item = json.loads(line)
        messages = [{"id": f"m{i}", "sessionKey": item["id"], "role": m["role"], "content": m["content"]}
                    for i, m in enumerate(item["messages"], 1)]
        ids = [m["id"] for m in messages]
        reason = "场景池为空，新建情境。" if item["lang"] == "zh" else "The scene pool is empty, so this is a new scene."
        output = [{"new_scene_name": f"demo｜{item['id']}", "new_scene_reason": reason, "message_ids": ids,
                   "memories": [{**item["memory"], "source_message_ids": ids}]}]
        report = engine.validate(output, {"messages": messages, "knownProjects": ["demo"]})
        fired += [(item["id"], v.message) for v in report.violations if v.code == "L001"]
    assert fired == []


def test_measure_removes_code_identifiers_and_logs():
    text = ("先执行 `make dev`，再看 https://example.com/docs 和 src/app/main.py 的 pc_range 与 fooBar\n"
            "```python\nprint('hello world, this is code')\n```\n"
            "Traceback (most recent call last): File \"x.py\", line 3, in <module>")
    counts = measure(text)
    assert counts.en == 0
    assert counts.cjk == len("先执行再看和的与")
    assert "print" not in strip_code(text)


def test_measure_english_terms_inside_chinese_count_little():
    chinese = measure("README 里写了：先 docker compose up -d db redis，再 make dev。")
    english = measure("The README says to run docker compose first and then make dev.")
    assert chinese.zh_share > 0.5  # 7 English tokens, yet more Chinese than English
    assert english.zh_share == 0.0
    assert LangCounts().zh_share is None


def test_split_scene_name_accepts_any_bar():
    assert split_scene_name("demo | 部署流程") == ("demo", "部署流程")
    assert split_scene_name("demo｜部署流程") == ("demo", "部署流程")
    assert split_scene_name("部署流程") is None


def test_l002_catches_every_dev_positive_and_no_clean_item():
    rule = ContextDependent()
    misses, false_alarms = [], []
    for line in DEV.read_text("utf-8").splitlines():
        item = json.loads(line)
        hit = rule._find(item["memory"]["content"])
        if "L002" in item["expect"] and not hit:
            misses.append(item["id"])
        if "L002" not in item["expect"] and hit:
            false_alarms.append((item["id"], hit))
    assert misses == [] and false_alarms == []


@pytest.mark.parametrize("topic, flagged", [
    ("排查企业端盖章失败并修复重试逻辑", True), ("调试登录超时", True), ("支付回调（进行中）", True),
    ("8月22日 故障", True), ("Debug flaky payment tests", True), ("release 2026-08-22", True),
    ("合同签署流程 V2", False), ("子代理调度重构", False), ("plan file naming", False), ("Step 1 模块结构", False),
])
def test_l004_topics(topic: str, flagged: bool):
    assert (SceneNameActivity()._find(topic) is not None) is flagged


# --- linearity ---------------------------------------------------------------------

# Near-misses keep every loop busy over the whole text (nothing is flagged early),
# then the same with real hits.
CHUNKS = {
    "near-misses": ("Redis 这个组件 登录接口，这个接口 and above ensure that tests 因此接口 @types/node@16 "
                    "git@github.com:a/b.git password=<password> sk-xxxx AKIA 1767225600000 『引用』 `x` "
                    "-----BEGIN PRIVATE KEY----- ://u@h 80% 以上 \n"),
    "hits": ("那个定时任务 the above ghp_9fKq2LmZ7xR4tWb8NcE1uVyH3sDj6AoP0gQi a.b@corp-example.com 13800138000 "
             "postgres://u:S3cr3tPw9@h/db password=Qw7pL2xZv9 AI 助手 from now on always \n"),
}
CODES = ["L001", "L002", "L003", "L004", "L005", "L006", "P001", "P002", "P003"]


def _timed_run(engine: Engine, chunk: str, size: int) -> float:
    text = (chunk * (size // len(chunk) + 1))[:size]
    context = {"messages": [{"id": "m1", "sessionKey": "s", "role": "user", "content": text},
                            {"id": "m2", "sessionKey": "s", "role": "tool", "content": text}],
               "knownProjects": ["demo"]}
    output = [{"new_scene_name": "demo｜" + text, "new_scene_reason": text, "message_ids": ["m1", "m2"],
               "memories": [{"content": text, "type": "work_method", "priority": 80,
                             "source_message_ids": ["m1", "m2"], "metadata": {"scope": "self"}}]}]
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        engine.validate(output, context)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("chunk", list(CHUNKS), ids=list(CHUNKS))
def test_language_and_privacy_rules_stay_linear(chunk: str):
    engine = _engine(*CODES)
    small = _timed_run(engine, CHUNKS[chunk], 50_000)
    large = _timed_run(engine, CHUNKS[chunk], 100_000)
    # Linear work doubles; quadratic work would quadruple. Generous margin for noisy CI.
    assert large < 3.2 * small + 0.05, f"50 KB: {small:.3f}s, 100 KB: {large:.3f}s"
    assert large < 5.0
