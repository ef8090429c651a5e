"""G, M and Q rules: engine semantics, options, helpers, and linear time on long input."""

from __future__ import annotations

import re

import pytest
from memvet.config import config_from_dict
from memvet.engine import Engine
from memvet.errors import ConfigError
from memvet.rules import _text
from memvet.rules.quality import shingles, similar_pairs
from workcount import work

OWN = ["G001", "G002", "G003", "M001", "M002", "M003", "M004", "M005", "Q001", "Q002"]


def _context(*messages: tuple[str, str]) -> dict:
    return {"messages": [{"id": f"m{n}", "sessionKey": "s", "role": role, "content": text,
                          "timestamp": 1_795_831_200_000 + 60_000 * n}
                         for n, (role, text) in enumerate(messages, 1)]}


def _output(*memories: dict, n_messages: int = 1) -> list:
    ids = [f"m{n}" for n in range(1, n_messages + 1)]
    return [{"new_scene_name": "demo｜case", "new_scene_reason": "场景池为空，新建情境。", "message_ids": ids,
             "memories": [{"priority": 80, "source_message_ids": ids, **m} for m in memories]}]


def _engine(codes, **extra) -> Engine:
    return Engine(config_from_dict({"select": list(codes), **extra}))


def _method(content: str) -> dict:
    return {"content": content, "type": "work_method", "metadata": {"scope": "self", "method_type": "sop"}}


# --- M semantics: several codes, one downgrade ------------------------------------------


def test_m002_and_m003_both_fire_but_downgrade_once():
    report = _engine(["M"]).validate(_output(_method("这次发布 v5.0.0 时必须跳过 0042 迁移。")),
                                     _context(("user", "这次发 5.0.0 要跳过 0042")))
    by_code = {v.code: v for v in report.violations}
    assert set(by_code) == {"M002", "M003"}
    assert by_code["M002"].fix == [{"op": "replace", "path": "/0/memories/0/type", "value": "work_fact"},
                                   {"op": "remove", "path": "/0/memories/0/metadata/scope"},
                                   {"op": "remove", "path": "/0/memories/0/metadata/method_type"}]
    assert by_code["M003"].fix == []  # already a work_fact: nothing left to change
    [record] = report.records
    assert record["type"] == "work_fact" and record["metadata"] == {}


def test_m004_drops_and_m005_still_reports():
    report = _engine(["M"]).validate(
        _output(_method("用户主张编码时应兼顾质量与效率、综合权衡（依据：用户重视工程质量）。"), n_messages=2),
        _context(("user", "这个 PR 先合了吧"), ("assistant", "好的，已合并到 main。")))
    assert {v.code for v in report.violations} == {"M004", "M005"}
    assert report.dropped == [{"path": "/0/memories/0", "codes": ["M004"]}]
    assert report.records == []


def test_m_rules_ignore_memories_not_emitted_as_methods():
    report = _engine(["M"]).validate(
        _output({"content": "这次发布 v5.0.0 时跳过了 0042 迁移。", "type": "work_fact"}),
        _context(("user", "这次发 5.0.0 要跳过 0042")))
    assert report.violations == []


def test_configured_warn_does_not_downgrade():
    report = _engine(["M001"], actions={"M001": "warn"}).validate(
        _output(_method("iOS 的后台任务最多运行 30 秒，超时会被系统杀掉。")), _context(("user", "为什么被杀")))
    [v] = report.violations
    assert v.action == "warn" and report.records[0]["type"] == "work_method"


# --- options: word lists extend in config, typos are errors ---------------------------------


def test_word_list_extends_in_config():
    memory = _method("做方案时全靠拍脑袋。")
    ctx = _context(("user", "经验？"))
    assert not [v for v in _engine(["M004"]).validate(_output(memory), ctx).violations]
    engine = _engine(["M004"], rules={"M004": {"zero_information": ["全靠拍脑袋"]}})
    assert [v.code for v in engine.validate(_output(memory), ctx).violations] == ["M004"]


