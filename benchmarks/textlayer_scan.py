"""Word-list hits of every default list per memory: one Aho-Corasick scan vs one regex per list.

    python benchmarks/textlayer_scan.py

CPU time per memory content of the benchmark's generated valid answers (best of 3).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from run import make_answers  # noqa: E402

from memvet.registry import default_registry  # noqa: E402
from memvet.rules import lexicon  # noqa: E402
from memvet.rules._textlayer import TextLayer  # noqa: E402


def main() -> None:
    answers = make_answers(30, seed=1, fault_rate=0.0)
    texts = [m["content"] for a in answers for s in json.loads(a.raw) for m in s["memories"]]
    layer = TextLayer([cls() for cls in default_registry().ordered()])
    lists = list(layer._lists)
    layer.automaton  # built once per engine, not per call
    patterns = [p for p in (lexicon.compile_words(w) for w in lists) if p is not None]

    def one_scan_exact() -> None:
        for text in texts:
            facts = layer.facts(text)
            for words in lists:
                facts.hits(words)

    def one_scan_may_hit() -> None:
        for text in texts:
            facts = layer.facts(text)
            for words in lists:
                facts.may_hit(words)

    def regex_per_list() -> None:
        for text in texts:
            for pattern in patterns:
                list(pattern.finditer(text))

    print(f"{len(texts)} memories, {len(lists)} word lists, {sum(map(len, lists))} entries")
    for fn in (one_scan_exact, one_scan_may_hit, regex_per_list):
        best = min(_cpu(fn) for _ in range(3))
        print(f"{fn.__name__:18} {best / len(texts) * 1e6:8.1f} us/memory (CPU time)")


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


if __name__ == "__main__":
    main()
