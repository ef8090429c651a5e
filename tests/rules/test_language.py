"""L rules beyond the case files: the language measure on real transcripts, and linearity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.rules._langdetect import LangCounts, measure, strip_code
from memvet.rules.language import ContextDependent, SceneNameActivity, split_scene_name
from workcount import work

SHARED = Path(__file__).resolve().parents[3] / "shared"
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


def _counted_run(engine: Engine, chunk: str, size: int) -> int:
    """Python lines and calls of one validate() (tests/workcount.py), after a warm-up."""
    text = (chunk * (size // len(chunk) + 1))[:size]
    context = {"messages": [{"id": "m1", "sessionKey": "s", "role": "user", "content": text},
                            {"id": "m2", "sessionKey": "s", "role": "tool", "content": text}],
               "knownProjects": ["demo"]}
    output = [{"new_scene_name": "demo｜" + text, "new_scene_reason": text, "message_ids": ["m1", "m2"],
               "memories": [{"content": text, "type": "work_method", "priority": 80,
                             "source_message_ids": ["m1", "m2"], "metadata": {"scope": "self"}}]}]
    engine.validate(output, context)
    events, _ = work(engine.validate, output, context)
    return events


@pytest.mark.parametrize("chunk", list(CHUNKS), ids=list(CHUNKS))
def test_language_and_privacy_rules_stay_linear(chunk: str):
    engine = _engine(*CODES)
    small = _counted_run(engine, CHUNKS[chunk], 50_000)
    large = _counted_run(engine, CHUNKS[chunk], 100_000)
    # Linear work doubles; quadratic work would quadruple. Counted, not timed: no margin for noise needed.
    assert large <= 2.5 * small + 1_000, f"50 KB: {small} events, 100 KB: {large}"


# --- the fast paths keep the measure's meaning -----------------------------------------
#
# _langdetect counts in bulk and decides from cheap bounds where it can; these tests
# hold it to the plain definition below (a clause at a time, a word at a time).

import random  # noqa: E402
import re  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memvet.rules import _langdetect  # noqa: E402
from memvet.rules._langdetect import dominant_language, language_of, may_be_judged  # noqa: E402
from memvet.rules._wordmatch import WordMatcher  # noqa: E402
from memvet.rules.language import _squash  # noqa: E402


def _reference_prose_words(text: str) -> tuple[int, int]:
    function = other = 0
    for word in _langdetect._PROSE_WORD.findall(text):
        if len(word) > 1 and any(c.isupper() for c in word[1:]):
            continue
        if word.lower() in _langdetect.FUNCTION_WORDS:
            function += 1
        else:
            other += 1
    return function, other


def _reference_is_log_line(line: str) -> bool:
    if _langdetect._CJK_CHAR.search(line):
        return False
    if _langdetect._LOG_LINE.match(line):
        return True
    stripped = line.strip()
    if len(stripped) < 12:
        return False
    return sum(1 for ch in stripped if not (ch.isalpha() or ch.isspace())) / len(stripped) >= 0.25


def _reference_measure(text: str, *, drop_log_lines: bool = True) -> tuple[int, float]:
    if not text:
        return 0, 0.0
    text = strip_code(text)
    if drop_log_lines and "\n" in text:
        text = "\n".join(line for line in text.split("\n") if not _reference_is_log_line(line))
    elif drop_log_lines and _reference_is_log_line(text):
        return 0, 0.0
    if not re.search(r"[A-Za-z]", text):
        return len(_langdetect._CJK_CHAR.findall(text)), 0.0
    if not _langdetect._CJK_CHAR.search(text):
        return 0, float(sum(_reference_prose_words(text)))
    cjk, en = 0, 0.0
    for clause in _langdetect._CLAUSE_BREAK.split(text):
        han = len(_langdetect._CJK_CHAR.findall(clause))
        function, other = _reference_prose_words(clause)
        cjk += han
        en += function + (other * _langdetect.TERM_WEIGHT_IN_CHINESE if han else other)
    return cjk, en


def _reference_batch_language(texts: list[str], zh: float, en: float, min_units: float) -> str:
    total = LangCounts()
    for text in texts:
        total = total + LangCounts(*_reference_measure(text))
    if total.units < min_units:
        return "none"
    return language_of(total, zh_at_least=zh, en_at_most=en)


_FRAGMENTS = ["中文", "登录接口的超时", "，", "。", "：", "“", "”", "‘", "’", "the", "The", "THE", "API", "it's",
              "Don’T", "a-B", "and we must", "I", "ok", "x", " ", "  ", "\n", "\t", ", ", ". ", ";", "!", "?", "e.g. ",
              "`make dev`", "```\ncode here\n```", "http://example.com/a", "ERROR: boom", "$ make", "[INFO] ok",
              "fooBar", "snake_case", "v1.2.0", "30 秒", "(", ")", "…", "·", "\u3000", "İ", "12:30:00"]
_TEXTS = st.lists(st.sampled_from(_FRAGMENTS), max_size=14).map("".join)


def _corpus_texts() -> list[str]:
    texts = []
    for path in TRANSCRIPTS:
        context = json.loads(path.read_text("utf-8"))
        texts += [m["content"] for m in context["messages"]]
    for line in DEV.read_text("utf-8").splitlines():
        item = json.loads(line)
        texts += [m["content"] for m in item["messages"]] + [item["memory"]["content"]]
    return texts


def test_measure_matches_the_plain_definition_on_the_corpus():
    texts = _corpus_texts()
    assert len(texts) > 300
    for text in texts:
        for drop in (True, False):
            counts = measure(text, drop_log_lines=drop)
            assert (counts.cjk, counts.en) == _reference_measure(text, drop_log_lines=drop), text[:80]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS, st.booleans())
def test_measure_matches_the_plain_definition(text: str, drop: bool):
    counts = measure(text, drop_log_lines=drop)
    assert (counts.cjk, counts.en) == _reference_measure(text, drop_log_lines=drop)
    assert _langdetect.prose_words(text) == _reference_prose_words(text)


_THRESHOLDS = st.tuples(st.sampled_from([0.0, 0.3, 0.6, 0.65, 0.9, 1.0]), st.sampled_from([0.0, 0.25, 0.35, 0.6, 1.0]),
                        st.sampled_from([-1.0, 0.0, 1.5, 2.0, 4.0, 50.0]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TEXTS, max_size=5), _THRESHOLDS)
def test_dominant_language_is_the_verdict_of_the_summed_measure(texts: list[str], thresholds):
    zh, en, min_units = thresholds
    assert dominant_language(texts, zh_at_least=zh, en_at_most=en, min_units=min_units) == \
        _reference_batch_language(texts, zh, en, min_units)


def test_dominant_language_on_corpus_batches():
    texts = _corpus_texts()
    rng = random.Random(4)
    for _ in range(300):
        batch = rng.sample(texts, rng.randint(1, 6))
        assert dominant_language(batch, zh_at_least=0.65, en_at_most=0.35, min_units=4.0) == \
            _reference_batch_language(batch, 0.65, 0.35, 4.0)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEXTS, _THRESHOLDS)
def test_the_text_screen_never_rules_out_the_measured_verdict(text: str, thresholds):
    zh, en, _ = thresholds
    verdict = language_of(LangCounts(*_reference_measure(text, drop_log_lines=False)), zh_at_least=zh, en_at_most=en)
    if verdict in ("zh", "en"):
        assert may_be_judged(text, verdict, zh_at_least=zh, en_at_most=en)


def test_the_text_screen_skips_plain_texts():
    # What makes L001 cheap: a Chinese text with a few names cannot be English, an
    # English text without Han cannot be Chinese -- no measure needed.
    assert not may_be_judged("登录接口的超时统一为 30 秒（login_timeout），见 README。", "en",
                             zh_at_least=0.6, en_at_most=0.25)
    assert not may_be_judged("The login API times out after 30 seconds.", "zh", zh_at_least=0.6, en_at_most=0.25)
    assert may_be_judged("The login API 超时 is 30 seconds.", "en", zh_at_least=0.6, en_at_most=0.25)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab_.-/ \t\n\u3000\x1c\x85\xa0中AßİK", max_size=30))
def test_squash_removes_what_the_regex_definition_removes(text: str):
    assert _squash(text) == re.sub(r"[\s_.\-/]+", "", text.casefold())


def _reference_word_spans(words: tuple[str, ...], text: str) -> list[tuple[int, int]]:
    """The matcher's meaning with a flat alternation, longest entry first."""
    entries = sorted({w.strip().lower() for w in words if w.strip()}, key=lambda w: (-len(w), w))
    pattern = re.compile("|".join(re.escape(w) for w in entries))
    lowered, spans, pos = text.lower(), [], 0
    while True:
        m = pattern.search(lowered, pos)
        if m is None:
            return spans
        a, b = m.span()
        if _langdetect._CJK_CHAR.search(lowered[a:b]) or (
                not (text[a].isascii() and (text[a].isalnum() or text[a] == "_") and a > 0
                     and (text[a - 1].isalnum() or text[a - 1] == "_"))
                and not (text[b - 1].isascii() and (text[b - 1].isalnum() or text[b - 1] == "_") and b < len(text)
                         and (text[b].isalnum() or text[b] == "_"))):
            spans.append((a, b))
            pos = b
        else:
            pos = a + 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["this", "this file", "that", "the above", "above", "这个", "这个文件", "文件",
                                 "x", " ", "_", "s", "中", "\n"]), max_size=12).map("".join))