def test_unknown_option_is_a_config_error():
    with pytest.raises(ConfigError, match="M004"):
        _engine(["M004"], rules={"M004": {"zero_info": ["x"]}})


# --- helpers ---------------------------------------------------------------------------------


def test_strip_specifics_keeps_prose_only():
    stripped = _text.strip_specifics("utils/format.ts 的 moment 在 commit 5d2e8f1 换成 dayjs 2.1.0，删了 3 个函数")
    for gone in ("utils/format.ts", "5d2e8f1", "2.1.0", "3 个"):
        assert gone not in stripped
    assert "换成" in stripped and "moment" in stripped


def test_cjk_ngrams_do_not_cross_punctuation():
    assert _text.cjk_ngrams("缓存，失效") == ["缓存", "失效"]
    assert "存失" not in _text.cjk_ngrams("缓存，失效")


def test_support_paraphrase_versus_invention():
    evidence = "热门商品一直有人访问，固定 TTL 会让最热的那批 key 周期性同时失效，流量直接打穿到数据库。"
    terms, chars = _text.terms(evidence), _text.chars(evidence)
    assert _text.support("固定 TTL 会让最热的 key 集中失效，把流量打穿到数据库", terms, chars) > 0.5
    assert _text.support("商业数据库授权费用过高", terms, chars) < 0.28  # shares only the word 数据库
    en = "Anything JavaScript can read, an XSS payload can read."
    assert _text.support("anything JavaScript can read is exposed to XSS", _text.terms(en), _text.chars(en)) > 0.6


def test_fenced_spans_handle_unclosed_fences():
    text = "cause\n```\nline\n```\nmore\n```\nopen"
    spans = _text.fenced_spans(text)
    assert len(spans) == 2 and spans[1][1] == len(text)


# --- speed helpers must not change what is found --------------------------------------------------

from memvet.rules import gates, lexicon, method, quality  # noqa: E402


def _rule_word_lists():
    for module in (gates, method, quality):
        for cls in vars(module).values():
            if isinstance(cls, type) and getattr(cls, "code", None) and cls.__module__ == module.__name__:
                for name, field in cls.Options.model_fields.items():
                    if isinstance(field.default, list) and all(isinstance(w, str) for w in field.default):
                        yield f"{cls.code}.{name}", field.default


WORD_LISTS = dict(_rule_word_lists())

#: Texts where a naive lower-cased substring test and \b matching disagree.
TRICKY = ["Because it broke", "BECAUSE", "becauses", "原因because", "because原因", "İS IN THE README", "ſee README",
          "so  that", "e.g.x", "Don't do it", "don'tx", "30renamed", "re-named", "renamed_x", "（响应）should",
          "当请求超时时", "今天\n目前", "x->y", "这次 we fixed it", "see\tREADME", "ＫＥＹ", "K", "ı", "a\u0307b"]


def _samples():
    for words in WORD_LISTS.values():
        for w in words:
            yield w
            yield f"xx {w.upper()} yy"
            yield f"a{w}b"
            yield f"，{w}。"
    yield from TRICKY


def test_fold_matches_ignorecase_and_keeps_length():
    text = "İstanbul ſtate ıd KELVIN K ＡＢＣ 缓存"
    folded = _text.fold(text)
    assert len(folded) == len(text) and folded.startswith("istanbul state id kelvin k")
    for word in ("state", "id", "is", "k"):
        assert (re.search(rf"\b{word}\b", text, re.IGNORECASE) is not None) == (re.search(rf"\b{word}\b", folded) is not None)


def test_view_is_shared_within_one_call_only():
    class Ctx:
        scratch: dict = {}

    ctx = Ctx()
    assert _text.view(ctx, "缓存 key") is _text.view(ctx, "缓存 key")
    assert _text.view(None, "缓存 key") is not _text.view(None, "缓存 key")  # no context: nothing kept


