"""Hypothesis properties of the whole pipeline (strategies: memvet.testing.strategies)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import memvet
from memvet.contract import validator
from memvet.models import accepts
from memvet.testing.strategies import (MUTATIONS, batch_contexts, contract_like_outputs, json_values,
                                       mutated_pairs, valid_pairs)

from conftest import REPO

EXAMPLE_CONTEXT = json.loads((REPO / "examples" / "context.json").read_text("utf-8"))
STRUCTURAL = ("S", "I", "T")


def structural_rejects(report: memvet.Report) -> set[tuple[str, str]]:
    return {(v.code, v.path) for v in report.violations if v.action == "reject" and v.code.startswith(STRUCTURAL)}


def _show(context, output, report) -> None:
    note(f"context: {json.dumps(context, ensure_ascii=False)}")
    note(f"output: {json.dumps(output, ensure_ascii=False)}")
    note(f"violations: {[(v.code, v.path, v.message) for v in report.violations]}")


# --- never raises --------------------------------------------------------------

@given(json_values())
def test_validate_never_raises_on_any_json_value(value):
    report = memvet.validate(value, EXAMPLE_CONTEXT)
    json.loads(report.to_json())  # the report itself is always valid JSON
    assert report.ok == (not any(v.action == "reject" for v in report.violations))


@given(json_values())
def test_validate_never_raises_on_any_json_text(value):
    report = memvet.validate(json.dumps(value, ensure_ascii=False), EXAMPLE_CONTEXT)
    json.loads(report.to_json())


@given(st.text(max_size=300))
def test_validate_never_raises_on_any_text(text):
    report = memvet.validate(text, EXAMPLE_CONTEXT)
    if not text.strip():
        assert report.codes() == ["S001"]


@given(st.text(alphabet='[]{}",:0123456789 \n\tabcnulrtefs\\`', max_size=200))
def test_validate_never_raises_on_json_shaped_text(text):
    # Brackets, quotes and commas in every order: the lenient repair pass must cope.
    memvet.validate(text, EXAMPLE_CONTEXT)


@given(batch_contexts(), json_values(12))
def test_validate_never_raises_on_generated_contexts(context, value):
    memvet.validate(value, context)


# --- valid pairs pass the contract and the id rules --------------------------------

@given(valid_pairs())
def test_valid_pair_has_no_structural_reject(pair):
    context, output = pair
    report = memvet.validate(output, context)
    _show(context, output, report)
    assert structural_rejects(report) == set()


@given(valid_pairs())
def test_valid_pair_crashes_no_rule(pair):
    context, output = pair
    report = memvet.validate(output, context)
    _show(context, output, report)
    assert [v.message for v in report.violations if v.code == "E001"] == []


@given(valid_pairs())
def test_valid_pair_as_raw_text_gives_the_same_report(pair):
    context, output = pair
    parsed = memvet.validate(output, context).to_json()
    text = json.dumps(output, ensure_ascii=False, indent=1)
    raw = json.loads(memvet.validate(text, context).to_json())
    # Only the text has lines: each violation is placed in it, the rest is the same report.
    for v in raw["violations"]:
        assert v["line"] is not None and 1 <= v["line"] <= text.count("\n") + 1
        v["line"] = v["column"] = None
    assert raw == json.loads(parsed)


# --- each mutation gives exactly its code at its pointer ------------------------------

@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_mutation_yields_exactly_the_expected_violation(kind):
    @settings(max_examples=40)
    @given(mutated_pairs(kind))
    def check(m):
        report = memvet.validate(m.output, m.context)
        _show(m.context, m.output, report)
        note(f"expected: {m.expected}")
        assert m.expected, "a mutation always expects something"
        assert structural_rejects(report) == set(m.expected)

    check()


@given(mutated_pairs("lookalike_id"))
def test_lookalike_is_not_also_unknown(m):
    report = memvet.validate(m.output, m.context)
    lookalike_paths = {p for _, p in m.expected}
    assert not [(v.code, v.path) for v in report.violations
                if v.code in ("I001", "I002") and v.path in lookalike_paths]


# --- the two contract validators agree ---------------------------------------------

def _typed_models_accept(doc) -> bool:
    from memvet.models import Output

    try:
        Output.validate_python(doc)
    except Exception:
        return False
    return True


@given(contract_like_outputs())
def test_pydantic_models_and_json_schema_accept_the_same_documents(doc):
    note(json.dumps(doc, ensure_ascii=False))
    # accepts() runs the dict twins of the typed models: all three must agree.
    assert accepts(doc) == validator().is_valid(doc) == _typed_models_accept(doc)


@given(valid_pairs(min_scenes=1))
def test_generated_valid_outputs_satisfy_both_validators(pair):
    _, output = pair
    assert accepts(output) and validator().is_valid(output)
