#!/usr/bin/env python3
"""Train G004's value model on the labelled real answers and write rules/value_model.json.

    pip install scikit-learn            # training only: memvet itself never imports it
    python scripts/train_value_model.py --cv          # grouped cross-validation, prints figures
    python scripts/train_value_model.py --write       # train on every set, write the weights
    python scripts/train_value_model.py --hold-out S1,S2 ...   # train without S1, S2; figures on them

Data: every labelled answer under tests/data/{tune,real,check} and, when it is
beside the repository, ../shared/corpus/real (answers, labels, transcripts;
see each set's README). Per memory: the features G004 computes at its own
slot in the engine (``memvet.rules.value_model.features``), and the label
"the reviewer would not keep it". The features are collected by running the
real engine with G004's check replaced by a recorder, so the report of that
run is the one of the other rules alone, and the figures below compare
"rules alone" with "rules plus G004 at its default thresholds".

The figures are those score.py prints (junk caught: dropped or under a
reject; good kept untouched: no drop/reject/fix at or under the memory).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: L2 strengths tried by --write, the weakest regularisation first (grouped cross-validation: 0.1 / 0.3 / 1
#: differ by < 0.01 AUC). The first whose model keeps the labelled dev corpus (../shared/corpus/dev) exact
#: is shipped: a model trained on more sessions can move a dev memory across drop_at (session 19: dev-103,
#: an assistant-only fact with an e-mail, scored 0.902 at C=0.3; session 21, with the thirty-third
#: and thirty-fourth rounds, at C=0.1 and 0.08 as well; session 23, with 122 sessions, at 0.06; session 24
#: tried drop_at 0.85, where dev-103 scored above it at every C down to 0.02: hence the grid's tail; session 25,
#: with 142 sessions, at 0.05 as well, and the step to 0.04 cost 16 junk memories cross-validated, so the grid
#: got half steps; session 26 lowered drop_at to 0.85 and left the roles of the sources out in a batch without a
#: user message, where C=0.055 was the first that kept it exact, 0.05 with round 47 and 0.045 with round 49;
#: session 27, with rounds 51 and 52 (160 sessions), 0.04: dev-054 crossed at 0.045; session 28, with rounds 53-56
#: (176 sessions), 0.04 as well), and the dev corpus must stay exact.
C_GRID = (0.3, 0.25, 0.2, 0.15, 0.1, 0.08, 0.07, 0.06, 0.055, 0.05, 0.045, 0.04, 0.035, 0.03, 0.025, 0.02)
C = C_GRID[0]
FOLDS = 12       # grouped by session: a session is never in both the training and the test fold


def sets() -> dict[str, tuple[Path, Path]]:
    found = {name: (ROOT / "tests/data" / name, ROOT / "tests/data" / name / "transcripts")
             for name in ("tune", "real", "check")}
    shared = ROOT.parent / "shared/corpus/real"
    if (shared / "labels").is_dir():
        found["shared"] = (shared, shared.parent / "transcripts")
    return found


def _segments(pointer: str) -> list[str]:
    return [] if pointer in ("", None) else pointer.split("/")[1:]


def _under(path: str, memory: str) -> bool:
    a, m = _segments(path), _segments(memory)
    return a[: len(m)] == m or m[: len(a)] == a


def collect() -> list[dict]:
    """One row per labelled memory: set, session, label, features, the other rules' outcome."""
    from memvet.config import Config
    from memvet.engine import Engine
    from memvet.rules import value_model

    recorded: dict[tuple[int, int], dict[str, float]] = {}

    def record(self, memory, ctx):
        if isinstance(memory.get("content"), str) and not ctx.is_dropped(ctx.scene_index, ctx.memory_index):
            recorded[(ctx.scene_index, ctx.memory_index)] = value_model.features(memory, ctx)
        return ()

    original = value_model.ValueModel.check
    value_model.ValueModel.check = record  # restored below: a test may call this inside a larger run
    try:
        return _rows(Engine(Config()), recorded)
    finally:
        value_model.ValueModel.check = original


def _rows(engine, recorded: dict[tuple[int, int], dict[str, float]]) -> list[dict]:
    rows = []
    for set_name, (root, transcripts) in sets().items():
        for label_file in sorted((root / "labels").glob("*/*.json")):
            session = label_file.parent.name
            batch, _variant = label_file.stem.rsplit(".", 1)
            answer = (root / "answers" / session / f"{label_file.stem}.txt").read_text(encoding="utf-8")
            context = json.loads((transcripts / session / f"{batch}.json").read_text(encoding="utf-8"))
            recorded.clear()
            report = engine.validate(answer, context).to_dict()
            violations = report["violations"]
            dropped = {d["path"] for d in report.get("dropped", [])}
            for pointer, label in json.loads(label_file.read_text(encoding="utf-8"))["memories"].items():
                at = [v for v in violations if v["path"] == pointer or v["path"].startswith(pointer + "/")]
                gone = pointer in dropped or any(v["action"] == "reject" and _under(v["path"], pointer)
                                                 for v in violations)
                parts = pointer.split("/")
                rows.append({
                    "set": set_name, "session": session, "pointer": pointer,
                    "junk": not label["keep"], "good": label["keep"] and not label["codes"],
                    "gone": gone, "touched": gone or any(v["action"] != "warn" for v in at),
                    "features": recorded.get((int(parts[1]), int(parts[3]))),
                })
    return rows


