"""``memvet eval`` and its library: the dev corpus is a regression gate for the G, M and Q rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvet.cli import main
from memvet.evaluate import (BASE_MS, LABELLED_CODES, evaluate, found_codes, item_context, item_output,
                             load_corpus)
from memvet.errors import ContextError

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "dev" / "memories.jsonl"
OWN_FAMILIES = "GMQ"
MIN_RECALL = 0.85
MIN_PRECISION = 0.85
MAX_CLEAN_FP = 0.05


@pytest.fixture(scope="module")
def result():
    assert CORPUS.is_file(), f"the dev corpus is missing at {CORPUS}"
    return evaluate(CORPUS)


def _own_codes(result):
    return [c for c in LABELLED_CODES if c[0] in OWN_FAMILIES and result.stats(c).positives >= 5]


def test_every_item_was_run(result):
    assert len(result.items) == len(load_corpus(CORPUS)) >= 100
    assert len(result.clean_items) >= 40


def test_own_codes_are_all_labelled_in_the_corpus(result):
    # G001-G003, M001-M005 and Q002 each have at least five positives: all are gated below.
    assert set(_own_codes(result)) == {"G001", "G002", "G003", "M001", "M002", "M003", "M004", "M005", "Q002"}


@pytest.mark.parametrize("code", ["G001", "G002", "G003", "M001", "M002", "M003", "M004", "M005", "Q002"])
def test_recall_and_precision_of_own_codes(result, code):
    stats = result.stats(code)
    misses = [i.id for i in result.items if code in i.expect and code not in i.found]
    extra = [i.id for i in result.items if code not in i.expect and code in i.found]
    assert stats.recall is not None and stats.recall >= MIN_RECALL, f"{code} recall {stats.recall}: missed {misses}"
    assert stats.precision is not None and stats.precision >= MIN_PRECISION, f"{code} precision: extra {extra}"


def test_clean_items_untouched_by_own_families(result):
    touched = result.clean_touched(OWN_FAMILIES)
    assert result.clean_fp_rate(OWN_FAMILIES) <= MAX_CLEAN_FP, [(i.id, sorted(i.found)) for i in touched]


def test_item_is_built_as_the_readme_says():
    item = {"id": "dev-x", "lang": "en", "messages": [{"role": "user", "content": "a"},
                                                      {"role": "tool", "content": "b"}],
            "memory": {"content": "c", "type": "work_fact", "priority": 70, "metadata": {}}, "expect": []}
    ctx = item_context(item)
    assert [m["id"] for m in ctx["messages"]] == ["m1", "m2"]
    assert {m["sessionKey"] for m in ctx["messages"]} == {"dev-x"}
    assert [m["timestamp"] for m in ctx["messages"]] == [BASE_MS, BASE_MS + 60_000]
    assert ctx["messages"][1]["recordedAt"] == BASE_MS + 60_000 + 300_000
    assert ctx["background"] == [] and ctx["scenePool"] == [] and ctx["knownProjects"] == ["demo"]
    [scene] = json.loads(item_output(item))
    assert scene["new_scene_name"] == "demo｜dev-x"
    assert scene["new_scene_reason"] == "The scene pool is empty, so this is a new scene."
    assert scene["message_ids"] == ["m1", "m2"]
    assert scene["memories"] == [{**item["memory"], "source_message_ids": ["m1", "m2"]}]
    assert "taskState" not in scene["memories"][0]
    assert json.loads(item_output({**item, "lang": "zh"}))[0]["new_scene_reason"] == "场景池为空，新建情境。"


def test_found_codes_only_at_the_memory_pointer():
    class V:
        def __init__(self, code, path):
            self.code, self.path = code, path

    class R:
        violations = [V("G001", "/0/memories/0/content"), V("W003", "/0/memories/0"), V("L004", "/0/new_scene_name"),
                      V("G002", "/0/memories/01"), V("T005", "/0/memories/0/priority")]

    assert found_codes(R()) == {"G001", "W003"}


def test_scores_count_true_and_false_positives(tmp_path):
    lines = [
        # a change log labelled G001: a true positive
        {"id": "a", "lang": "en", "messages": [{"role": "user", "content": "Rename getById to findById."}],
         "memory": {"content": "UserService.getById was renamed to findById in 14 call sites.", "type": "work_fact",
                    "priority": 80, "metadata": {}}, "expect": ["G001"]},
        # the same memory labelled clean: a false positive on a clean item
        {"id": "b", "lang": "en", "messages": [{"role": "user", "content": "Rename getById to findById."}],
         "memory": {"content": "UserService.getById was renamed to findById in 14 call sites.", "type": "work_fact",
                    "priority": 80, "metadata": {}}, "expect": []},
        # a good fact labelled G003 wrongly: a false negative
        {"id": "c", "lang": "en", "messages": [{"role": "user", "content": "Why is the cache cold?"}],
         "memory": {"content": "The CI cache key includes the lockfile hash, so any dependency change misses the cache.",
                    "type": "work_fact", "priority": 80, "metadata": {}}, "expect": ["G003"]},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", "utf-8")
    res = evaluate(path, config={"select": ["G"]})
    g1, g3 = res.stats("G001"), res.stats("G003")
    assert (g1.tp, g1.fp, g1.fn) == (1, 1, 0)
    assert (g3.tp, g3.fp, g3.fn) == (0, 0, 1)
    assert g1.precision == 0.5 and g1.recall == 1.0 and g3.recall == 0.0
    assert [i.id for i in res.clean_touched()] == ["b"] and res.clean_fp_rate() == 1.0
    assert [i.id for i in res.exact()] == ["a"]


def test_cli_json(capsys):
    assert main(["eval", str(CORPUS), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["items"] >= 100 and 0 <= data["clean_fp_rate"] <= 1
    rows = {r["code"]: r for r in data["codes"]}
    assert rows["G001"]["tp"] + rows["G001"]["fn"] == 5
    assert set(rows["G001"]) == {"code", "tp", "fp", "fn", "precision", "recall"}


def test_cli_text(capsys):
    assert main(["eval", str(CORPUS)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["code", "TP", "FP", "FN", "precision", "recall"]
    assert any(line.startswith("M005 ") for line in out.splitlines())
    assert "clean touched by G/M/L/P/Q/W" in out


def test_cli_bad_corpus_is_a_usage_error(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "messages": [], "memory": {}, "expect": []}\nnot json\n', "utf-8")
    assert main(["eval", str(bad)]) == 2
    assert f"{bad}:2" in capsys.readouterr().err
    with pytest.raises(ContextError, match="expect"):
        missing = tmp_path / "m.jsonl"
        missing.write_text('{"id": "x", "messages": [], "memory": {}}\n', "utf-8")
        load_corpus(missing)
