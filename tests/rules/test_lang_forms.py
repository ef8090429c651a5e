"""The grammar helpers of M001/M002/M005 (rules/_normform.py) and L002 (rules/_antecedent.py).

The YAML cases (tests/rules/L002.yaml, M001.yaml ...) pin what the rules decide; these
tests pin the helpers' contracts: they never raise on any text, they only
look where they say they look, and the option lists really steer them.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from memvet.rules import _antecedent, _normform, lexicon
from memvet.rules.language import ContextDependent
from memvet.rules.method import (MethodNotNormative, MethodNotTransferable, RULE_LABELS, RULE_SCOPE, USER_LABELS,
                                 ZH_IMPERATIVES, ZH_NOT_IMPERATIVES, _is_one_step_of_many)

_FRAGMENTS = ["User's ", "用户的", "用户偏好", "：", ":", " rules", " workflow", "规范", "（", "）", "(", ")", "该",
              "这些", "文件", "版本", "错误", "步骤", "操作", "this ", "these ", "options", "file", " when ", "时",
              "后", "，", ",", "。", ". ", "先", "再", "了", "用户", "使用", "`x.py`", "--flag", "3.8", "KeyError",
              "tag v1.2.0", " → ", "、", "\n", " ", "commit ", "Update ", "the ", "a", "用", "each", "每次"]
texts = st.lists(st.sampled_from(_FRAGMENTS), min_size=0, max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_helpers_never_raise_and_are_deterministic(text):
    scope = lexicon.compile_words(RULE_SCOPE)
    label = _normform.rule_label(text, RULE_LABELS, USER_LABELS)
    assert label == _normform.rule_label(text, RULE_LABELS, USER_LABELS)
    if label is not None:
        assert label[0] and (":" in text or "：" in text)
    assert isinstance(_normform.zh_imperative(text, ZH_IMPERATIVES, ZH_NOT_IMPERATIVES), bool)
    assert isinstance(_normform.has_scope(text, scope), bool)
    for pos in range(0, len(text) + 1, 3):
        assert isinstance(_is_one_step_of_many(text, pos), bool)
    rule = ContextDependent()
    o = rule.options
    for noun in ("文件", "步骤", "options", "问题"):
        start = text.find("该")
        if start >= 0:
            assert isinstance(_antecedent.resolved_before(text, start, noun, forms=o.noun_forms, kinds=o.noun_kinds,
                                                          action_nouns=o.action_nouns), bool)
    rule._find(text)
    MethodNotNormative().problem(text or "x", {}, None)
    MethodNotTransferable().problem(text or "x", {}, None)


def test_antecedent_is_looked_for_before_the_demonstrative_only():
    rule = ContextDependent()
    assert rule._find("该文件由 CI 生成：scripts/gen.py。") is None  # named after a colon (cataphora)
    assert rule._find("该文件由 CI 生成，不要手改。") == ("该文件", True)
    assert rule._find("不要手改该文件，scripts/gen.py 由 CI 生成。") == ("该文件", True)  # the name comes after


def test_rule_labels_and_imperatives_are_options():
    text = "Deployment notes: the CI builds the image."
    assert MethodNotNormative().problem(text, {}, None) is not None  # notes is no head by default
    opts = MethodNotNormative.Options(rule_labels=[*RULE_LABELS, "notes"])
    assert MethodNotNormative(opts).problem(text, {}, None) is None
    zh = "沿用 MapTR 的坐标系约定。"
    assert MethodNotNormative().problem(zh, {}, None) is None
    assert MethodNotNormative(MethodNotNormative.Options(zh_imperatives=[])).problem(zh, {}, None) is not None


def test_noun_kinds_are_options():
    text = "scripts/gen.py 由 CI 生成，该文件不要手改。"
    assert ContextDependent()._find(text) is None
    bare = ContextDependent.Options(noun_kinds={}, noun_forms={}, action_nouns=[])
    # without the kinds the path still names something (any identifier-like name resolves)
    assert ContextDependent(bare)._find(text) is None
    assert ContextDependent(bare)._find("Python 3.8 和 3.9 停止支持，这些版本的任务应删除。") == ("这些版本", False)  # after a clause: uncertain
    assert ContextDependent()._find("Python 3.8 和 3.9 停止支持，这些版本的任务应删除。") is None