def test_normalize_fast_path_equals_nfkc():
    import unicodedata

    for text in ["缓存，失效：（TTL）！？", "ＡＢＣ，ｘ", "e\u0301，", "，\u0301x", "\u3000缓存", "Ⅻ，", "ﬁ：x"]:
        assert _text.normalize(text) == unicodedata.normalize("NFKC", text).lower(), text


def test_terms_equal_the_plain_definition():
    for text in ["Reverted the users' settings, caching everything quickly.", "缓存 key 集中失效，流量打穿到数据库",
                 "a 的 b 用 redis", "", "ies ies'' Nesses"]:
        norm = _text.normalize(text)
        plain = frozenset(_text.cjk_ngrams(norm, 2)) | frozenset(_text.latin_stems(norm))
        assert _text.terms(text) == plain, text
        assert _text.chars(text) == frozenset(_text.cjk_chars(norm)), text


def _all_pairs(sets, threshold):
    """The plain all-pairs scan: each set's best earlier set (a tie goes to the most recent)."""
    best: dict = {}
    for k, s in enumerate(sets):
        for other in range(k - 1, -1, -1):
            o = sets[other]
            if not s or not o:
                continue
            inter = len(s & o)
            score = inter / (len(s) + len(o) - inter)
            if score >= threshold and (k not in best or score > best[k][1]):
                best[k] = (other, score)
    return best


def _random_sets(rng):
    words = [f"w{n}" for n in range(rng.choice([6, 12, 40]))]
    texts: list[str] = []
    for _ in range(rng.choice([5, 20, 90])):
        if texts and rng.random() < 0.3:  # near copies, exact copies and ties
            base = rng.choice(texts).split()
            texts.append(" ".join(w if rng.random() < 0.8 else rng.choice(words) for w in base))
        else:
            texts.append(" ".join(rng.choice(words) for _ in range(rng.randint(0, 14))))
    return [shingles(t) for t in texts]


@pytest.mark.parametrize("seed", range(12))
def test_similar_pairs_equals_the_all_pairs_scan_below_the_cap(seed):
    import random

    sets = _random_sets(random.Random(seed))
    for threshold in (0.3, 0.5, 0.7, 1.0):
        expected = _all_pairs(sets, threshold)
        # A cap above the number of sets never binds, whichever path runs: the exact answer.
        assert similar_pairs(sets, threshold, max_candidates=len(sets)) == expected
        assert similar_pairs(sets, threshold, max_candidates=64) == expected if len(sets) <= 65 else True
        # The prefix-filter path (step 3), forced, with a cap that does not bind: exact as well.
        counter: dict = {}
        assert similar_pairs(sets, threshold, counter, max_candidates=len(sets), all_pairs_up_to=1) == expected
        assert counter.get("compared", 0) <= len(sets) * (len(sets) - 1) // 2


@pytest.mark.parametrize("seed", range(12))
def test_similar_pairs_under_a_binding_cap_reports_only_true_pairs(seed):
    import random

    sets = _random_sets(random.Random(seed))
    for threshold in (0.5, 0.7, 1.0):
        expected = _all_pairs(sets, threshold)
        for cap in (1, 3):
            found = similar_pairs(sets, threshold, max_candidates=cap)
            for k, (other, score) in found.items():
                inter = len(sets[k] & sets[other])
                assert other < k and score == inter / (len(sets[k]) + len(sets[other]) - inter) >= threshold
                assert k in expected and score <= expected[k][1]
            for k, (other, score) in expected.items():
                if score == 1.0:  # an exact copy is found by lookup, whatever the cap: the most recent one
                    assert found[k] == (other, 1.0)


