"""G004's shipped model: small, well-formed, deterministic, and what the training script makes.

The rule's behaviour is in tests/rules/G004.yaml; this file checks the model
itself: the weights name only features the feature function can produce,
they stay far below the 5 MB budget, and retraining on the labelled sets
gives the shipped weights back (so nobody edits them by hand).
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
from pathlib import Path

import pytest

from memvet.rules import value_model

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "rules" / "value_model.json"
#: Every feature name ``features()`` can produce (prefix patterns and plain names).
FEATURE = re.compile(r"(?:type|md|cites):.+|src_(?:writes|reads|commit|tests|errors)|no_user_src|no_user_in_batch|prio|len|digits"
                     r"|paths|backticks|nsrc")


def _train_script():
    spec = importlib.util.spec_from_file_location("train_value_model", ROOT / "scripts" / "train_value_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_weights_are_small_and_well_formed():
    assert SHIPPED.stat().st_size < 5 * 1024 * 1024
    model = value_model.weights()
    assert isinstance(model["intercept"], float)
    unknown = [name for name in model["weights"] if not FEATURE.fullmatch(name)]
    assert not unknown, f"weights for features features() never produces: {unknown}"
    assert model["trained_on"]["memories"] > 1000


def test_the_score_is_a_probability_and_names_its_parts_in_a_fixed_order():
    model = {"intercept": -1.0, "weights": {"prio": -2.0, "type:work_fact": 1.0, "paths": 1.0}}
    f = {"type:work_fact": 1.0, "prio": -1.0, "paths": 1.0, "unknown": 5.0}
    assert value_model.score(f, model) == pytest.approx(1 / (1 + math.exp(-3.0)))
    assert value_model.contributions(f, model) == [(2.0, "prio"), (1.0, "paths"), (1.0, "type:work_fact")]


@pytest.mark.slow
def test_retraining_gives_the_shipped_weights():
    if not (ROOT.parent / "shared" / "corpus" / "real" / "labels").is_dir():
        pytest.fail("../shared/corpus/real is missing: the shipped model was trained with it")
    script = _train_script()
    rows = [r for r in script.collect() if r["features"] is not None]
    shipped = json.loads(SHIPPED.read_text("utf-8"))
    # --write ships the first C of the grid that keeps the dev corpus exact; its weights must be those.
    assert shipped["trained_on"]["C"] in script.C_GRID
    trained = script.fit(rows, shipped["trained_on"]["C"])
    assert trained["intercept"] == pytest.approx(shipped["intercept"], abs=1e-3)
    assert trained["weights"].keys() == shipped["weights"].keys()
    drift = {k: (trained["weights"][k], w) for k, w in shipped["weights"].items()
             if abs(trained["weights"][k] - w) > 1e-3}
    assert not drift, f"retrained weights differ from the shipped ones: {dict(list(drift.items())[:5])}"
    assert shipped["trained_on"]["memories"] == len(rows)
