"""Every report memvet gives on the corpora, pinned by a hash of its JSON.

A refactor (the rule platform, the engine's stages, the text layer) must not
change one byte of any report; a change of behaviour must show up here and
be regenerated on purpose:

    MEMVET_UPDATE_FINGERPRINTS=1 pytest -q -n 0 tests/engine/test_fingerprints.py

The inputs are split into shards by a hash of their name, one test each, so that
pytest-xdist spreads the work over the machine's cores.

Inputs: the bundled examples, the real-answer corpora (../shared/corpus/real,
tests/data/real, tests/data/tune, tests/data/check) against their batch contexts, every item of
the labelled dev corpus, and generated benchmark answers (valid and faulty).
Each report is `memvet check --format json` as the CLI prints it, with the
built-in defaults (config={}), so a config file nearby changes nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path

import pytest

import memvet
from memvet.evaluate import item_context, item_output, load_corpus
from memvet.formats import format_json

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpus"
PINNED = REPO / "tests" / "fingerprints" / "reports.json"
#: How many tests the inputs are split into (each about the same work).
SHARDS = 6


def _answer_sets():
    """(name, raw answer, context) of every real answer with its batch."""
    roots = [(SHARED / "real", SHARED / "transcripts"),
             (REPO / "tests" / "data" / "real", REPO / "tests" / "data" / "real" / "transcripts"),
             (REPO / "tests" / "data" / "tune", REPO / "tests" / "data" / "tune" / "transcripts"),
             (REPO / "tests" / "data" / "check", REPO / "tests" / "data" / "check" / "transcripts")]
    for root, contexts in roots:
        for answer in sorted((root / "answers").glob("*/*.txt")):
            batch = answer.name.split(".")[0]
            ctx = contexts / answer.parent.name / f"{batch}.json"
            yield f"{root.name}/{answer.parent.name}/{answer.name}", answer.read_text("utf-8"), json.loads(ctx.read_text("utf-8"))


def _inputs():
    yield "examples/output.json", (REPO / "examples" / "output.json").read_text("utf-8"), \
        json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
    yield from _answer_sets()
    for item in load_corpus(SHARED / "dev" / "memories.jsonl"):
        yield f"dev/{item['id']}", item_output(item), item_context(item)
    from benchmarks.generate import make_answers
    for rate in (0.0, 1.0):
        for n, answer in enumerate(make_answers(40, seed=11, fault_rate=rate)):
            yield f"bench/rate{rate}/{n}", answer.raw, answer.context


def shard_of(name: str) -> int:
    return zlib.crc32(name.encode("utf-8")) % SHARDS


def fingerprints(shard: int | None = None) -> dict[str, str]:
    """The hash of each input's report (only the inputs of ``shard``, when given)."""
    out = {}
    for name, raw, context in _inputs():
        if shard is not None and shard_of(name) != shard:
            continue
        report = memvet.validate(raw, context, config={})
        out[name] = hashlib.sha256(format_json(report).encode("utf-8")).hexdigest()[:16]
    return out


@pytest.mark.parametrize("shard", range(SHARDS))
def test_reports_are_the_pinned_ones(shard: int):
    if not SHARED.is_dir():
        pytest.fail(f"the shared corpora are missing: {SHARED}")
    if os.environ.get("MEMVET_UPDATE_FINGERPRINTS") and shard == 0:
        # Regenerated whole, by the first shard (run with -n 0: the other shards then read it).
        every = fingerprints()
        PINNED.parent.mkdir(parents=True, exist_ok=True)
        PINNED.write_text(json.dumps(every, indent=1, sort_keys=True) + "\n", "utf-8")
        got = {k: v for k, v in every.items() if shard_of(k) == shard}
    else:
        got = fingerprints(shard)
    pinned = {k: v for k, v in json.loads(PINNED.read_text("utf-8")).items() if shard_of(k) == shard}
    changed = sorted(k for k in got.keys() & pinned.keys() if got[k] != pinned[k])
    assert got.keys() == pinned.keys(), (sorted(got.keys() - pinned.keys())[:5], sorted(pinned.keys() - got.keys())[:5])
    assert not changed, f"{len(changed)} reports changed, e.g. {changed[:8]}; regenerate on purpose (see the module docstring)"
