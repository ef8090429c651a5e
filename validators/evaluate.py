"""Score the rules against a labelled corpus (the format of ``corpus/dev/README.md``).

Each line of the corpus is one candidate memory with the complete set of
codes a careful reviewer expects (``expect``). :func:`evaluate` turns every
item into a batch context and an extraction output exactly as the corpus
README prescribes, validates it, and compares the codes found at the
memory's pointer ``/0/memories/0`` (W codes from routing that memory land
there too) with the expected ones.

The result gives per code TP / FP / FN, precision and recall, and the share
of clean items (``expect == []``) that any rule of the scored families
touched -- the number a team watches so that a new rule does not start
dropping good memories.

Usage::

    from memvet.evaluate import evaluate
    result = evaluate("corpus/dev/memories.jsonl")
    result.stats("G001").recall
    result.clean_fp_rate(families="GMQ")
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .errors import ContextError
from .jsonl import iter_objects

#: Codes the dev corpus labels (its README): an item's ``expect`` is complete for these.
LABELLED_CODES = ("G001", "G002", "G003", "M001", "M002", "M003", "M004", "M005", "L002",
                  "W003", "W005", "W006", "W008", "P001", "P002", "P003", "Q002")
#: Families whose findings count as touching a memory.
FAMILIES = "GMLPQW"

BASE_MS = 1_795_831_200_000  # 2026-11-28T02:00:00Z, the corpus README's first timestamp
MEMORY_POINTER = "/0/memories/0"
REASON = {"zh": "场景池为空，新建情境。", "en": "The scene pool is empty, so this is a new scene."}


# --- building one item ------------------------------------------------------------------

def item_context(item: dict[str, Any]) -> dict[str, Any]:
    """The batch context of one corpus item (README: "Turning an item into a test case")."""
    messages = []
    for n, message in enumerate(item["messages"], 1):
        ts = BASE_MS + 60_000 * (n - 1)
        messages.append({"id": f"m{n}", "sessionKey": item["id"], "role": message["role"],
                         "content": message["content"], "timestamp": ts, "recordedAt": ts + 300_000})
    return {"messages": messages, "background": [], "scenePool": [], "knownProjects": ["demo"]}


def item_output(item: dict[str, Any]) -> str:
    """The raw extraction output of one corpus item (JSON text, one new scene, one memory)."""
    ids = [f"m{n}" for n in range(1, len(item["messages"]) + 1)]
    memory = {**item["memory"], "source_message_ids": ids}
    scene = {"new_scene_name": f"demo｜{item['id']}",
             "new_scene_reason": REASON["en" if item.get("lang") == "en" else "zh"],
             "message_ids": ids, "memories": [memory]}
    return json.dumps([scene], ensure_ascii=False)


def load_corpus(path: str | Path) -> list[dict[str, Any]]:
    """Read a corpus JSONL file; a malformed line is a caller error naming file and line."""
    items = []
    for where, item in iter_objects(str(path)):
        for key, kind in (("id", str), ("messages", list), ("memory", dict), ("expect", list)):
            if not isinstance(item.get(key), kind):
                raise ContextError(f"missing or not a {kind.__name__}", file=where, field=key)
        items.append(item)
    return items


# --- results -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ItemResult:
    id: str
    lang: str
    expect: frozenset[str]
    #: Codes of the scored families found at the memory's pointer.
    found: frozenset[str]
    why: str = ""

    @property
    def clean(self) -> bool:
        return not self.expect

    def scoped(self, codes: Iterable[str]) -> frozenset[str]:
        codes = set(codes)
        return frozenset(c for c in self.found if c in codes)


@dataclass(frozen=True)
class CodeStats:
    code: str
    tp: int
    fp: int
    fn: int

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": _round(self.precision), "recall": _round(self.recall)}


@dataclass
class EvalResult:
    items: list[ItemResult]
    labelled: tuple[str, ...] = LABELLED_CODES
    families: str = FAMILIES
    source: str | None = None
    _stats: dict[str, CodeStats] = field(default_factory=dict, repr=False)

    def codes(self) -> list[str]:
        """Every code that is expected or found somewhere, in catalog order."""
        seen = set(self.labelled)
        for item in self.items:
            seen |= item.found | item.expect
        return sorted(seen, key=lambda c: ("SPITQLGMWE".find(c[0]) if c[0] in "SPITQLGMWE" else 99, c))

    def stats(self, code: str) -> CodeStats:
        if code not in self._stats:
            tp = sum(1 for i in self.items if code in i.expect and code in i.found)
            fp = sum(1 for i in self.items if code not in i.expect and code in i.found)
            fn = sum(1 for i in self.items if code in i.expect and code not in i.found)
            self._stats[code] = CodeStats(code, tp, fp, fn)
        return self._stats[code]

    @property
    def clean_items(self) -> list[ItemResult]:
        return [i for i in self.items if i.clean]

    def clean_touched(self, families: str | None = None) -> list[ItemResult]:
        """Clean items that a code of ``families`` (default: all scored families) touched."""
        families = self.families if families is None else families
        return [i for i in self.clean_items if any(c[0] in families for c in i.found)]

    def clean_fp_rate(self, families: str | None = None) -> float:
        clean = self.clean_items
        return len(self.clean_touched(families)) / len(clean) if clean else 0.0

    def exact(self) -> list[ItemResult]:
        """Items whose labelled codes found equal ``expect`` exactly."""
        return [i for i in self.items if i.scoped(self.labelled) == i.expect]

    def misses(self) -> list[ItemResult]:
        return [i for i in self.items if i.found != i.expect]

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.source,
            "items": len(self.items),
            "clean_items": len(self.clean_items),
            "exact": len(self.exact()),
            "clean_touched": len(self.clean_touched()),
            "clean_fp_rate": round(self.clean_fp_rate(), 4),
            "codes": [self.stats(c).to_dict() for c in self.codes()],
            "misses": [{"id": i.id, "expect": sorted(i.expect), "found": sorted(i.found),
                        "missing": sorted(i.expect - i.found), "extra": sorted(i.found - i.expect)}
                       for i in self.misses()],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


# --- the run -------------------------------------------------------------------------------

def found_codes(report: Any, families: str = FAMILIES, pointer: str = MEMORY_POINTER) -> frozenset[str]:
    """Codes of ``families`` whose violation sits at ``pointer`` or inside it."""
    return frozenset(v.code for v in report.violations
                     if v.code[:1] in families and (v.path == pointer or v.path.startswith(pointer + "/")))


def evaluate(corpus: str | Path | list[dict[str, Any]], *, config: Any = None,
             families: str = FAMILIES, labelled: tuple[str, ...] = LABELLED_CODES) -> EvalResult:
    """Validate every corpus item and compare what was found with what is expected.

    ``corpus``: a JSONL path or already loaded items. ``config``: anything
    :func:`memvet.engine.engine_for` accepts (None: defaults).
    """
    from .engine import engine_for

    source = None
    if not isinstance(corpus, list):
        source = str(corpus)
        corpus = load_corpus(corpus)
    engine = engine_for(config)
    results = []
    for item in corpus:
        try:
            report = engine.validate(item_output(item), item_context(item))
        except ContextError as exc:
            raise ContextError(exc.detail, file=f"{source or 'corpus'}#{item['id']}", field=exc.field) from None
        results.append(ItemResult(id=item["id"], lang=str(item.get("lang", "")),
                                  expect=frozenset(item["expect"]), found=found_codes(report, families),
                                  why=str(item.get("why", ""))))
    return EvalResult(results, labelled=labelled, families=families, source=source)


def format_text(result: EvalResult, *, show_misses: bool = False) -> str:
    """A table per code, then the clean-item false-positive rate."""
    lines = [f"{'code':6} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>9} {'recall':>7}"]
    for code in result.codes():
        s = result.stats(code)
        if not (s.tp or s.fp or s.fn):
            continue
        lines.append(f"{code:6} {s.tp:4} {s.fp:4} {s.fn:4} {_pct(s.precision):>9} {_pct(s.recall):>7}")
    clean = result.clean_items
    touched = result.clean_touched()
    lines.append("")
    lines.append(f"items: {len(result.items)}, exact: {len(result.exact())}, clean: {len(clean)}, "
                 f"clean touched by {'/'.join(result.families)}: {len(touched)} "
                 f"({result.clean_fp_rate():.1%})")
    if touched:
        lines.append("clean items touched: " + ", ".join(f"{i.id} {sorted(i.found)}" for i in touched))
    if show_misses:
        for i in result.misses():
            lines.append(f"  {i.id}: expect {sorted(i.expect)} found {sorted(i.found)}"
                         f"  missing {sorted(i.expect - i.found)} extra {sorted(i.found - i.expect)}")
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