def test_q001_on_generated_answers_is_the_all_pairs_scan():
    """The benchmark's answers (template-built, with near copies): Q001 reports the exact answer."""
    from benchmarks.generate import make_answers

    engine = _engine(["Q001"])
    checked = 0
    for answer in make_answers(12, seed=3, scenes=3, memories=20, fault_rate=0.0) + make_answers(
            2, seed=4, scenes=12, memories=60, fault_rate=0.0):
        import json

        where, sets = [], []
        for i, scene in enumerate(json.loads(answer.raw)):
            for j, memory in enumerate(scene["memories"]):
                s = shingles(memory["content"])
                if len(s) >= 4:
                    where.append(f"/{i}/memories/{j}")
                    sets.append(s)
        expected = {where[k]: (where[o], f"similarity {score:.2f}") for k, (o, score) in _all_pairs(sets, 0.7).items()}
        got = {v.path: v.message for v in engine.validate(answer.raw, answer.context).violations}
        assert set(got) == set(expected)
        for path, (earlier, score) in expected.items():
            assert f"says the same as {earlier} " in got[path] and score in got[path]
        checked += len(expected)
    assert checked > 0  # the generator does make near copies


def test_shingles_are_token_bigrams():
    assert shingles("缓存失效 v2.1 ok") == {"缓 存", "存 失", "失 效", "效 v2.1", "v2.1 ok"}
    assert shingles("一") == {"一"} and shingles("") == frozenset()


# --- Q001 does not compare every pair -----------------------------------------------------------


def test_near_duplicate_prefix_filter_compares_few_pairs():
    topics = ["缓存键", "日志级别", "超时重试", "数据库连接池", "鉴权令牌", "灰度开关", "构建缓存", "依赖锁文件"]
    sets = [shingles(f"{topics[k % 8]}{k} 的 owner 是 team{k * 17}，巡检周期 {k * 7919} 分钟，告警发到 ch{k * 31}")
            for k in range(2000)]
    counter: dict[str, int] = {}
    assert similar_pairs(sets, 0.7, counter) == {}
    assert counter.get("compared", 0) < 2000 * 5  # an all-pairs scan would make ~2,000,000


def test_near_duplicate_work_is_bounded_on_template_outputs():
    sets = [shingles(f"服务 {k} 的缓存键必须带租户前缀 tenant{k} 与版本号 v{k}，避免串读") for k in range(2000)]
    counter: dict[str, int] = {}
    found = similar_pairs(sets, 0.7, counter, max_candidates=64)
    assert counter.get("compared", 0) <= 2000 * 64
    expected = _all_pairs(sets, 0.7)
    assert all(k in expected and score <= expected[k][1] for k, (_, score) in found.items())


def test_near_duplicate_is_linear_on_template_outputs():
    """Hundreds of memories from a few templates (the scaling benchmark's shape): 10x the memories, ~10x the work
    (exact intersections made, and Python lines and calls: counted, not timed)."""
    import random

    rng = random.Random(5)
    modules = [f"模块{n}" for n in range(16)]
    facts = ["请求超时是 30 秒", "重试最多 5 次", "分页大小是 200 条", "日志级别是 WARN", "连接池上限是 64"]
    reasons = ["否则会重复扣款", "下游高峰期很慢", "旧客户端只认这个格式", "审计要求可追溯"]

    def texts(n):
        return [shingles(f"{rng.choice(['华东', '华北', '灰度', ''])}{rng.choice(modules)}的{rng.choice(facts)}，"
                         f"原因是{rng.choice(reasons)}。") for _ in range(n)]

    small, large = texts(200), texts(2000)

    def counted(sets):
        counter: dict[str, int] = {}
        events, found = work(similar_pairs, sets, 0.7, counter)
        return events, counter.get("compared", 0), found

    (e_small, c_small, _), (e_large, c_large, found) = counted(small), counted(large)
    assert e_large <= 15 * e_small, (e_small, e_large)
    assert c_large <= 15 * max(c_small, 1), (c_small, c_large)
    # Recall stays: most memories that have a near copy get one reported, and every report is true.
    expected = _all_pairs(large, 0.7)
    assert len(found) >= 0.9 * len(expected)
    assert all(k in expected and score <= expected[k][1] for k, (_, score) in found.items())