def test_word_matcher_trie_keeps_the_longest_entry_at_each_position(text: str):
    words = ("this", "this file", "the above", "这个", "这个文件", "the")
    matcher = WordMatcher(words)
    assert list(matcher.finditer(text)) == _reference_word_spans(words, text)
    assert matcher.search(text, lowered=text.lower()) == next(iter(_reference_word_spans(words, text)), None)


# --- _wordmatch.any_substring: an existence test anchored on rare characters ----------------

from memvet.rules._wordmatch import any_substring, any_substring_pattern  # noqa: E402

_ANY_ALPHABET = "abkz上面说这个-/_ 。"


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet=_ANY_ALPHABET, max_size=5), max_size=8), st.text(alphabet=_ANY_ALPHABET, max_size=30))
def test_any_substring_matches_exactly_when_a_word_occurs(words: list[str], text: str):
    found = any_substring(words).search(text) is not None
    assert found == any(w and w in text for w in words), (words, text, any_substring_pattern(words))


def test_any_substring_of_every_default_word_list():
    from memvet.rules import rule_classes

    lists = [w for cls in rule_classes() for f in getattr(cls, "Options").model_fields.values()
             if isinstance(w := f.default, list) and all(isinstance(x, str) for x in w) and w]
    assert len(lists) > 10
    rng = random.Random(5)
    for words in lists:
        lowered_words = [w.strip().lower() for w in words if w.strip()]
        pattern = any_substring(lowered_words)
        for _ in range(30):
            text = "".join(rng.choice([rng.choice(lowered_words), rng.choice(lowered_words)[1:], "的", " x", "。"])
                           for _ in range(rng.randint(0, 5)))
            assert (pattern.search(text) is not None) == any(w in text for w in lowered_words), (words, text)


# --- L002's windows: how far after a demonstrative its generic noun may stand ------------


def test_l002_windows_of_the_demonstratives():
    # The noun 6 characters after a Chinese demonstrative, and ending 40 after a Latin one.
    zh, en = "这个很老很老很老接口需要下线", "Use this " + "a" * 30 + " function before the release."
    for text in (zh, en):
        assert ContextDependent()._find(text) is not None, text
    assert ContextDependent()._find("这个很老很老很老的接口需要下线") is None  # 7 characters: too far