def fit(rows: list[dict], c: float = C):
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = DictVectorizer()
    x = vectorizer.fit_transform([r["features"] for r in rows])
    model = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
    model.fit(x, [int(r["junk"]) for r in rows])
    names = vectorizer.get_feature_names_out()
    return {"intercept": round(float(model.intercept_[0]), 6),
            "weights": {str(n): round(float(w), 6) for n, w in sorted(zip(names, model.coef_[0])) if round(float(w), 6)}}


def figures(rows: list[dict], scores: list[float | None], drop_at: float) -> str:
    junk = [(r, s) for r, s in zip(rows, scores) if r["junk"]]
    good = [(r, s) for r, s in zip(rows, scores) if r["good"]]
    flagged = lambda s: s is not None and s >= drop_at  # noqa: E731
    alone = sum(r["gone"] for r, _ in junk), sum(not r["touched"] for r, _ in good)
    both = sum(r["gone"] or flagged(s) for r, s in junk), sum(not r["touched"] and not flagged(s) for r, s in good)
    return (f"rules alone {alone[0]}/{len(junk)} junk, {alone[1]}/{len(good)} good untouched; "
            f"with G004 {both[0]}/{len(junk)}, {both[1]}/{len(good)}")


def dev_misses(model: dict) -> list[str]:
    """The items of the labelled dev corpus that are not exact with ``model`` shipped as G004's weights."""
    import memvet.rules.value_model as value_model
    from memvet.evaluate import evaluate

    dev = ROOT.parent / "shared" / "corpus" / "dev" / "memories.jsonl"
    original = value_model.weights
    value_model.weights = lambda: model  # what G004 reads; restored below
    value_model._source_ceiling.cache_clear()  # derived from the weights
    try:
        result = evaluate(dev)
    finally:
        value_model.weights = original
        value_model._source_ceiling.cache_clear()
    exact = {id(i) for i in result.exact()}
    return [getattr(i, "id", "?") for i in result.items if id(i) not in exact]


def predict(model: dict, rows: list[dict]) -> list[float | None]:
    from memvet.rules.value_model import score
    return [None if r["features"] is None else score(r["features"], model) for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cv", action="store_true", help="grouped cross-validation figures")
    ap.add_argument("--hold-out", default="", help="comma-separated sessions to train without and report on")
    ap.add_argument("--write", action="store_true", help="train on every row and write rules/value_model.json")
    ap.add_argument("--drop-at", type=float, default=None, help="threshold for the figures (default: G004's)")
    ap.add_argument("--warn-at", type=float, default=None, help="low-confidence threshold (default: G004's)")
    a = ap.parse_args()
    from memvet.rules.value_model import ValueModel
    drop_at = a.drop_at if a.drop_at is not None else ValueModel.Options().drop_at
    rows = collect()
    usable = [r for r in rows if r["features"] is not None]
    # --cv and --hold-out measure the shipped model's strength (the one --write chose last).
    shipped_c = json.loads((ROOT / "rules" / "value_model.json").read_text("utf-8"))["trained_on"].get("C", C)
    print(f"{len(rows)} labelled memories in {len({r['session'] for r in rows})} sessions "
          f"({len(usable)} reach G004; the rest the gates drop first)")
    if a.cv:
        from sklearn.model_selection import GroupKFold
        scores: list[float | None] = [None] * len(rows)
        index = [i for i, r in enumerate(rows) if r["features"] is not None]
        groups = [rows[i]["session"] for i in index]
        for train, test in GroupKFold(n_splits=FOLDS).split(index, groups=groups):
            model = fit([rows[index[k]] for k in train], shipped_c)
            for k, s in zip(test, predict(model, [rows[index[k]] for k in test])):
                scores[index[k]] = s
        warn_at = a.warn_at if a.warn_at is not None else ValueModel.Options().warn_at
        band = [r for r, s in zip(rows, scores) if s is not None and warn_at <= s < drop_at]
        print(f"cross-validated by session ({FOLDS} folds, C={shipped_c}), drop_at {drop_at}; warned (from {warn_at}): "
              f"{len(band)} memories, {sum(r['junk'] for r in band)} junk, {sum(r['good'] for r in band)} good:")
        for name in sorted({r["set"] for r in rows}) + ["all"]:
            pick = [i for i, r in enumerate(rows) if name in ("all", r["set"])]
            print(f"  {name:6} {figures([rows[i] for i in pick], [scores[i] for i in pick], drop_at)}")
    if a.hold_out:
        held = set(a.hold_out.split(","))
        missing = held - {r["session"] for r in rows}
        if missing:
            print(f"unknown sessions: {sorted(missing)}", file=sys.stderr)
            return 2
        model = fit([r for r in usable if r["session"] not in held], shipped_c)
        test = [r for r in rows if r["session"] in held]
        print(f"held out {len(held)} sessions, drop_at {drop_at}: {figures(test, predict(model, test), drop_at)}")
    if a.write:
        import sklearn
        for c in C_GRID:
            model = fit(usable, c)
            misses = dev_misses(model)
            print(f"C={c}: dev corpus {'exact' if not misses else 'not exact: ' + ', '.join(misses)}")
            if not misses:
                break
        else:
            print("no C of the grid keeps the dev corpus exact", file=sys.stderr)
            return 1
        model["trained_on"] = {"memories": len(usable), "sessions": len({r["session"] for r in usable}),
                               "sets": sorted({r["set"] for r in usable}), "C": c,
                               "class_weight": "balanced", "scikit_learn": sklearn.__version__}
        out = ROOT / "rules" / "value_model.json"
        out.write_text(json.dumps(model, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {out.relative_to(ROOT)} ({len(model['weights'])} weights)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