def test_near_duplicate_finds_the_duplicate_in_a_large_output():
    memories = [{"content": f"Service {k} keeps its own cache namespace svc{k} with TTL {k} minutes and id {k * 31}.",
                 "type": "work_fact"} for k in range(300)]
    memories.append({"content": memories[120]["content"].replace("keeps", "has"), "type": "work_fact"})
    report = _engine(["Q001"]).validate(_output(*memories), _context(("user", "caches")))
    [v] = report.violations
    assert v.path == "/0/memories/300" and "/0/memories/120" in v.message


def test_near_duplicate_ignores_dropped_memories():
    dump = "Build log:\n" + "\n".join(f"[2026-11-27 10:14:0{k}] ERROR worker {k} died" for k in range(6))
    report = _engine(["Q"]).validate(_output({"content": dump, "type": "work_fact"},
                                             {"content": dump, "type": "work_fact"}), _context(("user", "log")))
    assert [v.code for v in report.violations] == ["Q002", "Q002"]


# --- linear time on long input --------------------------------------------------------------------

PATTERNS = {
    "chinese": "今天下午把 CI 的 Node 版本从 18 升到了 20，连跑三轮全绿，详见 docs/ci.md。",
    "english": "This time we fixed it; see README.md because the user holds that we should be careful. ",
    "hex_dashes": "a1-b2-c3-d4-e5-f6-",
    "dotted_numbers": "1.2.3.4.5.6.7.8.9.",
    "no_spaces": "x" * 64,
    "slashes": "a/b/c/d/e/f/",
    "parentheses": "((((((((依据：",
    "when_clause": "当当当当当当当当时",
    "log_lines": "    at Object.<anonymous> (file:///app/x.js:1:1)\n",
    "fences": "```\n",
    "basis": "依据：因为 because basis: ",
}


#: Long runs right after a trigger word: a regex that rescans the rest of a
#: run from every position is quadratic here even when it is fast on prose.
LONG_RUNS = {
    "cjk_run_after_pointer": lambda n: "详见" + "缓" * n,
    "ascii_run_after_pointer": lambda n: "详见 README " + "a" * n,
    "dotted_run_after_platitude": lambda n: "综合考虑 " + "a." * (n // 2),
    "digit_run_after_progress": lambda n: "目前进度 " + "1" * n,
    "zai_everywhere": lambda n: "在" * n,
    "zai_then_ascii": lambda n: "在 " + "a" * n + "/b 里",
    "question_marks": lambda n: "？" * n,
    "whitespace_after_digit": lambda n: "1" + " " * n + "月",
}


def _work(engine: Engine, content: str) -> int:
    """Python lines and calls of one validate() on ``content`` (after a warm-up: caches filled)."""
    output = _output(_method(content), {"content": content, "type": "work_fact"}, n_messages=2)
    context = _context(("user", content[:50_000] + "？"), ("assistant", content))
    engine.validate(output, context)
    events, report = work(engine.validate, output, context)
    assert not [v for v in report.violations if v.code == "E001"]
    return events


@pytest.mark.parametrize("pattern", list(PATTERNS), ids=list(PATTERNS))
def test_rules_are_linear_in_the_text(pattern):
    engine = _engine(OWN)
    unit = PATTERNS[pattern]
    half = (unit * (50_000 // len(unit) + 1))[:50_000]
    full = (unit * (100_000 // len(unit) + 1))[:100_000]
    _assert_linear(engine, pattern, half, full)


@pytest.mark.parametrize("pattern", list(LONG_RUNS), ids=list(LONG_RUNS))
def test_rules_are_linear_on_long_runs(pattern):
    engine = _engine(OWN)
    _assert_linear(engine, pattern, LONG_RUNS[pattern](50_000), LONG_RUNS[pattern](100_000))


def _assert_linear(engine: Engine, pattern: str, half: str, full: str) -> None:
    """Linear work doubles from 50 to 100 KB; quadratic work quadruples. Work is counted
    (tests/workcount.py): the same figures on a loaded machine; work inside one regex
    call is counted by valgrind in tests/engine/test_linear_instructions.py, not here."""
    w_half, w_full = _work(engine, half), _work(engine, full)
    assert w_full <= 2.5 * w_half + 1_000, f"{pattern}: 50 KB {w_half} events, 100 KB {w_full}"


# --- M rules declare types: dispatch on the EMITTED type --------------------------------------


def test_m_rules_declare_the_method_type():
    from memvet.rules.method import (
        MethodNotDirective,
        MethodNotNormative,
        MethodNotOperable,
        MethodNotTransferable,
        MethodUnsupportedBasis,
    )

    for cls in (MethodNotNormative, MethodNotTransferable, MethodNotDirective, MethodNotOperable,
                MethodUnsupportedBasis):
        assert cls.types == frozenset({"work_method"})
    engine = _engine(["M"])
    assert not [b for b in engine.by_type["memory"]["work_fact"] if b.code.startswith("M")]
    assert len([b for b in engine.by_type["memory"]["work_method"] if b.code.startswith("M")]) == 5


def test_m002_to_m005_still_fire_after_m001_downgraded_the_method():
    """M001 turns the method into a fact first; the engine still runs M002-M005 (the EMITTED type)."""
    narrated = _method("这次排查发现提交 e7d2b90 引入了死锁，原因：数据库连接池太小。")
    platitude = _method("定位线上问题时综合考虑各种因素。")
    report = Engine(config_from_dict({})).validate(
        _output(narrated, platitude), _context(("user", "死锁怎么回事？")))
    first = [v.code for v in report.violations if v.path.startswith("/0/memories/0") and v.code[0] == "M"]
    second = [v.code for v in report.violations if v.path.startswith("/0/memories/1") and v.code[0] == "M"]
    assert first == ["M001", "M002", "M003", "M005"]
    assert second == ["M001", "M004"]
    m001 = next(v for v in report.violations if v.code == "M001" and v.path.startswith("/0/memories/0"))
    assert m001.fix and m001.fix[0] == {"op": "replace", "path": "/0/memories/0/type", "value": "work_fact"}
    later = [v for v in report.violations if v.code in ("M002", "M003", "M005") and v.path.startswith("/0/memories/0")]
    # Already a fact: nothing left to change (M005 warns: the basis is in the memory's own voice).
    assert all(not v.fix for v in later)


# --- M005 reads each source message once --------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_support_in_equals_support_of_the_joined_sources(seed):
    import random

    rng = random.Random(seed)
    alphabet = list("缓存失效的了是数据库一二三四") + ["abc", "reverted", "reverts", "cache", "the", "x", "ab'",
                                                  "ＡＢＣ", "⼀", " ", "\n", "，", "。", "1", "v2.1", "İ", "ſ", "用户"]
    meta = re.compile("用户|cache", re.IGNORECASE)
    for _ in range(3000):
        sources = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25))) for _ in range(rng.randint(0, 3))]
        claim = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        evidence = [_text.SourceText(t) for t in sources]
        for ignore in (None, meta):
            expected = _text.support(claim, *_text.terms_and_chars("\n".join(sources)), ignore=ignore)
            assert _text.support_in(claim, evidence, ignore=ignore) == expected, (claim, sources)


@pytest.mark.parametrize("seed", range(4))
def test_support_index_never_leaves_out_a_source_that_reaches_the_support(seed):
    # I011 scores only the sources SupportIndex.reaching returns: every source whose
    # support_in reaches the threshold must be among them, in order.
    import random

    rng = random.Random(seed)
    alphabet = list("缓存失效的了是数据库一二三四") + ["abc", "reverted", "reverts", "cache", "the", "x", "ab'",
                                                  "ＡＢＣ", "⼀", " ", "\n", "，", "。", "1", "v2.1", "İ", "ſ"]
    for _ in range(1500):
        sources = [_text.SourceText("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25))))
                   for _ in range(rng.randint(0, 6))]
        index = _text.SupportIndex(sources)
        claim = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        for threshold in (0.0, 0.3, 0.5, 0.75, 0.9, 1.0):
            scores = [_text.support_in(claim, [source]) for source in sources]
            reached = [k for k, score in enumerate(scores) if score is not None and score >= threshold]
            found = index.reaching(claim, threshold)
            assert found == sorted(found)
            assert set(reached) <= set(found), (claim, threshold, [s.text for s in sources])


def test_i011_scores_only_the_messages_that_may_hold_the_claim():
    # A batch of many tool messages: a memory whose cited user message does not say it is
    # scored against the few tool messages sharing its rare terms, not against every one.
    calls = []
    real = _text.support_in

    def counting(claim, sources, **kw):
        calls.append(len(sources))
        return real(claim, sources, **kw)

    tools = [("tool", f"job {k}: compiled module m{k} in {k} ms") for k in range(200)]
    context = _context(("user", "看下日志"), *tools, ("tool", "fastjson 默认开启 autoType，生产环境需关闭 autoType"))
    memory = {"content": "fastjson 默认开启 autoType，生产环境需关闭 autoType。", "type": "work_fact",
              "priority": 80, "source_message_ids": ["m1"]}
    from memvet.rules import identity

    identity._text.support_in = counting
    try:
        report = _engine(["I011"]).validate(_output(memory, n_messages=202), context)
    finally:
        identity._text.support_in = real
    assert [v.code for v in report.violations] == ["I011"]
    assert len(calls) <= 3  # the cited message, then the one tool message that holds the claim


def test_m005_analyses_a_cited_message_once_per_batch():
    from memvet.rules import method as method_rules

    calls = []
    real = method_rules._text.SourceText

    class Counting(real):
        def __init__(self, text):
            calls.append(text)
            super().__init__(text)

    memories = [_method(f"处理对账任务时必须先跑校验脚本，因为对账文件{k}可能缺行。") for k in range(6)]
    context = _context(("user", "对账前先跑校验脚本，对账文件经常缺行。"), ("assistant", "好的。"))
    method_rules._text.SourceText = Counting
    try:
        report = _engine(["M005"]).validate(_output(*memories, n_messages=2), context)
    finally:
        method_rules._text.SourceText = real
    assert sorted(calls) == sorted(["对账前先跑校验脚本，对账文件经常缺行。", "好的。"])
    assert not report.violations


# --- gates: a prefilter-friendly keep scan ----------------------------------------------------------


@pytest.mark.parametrize("words", ["keep", "explain", "tricky"])
def test_word_search_finds_what_the_lexicon_pattern_finds(words):
    import random

    from memvet.rules import gates as gate_rules

    lists = {"keep": gate_rules.OneTimeTest.Options().keep_markers,
             "explain": gate_rules.ProvenanceTest.Options().explanation_markers,
             # shorter entries inside longer ones that continue past a word boundary
             "tricky": ["due", "due to", "so", "so that", "cap", "capped", "要", "不要紧"]}
    entries = lists[words]
    search = _text.WordSearch(entries)
    pattern = lexicon.compile_words(entries)
    rng = random.Random(len(entries))
    pieces = entries + [" ", "x", "_", "9", "，", "İ", "ſ", "K", "DUE", "So", "tO", "的", "\n"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        a, b = pattern.search(text), search.search(text)
        assert (a and (a.span(), a.group())) == (b and (b.span(), b.group())), text
        assert search.mask(text) == _text.mask(pattern, text), text


def test_fold_is_checked_for_its_letters_over_every_cased_code_point():
    """Each character of ``_FOLD_CHECKED`` matches under ``re.IGNORECASE`` exactly the characters that
    fold to what it folds to (the code points with case: Latin, Greek, Cyrillic, the letter-like
    symbols such as the Kelvin and Angstrom signs, the compatibility and full-width forms)."""
    code_points = [*range(0x3000), *range(0xFB00, 0xFB50), *range(0xFF00, 0xFFF0), *range(0x10400, 0x10450)]
    for c in sorted(_text._FOLD_CHECKED):
        pattern, folded = re.compile(re.escape(c), re.IGNORECASE), _text.fold(c)
        wrong = [hex(x) for x in code_points if (pattern.fullmatch(chr(x)) is not None) != (_text.fold(chr(x)) == folded)]
        assert not wrong, (c, wrong[:5])


def test_every_default_word_list_takes_the_folded_scan():
    """No default list falls back to the regex (a declaration that always holds costs every memory a call)."""
    from memvet.batchfacts import FactsOptions
    from memvet.rules import memvet_rules

    def lists(options):
        for name, value in options.model_dump().items():
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                yield name, value

    unchecked = []
    for owner, options in [("facts", FactsOptions())] + [(cls.code, cls.Options()) for cls in memvet_rules()
                                                        if getattr(cls, "Options", None) is not None]:
        for name, words in lists(options):
            unchecked += [f"{owner}.{name}: {w!r}" for w in words if not _text.foldable(w)]
    assert not unchecked, unchecked


def test_word_search_falls_back_for_words_fold_is_not_checked_for():
    search = _text.WordSearch(["straße"])  # ß: not a character fold() was checked for
    assert search.search("Die STRASSE") is lexicon.compile_words(["straße"]).search("Die STRASSE") is None
    assert search.search("die Straße").group(0) == "Straße"


def test_gates_share_one_stripped_copy():
    view = _text.View("utils/format.ts 的 moment 已换成 dayjs 2.1.0")
    assert view.stripped == _text.strip_specifics(view.text)
    assert view.stripped is view.stripped


#: Pointers and readings at the edges of the gates' declarations.
GATE_EDGES = ["The deploy steps are  in docs/deploy.md.", "Config IS\tIN src/app.py", "It lives\nunder infra/k8s/",
              "ſee README for the flags", "Cf. docs/x.md", "配置见 config.yaml", "端口定义在 src/ports.ts",
              "说明在 docs/x.md 里", "今天 QPS 3200", "耗时约 181 ms", "Latency was 181 ms today", "进度 60%",
              "120/200 done", "Status:\n```\nok\nok\n```", "STATE\nx\ny\nz", "as of today the job took 5 min",
              "30renamed x", "Renamedhttps://x.io/a", "Step 1 deliverables: a.py", "新增文件：a.py",
              "the attempted renames failed", "提交 18f53ef：改 exclude", "，已在根目录新建 a.md"]


@pytest.mark.parametrize("gate", [gates.StrippingTest, gates.OneTimeTest, gates.ProvenanceTest])
def test_gate_declaration_never_hides_a_word_shape_failure(gate):
    """Where a gate's declaration says "cannot", its word-shape question finds nothing (edge texts:
    re-cased, glued to units and URLs, blanked by stripping); the property test over every rule
    (test_needs.py) covers whole answers."""
    from types import SimpleNamespace

    from memvet.needs import TextLayer, declaration_met

    rule, layer = gate(), TextLayer()
    texts = list(_samples()) + GATE_EDGES + [f"{a} {b}" for a in GATE_EDGES for b in ("README.md", "src/a.ts 12 ms")]
    failures = 0
    for text in texts:
        for kind in ("work_fact", "work_task", "work_method", "work_artifact"):
            memory = {"content": text, "type": kind}
            if rule.problem(text, memory, _text.View(text)) is not None:
                failures += 1
                ctx = SimpleNamespace(scratch={})
                assert declaration_met(rule, rule.needs, memory, layer, ctx), (gate.code, kind, text)
    assert failures > 0  # the samples do reach the failure shapes


